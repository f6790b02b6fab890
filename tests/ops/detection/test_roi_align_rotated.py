"""ROIAlignRotated-15 against openvino 2026.4.1, which has no evaluate for it: its CPU plugin on generated
configurations, and ROIAlign-3's reference bit for bit on unrotated boxes; named cases and refusals."""

from __future__ import annotations

import numpy as np
import openvino.opset3 as ov_ops3
import openvino.opset15 as ov_ops15
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.detection.roi_align_rotated import ROIAlignRotated
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import lookup
from tests.ops import strategies as S
from tests.ops.differential import (
    OP_EXAMPLES,
    Independent,
    check_op,
    check_types,
    ov_constant,
    ov_parameter,
    ov_reference,
    same_op,
)
from tests.ops.helpers import infer, tt
from tests.ops.ir_cli import assert_openvino_ir_runs

CPU_TOLERANCE = Tolerance(ulp=4, eps=16)
"""Room for CPU plugins that contract the rotation into FMAs (the AVX-512 build here matches bit for bit)."""


@st.composite
def configuration(draw, *, dyadic=False):
    """Maps, boxes [cx, cy, w, h, angle] (some across the border, some thin, any angle), indices, attributes."""
    batch, channels = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    height, width = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    count = draw(st.integers(1, 4))
    element_type = ElementType.F16 if dyadic and draw(st.booleans()) else ElementType.F32
    data = S.values(element_type, (batch, channels, height, width), draw(S.seeds), specials=False)
    scale = draw(st.sampled_from([1.0, 0.5, 0.25, 2.0] if dyadic else [1.0, 0.5, 0.25, 0.3, 2.0]))
    rng = np.random.default_rng(draw(S.seeds))
    extent = np.array([width, height]) / scale
    centres = rng.uniform(-0.2, 1.2, (count, 2)) * extent
    sizes = rng.uniform(0.05, 1.0, (count, 2)) * extent
    angles = rng.uniform(-7, 7, (count, 1)) if not dyadic else np.zeros((count, 1))
    if dyadic:
        centres, sizes = np.round(centres * 8) / 8, np.maximum(np.round(sizes * 8) / 8, 1 / scale)
    rois = np.concatenate([centres, sizes, angles], axis=1).astype(element_type.numpy_dtype)
    indices = rng.integers(0, batch, count).astype(np.int32)
    # dyadic: power-of-two bins and sample counts keep the sample points exact
    counts = st.sampled_from([1, 2, 4]) if dyadic else st.integers(1, 3)
    attributes = {"pooled_h": draw(counts), "pooled_w": draw(counts),
                  "sampling_ratio": draw(counts if dyadic else st.integers(0, 3)), "spatial_scale": scale,
                  "clockwise_mode": draw(st.booleans())}
    return data, rois, indices, attributes


@OP_EXAMPLES
@given(data=st.data())
def test_roi_align_rotated_matches_the_cpu_plugin(data):
    features, rois, indices, attributes = data.draw(configuration())
    op = ROIAlignRotated(**attributes)
    assert check_op(op, [features, rois, indices], same_op(op), cpu_tolerance=CPU_TOLERANCE).cpu


@OP_EXAMPLES
@given(data=st.data())
def test_unrotated_boxes_are_roi_align3_boxes(data):
    """At angle 0, bit for bit openvino 2026.4.1's ROIAlign-3 reference (f32 and f16) on the corner boxes
    ``centre * scale - 0.5 -+ size * scale / 2`` (scale 1 there): boxes on eighths, dyadic scales and at least a
    pixel wide, power-of-two bins and sample counts keep the sample points exact in both orders of operations."""
    features, rois, indices, attributes = data.draw(configuration(dyadic=True))
    op = ROIAlignRotated(**attributes)
    scale = np.float32(attributes["spatial_scale"])
    wide = rois.astype(np.float32)
    centres, halves = wide[:, :2] * scale - np.float32(0.5), wide[:, 2:4] * scale / np.float32(2)
    corners = np.concatenate([centres - halves, centres + halves], axis=1)
    node = ov_ops3.roi_align(ov_constant(features), ov_constant(corners.astype(features.dtype)), ov_constant(indices),
                             attributes["pooled_h"], attributes["pooled_w"], attributes["sampling_ratio"], 1.0, "avg")
    (expected,) = ov_reference(node)  # OpenVINO's ROIAlign-3 reference on these boxes judges
    judge = Independent("reference", lambda op, arrays, types: [expected], in_output_type=True)
    assert check_op(op, [features, rois, indices], same_op(op), cpu=False, independent=judge).judge in ("reference",
                                                                                                       "empty")
    (got,) = op.evaluate([features, rois, indices])
    unsigned = f"u{got.itemsize}"
    np.testing.assert_array_equal(got.view(unsigned), expected.view(unsigned))  # bit for bit, in fact


