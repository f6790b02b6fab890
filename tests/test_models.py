"""The committed model corpus (tests/data/models, made by make_models.py with PyTorch 2.14.1, transformers
4.57.6 and OpenVINO 2026.4.1's PyTorch and ONNX frontends): transformers, recurrent networks and a detector
as users export them. Each one re-writes byte for byte, validates without errors, and runs in irgraph with
the outputs of OpenVINO 2026.4.1's CPU plugin (f32 inference precision)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir

MODELS = Path(__file__).resolve().parent / "data" / "models"
NAMES = sorted(path.parent.name for path in MODELS.glob("*/model.xml"))
TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}
"""float32 networks of a few layers: summation order differs (BLAS vs OpenVINO's kernels)."""


def inputs_of(name: str, seed: int = 0) -> dict[str, np.ndarray]:
    """The inputs inputs.json describes, from a seeded generator."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for input_name, spec in json.loads((MODELS / name / "inputs.json").read_text()).items():
        if np.dtype(spec["dtype"]).kind in "iu":
            feeds[input_name] = rng.integers(spec["low"], spec["high"], spec["shape"]).astype(spec["dtype"])
        else:
            feeds[input_name] = rng.uniform(spec["low"], spec["high"], spec["shape"]).astype(spec["dtype"])
    return feeds


def test_the_corpus_is_there():
    assert {"bert-tiny", "gpt2-tiny", "lstm", "yolo-tiny"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_models_rewrite_byte_identical_and_validate(tmp_path, name):
    xml = MODELS / name / "model.xml"
    assert [str(d) for d in ir.validate_file(xml) if d.is_error] == []
    ir.write_model(ir.read_model(xml), tmp_path / "copy.xml")
    assert (tmp_path / "copy.xml").read_bytes() == xml.read_bytes()
    assert (tmp_path / "copy.bin").read_bytes() == xml.with_suffix(".bin").read_bytes()


@pytest.mark.oracle
@pytest.mark.parametrize("name", NAMES)
def test_models_run_as_openvino_2026_4_1_cpu_runs_them(name):
    import openvino as ov

    xml = MODELS / name / "model.xml"
    feeds = inputs_of(name)
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    theirs = request.infer(feeds)
    ours = ir.Interpreter(ir.read_model(xml)).run(feeds)
    assert len(ours) == len(compiled.outputs)
    for output, (key, value) in zip(compiled.outputs, ours.items(), strict=True):
        expected = theirs[output]
        assert value.shape == expected.shape, key
        np.testing.assert_allclose(value, expected, **TOLERANCE, err_msg=key)


@pytest.mark.oracle
def test_the_stateful_gpt2_generates_as_openvino_2026_4_1_cpu_does():
    """Four decoding steps of the KV-cache model (each appends to every layer's cache variables), a reset, and
    one step again: logits and every variable equal OpenVINO's CPU plugin's within the tolerance."""
    import openvino as ov

    xml = MODELS / "gpt2-tiny-stateful" / "model.xml"
    request = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()
    interpreter = ir.Interpreter(ir.read_model(xml))
    rng = np.random.default_rng(3)
    for step in range(5):
        if step == 4:
            request.reset_state()
            interpreter.reset_state()
        feeds = {"input_ids": rng.integers(0, 100, (1, 1 if step else 3), dtype=np.int64)}
        theirs = request.infer(feeds)
        (logits,) = interpreter.run(feeds).values()
        np.testing.assert_allclose(logits, theirs[request.model_outputs[0]], **TOLERANCE, err_msg=f"step {step}")
        states = request.query_state()
        assert len(states) == 4, [state.name for state in states]  # a key and a value cache for each of 2 layers
        for state in states:
            np.testing.assert_allclose(interpreter.get_state(state.name), state.state.data, **TOLERANCE,
                                       err_msg=f"{state.name} at step {step}")


@pytest.mark.oracle
def test_ir_run_compares_a_transformer_with_openvino_layer_by_layer(tmp_path, capsys):
    """The corpus through the command line: ir-run --compare-with openvino on BERT (every marked tensor) agrees,
    and --steps runs the stateful GPT-2's KV cache three times."""
    from irgraph.cli import ir_run

    np.savez(tmp_path / "bert.npz", **inputs_of("bert-tiny"))
    bert = str(MODELS / "bert-tiny" / "model.xml")
    assert ir_run.main([bert, "--inputs", str(tmp_path / "bert.npz"), "--compare-with", "openvino", "--mark", "all",
                        "--atol", "1e-4", "--rtol", "1e-3"]) == 0
    capsys.readouterr()
    np.savez(tmp_path / "gpt2.npz", input_ids=np.array([[5]], np.int64))
    gpt2 = str(MODELS / "gpt2-tiny-stateful" / "model.xml")
    assert ir_run.main([gpt2, "--inputs", str(tmp_path / "gpt2.npz"), "--steps", "3", "--output",
                        str(tmp_path / "out.npz")]) == 0
    with np.load(tmp_path / "out.npz") as saved:
        assert sorted(saved) == ["step1/logits", "step2/logits", "step3/logits"]
        assert not np.array_equal(saved["step1/logits"], saved["step3/logits"])  # the cache grew in between
