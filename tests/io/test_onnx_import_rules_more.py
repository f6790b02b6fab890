"""ONNX -> IR rules where ONNX and IR differ in a way the ONNX project's node cases do not show (those run in
test_onnx_import_sweep.py): numpy broadcasting of a PRelu slope, opset 6's broadcast/axis attributes, Clip with
computed or crossed bounds, Resize lengths, float8 saturation, the explanations; each compared with onnxruntime
1.31.1 or with exact expected arrays."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, version_converter
from onnx.reference import ReferenceEvaluator

import irgraph as ir
from irgraph.core.errors import ConversionError
from irgraph.ops.activation.p_re_lu import PReLU
from irgraph.ops.pooling.max_pool import MaxPool14
from tests.oracle.isa import cpu_flags, saturated_pair_sums, u8s8_products_saturate

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, opset, initializers=()):
    graph = helper.make_graph(nodes, "rule", inputs, outputs, initializer=list(initializers))
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    proto.ir_version = min(helper.find_min_ir_version_for(proto.opset_import), 13)
    return proto


def value(name, shape=None, element_type=F):
    return helper.make_tensor_value_info(name, element_type, shape)


def init(name, array):
    return onnx.numpy_helper.from_array(np.asarray(array), name)


def onnxruntime(proto, feeds):
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds), strict=True))


def test_a_1d_prelu_slope_broadcasts_to_the_last_axis_as_numpy_does():
    """IR's PReLU reads a slope as long as the channel dim per channel; ONNX's numpy broadcasting puts it on the
    last axis. x [2, 3, 4, 3]: dim 1 and the last dim are both 3, so only the reshaped slope gives ONNX's values."""
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 3)).astype(np.float32)
    slope = np.array([0.1, 0.2, 0.3], np.float32)
    proto = model([helper.make_node("PRelu", ["x", "s"], ["y"])], [value("x", [2, 3, 4, 3])], [value("y")], 16,
                  [init("s", slope)])
    lines: list[str] = []
    got = ir.run(ir.convert_onnx(proto, explain=lines), {"x": x})["y"]
    np.testing.assert_array_equal(got, np.where(x < 0, x * slope, x))
    np.testing.assert_array_equal(got, onnxruntime(proto, {"x": x})["y"])
    assert any("the slope gets 3 leading dims" in line for line in lines)


def test_prelu_6_takes_one_slope_per_channel():
    x = np.random.default_rng(1).standard_normal((2, 3, 2)).astype(np.float32)
    slope = np.array([0.1, 0.2, 0.3], np.float32)
    proto = model([helper.make_node("PRelu", ["x", "s"], ["y"])], [value("x", [2, 3, 2])], [value("y")], 6,
                  [init("s", slope)])
    converted = ir.convert_onnx(proto)
    assert any(isinstance(node.op, PReLU) for node in converted.nodes)
    np.testing.assert_array_equal(ir.run(converted, {"x": x})["y"], np.where(x < 0, x * slope[:, None], x))


@pytest.mark.parametrize(("axis", "b_shape", "placed"),
                         [(None, [4], (1, 1, 4)), (1, [3], (1, 3, 1)), (0, [2, 3], (2, 3, 1))])
def test_opset_6_broadcast_places_b_from_axis(axis, b_shape, placed):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.arange(1, np.prod(b_shape) + 1, dtype=np.float32).reshape(b_shape)
    attributes = {"broadcast": 1} | ({} if axis is None else {"axis": axis})
    proto = model([helper.make_node("Add", ["a", "b"], ["y"], **attributes)], [value("a", [2, 3, 4])], [value("y")],
                  6, [init("b", b)])
    np.testing.assert_array_equal(ir.run(ir.convert_onnx(proto), {"a": a})["y"], a + b.reshape(placed))


