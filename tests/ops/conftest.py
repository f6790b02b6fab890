"""Op tests: every configuration check_op computes is judged by an oracle, or listed with its reason in
tests/ops/unjudged.txt (see differential.ORACLES); the session ends with the count per oracle."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.ops import differential


@pytest.fixture(autouse=True)
def _name_the_configurations(request: pytest.FixtureRequest) -> Iterator[None]:
    """Configurations no oracle judges are named by their test in the session summary."""
    differential.CURRENT_TEST = request.node.nodeid
    yield
    differential.CURRENT_TEST = None


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    """How many configurations each oracle judged; the unjudged ones no list names."""
    tally = differential.TALLY
    if not tally:
        return
    terminalreporter.section("op configurations judged, per oracle")
    width = max(len(name) for name in differential.ORACLES)
    for name in differential.ORACLES:
        terminalreporter.write_line(f"{name:<{width}}  {tally.get(name, 0)}")
    terminalreporter.write_line(f"{'total':<{width}}  {sum(tally.values())}")
    for key in dict.fromkeys(differential.UNLISTED):
        terminalreporter.write_line(f"unjudged, not in {differential.UNJUDGED_FILE.name}: {key}", red=True)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A configuration no oracle judged fails its test already; the session fails with it even where that
    test's failure was swallowed (an xfail, a caught AssertionError)."""
    if differential.UNLISTED and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
