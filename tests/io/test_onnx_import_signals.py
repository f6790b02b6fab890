"""ONNX DFT (17, 20) and STFT (17) -> IR (import_rules.signals), against onnx 1.23.2's reference and onnxruntime
1.31.1 on the same models.

IR's Fourier ops follow OpenVINO's reference, whose naive DFT (any length not a power of two) takes its twiddle
angles in f32: it differs from the exact transform by up to about 0.2 L eps of the summed moduli of the terms
(test_fourier_transforms measures it), so values are compared within ``(8 + L) eps x sum|x|`` of the line.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import irgraph as ir
from irgraph.core.errors import ConversionError
from irgraph.ops.signals.dft import DFT
from irgraph.ops.signals.idft import IDFT
from irgraph.ops.signals.irdft import IRDFT
from irgraph.ops.signals.rdft import RDFT
from irgraph.ops.signals.stft import STFT

F = TensorProto.FLOAT
EPS = float(np.finfo(np.float32).eps)


def model(node, inputs, opset, initializers=()):
    graph = helper.make_graph([node], "signal", inputs, [helper.make_tensor_value_info(node.output[0], F, None)],
                              initializer=list(initializers))
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    proto.ir_version = min(helper.find_min_ir_version_for(proto.opset_import), 10)
    return proto


def value(name, shape, element_type=F):
    return helper.make_tensor_value_info(name, element_type, shape)


def init(name, array):
    return onnx.numpy_helper.from_array(np.asarray(array), name)


def oracles(proto, feeds, onnxruntime: bool = True):
    """onnx.reference's outputs, and onnxruntime's unless told where it differs."""
    found = [ReferenceEvaluator(proto).run(None, feeds)[0]]
    if onnxruntime:
        session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
        found.append(session.run(None, feeds)[0])
    return found


def check(proto, feeds, length, scale, onnxruntime: bool = True):
    """irgraph's conversion run gives the oracles' values within (8 + length) eps x scale; returns the model."""
    converted = ir.convert_onnx(proto)
    got = ir.run(converted, feeds)[proto.graph.output[0].name]
    bound = (8 + length) * EPS * scale
    for expected in oracles(proto, feeds, onnxruntime):
        assert got.shape == expected.shape and got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=0, atol=bound)
    return converted


def op_types(converted) -> list[type]:
    return [type(node.op) for node in converted.nodes]


X = np.random.default_rng(3).uniform(-2, 2, (2, 12, 6, 2)).astype(np.float32)


@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize(("real", "inverse", "onesided", "expected_op"), [
    (False, False, False, DFT), (True, False, False, DFT), (False, True, False, IDFT), (True, True, False, IDFT),
    (True, False, True, RDFT), (False, True, True, IRDFT),
])
@pytest.mark.parametrize(("axis", "length"), [(1, None), (2, 8), (-2, 5), (-3, 16)])
def test_dft_as_onnx_computes_it(opset, real, inverse, onesided, expected_op, axis, length):
    data = X[..., :1] if real else X
    attributes = {"inverse": int(inverse), "onesided": int(onesided)} | ({"axis": axis} if opset == 17 else {})
    inputs = ["x", "n" if length else ""] + (["axis"] if opset == 20 else [])
    initializers = ([init("n", np.array(length, np.int64))] if length else []) + \
        ([init("axis", np.array(axis, np.int64))] if opset == 20 else [])
    proto = model(helper.make_node("DFT", inputs, ["y"], **attributes), [value("x", list(data.shape))], opset,
                  initializers)
    transform_length = length or (2 * (data.shape[axis % 4] - 1) if inverse and onesided else data.shape[axis % 4])
    scale = float(np.abs(data).sum(axis=axis % 4).max()) * 2
    # onnxruntime 1.31.1's irfft differs from numpy's (and onnx.reference's) for an odd or a padded length: 1.13 off
    # for 5 values of 6, 0.16 for 16 (8 and 10 agree)
    irfft_differs = inverse and onesided and transform_length not in (8, 10)
    converted = check(proto, {"x": data}, transform_length, scale, onnxruntime=not irfft_differs)
    assert expected_op in op_types(converted)


def test_dft_20_with_a_run_time_axis_wraps_it_by_the_rank():
    """ONNX's own node case feeds the axis at run time (test_dft): FloorMod-1 by the rank makes -2 the last signal
    dim, as IR's DFT counts it."""
    proto = model(helper.make_node("DFT", ["x", "", "axis"], ["y"]), [value("x", [2, 12, 6, 2]),
                                                                      value("axis", [], TensorProto.INT64)], 20)
    for axis in (1, -2, 2):
        check(proto, {"x": X, "axis": np.array(axis, np.int64)}, 12, float(np.abs(X).sum(axis=1).max()) * 2)