def test_opset_6_broadcast_refuses_an_axis_that_does_not_fit():
    proto = model([helper.make_node("Mul", ["a", "b"], ["y"], broadcast=1, axis=2)], [value("a", [2, 3, 4])],
                  [value("y")], 6, [init("b", np.ones((3, 4), np.float32))])
    with pytest.raises(ConversionError, match=r"Mul-6 node #0 \(output 'y'\): axis 2 cannot place B of rank 2 in A "
                                              r"of rank 3"):
        ir.convert_onnx(proto)


@pytest.mark.parametrize(("low", "high"), [(-0.5, 0.5), (0.5, -0.5), (None, 0.0)], ids=["clamp", "crossed", "max"])
def test_clip_with_constant_or_crossed_bounds_agrees_with_onnxruntime(low, high):
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    names = ["x", "lo" if low is not None else "", "hi"]
    initializers = [init("hi", np.float32(high))] + ([init("lo", np.float32(low))] if low is not None else [])
    proto = model([helper.make_node("Clip", names, ["y"])], [value("x", [9])], [value("y")], 13, initializers)
    np.testing.assert_array_equal(ir.run(ir.convert_onnx(proto), {"x": x})["y"], onnxruntime(proto, {"x": x})["y"])


def test_clip_with_computed_bounds_is_maximum_then_minimum():
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    proto = model([helper.make_node("Clip", ["x", "lo", "hi"], ["y"])],
                  [value("x", [9]), value("lo", []), value("hi", [])], [value("y")], 13)
    feeds = {"x": x, "lo": np.array(-1, np.float32), "hi": np.array(0.5, np.float32)}
    lines: list[str] = []
    np.testing.assert_array_equal(ir.run(ir.convert_onnx(proto, explain=lines), feeds)["y"], np.clip(x, -1, 0.5))
    assert any("-> Maximum-1 then Minimum-1" in line for line in lines)


def test_resize_refuses_scales_whose_length_ir_computes_otherwise():
    """The f32 just below 0.3 times 10 is 2.9999998 (ONNX: floor -> 2); Interpolate-11 adds 1e-6 to the scale
    first (3)."""
    below = np.nextafter(np.float32(0.3), np.float32(0))
    proto = model([helper.make_node("Resize", ["x", "", "s"], ["y"], mode="nearest")], [value("x", [1, 1, 10, 10])],
                  [value("y")], 13, [init("s", np.array([1, 1, below, 1], np.float32))])
    with pytest.raises(ConversionError, match=r"scale 0.29999998211860657 on axis 2 of length 10: ONNX gives 2, "
                                              r"Interpolate-11 3; give sizes instead"):
        ir.convert_onnx(proto)


@pytest.mark.parametrize(("mode", "transform"), [("nearest", "asymmetric"), ("linear", "half_pixel"),
                                                 ("linear", "align_corners"), ("cubic", "pytorch_half_pixel")])
def test_resize_by_scales_agrees_with_onnxruntime(mode, transform):
    x = np.random.default_rng(2).standard_normal((1, 2, 5, 4)).astype(np.float32)
    proto = model([helper.make_node("Resize", ["x", "", "s"], ["y"], mode=mode,
                                    coordinate_transformation_mode=transform)], [value("x", [1, 2, 5, 4])],
                  [value("y")], 13, [init("s", np.array([1, 1, 1.6, 0.5], np.float32))])
    np.testing.assert_allclose(ir.run(ir.convert_onnx(proto), {"x": x})["y"], onnxruntime(proto, {"x": x})["y"],
                               rtol=1e-5, atol=1e-6)


def test_cast_to_float8_saturates_as_onnx_says():
    x = np.array([1e6, -np.inf, 300.5, np.nan], np.float32)
    proto = model([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E4M3FN)], [value("x", [4])],
                  [value("y", None, TensorProto.FLOAT8E4M3FN)], 19)
    got = ir.run(ir.convert_onnx(proto), {"x": x})["y"].astype(np.float32)
    np.testing.assert_array_equal(got[:3], [448, -448, 288])
    assert np.isnan(got[3])


