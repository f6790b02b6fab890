"""ir-run --profile (issue 27, item 4): the time of every layer the plan runs, per op type, and OpenVINO's
performance counters beside them. No assertion on how long anything takes: the counts, names and sums are
what must hold."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.runtime import interpreter as interpreter_module
from tests.cli.helpers import REPO

MODELS = REPO / "tests" / "data" / "models"
GPT2 = MODELS / "gpt2-tiny" / "model.xml"


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_run.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def planned(xml) -> list[ir.Node]:
    return ir.Interpreter(ir.read_model(xml)).planned_layers


def test_the_profile_lists_every_layer_the_plan_runs_once_in_run_order(capsys) -> None:
    code, out, err = run(capsys, GPT2, "--shape", "[1,8]", "--profile", "--json")
    assert code == 0, err
    profile = json.loads(out)["profile"]
    layers = planned(GPT2)
    assert profile["layers_run"] == len(layers) == len(profile["layers"]) == 79  # of 160 layers: Consts folded
    assert [(row["step"], row["layer"], row["type"]) for row in profile["layers"]] == [
        (step, node.name, node.type_name) for step, node in enumerate(layers, 1)]
    assert profile["runs"] == 1 and profile["openvino"] is None
    assert all(row["seconds"] >= 0 and row["line"] for row in profile["layers"])
    assert sum(row["seconds"] for row in profile["layers"]) == pytest.approx(profile["seconds"])
    by_type = {row["type"]: row["layers"] for row in profile["by_type"]}
    assert by_type == Counter(node.type_name for node in layers)
    seconds = [row["seconds"] for row in profile["by_type"]]
    assert seconds == sorted(seconds, reverse=True)
    assert sum(row["share"] for row in profile["by_type"]) == pytest.approx(1.0)


def test_the_text_has_a_row_per_layer_the_most_time_first_and_one_per_op_type(capsys) -> None:
    code, out, err = run(capsys, GPT2, "--shape", "[1,8]", "--profile")
    assert code == 0, err
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("profile: 79 layers took "))
    assert lines[start + 1].split() == ["irgraph", "ms", "share", "step", "type", "layer"]
    end = lines.index("by op type:")
    rows = [line.split() for line in lines[start + 2:end - 1]]
    assert len(rows) == 79 and lines[end - 1] == ""
    assert sorted(int(row[2]) for row in rows) == list(range(1, 80))
    times = [float(row[0]) for row in rows]
    assert times == sorted(times, reverse=True)
    types = lines[end + 2:]
    assert lines[end + 1].split() == ["type", "layers", "irgraph", "ms", "share"]
    assert len(types) == len({node.type_name for node in planned(GPT2)})
    assert sum(int(line.split()[1]) for line in types) == 79


def test_every_step_of_a_stateful_model_is_timed(capsys) -> None:
    xml = MODELS / "gpt2-tiny-stateful" / "model.xml"
    code, out, err = run(capsys, xml, "--shape", "[1,4]", "--steps", "3", "--profile", "--json")
    assert code == 0, err
    profile = json.loads(out)["profile"]
    assert profile["runs"] == 3 and len(profile["layers"]) == len(planned(xml))


def test_without_profile_the_interpreter_reads_no_clock(monkeypatch, capsys) -> None:
    def refuse() -> float:
        raise AssertionError("the clock was read with no profile attached")

    monkeypatch.setattr(interpreter_module.time, "perf_counter", refuse)
    runner = ir.Interpreter(ir.read_model(GPT2))
    outputs = runner.run({"input_ids": np.zeros((1, 4), np.int64)})
    assert outputs["Result_871"].shape == (1, 4, 100)


@pytest.mark.oracle
@pytest.mark.skipif(importlib.util.find_spec("openvino") is None, reason="the test extra installs openvino")
def test_openvinos_counters_stand_beside_the_layers_of_the_same_name(capsys) -> None:
    """openvino 2026.4.1's CPU plugin: counters of executed, fused (NOT_RUN) and its own nodes."""
    code, out, err = run(capsys, GPT2, "--shape", "[1,8]", "--profile", "--compare-with", "openvino", "--json")
    assert code == 0, err
    profile = json.loads(out)["profile"]
    assert len(profile["layers"]) == 79
    openvino = profile["openvino"]
    assert openvino["reference"] == "openvino 2026.4.1 (CPU, f32)"
    matched = [row for row in profile["layers"] if row["openvino"] is not None]
    assert len(matched) == openvino["matched"] > 0
    assert all(row["openvino"]["name"] == row["layer"] for row in matched)
    statuses = {row["openvino"]["status"] for row in matched} | {c["status"] for c in openvino["unmatched"]}
    assert statuses <= {"EXECUTED", "NOT_RUN", "OPTIMIZED_OUT"} and "EXECUTED" in statuses
    layer_names = {row["layer"] for row in profile["layers"]}
    assert not any(counter["name"] in layer_names for counter in openvino["unmatched"])
    assert openvino["counters"] >= openvino["matched"] + len(openvino["unmatched"])
    assert sum(row["openvino_seconds"] for row in profile["by_type"]) == pytest.approx(
        sum(row["openvino"]["seconds"] for row in matched))
    code, out, err = run(capsys, GPT2, "--shape", "[1,8]", "--profile", "--compare-with", "openvino")
    assert code == 0, err
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("profile: 79 layers took "))
    assert "; openvino 2026.4.1 (CPU, f32): " in lines[start]
    assert lines[start + 1].split() == ["irgraph", "ms", "share", "openvino", "ms", "kernel", "step", "type", "layer"]
    assert lines.index("by op type:") == start + 2 + 79 + 1
    assert any(line.startswith("openvino's own nodes (named after no layer): ") for line in lines)


@pytest.mark.parametrize(("count", "tail"), [(8, "n7 (Reorder)"), (9, "n7 (Reorder) and 1 more")])
def test_openvinos_own_nodes_are_named_up_to_eight_then_counted(count: int, tail: str) -> None:
    from irgraph.tools.backends import PerfCounter
    from irgraph.tools.profiling import Profile

    profile = Profile(layers=[], reference="openvino 2026.4.1 (CPU, f32)", counters=count,
                      unmatched=[PerfCounter(f"n{i}", "Reorder", "ref_any", "EXECUTED", 0.001) for i in range(count)])
    last = profile.format()[-1]
    assert last.startswith(f"openvino's own nodes (named after no layer): {count}, {count}.000 ms; executed: n0 ")
    assert last.endswith(f"n6 (Reorder), {tail}")
