"""ir-run on stateful models: one run from the initial values, --steps N keeps every step's outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from tests.runtime.test_state import kv_model

X = np.full((1, 2, 4), 3, np.float32)


@pytest.fixture
def kv_files(tmp_path: Path) -> Path:
    path = tmp_path / "kv.xml"
    ir.write_model(kv_model(), path)
    np.savez(tmp_path / "in.npz", x=X)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_run.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_one_run_starts_from_the_initial_values(kv_files, capsys):
    code, out, _ = run(capsys, kv_files, "--inputs", kv_files.parent / "in.npz")
    assert code == 0
    assert out.splitlines()[1].split()[:3] == ["present", "f32", "[1,2,4]"]


def test_steps_keep_every_steps_outputs(kv_files, capsys, tmp_path):
    out_file = tmp_path / "out.npz"
    code, out, _ = run(capsys, kv_files, "--inputs", tmp_path / "in.npz", "--steps", 3, "--output", out_file)
    assert code == 0
    assert [line.split()[:3] for line in out.splitlines()[1:]] == [
        ["step1/present", "f32", "[1,2,4]"], ["step2/present", "f32", "[1,4,4]"], ["step3/present", "f32", "[1,6,4]"]]
    with np.load(out_file) as saved:
        assert list(saved) == ["step1/present", "step2/present", "step3/present"]
        np.testing.assert_array_equal(saved["step3/present"], np.concatenate([X, X, X], axis=1))
    code, out, _ = run(capsys, kv_files, "--inputs", tmp_path / "in.npz", "--steps", 3, "--compare", out_file, "--json")
    summary = json.loads(out)
    assert code == 0 and summary["ok"]
    assert [item["name"] for item in summary["outputs"]] == ["step1/present", "step2/present", "step3/present"]
    code, _, err = run(capsys, kv_files, "--inputs", tmp_path / "in.npz", "--steps", 2, "--compare", out_file)
    assert code == 1 and "step3/present" in err


def test_steps_must_be_positive_and_are_documented(kv_files, capsys):
    code, _, err = run(capsys, kv_files, "--steps", 0)
    assert code == 2 and "error: argument --steps: expected an integer >= 1, got 0" in err
    assert ir_run.main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "stepK/NAME (K = 1..N)" in text and "--steps N" in text


def test_all_steps_count_against_the_element_limit(kv_files, capsys, tmp_path):
    code, _, err = run(capsys, kv_files, "--inputs", tmp_path / "in.npz", "--steps", 3, "--max-elements", 40)
    assert code == 1
    assert "the outputs of steps 1 to 3 have 48 elements together, above the limit of 40" in err