@pytest.mark.parametrize(("window", "frame", "onesided"), [
    (None, 16, 1), ("hann", None, 1), ("hann", 16, 1), (None, 12, 0), ("hann", None, 0), (None, None, 1),
])
def test_stft_as_onnx_computes_it(window, frame, onesided):
    signal = np.random.default_rng(4).uniform(-1, 1, (2, 64, 1)).astype(np.float32)
    length = frame or 16
    hann = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(length) / length)).astype(np.float32)
    inputs = ["signal", "step", "window" if window else "", "frame" if frame else ""]
    initializers = [init("step", np.array(6, np.int64))] + ([init("window", hann)] if window else []) + \
        ([init("frame", np.array(frame, np.int64))] if frame else [])
    whole = window is None and frame is None  # onnx.reference: one frame of the whole signal; onnxruntime 1.31.1 fails
    length = 64 if whole else length
    proto = model(helper.make_node("STFT", inputs, ["y"], onesided=onesided), [value("signal", [2, 64, 1])], 17,
                  initializers)
    converted = check(proto, {"signal": signal}, length, float(length), onnxruntime=not whole)
    assert STFT in op_types(converted)


def test_stft_with_a_run_time_frame_length_gets_a_window_of_ones():
    """ONNX's node case test_stft feeds frame_step and frame_length at run time."""
    proto = model(helper.make_node("STFT", ["signal", "step", "", "frame"], ["y"]),
                  [value("signal", [1, 40, 1]), value("step", [], TensorProto.INT64),
                   value("frame", [], TensorProto.INT64)], 17)
    signal = np.random.default_rng(5).uniform(-1, 1, (1, 40, 1)).astype(np.float32)
    for step, frame in ((4, 8), (5, 10)):
        check(proto, {"signal": signal, "step": np.array(step, np.int64), "frame": np.array(frame, np.int64)}, frame,
              float(frame))


@pytest.mark.parametrize(("node", "inputs", "initializers", "message"), [
    (helper.make_node("STFT", ["signal", "step", "window", "frame"], ["y"]), [value("signal", [1, 40, 1])],
     [init("step", np.array(4, np.int64)), init("window", np.ones(6, np.float32)), init("frame", np.array(8))],
     "has a window of 6 for frames of 8: ONNX puts it at the frame's start"),
    (helper.make_node("STFT", ["signal", "step", "", "frame"], ["y"]), [value("signal", [1, 40, 2])],
     [init("step", np.array(4, np.int64)), init("frame", np.array(8))], "has a complex signal"),
    (helper.make_node("DFT", ["x"], ["y"], axis=-1), [value("x", [3, 8, 2])], [], "axis -1 must name a dim"),
    (helper.make_node("DFT", ["x"], ["y"], axis=1), [value("x", [3, 8, 3])], [],
     "must end in a static dim of 1 (real) or 2 (complex)"),
    (helper.make_node("DFT", ["x"], ["y"], axis=1), [value("x", [3, 8, 2], TensorProto.DOUBLE)], [],
     "IR's Fourier ops take f32, f16 and bf16"),
    (helper.make_node("DFT", ["x"], ["y"], axis=1, onesided=1), [value("x", [3, 8, 2])], [],
     "onesided=1 needs real data"),
])
def test_what_ir_cannot_hold_is_refused_naming_why(node, inputs, initializers, message):
    with pytest.raises(ConversionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ir.convert_onnx(model(node, inputs, 20 if node.op_type == "DFT" and not node.attribute else 17,
                              initializers))
