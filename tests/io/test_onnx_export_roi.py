"""IR -> ONNX for GridSample-9, ROIAlign-3/-9 and ROIPooling-2: a one-op IR model exported to ONNX, which
onnxruntime 1.31.1 runs to irgraph's values (within a few ULP where it interpolates in its own order, bit for bit
for MaxRoiPool); and the refusals of what ONNX cannot express, each with its reason."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import irgraph as ir
from irgraph.core.errors import ConversionError
from irgraph.ops.detection.psroi_pooling import PSROIPooling
from irgraph.ops.detection.roi_align import ALIGNED_MODES, ROIAlign3, ROIAlign9
from irgraph.ops.detection.roi_align_rotated import ROIAlignRotated
from irgraph.ops.detection.roi_pooling import ROIPooling
from irgraph.ops.image.grid_sample import MODES, PADDING_MODES, GridSample
from irgraph.ops.op import EXACT
from tests.io.test_onnx_export_rules import CUBIC, PATTERN, Case, check_case, one_op_model

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(20261127)


def _boxes(count: int, extent: float) -> np.ndarray:
    """Ordered boxes [x1, y1, x2, y2] from a little before the map to a little past it, one thinner than a pixel."""
    corners = RNG.uniform(-0.2, 1.2, (count, 2, 2)) * extent
    boxes = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1).astype(np.float32)
    boxes[0, 2:] = boxes[0, :2] + 0.25
    return boxes


def grid_sample_cases() -> list[Case]:
    cases = []
    for mode, padding, align in itertools.product(MODES, PADDING_MODES, (False, True)):
        data = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
        grid = RNG.uniform(-1.6, 1.6, (2, 4, 3, 2)).astype(np.float32)
        cases.append(Case(GridSample(mode=mode, padding_mode=padding, align_corners=align), [data, grid],
                          opsets=(16, 20), tolerance=CUBIC if mode == "bicubic" else PATTERN,
                          note=f"{mode}-{padding}-{'aligned' if align else 'plain'}"))
    return cases


def roi_cases() -> list[Case]:
    data = RNG.standard_normal((2, 3, 8, 9)).astype(np.float32)
    cases = [Case(ROIAlign3(pooled_h=2, pooled_w=3, sampling_ratio=ratio, spatial_scale=0.5, mode="avg"),
                  [data, _boxes(5, 16), RNG.integers(0, 2, 5).astype(np.int32)], opsets=(13, 18), tolerance=PATTERN,
                  note=f"ratio{ratio}") for ratio in (0, 2)]
    cases += [Case(ROIAlign9(pooled_h=3, pooled_w=2, sampling_ratio=ratio, spatial_scale=0.5, mode="avg",
                             aligned_mode=aligned), [data, _boxes(5, 16), RNG.integers(0, 2, 5).astype(np.int64)],
                   opsets=(16, 18), tolerance=PATTERN, note=f"{aligned}-ratio{ratio}")
              for aligned, ratio in itertools.product(ALIGNED_MODES, (1, 3))]
    for scale in (1.0, 0.25, 0.3):
        boxes = RNG.uniform(-0.3, 1.3, (6, 4)) * np.array([9, 8, 9, 8]) / scale
        rois = np.column_stack([RNG.integers(0, 2, 6), np.round(boxes * 2) / 2]).astype(np.float32)
        cases.append(Case(ROIPooling(pooled_h=3, pooled_w=2, spatial_scale=scale), [data, rois], opsets=(13, 18),
                          tolerance=EXACT, note=f"scale{scale}"))
    return cases


@pytest.mark.parametrize("case", grid_sample_cases() + roi_cases(), ids=lambda case: case.id)
def test_onnxruntime_computes_irgraphs_values(case: Case):
    check_case(case)


def test_grid_sample_names_its_modes_as_each_opset_does():
    model, _ = one_op_model(Case(GridSample(mode="bicubic"), [np.zeros((1, 1, 2, 2), np.float32),
                                                              np.zeros((1, 1, 1, 2), np.float32)]))
    assert [a.s for a in ir.export_onnx(model, opset=16).graph.node[0].attribute if a.name == "mode"] == [b"bicubic"]
    assert [a.s for a in ir.export_onnx(model, opset=20).graph.node[0].attribute if a.name == "mode"] == [b"cubic"]


def _refusal(op, inputs, opset=18) -> str:
    model, _ = one_op_model(Case(op, inputs))
    with pytest.raises(ConversionError) as caught:
        ir.export_onnx(model, opset=opset)
    return str(caught.value)


def test_what_onnx_cannot_express_is_refused_with_its_reason():
    data, boxes, indices = np.zeros((1, 4, 4, 4), np.float32), np.zeros((1, 4), np.float32), np.zeros(1, np.int32)
    assert "ONNX has GridSample from opset 16; exporting opset 13" in _refusal(
        GridSample(), [data, np.zeros((1, 2, 2, 2), np.float32)], opset=13)
    assert "mode max: ONNX's RoiAlign max pools the largest weighted tap" in _refusal(
        ROIAlign3(pooled_h=1, pooled_w=1, sampling_ratio=1, spatial_scale=1.0, mode="max"), [data, boxes, indices])
    assert "aligned_mode half_pixel needs ONNX RoiAlign-16" in _refusal(
        ROIAlign9(pooled_h=1, pooled_w=1, sampling_ratio=1, spatial_scale=1.0, mode="avg", aligned_mode="half_pixel"),
        [data, boxes, indices], opset=13)
    rois = np.zeros((1, 5), np.float32)
    assert "method bilinear has no ONNX form" in _refusal(
        ROIPooling(pooled_h=1, pooled_w=1, spatial_scale=1.0, method="bilinear"), [data, rois])
    assert "ai.onnx has no rotated ROI align op" in _refusal(
        ROIAlignRotated(pooled_h=1, pooled_w=1, sampling_ratio=1, spatial_scale=1.0), [data, rois, indices])
    assert "ai.onnx has no position-sensitive ROI pooling op" in _refusal(
        PSROIPooling(output_dim=1, group_size=2, spatial_scale=1.0), [data, rois])
