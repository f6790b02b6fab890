"""Suite-wide checks: in CI the oracle wheels must be importable, so oracle tests never skip silently."""

from __future__ import annotations

import importlib.util
import os

import pytest

ORACLES = ("openvino", "onnx", "onnxruntime")


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to run in CI (CI=true) without the test extra's OpenVINO, onnx and onnxruntime."""
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        missing = [name for name in ORACLES if importlib.util.find_spec(name) is None]
        if missing:
            raise pytest.UsageError(f"CI runs the oracle tests, but {', '.join(missing)} is not installed: "
                                    "pip install -e '.[test]'")