def test_ceil_mode_pooling_drops_a_window_starting_in_the_padding():
    """x [1, 1, 4, 4], kernel 3, stride 2, ceil_mode: the second window of each axis would start at 4 (in the end
    padding), so ONNX (and onnxruntime 1.31.1) give 1x1, where plain ceil rounding gives 2x2."""
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    proto = model([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1,
                                    pads=[1, 1, 0, 0])], [value("x", [1, 1, 4, 4])], [value("y")], 12)
    converted = ir.convert_onnx(proto)
    assert any(isinstance(node.op, MaxPool14) and node.op.rounding_type == "ceil_torch" for node in converted.nodes)
    np.testing.assert_array_equal(ir.run(converted, {"x": x})["y"], onnxruntime(proto, {"x": x})["y"])


@pytest.mark.parametrize(("op_type", "attributes", "line"), [
    ("Celu", {"alpha": 2.0}, "-> alpha * Elu-1(x / alpha) with alpha=2.0 (IR has no Celu)"),
    ("ThresholdedRelu", {"alpha": 0.5}, "-> Select-1(x > 0.5, x, 0) (IR has no ThresholdedRelu)"),
    ("Shrink", {"lambd": 1.0, "bias": 0.5}, "(bias=0.5, lambd=1.0; IR has no Shrink)"),
    ("LeakyRelu", {"alpha": 0.25}, "-> PReLU-1 with slope alpha=0.25"),
])
def test_patterns_agree_with_onnxruntime_and_explain_themselves(op_type, attributes, line):
    x = np.linspace(-3, 3, 13, dtype=np.float32)
    proto = model([helper.make_node(op_type, ["x"], ["y"], **attributes)], [value("x", [13])], [value("y")], 17)
    lines: list[str] = []
    got = ir.run(ir.convert_onnx(proto, explain=lines), {"x": x})["y"]
    np.testing.assert_allclose(got, onnxruntime(proto, {"x": x})["y"], rtol=1e-6, atol=1e-7)
    assert any(line in entry for entry in lines), lines


def test_wrap_padding_is_refused_naming_the_rule():
    proto = model([helper.make_node("Pad", ["x", "p"], ["y"], mode="wrap")], [value("x", [2, 3])], [value("y")], 19,
                  [init("p", np.array([0, 1, 0, 1], np.int64))])
    with pytest.raises(ConversionError, match=r"Pad-19 node #0 \(output 'y'\): mode 'wrap' has no IR Pad mode"):
        ir.convert_onnx(proto)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_upsample_9_with_constant_scales_agrees_with_onnxruntime(mode):
    x = np.random.default_rng(4).standard_normal((1, 2, 3, 4)).astype(np.float32)
    proto = model([helper.make_node("Upsample", ["x", "s"], ["y"], mode=mode)], [value("x", [1, 2, 3, 4])],
                  [value("y")], 9, [init("s", np.array([1, 1, 2, 1.5], np.float32))])
    np.testing.assert_allclose(ir.run(ir.convert_onnx(proto), {"x": x})["y"], onnxruntime(proto, {"x": x})["y"],
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("target", [TensorProto.UINT8, TensorProto.INT8])
def test_per_axis_quantize_and_dequantize_agree_with_onnxruntime_exactly(target):
    """QuantizeLinear then DequantizeLinear with a scale and zero point per channel (axis 1), ties included."""
    x = (np.arange(-24, 24, dtype=np.float32) * 1.25).reshape(2, 3, 8)
    scale = np.array([0.5, 1.0, 2.5], np.float32)
    zero = np.array([128, 3, 0], np.uint8) if target == TensorProto.UINT8 else np.array([-3, 3, 0], np.int8)
    proto = model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1),
                   helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=1)],
                  [value("x", [2, 3, 8])], [value("q", None, target), value("y")], 13,
                  [init("s", scale), init("z", zero)])
    ours, theirs = ir.run(ir.convert_onnx(proto), {"x": x}), onnxruntime(proto, {"x": x})
    # onnx 1.23.2's reference implements Q/DQ from opset 19 on (the same per-axis rule; 19 adds float8)
    as_19 = version_converter.convert_version(proto, 19)
    reference = dict(zip(("q", "y"), ReferenceEvaluator(as_19).run(None, {"x": x}), strict=True))
    for key in ("q", "y"):
        assert ours[key].dtype == theirs[key].dtype == reference[key].dtype
        np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)
        np.testing.assert_array_equal(ours[key], reference[key], err_msg=key)


