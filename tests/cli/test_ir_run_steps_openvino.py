"""ir-run --compare-with openvino on stateful models, step by step: outputs, marked tensors and every variable
after each step, against openvino 2026.4.1's CPU plugin (one infer request, InferRequest.query_state)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.graph import OutputPort
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.runtime.state import step_key
from tests.runtime.test_state import assign, kv_model, read_value

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(importlib.util.find_spec("openvino") is None,
                                 reason="the test extra installs openvino")]

GPT2 = Path(__file__).resolve().parents[1] / "data" / "models" / "gpt2-tiny-stateful" / "model.xml"
VARIABLES = ["past.0.keypresent.0.key", "past.0.valuepresent.0.value", "past.1.keypresent.1.key",
             "past.1.valuepresent.1.value"]
REFERENCE = "openvino 2026.4.1 (CPU, f32)"


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_run.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def generate(prompt: list[int], steps: int) -> dict[str, np.ndarray]:
    """A greedy generate loop with irgraph: the prompt, then each step's most likely next token."""
    runner = ir.Interpreter(ir.read_model(GPT2))
    tokens = np.array([prompt], np.int64)
    feeds = {}
    for number in range(1, steps + 1):
        feeds[step_key(number, "input_ids")] = tokens
        logits = next(iter(runner.run({"input_ids": tokens}).values()))
        tokens = np.array([[int(np.argmax(logits[0, -1]))]], np.int64)
    return feeds


def test_a_generate_loop_compares_every_step_and_variable_with_openvino(capsys, tmp_path):
    np.savez(tmp_path / "tokens.npz", **generate([5, 7, 11], 3))
    code, out, err = run(capsys, GPT2, "--inputs", tmp_path / "tokens.npz", "--compare-with", "openvino", "--json",
                         "--output", tmp_path / "out.npz")
    assert code == 0, err
    report = json.loads(out)["compare_with"]
    assert report["reference"] == REFERENCE and report["passed"] and report["steps"] == 3
    assert report["first_divergent_step"] is None
    for number, step in enumerate(report["per_step"], 1):
        assert step["step"] == number and step["passed"]
        compared = {tensor["key"]: tensor for tensor in step["tensors"]}
        assert sorted(compared) == sorted(["logits", *(f"variable:{name}" for name in VARIABLES)])
        for name in VARIABLES:  # the KV cache after step K holds the 3 prompt tokens and K - 1 more
            variable = compared[f"variable:{name}"]
            assert variable["layer"].startswith("Assign_") and variable["comparison"]["passed"]
            assert variable["comparison"]["size"] == 1 * 2 * (2 + number) * 16  # [1, heads, tokens, 16]
    with np.load(tmp_path / "out.npz") as saved, np.load(tmp_path / "tokens.npz") as tokens:
        assert list(saved) == ["step1/logits", "step2/logits", "step3/logits"]
        for number in (1, 2):  # irgraph's logits chose the next step's token, as the generate loop did
            assert np.argmax(saved[f"step{number}/logits"][0, -1]) == tokens[f"step{number + 1}/input_ids"][0, 0]
    code, out, err = run(capsys, GPT2, "--inputs", tmp_path / "tokens.npz", "--compare-with", "openvino")
    assert code == 0, err
    lines = out.splitlines()
    assert f"compare with {REFERENCE} step by step" in out and "3 steps; outputs, marked tensors and 4 variables" in out
    assert [line.split(":")[0] for line in lines if line.startswith("step ")] == ["step 1", "step 2", "step 3"]
    assert lines[-1] == f"every compared tensor and variable of 3 steps matches {REFERENCE}"


