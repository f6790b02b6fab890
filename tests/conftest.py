"""Suite-wide checks: in CI the oracle wheels must be importable, so oracle tests never skip silently."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ORACLES = ("openvino", "onnx", "onnxruntime")


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to run in CI (CI=true) without the test extra's OpenVINO, onnx and onnxruntime."""
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        missing = [name for name in ORACLES if importlib.util.find_spec(name) is None]
        if missing:
            raise pytest.UsageError(f"CI runs the oracle tests, but {', '.join(missing)} is not installed: "
                                    "pip install -e '.[test]'")


def oracle_versions() -> str:
    """``openvino 2026.4.1, onnx 1.23.2, onnxruntime 1.31.1``: the installed oracles (or 'missing')."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in ORACLES:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} missing")
    return ", ".join(found)


def pytest_report_header(config: pytest.Config) -> str:
    """Name the oracle versions at the top of every run."""
    return f"oracles: {oracle_versions()}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """A failing oracle test says which versions of the other tools it described, so a failure after an
    upgrade reads as "openvino X changed", not as a bug of ours."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and item.get_closest_marker("oracle") is not None:
        report.sections.append(("oracle versions", f"this test describes the behaviour of {oracle_versions()}"))


@pytest.fixture(autouse=True)
def _bodies_cut_as_one_parse_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file a test reads through the reader's body cutter (bodies nested past libxml2's 256 levels) is
    also parsed in one go with the depth limit raised, and the two trees must agree element for element."""
    import irgraph.io.xml.reader as reader
    from tests.helpers import assert_detached_as_one_parse

    cut = reader.detach_bodies

    def checked(data: bytes, where: object) -> tuple:
        root, bodies = cut(data, where)
        assert_detached_as_one_parse(data, root, bodies)
        return root, bodies

    monkeypatch.setattr(reader, "detach_bodies", checked)


@pytest.fixture(scope="session")
def real_networks_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the seeded zoo networks (tests/real_networks.py) and their conversions, shared by every test
    module that uses them: each seeded file and each IR is written once a session (ResNet-50's alone is ~100 MB)."""
    return tmp_path_factory.mktemp("real-networks")