@pytest.mark.parametrize(("kind", "attributes"), [("LSTM", {"direction": "bidirectional"}),
                                                  ("GRU", {"linear_before_reset": 1}), ("GRU", {}), ("RNN", {})])
def test_recurrent_weights_fed_at_run_time_are_rearranged_by_layers(kind, attributes):
    """W, R and B as graph inputs: the gate order and the bias sums are layers, and the values are onnxruntime's."""
    rng = np.random.default_rng(5)
    gates, hidden, size = {"LSTM": 4, "GRU": 3, "RNN": 1}[kind], 3, 2
    directions = 2 if attributes.get("direction") == "bidirectional" else 1
    shapes = {"x": [5, 2, size], "W": [directions, gates * hidden, size], "R": [directions, gates * hidden, hidden],
              "B": [directions, 2 * gates * hidden]}
    feeds = {name: (rng.standard_normal(shape) * 0.5).astype(np.float32) for name, shape in shapes.items()}
    outputs = ["Y", "Y_h"]
    proto = model([helper.make_node(kind, ["x", "W", "R", "B"], outputs, hidden_size=hidden, **attributes)],
                  [value(name, shape) for name, shape in shapes.items()], [value(name) for name in outputs], 14)
    ours, theirs = ir.run(ir.convert_onnx(proto), feeds), onnxruntime(proto, feeds)
    for name in outputs:
        np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("storage_order", [0, 1])
def test_maxpool_indices_agree_with_onnxruntime(storage_order):
    """Indices flat in the whole input (MaxPool-8 axis 0), recounted column-major in each plane for storage_order 1;
    x has distinct values, so no tie decides."""
    x = np.random.default_rng(6).permutation(2 * 3 * 5 * 4).astype(np.float32).reshape(2, 3, 5, 4)
    proto = model([helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], strides=[1, 2],
                                    storage_order=storage_order)],
                  [value("x", [2, 3, 5, 4])], [value("y"), value("i", None, TensorProto.INT64)], 12)
    ours, theirs = ir.run(ir.convert_onnx(proto), {"x": x}), onnxruntime(proto, {"x": x})
    for key in ("y", "i"):
        np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)


@pytest.mark.parametrize(("op_type", "infinity"), [("ReduceMax", -np.inf), ("ReduceMin", np.inf)])
def test_a_reduction_of_only_infinities_is_that_infinity_as_in_onnxruntime(op_type, infinity):
    """IR's ReduceMax starts from the lowest finite value (openvino 2026.4.1's reference), so a row of -inf alone
    would give -3.4e38; ONNX gives -inf (attention masks make such rows)."""
    x = np.array([[infinity, infinity], [1, infinity], [2, 3]], np.float32)
    proto = model([helper.make_node(op_type, ["x"], ["y"], axes=[1], keepdims=0)], [value("x", [3, 2])],
                  [value("y")], 13)
    got = ir.run(ir.convert_onnx(proto), {"x": x})["y"]
    np.testing.assert_array_equal(got, onnxruntime(proto, {"x": x})["y"])
    assert got[0] == infinity


def test_cast_like_converts_to_the_type_of_its_second_input():
    proto = model([helper.make_node("CastLike", ["x", "like"], ["y"])], [value("x", [3])],
                  [value("y", None, TensorProto.INT32)], 19, [init("like", np.zeros(1, np.int32))])
    got = ir.run(ir.convert_onnx(proto), {"x": np.array([1.7, -2.5, 300], np.float32)})["y"]
    assert got.dtype == np.int32 and got.tolist() == [1, -2, 300]


