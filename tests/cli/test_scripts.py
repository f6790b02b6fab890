"""The installed console scripts, run as real processes: exit codes, stdout, stderr, no tracebacks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from tests.cli.helpers import SAMPLES, load

SAMPLE = SAMPLES / "dml-split-axis2"


def script(name: str) -> str:
    """The installed script ``name``: beside this interpreter, else on PATH."""
    for directory in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed; run: pip install -e .")
    return found


def call(name: str, *argv: object) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([script(name), *map(str, argv)], capture_output=True, text=True, timeout=120,
                            stdin=subprocess.DEVNULL)
    assert "Traceback" not in result.stdout + result.stderr
    return result


def test_ir_run_script(tmp_path: Path) -> None:
    out_file = tmp_path / "out.npz"
    result = call("ir-run", SAMPLE / "model.xml", "--inputs", SAMPLE / "inputs.npz", "--output", out_file,
                  "--compare", SAMPLE / "expected.npz")
    assert result.returncode == 0, result.stderr
    assert "3 of 3 outputs match" in result.stdout
    expected = load(SAMPLE / "expected.npz")
    got = load(out_file)
    assert all(np.array_equal(got[k], expected[k]) for k in expected)
    failed = call("ir-run", tmp_path / "nope.xml")
    assert failed.returncode == 2 and failed.stderr.startswith("error: ")


def test_ir_validate_script(tmp_path: Path) -> None:
    result = call("ir-validate", SAMPLE / "model.xml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "valid: 0 errors, 0 warnings" in result.stdout
    broken = tmp_path / "broken.xml"
    broken.write_text("<net")
    result = call("ir-validate", broken)
    assert result.returncode == 1
    assert f"{broken}:1: error:" in result.stdout


def test_ir_convert_script(tmp_path: Path) -> None:
    result = call("ir-convert", SAMPLE / "model.xml", tmp_path / "copy.xml", "--ir-version", "10")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "copy.xml").exists() and (tmp_path / "copy.bin").exists()
    result = call("ir-convert", SAMPLE / "model.xml", tmp_path / "copy.txt")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "cannot tell the DST format" in result.stderr


def test_ir_info_script() -> None:
    result = call("ir-info", SAMPLE / "model.xml", "--json")
    assert result.returncode == 0, result.stderr
    assert '"ir_version": 11' in result.stdout
    result = call("ir-info", "--help")
    assert result.returncode == 0 and "examples:" in result.stdout


def test_ir_diff_script(tmp_path: Path) -> None:
    model = SAMPLE / "model.xml"
    same = call("ir-diff", model, model)
    assert same.returncode == 0, same.stderr
    other = call("ir-diff", model, SAMPLES / "dml-split-axis3" / "model.xml")
    assert other.returncode == 1, other.stderr
    assert other.stdout


def test_ir_extract_script(tmp_path: Path) -> None:
    import irgraph as ir

    out = tmp_path / "part.xml"
    result = call("ir-extract", SAMPLE / "model.xml", out, "--outputs", "output0")
    assert result.returncode == 0, result.stderr
    assert list(ir.run(ir.read_model(out), {"input": np.zeros((1, 1, 6, 2), np.float32)})) == ["output0"]
