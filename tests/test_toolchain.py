"""The installed test toolchain is the pinned one, so a drifted oracle fails here by name.

The pins live once, in pyproject.toml's ``test`` extra; this reads them back from the installed
package's metadata. To try newer versions on purpose, set ``IRGRAPH_UNPINNED=1`` (docs/testing.md,
"Moving the pins forward"): the check then reports the drift as a skip instead of a failure.
"""

from __future__ import annotations

import os
import re
from importlib import metadata

import pytest

_PIN = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*==\s*([^;\s]+)\s*;\s*extra\s*==\s*[\"']test[\"']")


def pinned_versions() -> dict[str, str]:
    """The ``name==version`` pins of the ``test`` extra, from the installed metadata."""
    pins = {}
    for requirement in metadata.requires("irgraph") or []:
        match = _PIN.match(requirement)
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


PINS = pinned_versions()


def test_every_tool_the_tests_judge_by_is_pinned():
    assert {"openvino", "onnx", "onnxruntime", "pytest", "hypothesis", "ruff"} <= PINS.keys(), PINS


@pytest.mark.parametrize("name", sorted(PINS))
def test_installed_version_is_the_pinned_one(name):
    try:
        installed = metadata.version(name)
    except metadata.PackageNotFoundError:
        pytest.fail(f"{name} is not installed; the test extra pins {name}=={PINS[name]}")
    if installed != PINS[name]:
        message = f"{name} {installed} is installed, the test extra pins {PINS[name]}"
        if os.environ.get("IRGRAPH_UNPINNED"):
            pytest.skip(message + " (IRGRAPH_UNPINNED is set)")
        pytest.fail(message + "; reinstall with the README's test command, or see 'Moving the pins forward' in "
                              "docs/testing.md")