def test_an_op_onnx_defines_as_a_function_is_expanded_into_its_body():
    """RMSNormalization-23 has no IR op: its ONNX function body (built for these input types) is converted node by
    node, and gives x / sqrt(mean(x^2) + eps) * scale."""
    x = np.random.default_rng(7).standard_normal((2, 3, 4)).astype(np.float32)
    scale = np.linspace(0.5, 2, 4, dtype=np.float32)
    proto = model([helper.make_node("RMSNormalization", ["x", "s"], ["y"], epsilon=1e-3)], [value("x", [2, 3, 4])],
                  [value("y")], 23, [init("s", scale)])
    lines: list[str] = []
    got = ir.run(ir.convert_onnx(proto, explain=lines), {"x": x})["y"]
    expected = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + np.float32(1e-3)) * scale
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    assert any("-> its ONNX function body of" in line and "each converted by its rule" in line for line in lines)


def test_dynamic_quantization_as_onnxruntimes_quantizer_writes_it_agrees_exactly():
    """DynamicQuantizeLinear (its ONNX function body) then MatMulInteger with a per-column zero point of B, the
    pattern onnxruntime's dynamic quantizer emits: the u8 values, scale, zero point and i32 product equal
    onnxruntime 1.31.1's and onnx 1.23.2's reference's."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    b = rng.integers(0, 255, (5, 4)).astype(np.uint8)
    b_zero = np.array([128, 120, 130, 127], np.uint8)
    proto = model([helper.make_node("DynamicQuantizeLinear", ["x"], ["q", "scale", "zero"]),
                   helper.make_node("MatMulInteger", ["q", "b", "zero", "bz"], ["y"])],
                  [value("x", [3, 5])], [value("q", None, TensorProto.UINT8), value("scale"),
                                         value("zero", None, TensorProto.UINT8), value("y", None, TensorProto.INT32)],
                  13, [init("b", b), init("bz", b_zero)])
    ours, theirs = ir.run(ir.convert_onnx(proto), {"x": x}), onnxruntime(proto, {"x": x})
    reference = dict(zip(("q", "scale", "zero", "y"), ReferenceEvaluator(proto).run(None, {"x": x}), strict=True))
    for key in ("q", "scale", "zero", "y"):  # u8 x u8 products: exact in onnxruntime on every CPU (no saturation)
        assert ours[key].dtype == theirs[key].dtype == reference[key].dtype, key
        np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)
        np.testing.assert_array_equal(ours[key], reference[key], err_msg=key)


def qlinear_conv_case() -> tuple[onnx.ModelProto, np.ndarray]:
    """A grouped, padded, strided QLinearConv with per-channel weight scales and a bias, and its input."""
    rng = np.random.default_rng(9)
    x = rng.integers(0, 255, (1, 4, 6, 6)).astype(np.uint8)
    w = rng.integers(-100, 100, (6, 2, 3, 3)).astype(np.int8)
    initializers = [init("xs", np.float32(0.02)), init("xz", np.uint8(120)), init("w", w),
                    init("ws", np.linspace(0.001, 0.004, 6, dtype=np.float32)), init("wz", np.zeros(6, np.int8)),
                    init("ys", np.float32(0.05)), init("yz", np.uint8(128)),
                    init("b", rng.integers(-500, 500, 6).astype(np.int32))]
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"], group=2,
                            pads=[1, 1, 1, 1], strides=[2, 1])
    proto = model([node], [value("x", [1, 4, 6, 6], TensorProto.UINT8)], [value("y", None, TensorProto.UINT8)], 13,
                  initializers)
    return proto, x


def test_qlinear_conv_with_per_channel_scales_and_bias_agrees_with_the_onnx_reference_exactly():
    """onnx 1.23.2's reference computes the exact integer sums on every CPU."""
    proto, x = qlinear_conv_case()
    got = ir.run(ir.convert_onnx(proto), {"x": x})["y"]
    (expected,) = ReferenceEvaluator(proto).run(None, {"x": x})
    assert got.dtype == expected.dtype == np.uint8
    np.testing.assert_array_equal(got, expected)


