"""ir-run --mark on models with sub-graph bodies: body tensors per iteration, and the comparison with openvino
2026.4.1, which exposes no tensor inside a body (said once; what it exposes is compared)."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from tests.runtime.test_marking_bodies import V0, squaring_loop


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_run.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_mark_all_saves_every_iterations_body_tensors(capsys, tmp_path):
    ir.write_model(squaring_loop(), tmp_path / "loop.xml")
    np.savez(tmp_path / "in.npz", v0=V0)
    code, out, err = run(capsys, tmp_path / "loop.xml", "--inputs", tmp_path / "in.npz", "--mark", "all",
                         "--output", tmp_path / "out.npz", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert [item["name"] for item in summary["outputs"]] == ["v"]
    assert [item["name"] for item in summary["marked"]] == [
        f"loop/iter{k}/{key}" for k in range(3) for key in ("v_out", "keep", "w:0")]
    with np.load(tmp_path / "out.npz") as saved:
        assert saved["loop/iter1/w:0"].tolist() == [2, 5]


@pytest.mark.oracle
@pytest.mark.skipif(importlib.util.find_spec("openvino") is None, reason="the test extra installs openvino")
def test_openvino_is_compared_where_it_can_be_and_the_bodies_are_named_once(capsys, tmp_path):
    ir.write_model(squaring_loop(), tmp_path / "loop.xml")
    np.savez(tmp_path / "in.npz", v0=V0)
    code, out, err = run(capsys, tmp_path / "loop.xml", "--inputs", tmp_path / "in.npz", "--mark", "all",
                         "--compare-with", "openvino")
    assert code == 0, err
    assert err.count("note: 9 marked tensors are inside sub-graph bodies (Loop, TensorIterator, If; keyed "
                     "LAYER/iterK/... or LAYER/then/...): openvino exposes no tensor of a body, so they are kept "
                     "(--output, --json) but not compared") == 1
    assert "compare with openvino 2026.4.1 (CPU, f32)" in out and "1 tensor compared" in out
    assert out.splitlines()[-1] == "every compared tensor matches openvino 2026.4.1 (CPU, f32)"
    assert "loop/iter2/w:0" in out  # the table lists them, not "each compared below"