def test_spec_example():
    op = ROIAlignRotated.from_attributes({"pooled_h": "6", "pooled_w": "6", "spatial_scale": "16.0",
                                          "sampling_ratio": "2", "clockwise_mode": "True"})
    assert op.clockwise_mode
    assert infer(op, [tt("7,256,200,200"), tt("1000,5"), tt("1000", "i32")], [None, None, None]) == [
        "[1000,256,6,6]"]


def test_a_quarter_turn_by_hand():
    """A 1x3 box (w 1, h 3) turned a quarter counterclockwise lies along x: its three bins sample the row through
    its centre. Centre (2.5, 1.5) - 0.5 = (2, 1); bins at py = -1, 0, 1 go to x = cx + py sin = 1, 2, 3 (sin 1) or
    3, 2, 1 clockwise."""
    ramp = np.arange(20, dtype=np.float32).reshape(1, 1, 4, 5)
    rois = np.array([[2.5, 1.5, 1, 3, np.pi / 2]], np.float32)
    indices = np.zeros(1, np.int32)
    counter = ROIAlignRotated(pooled_h=3, pooled_w=1, sampling_ratio=1, spatial_scale=1.0)
    (out,) = counter.evaluate([ramp, rois, indices])
    np.testing.assert_allclose(out.ravel(), [6, 7, 8], atol=1e-5)  # row 1: 5 + x
    clockwise = ROIAlignRotated(pooled_h=3, pooled_w=1, sampling_ratio=1, spatial_scale=1.0, clockwise_mode=True)
    np.testing.assert_allclose(clockwise.evaluate([ramp, rois, indices])[0].ravel(), [8, 7, 6], atol=1e-5)


def test_partial_shapes_match_openvino():
    def build(d, r, b):
        return ov_ops15.roi_align_rotated(d, r, b, 3, 2, 0, 1.0, False)

    op = ROIAlignRotated(pooled_h=3, pooled_w=2, sampling_ratio=0, spatial_scale=1.0)
    for data, rois, batch in [("?,8,?,?", "5..9,5", "?"), ("...", "...", "..."), ("2,3,4,5", "?,?", "7")]:
        check_types(op, [tt(data), tt(rois), tt(batch, "i32")], build)


def test_refusals():
    op = ROIAlignRotated(pooled_h=2, pooled_w=2, sampling_ratio=0, spatial_scale=1.0)
    inputs = [tt("1,1,4,4"), tt("2,4"), tt("2", "i32")]
    message = ("The second dimension of ROIs input should contain box coordinates. op dimension is expected to be "
               "equal to 5. Got: 4")
    with pytest.raises(OpError) as refusal:
        infer(op, inputs, [None, None, None])
    assert str(refusal.value) == message
    with pytest.raises(RuntimeError, match=message.replace(".", r"\.")):
        ov_ops15.roi_align_rotated(*[ov_parameter(t) for t in inputs], 2, 2, 0, 1.0, False)
    data, indices = np.ones((1, 1, 4, 4), np.float32), np.zeros(1, np.int32)
    with pytest.raises(OpError, match="no sampling ratio"):  # a box of negative width: bins of -1.5
        op.evaluate([data, np.array([[2, 2, -3, 2, 0]], np.float32), indices])
    with pytest.raises(OpError, match="batch index 1 of ROI 0 is outside"):
        op.evaluate([data, np.array([[2, 2, 3, 2, 0]], np.float32), np.ones(1, np.int32)])


def test_versions_and_attributes():
    assert lookup("ROIAlignRotated", "opset15") is ROIAlignRotated
    assert lookup("ROIAlignRotated", "opset16") is ROIAlignRotated
    assert lookup("ROIAlignRotated", "opset14") is None
    texts = {"pooled_h": "7", "pooled_w": "7", "sampling_ratio": "2", "spatial_scale": "0.0625",
             "clockwise_mode": "true"}
    assert ROIAlignRotated.from_attributes(texts).to_attributes() == texts


def test_an_openvino_ir_runs_through_the_cli(tmp_path, capsys):
    """Unrotated boxes, so ROIAlign-3's reference gives the expected values (the op has no evaluate)."""
    rng = np.random.default_rng(5)
    features = rng.standard_normal((2, 3, 10, 12)).astype(np.float32)
    rois = np.array([[5, 4, 6, 4, 0], [2.5, 7, 3, 5, 0]], np.float32)
    indices = np.array([1, 0], np.int32)
    corners = np.concatenate([rois[:, :2] * 0.5 - 0.5 - rois[:, 2:4] * 0.25, rois[:, :2] * 0.5 - 0.5
                              + rois[:, 2:4] * 0.25], axis=1)
    expected = ov_reference(ov_ops3.roi_align(ov_constant(features), ov_constant(corners), ov_constant(indices),
                                              2, 2, 2, 1.0, "avg"))
    assert_openvino_ir_runs(lambda d, r, b: ov_ops15.roi_align_rotated(d, r, b, 2, 2, 2, 0.5, True),
                            [features, rois, indices], tmp_path, capsys, expected=expected)