def mlas_qlinear_conv(proto: onnx.ModelProto, x: np.ndarray,
                      sum_products: Callable[[np.ndarray], np.ndarray] = saturated_pair_sums) -> np.ndarray:
    """The QLinearConv of ``qlinear_conv_case`` (group 2, pads 1, strides [2, 1], zero weight zero points) as
    onnxruntime 1.31.1's MLAS runs it: channels-last patches (kernel row, column, channel), the raw u8 x s8
    products summed by ``sum_products`` (without VNNI: in adjacent pairs saturated to int16), the input zero
    point taken off afterwards (x_zero * sum(w)), then requantized."""
    tensors = {t.name: onnx.numpy_helper.to_array(t) for t in proto.graph.initializer}
    w, bias, x_zero, y_zero = tensors["w"], tensors["b"], int(tensors["xz"]), int(tensors["yz"])
    multipliers = tensors["xs"] * tensors["ws"] / tensors["ys"]
    padded = np.pad(x[0].astype(np.int64), ((0, 0), (1, 1), (1, 1)), constant_values=x_zero)
    out_channels, group_channels, rows, columns = w.shape
    per_group = out_channels // (x.shape[1] // group_channels)
    height, width = (padded.shape[1] - rows) // 2 + 1, padded.shape[2] - columns + 1
    y = np.empty((1, out_channels, height, width), np.uint8)
    for channel in range(out_channels):
        first = channel // per_group * group_channels
        weights = w[channel].astype(np.int64).transpose(1, 2, 0).reshape(-1)
        for row in range(height):
            for column in range(width):
                patch = padded[first:first + group_channels, 2 * row:2 * row + rows, column:column + columns]
                total = sum_products(patch.transpose(1, 2, 0).reshape(-1) * weights)
                accumulated = total - x_zero * weights.sum() + bias[channel]
                scaled = np.rint(np.float32(accumulated) * multipliers[channel]) + y_zero
                y[0, channel, row, column] = np.clip(scaled, 0, 255)
    return y


def test_qlinear_conv_agrees_with_onnxruntime_as_documented_for_this_cpu():
    """onnxruntime 1.31.1 gives the exact answer where its MLAS has VNNI (avx512_vnni, avx_vnni, amx_int8) and an
    int16-saturated one on AVX2 or AVX-512 without VNNI (11 of these 108 values, off by up to 7: seen on an AMD
    EPYC with AVX2): which one this CPU must give follows from its flags (docs/oracles.md)."""
    proto, x = qlinear_conv_case()
    (exact,) = ReferenceEvaluator(proto).run(None, {"x": x})
    assert np.array_equal(mlas_qlinear_conv(proto, x, lambda products: products.sum(axis=-1)), exact)
    saturated = mlas_qlinear_conv(proto, x)  # differs from the exact one only by the saturation
    assert (int((saturated != exact).sum()), int(np.abs(saturated.astype(int) - exact).max())) == (11, 7)  # EPYC's
    answers = {"exact (VNNI)": exact, "int16-saturated (no VNNI)": saturated}
    theirs = onnxruntime(proto, {"x": x})["y"]
    matched = [name for name, answer in answers.items() if np.array_equal(theirs, answer)]
    assert matched, f"onnxruntime gives neither documented answer: {theirs.ravel()[:8]}"
    saturates = u8s8_products_saturate()
    if saturates is not None:
        assert matched == ["int16-saturated (no VNNI)" if saturates else "exact (VNNI)"], (matched, sorted(cpu_flags()))