def test_mark_all_on_a_stateful_llm_compares_what_openvino_exposes(capsys):
    """OpenVINO 2026.4.1's CPU plugin refuses a model with an Assign among its outputs ("Incorrect output port
    number"): the Assigns are not asked for, their marked outputs are compared with the variables they wrote."""
    code, out, err = run(capsys, GPT2, "--shape", "[1,4]", "--compare-with", "openvino", "--mark", "all", "--json")
    assert code == 0, err
    report = json.loads(out)["compare_with"]
    assert report["passed"] and report["not_compared"] == 0
    assigns = [tensor for tensor in report["tensors"] if tensor["type"] == "Assign"]
    assert len(assigns) == 8  # each Assign's marked output and its variable
    assert sorted(t["reference_name"] for t in assigns) == sorted(2 * [f"variable:{name}" for name in VARIABLES])
    code, out, err = run(capsys, GPT2, "--shape", "[1,2]", "--steps", 2, "--compare-with", "openvino", "--mark",
                         "all", "--json")
    assert code == 0, err
    steps = json.loads(out)["compare_with"]["per_step"]
    assert [step["not_compared"] for step in steps] == [0, 0]
    assert steps[0]["compared"] == steps[1]["compared"] > 100


def squaring_reference(tmp_path: Path) -> Path:
    """kv_model, but the value written is Concat(cache, x * x): equal to irgraph's while x is 1."""
    model = ir.Model("kv")
    x = model.parameter("x", [1, 2, 4])
    cache = read_value(model, "kv", model.const(np.zeros((1, 0, 4), np.float32)), "1,?,4", name="past")
    joined = model.concat([cache, x], axis=1, name="joined")
    squared = OutputPort(model.add_node(Multiply(), "square", [x, x]).id, 0)
    assign(model, "kv", model.concat([cache, squared], axis=1), name="save")
    model.result(joined, name="present")
    ir.write_model(model, tmp_path / "reference.xml")
    return tmp_path / "reference.xml"


def test_the_first_step_and_layer_that_diverge_are_named(capsys, tmp_path):
    ir.write_model(kv_model(), tmp_path / "kv.xml")
    reference = squaring_reference(tmp_path)
    np.savez(tmp_path / "steps.npz", **{step_key(number, "x"): np.full((1, 2, 4), number, np.float32)
                                        for number in (1, 2, 3)})
    argv = [tmp_path / "kv.xml", "--inputs", tmp_path / "steps.npz", "--compare-with", "openvino",
            "--reference-model", reference]
    code, out, err = run(capsys, *argv)
    assert code == 1
    assert err.splitlines()[-1] == (
        f"error: {tmp_path / 'kv.xml'}:63: step 2 of 3: layer 'save' (Assign) is the first whose output differs from "
        f"{REFERENCE}: output 0 (variable:kv): 8 of 16 elements differ beyond the tolerance; first at flat index 8: "
        "2 vs 4")  # step 2 writes [1, 1, 2, 2] where the reference writes [1, 1, 4, 4]
    assert "first divergent step: 2 of 3" in out
    lines = out.splitlines()
    assert lines[lines.index("first divergent step: 2 of 3") + 1].startswith("first divergent layer: 'save' (Assign")
    code, out, _ = run(capsys, *argv, "--json")
    report = json.loads(out)["compare_with"]
    assert report["first_divergent_step"] == 2
    assert report["first_divergence"]["key"] == "variable:kv" and report["first_divergence"]["step"] == 2
    assert [step["passed"] for step in report["per_step"]] == [True, False, False]
    step3 = {tensor["key"]: tensor["comparison"]["passed"] for tensor in report["per_step"][2]["tensors"]}
    assert step3 == {"present": False, "variable:kv": False}  # the cache read in step 3 differs: the output too


def test_profiling_a_stateful_model_warms_up_without_advancing_its_variables(capsys, tmp_path):
    """PERF_COUNT's warm-up run is on a request of its own: the compared request runs each step once (a second
    run on it would append the tokens to the KV cache twice, and step 2 would differ)."""
    np.savez(tmp_path / "tokens.npz", **generate([5, 7], 2))
    code, out, err = run(capsys, GPT2, "--inputs", tmp_path / "tokens.npz", "--compare-with", "openvino", "--profile",
                         "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["compare_with"]["passed"] and summary["compare_with"]["steps"] == 2
    assert summary["profile"]["runs"] == 2 and summary["profile"]["openvino"]["matched"] > 0
