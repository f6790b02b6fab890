"""ONNX import edges a sample of mutants found untested: the first opset of an activation, AveragePool without
real dilations, Slice-1 without its attributes, a recurrent node without bias, a ConvTranspose output_shape IR
cannot hold, and the explanation of Size. Values are judged by onnxruntime 1.31.1."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import irgraph as ir
from irgraph.core.errors import ConversionError
from tests.io.test_onnx_import_rules_more import init, model, onnxruntime, value


def test_atan_imports_from_opset_7() -> None:
    proto = model([helper.make_node("Atan", ["x"], ["y"])], [value("x", [3])], [value("y")], 7)
    x = np.array([-1.0, 0.0, 1.0], np.float32)
    got = ir.run(ir.convert_onnx(proto), {"x": x})["y"]
    np.testing.assert_allclose(got, onnxruntime(proto, {"x": x})["y"], rtol=1e-6)


def test_average_pool_with_unit_dilations_is_avgpool_1() -> None:
    proto = model([helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], dilations=[1, 1])],
                  [value("x", [1, 1, 3, 3])], [value("y")], 19)
    lines: list[str] = []
    converted = ir.convert_onnx(proto, explain=lines)
    assert [f"{n.type_name}-{n.op.introduced}" for n in converted if n.type_name == "AvgPool"] == ["AvgPool-1"]
    assert not any("AvgPool-16" in line for line in lines)
    x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    np.testing.assert_allclose(ir.run(converted, {"x": x})["y"], onnxruntime(proto, {"x": x})["y"])


def test_slice_1_needs_starts_and_ends() -> None:
    proto = model([helper.make_node("Slice", ["x"], ["y"], starts=[0])], [value("x", [4])], [value("y")], 9)
    with pytest.raises(ConversionError, match="the 'starts' and 'ends' attributes are required"):
        ir.convert_onnx(proto)


def test_an_rnn_without_bias_matches_onnxruntime() -> None:
    w = np.full((1, 2, 1), 0.5, np.float32)
    r = np.array([[[0.1, -0.2], [0.3, 0.4]]], np.float32)
    proto = model([helper.make_node("RNN", ["x", "w", "r"], ["y"], hidden_size=2)], [value("x", [3, 1, 1])],
                  [value("y")], 14, [init("w", w), init("r", r)])
    x = np.array([[[1.0]], [[-2.0]], [[0.5]]], np.float32)
    np.testing.assert_allclose(ir.run(ir.convert_onnx(proto), {"x": x})["y"], onnxruntime(proto, {"x": x})["y"],
                               rtol=1e-5, atol=1e-6)


def test_a_conv_transpose_output_shape_needing_a_negative_leading_pad_is_refused() -> None:
    proto = model([helper.make_node("ConvTranspose", ["x", "w"], ["y"], output_shape=[10], auto_pad="SAME_LOWER")],
                  [value("x", [1, 1, 4])], [value("y")], 17, [init("w", np.ones((1, 1, 3), np.float32))])
    with pytest.raises(ConversionError, match=r"output_shape \[10\] needs a negative pad before spatial dim 0"):
        ir.convert_onnx(proto)


def test_size_explains_its_pattern() -> None:
    proto = model([helper.make_node("Size", ["x"], ["n"])], [value("x", [2, 3])], [value("n", [], 7)], 13)
    lines: list[str] = []
    converted = ir.convert_onnx(proto, explain=lines)
    assert any(line.endswith(": -> ReduceProd-1 of ShapeOf-3") for line in lines), lines
    assert ir.run(converted, {"x": np.zeros((2, 3), np.float32)})["n"].tolist() == 6


def test_a_stateless_export_explains_where_each_variable_goes() -> None:
    from tests.io.test_onnx_export_models import small_stateful_model

    explained: list[str] = []
    ir.export_onnx(small_stateful_model(), stateless=True, explain=explained)
    assert [line for line in explained if line.startswith(("Assign", "ReadValue")) and "->" in line] == [
        "ReadValue 'cache' -> graph input 'past_key_values.3.value' f32[2]",
        "ReadValue 'ssm' -> graph input 'ssm_state' f32[2]",
        "ReadValue 'counter' -> graph input 'past.counter_1' f32[2]",
        "ReadValue 'fixed' -> graph input 'past.fixed' f32[2]",
        "Assign 'cache_write' -> graph output 'present.3.value'",
        "Assign 'ssm_write' -> graph output 'out_state'",
        "Assign 'counter_write' -> graph output 'present.counter'"]


def test_a_split_lengths_input_of_the_wrong_length_is_refused() -> None:
    proto = model([helper.make_node("Split", ["x", "lengths"], ["a", "b"], axis=0)],
                  [value("x", [4]), value("lengths", [3], 7)], [value("a"), value("b")], 13)
    with pytest.raises(ConversionError, match=r"input 'split' \('lengths'\) must be int64 of shape \[2\] \(one length "
                                              r"per output\); got i64\[3\]"):
        ir.convert_onnx(proto)


def test_a_string_initializer_cannot_keep_its_data_externally(tmp_path) -> None:
    import onnx

    words = onnx.TensorProto(name="words", data_type=onnx.TensorProto.STRING, dims=[1])
    words.data_location = onnx.TensorProto.EXTERNAL
    words.external_data.add(key="location", value="words.bin")
    (tmp_path / "words.bin").write_bytes(b"abc")
    proto = model([helper.make_node("Identity", ["words"], ["y"])], [], [value("y", [1], 8)], 13, [words])
    onnx.save(proto, tmp_path / "m.onnx")
    with pytest.raises(ConversionError, match="of type STRING cannot keep its data externally"):
        ir.convert_onnx(tmp_path / "m.onnx")
