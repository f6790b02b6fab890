"""An LSTM model end to end: an ONNX LSTM (made with onnx.helper) converted by openvino 2026.4.1's
convert_model into an IR with LSTMSequence-5, saved, then read and run by irgraph (API and ``ir-run``)
and compared with OpenVINO's CPU plugin; irgraph's re-written IR runs in OpenVINO with the same results."""

from __future__ import annotations

import re

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto, helper

import irgraph as ir
from irgraph.cli import ir_run

BATCH, STEPS, INPUT, HIDDEN = 3, 5, 4, 6


def onnx_lstm(direction: str, dynamic: bool = False) -> onnx.ModelProto:
    """X [steps, batch, input] (ONNX's layout), sequence_lens, initial h and c as inputs; W, R, B
    initializers. ``dynamic``: steps and batch symbolic (the IR's Parameters get dynamic dims)."""
    rng = np.random.default_rng(11)
    dirs = 2 if direction == "bidirectional" else 1
    scale = 1 / np.sqrt(HIDDEN)
    initializers = [
        helper.make_tensor("W", TensorProto.FLOAT, [dirs, 4 * HIDDEN, INPUT],
                           (rng.uniform(-1, 1, (dirs, 4 * HIDDEN, INPUT)) * scale).astype(np.float32).ravel()),
        helper.make_tensor("R", TensorProto.FLOAT, [dirs, 4 * HIDDEN, HIDDEN],
                           (rng.uniform(-1, 1, (dirs, 4 * HIDDEN, HIDDEN)) * scale).astype(np.float32).ravel()),
        helper.make_tensor("B", TensorProto.FLOAT, [dirs, 8 * HIDDEN],
                           rng.uniform(-0.5, 0.5, (dirs, 8 * HIDDEN)).astype(np.float32).ravel()),
    ]
    node = helper.make_node("LSTM", ["X", "W", "R", "B", "seq_lens", "h0", "c0"], ["Y", "Y_h", "Y_c"],
                            hidden_size=HIDDEN, direction=direction)
    steps, batch = ("T", "N") if dynamic else (STEPS, BATCH)
    graph = helper.make_graph(
        [node], "lstm",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [steps, batch, INPUT]),
         helper.make_tensor_value_info("seq_lens", TensorProto.INT32, [batch]),
         helper.make_tensor_value_info("h0", TensorProto.FLOAT, [dirs, batch, HIDDEN]),
         helper.make_tensor_value_info("c0", TensorProto.FLOAT, [dirs, batch, HIDDEN])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [steps, dirs, batch, HIDDEN]),
         helper.make_tensor_value_info("Y_h", TensorProto.FLOAT, [dirs, batch, HIDDEN]),
         helper.make_tensor_value_info("Y_c", TensorProto.FLOAT, [dirs, batch, HIDDEN])],
        initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def feeds(direction: str, full: bool = False) -> dict[str, np.ndarray]:
    """Inputs; sequence lengths 5, 2, 4 (``full``: all 5, see test_the_cpu_plugin_ignores_seq_lens_when_dynamic)."""
    rng = np.random.default_rng(7)
    dirs = 2 if direction == "bidirectional" else 1
    return {"X": rng.uniform(-1, 1, (STEPS, BATCH, INPUT)).astype(np.float32),
            "seq_lens": np.array([5, 5, 5] if full else [5, 2, 4], np.int32),
            "h0": rng.uniform(-1, 1, (dirs, BATCH, HIDDEN)).astype(np.float32),
            "c0": rng.uniform(-1, 1, (dirs, BATCH, HIDDEN)).astype(np.float32)}


