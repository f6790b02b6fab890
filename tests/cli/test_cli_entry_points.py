"""Each CLI module runs as a script (python -m irgraph.cli.NAME), prints the usage before a usage error and exits 2;
ir-info names a Result's model output and sorts DOT edges by source, then target."""

from __future__ import annotations

import runpy
import warnings

import pytest

import irgraph as ir
from irgraph.cli import ir_info
from irgraph.graph import InputPort, OutputPort
from irgraph.ops import Result
from tests.cli.helpers import SAMPLES

SCRIPTS = {"ir_convert": "ir-convert", "ir_diff": "ir-diff", "ir_extract": "ir-extract", "ir_info": "ir-info",
           "ir_run": "ir-run", "ir_validate": "ir-validate"}


@pytest.mark.parametrize("module", sorted(SCRIPTS))
def test_a_cli_module_run_as_a_script_prints_its_usage_and_exits_2(module: str, monkeypatch, capsys) -> None:
    monkeypatch.setattr("sys.argv", [SCRIPTS[module]])
    with warnings.catch_warnings(), pytest.raises(SystemExit) as exited:
        warnings.simplefilter("ignore", RuntimeWarning)  # runpy: the module was imported before, as a test does
        runpy.run_module(f"irgraph.cli.{module}", run_name="__main__")
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert err.startswith(f"usage: {SCRIPTS[module]} ")
    assert err.splitlines()[-1].startswith("error: ") and err.endswith(f"(see {SCRIPTS[module]} --help)\n")


def test_a_result_layer_names_its_model_output(capsys) -> None:
    assert ir_info.main([str(SAMPLES / "dml-split-axis2" / "model.xml"), "--layer", "output2"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        f"layer 6 'output2' (Result-1) at {SAMPLES / 'dml-split-axis2' / 'model.xml'}:83", "model output 'output2'"]


def test_dot_edges_are_sorted_by_source_then_target() -> None:
    m = ir.Model("fan")
    x = m.parameter("x", [2])
    late = m.add_node(Result(), "late", [], node_id=9, num_inputs=1)
    early = m.add_node(Result(), "early", [], node_id=4, num_inputs=1)
    m.connect(x, InputPort(late.id, 0))  # connected first, sorted last
    m.connect(OutputPort(x.node_id, 0), InputPort(early.id, 0))
    edges = [line.strip() for line in ir_info.to_dot(m).splitlines() if "->" in line]
    assert [edge.split(" [")[0] for edge in edges] == ["n0 -> n4", "n0 -> n9"]
