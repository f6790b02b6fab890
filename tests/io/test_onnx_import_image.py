"""ONNX GridSample and RoiAlign -> IR GridSample-9 and ROIAlign-9 against onnxruntime 1.31.1 and onnx 1.23.2's
reference on generated configurations (the ONNX project's node cases run in test_onnx_import_sweep.py)."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import irgraph as ir
from irgraph.core.errors import ConversionError
from irgraph.ops.detection.roi_align import ROIAlign9
from irgraph.ops.image.grid_sample import GridSample

F = TensorProto.FLOAT
ULPS = {"bicubic": 8, "bilinear": 4, "nearest": 0, "roi": 4}
"""Bounds in f32 eps of max(|value|, 1): onnxruntime interpolates in its own order (and clips coordinates where IR
clamps taps). Over 300 seeds bilinear stayed within 2, bicubic within 4.5, nearest and RoiAlign exact or 2."""


def _model(node, inputs, opset):
    graph = helper.make_graph([node], "one", [helper.make_tensor_value_info(name, kind, None) for name, kind in inputs],
                              [helper.make_tensor_value_info("y", F, None)])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    proto.ir_version = min(helper.find_min_ir_version_for(proto.opset_import), 13)
    return proto


def _onnxruntime(proto, feeds):
    options = ort.SessionOptions()
    options.log_severity_level = 3  # RoiAlign's warning about its max mode, which irgraph refuses
    session = ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def _close(got, expected, what, ulps):
    scale = np.maximum(np.abs(expected), 1.0)
    assert got.shape == expected.shape and got.dtype == expected.dtype, what
    bad = np.abs(got.astype(np.float64) - expected) > ulps * np.finfo(np.float32).eps * scale
    assert not bad.any(), f"{what}: {got[bad][:4]} vs {expected[bad][:4]}"


@pytest.mark.parametrize(("opset", "mode", "padding_mode", "align_corners"), [
    (opset, mode, padding, align) for opset, (mode, padding, align) in itertools.product(
        (16, 20), itertools.product(("bilinear", "bicubic", "nearest"), ("zeros", "border", "reflection"), (0, 1)))])
def test_grid_sample_agrees_with_onnxruntime_and_onnx_reference(opset, mode, padding_mode, align_corners):
    """Opset 16's mode names and opset 20's (linear, cubic). onnx.reference clips a bicubic coordinate before
    sampling with border padding, where onnxruntime (and PyTorch, and IR) clamp each tap: it is not asked there."""
    name = {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode) if opset >= 20 else mode
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], mode=name, padding_mode=padding_mode,
                            align_corners=align_corners)
    proto = _model(node, [("x", F), ("grid", F)], opset)
    rng = np.random.default_rng(zlib.crc32(f"{opset}{mode}{padding_mode}{align_corners}".encode()))
    lines: list[str] = []
    converted = ir.convert_onnx(proto, explain=lines)
    assert [type(node.op) for node in converted.nodes if type(node.op).__name__ == "GridSample"] == [GridSample]
    assert any(f"-> GridSample-9 mode={mode}, padding_mode={padding_mode}" in line for line in lines)
    for _ in range(4):
        x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
        grid = rng.uniform(-1.7, 1.7, (2, 3, 6, 2)).astype(np.float32)
        got = ir.run(converted, {"x": x, "grid": grid})["y"]
        _close(got, _onnxruntime(proto, {"x": x, "grid": grid}), "onnxruntime", ULPS[mode])
        if opset >= 20 and not (mode == "bicubic" and padding_mode == "border"):
            _close(got, ReferenceEvaluator(proto).run(None, {"x": x, "grid": grid})[0], "onnx.reference", ULPS[mode])


def test_volumetric_grid_sample_is_refused():
    proto = _model(helper.make_node("GridSample", ["x", "grid"], ["y"], mode="linear"), [("x", F), ("grid", F)], 20)
    proto.graph.input[0].CopyFrom(helper.make_tensor_value_info("x", F, [1, 1, 2, 2, 2]))
    with pytest.raises(ConversionError, match=r"X has rank 5: IR's GridSample-9 samples 4-D data \(N, C, H, W\)"):
        ir.convert_onnx(proto)


@pytest.mark.parametrize(("opset", "transform", "sampling_ratio"), [
    (10, None, 0), (10, None, 2), (16, "half_pixel", 0), (16, "half_pixel", 2), (16, "output_half_pixel", 0),
    (16, "output_half_pixel", 1), (22, "half_pixel", 3)])
def test_roi_align_agrees_with_onnxruntime_and_onnx_reference(opset, transform, sampling_ratio):
    """ONNX's half_pixel is IR's half_pixel_for_nn (-0.5 after scaling), output_half_pixel (RoiAlign-10's only
    behaviour) is asymmetric: boxes across the border and thinner than a pixel. onnx.reference takes half_pixel for
    RoiAlign-10 too (onnxruntime judges that alone), onnxruntime has no RoiAlign-22 (onnx.reference judges it)."""
    attributes = {"output_height": 3, "output_width": 2, "sampling_ratio": sampling_ratio, "spatial_scale": 0.5}
    if transform is not None:
        attributes["coordinate_transformation_mode"] = transform
    node = helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], **attributes)
    proto = _model(node, [("x", F), ("rois", F), ("batch", TensorProto.INT64)], opset)
    converted = ir.convert_onnx(proto)
    (op,) = [node.op for node in converted.nodes if isinstance(node.op, ROIAlign9)]
    assert op.aligned_mode == ("half_pixel_for_nn" if transform == "half_pixel" else "asymmetric")
    rng = np.random.default_rng(opset * 10 + sampling_ratio)
    for _ in range(4):
        x = rng.standard_normal((2, 3, 6, 7)).astype(np.float32)
        corners = rng.uniform(-2, 16, (5, 2, 2))
        rois = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1).astype(np.float32)
        rois[0, 2:] = rois[0, :2] + 0.5  # thinner than a pixel (after scaling)
        feeds = {"x": x, "rois": rois, "batch": rng.integers(0, 2, 5).astype(np.int64)}
        got = ir.run(converted, feeds)["y"]
        if opset < 22:
            _close(got, _onnxruntime(proto, feeds), "onnxruntime", ULPS["roi"])
        if opset > 10:
            _close(got, ReferenceEvaluator(proto).run(None, feeds)[0], "onnx.reference", ULPS["roi"])


def test_roi_align_max_is_refused_naming_the_difference():
    proto = _model(helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], mode="max"),
                   [("x", F), ("rois", F), ("batch", TensorProto.INT64)], 16)
    with pytest.raises(ConversionError, match="ONNX's max pools the largest weighted tap of each sample"):
        ir.convert_onnx(proto)
