"""Op tests: a generated test must have its values judged by an oracle at least once (see differential.JUDGED)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.ops import differential


@pytest.fixture(autouse=True)
def _values_judged(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test whose check_op configurations were computed but never compared with OpenVINO's values (no
    folding, no evaluate, no CPU plugin for their types), unless the test compares them itself
    (``@pytest.mark.values_judged_by_the_test``)."""
    differential.CURRENT_TEST = request.node.nodeid
    yield
    differential.CURRENT_TEST = None
    computed, judged = differential.JUDGED.pop(request.node.nodeid, [0, 0])
    call = getattr(request.node, "call_report", None)
    if call is None or not call.passed:  # a failure says more; a skip says why nothing was compared
        return
    if computed and not judged and request.node.get_closest_marker("values_judged_by_the_test") is None:
        pytest.fail(f"none of the {computed} configurations irgraph computed was judged by an oracle: openvino "
                    "neither folds nor evaluates them and the CPU plugin was not run on their types; give the "
                    "test inputs the CPU plugin takes (i32 indices, f32 data), or compare in the test and mark it "
                    "values_judged_by_the_test", pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Keep the call phase's report on the item, for ``_values_judged``."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when == "call":
        item.call_report = report  # type: ignore[attr-defined]