def openvino_cpu(xml, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    results = compiled(inputs)
    return {next(iter(port.get_names())): np.asarray(results[port]) for port in compiled.outputs}


@pytest.fixture(params=[("forward", False), ("reverse", False), ("bidirectional", False), ("bidirectional", True)],
                ids=["forward", "reverse", "bidirectional", "bidirectional-dynamic"])
def converted(request, tmp_path):
    """The ONNX LSTM converted and saved by OpenVINO (f32 weights): (xml path, direction, dynamic)."""
    onnx_path = tmp_path / "lstm.onnx"
    direction, dynamic = request.param
    onnx.save(onnx_lstm(direction, dynamic), onnx_path)
    xml = tmp_path / "model.xml"
    ov.save_model(ov.convert_model(onnx_path), xml, compress_to_fp16=False)
    if dynamic:
        assert '<data shape="?,?,4" element_type="f32"' in xml.read_text()
    return xml, direction, dynamic


def test_openvino_converts_the_onnx_lstm_to_lstm_sequence_5_which_irgraph_validates(converted):
    xml, _, _ = converted
    assert re.findall(r'type="(LSTM\w*)" version="(\w+)"', xml.read_text()) == [("LSTMSequence", "opset5")]
    assert ir.validate(ir.read_model(xml)) == []  # every layer checked: no unchecked-op note either


def test_irgraph_runs_the_converted_model_as_openvino_cpu(converted):
    xml, direction, dynamic = converted
    inputs = feeds(direction, full=dynamic)
    expected = openvino_cpu(xml, inputs)
    got = ir.run(ir.read_model(xml), inputs)
    assert sorted(got) == sorted(expected) == ["Y", "Y_c", "Y_h"]
    for name, value in expected.items():
        np.testing.assert_allclose(got[name], value, rtol=0, atol=64 * np.finfo(np.float32).eps, err_msg=name)
    y = got["Y"]  # ONNX layout [steps, dirs, batch, hidden]: batch 1 (length 2) is zero from step 2 on
    if not dynamic:
        assert np.all(y[2:, :, 1] == 0) and np.all(y[4:, :, 2] == 0) and np.all(y[:2, :, 1] != 0)


def test_ir_run_matches_openvino_cpu(converted, tmp_path, capsys):
    xml, direction, dynamic = converted
    inputs = feeds(direction, full=dynamic)
    np.savez(tmp_path / "in.npz", **inputs)
    expected = openvino_cpu(xml, inputs)
    np.savez(tmp_path / "expected.npz", **expected)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz"),
                        "--compare", str(tmp_path / "expected.npz"), "--atol", "1e-5", "--rtol", "0"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    with np.load(tmp_path / "out.npz") as written:
        assert sorted(written.files) == ["Y", "Y_c", "Y_h"]


def test_rewritten_model_runs_in_openvino_with_the_same_results(converted, tmp_path):
    xml, direction, dynamic = converted
    rewritten = tmp_path / "rewritten.xml"
    ir.write_model(ir.read_model(xml), rewritten)
    original_layer = re.search(r'<layer[^>]*type="LSTMSequence".*?<data [^>]*/>', xml.read_text(), re.S)
    rewritten_layer = re.search(r'<layer[^>]*type="LSTMSequence".*?<data [^>]*/>', rewritten.read_text(), re.S)
    assert original_layer and rewritten_layer
    assert re.search(r"<data [^>]*/>", rewritten_layer.group()).group() == \
        re.search(r"<data [^>]*/>", original_layer.group()).group()
    inputs = feeds(direction, full=dynamic)
    expected, again = openvino_cpu(xml, inputs), openvino_cpu(rewritten, inputs)
    for name, value in expected.items():
        np.testing.assert_array_equal(again[name], value, err_msg=name)


def test_the_cpu_plugin_ignores_seq_lens_when_dynamic(tmp_path):
    """openvino 2026.4.1's CPU plugin honours sequence lengths on static shapes only: with dynamic dims it
    runs every sequence to the end (its result is irgraph's for lengths 5, 5, 5). irgraph keeps to the
    lengths either way, as the plugin's static path and OpenVINO's reference (sequences.hpp) do."""
    onnx.save(onnx_lstm("reverse", dynamic=True), tmp_path / "lstm.onnx")
    xml = tmp_path / "model.xml"
    ov.save_model(ov.convert_model(tmp_path / "lstm.onnx"), xml, compress_to_fp16=False)
    on_cpu = openvino_cpu(xml, feeds("reverse"))
    model = ir.read_model(xml)
    np.testing.assert_allclose(on_cpu["Y"], ir.run(model, feeds("reverse", full=True))["Y"], atol=1e-5)
    assert np.all(ir.run(model, feeds("reverse"))["Y"][2:, :, 1] == 0) and np.all(on_cpu["Y"][2:, :, 1] != 0)
