"""ROIAlign-3 and ROIAlign-9 against openvino 2026.4.1: ROIAlign-3's reference (it folds f32, f16 and bf16) bit for
bit on generated configurations; ROIAlign-9, which it does not fold, against its CPU plugin and, bit for bit,
against ROIAlign-3's reference on boxes shifted as aligned_mode shifts them; named cases and refusals."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import openvino.opset3 as ov_ops3
import openvino.opset9 as ov_ops9
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.detection.roi_align import ALIGNED_MODES, POOLING_MODES, ROIAlign3, ROIAlign9
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

CPU_TOLERANCE = Tolerance(ulp=4, eps=64)
"""The CPU plugin sums a sample's four weighted taps in its own order: a few f32 ULP, or of the inputs' magnitude (up
to 10 here) where they cancel."""
SCALES = [1.0, 0.5, 0.25, 0.0625, 0.3, 2.0]
BF16 = np.dtype(ml_dtypes.bfloat16)


@st.composite
def configuration(draw, *, specials=True, dyadic=False):
    """Feature maps, boxes (inside, across the border, reversed, thinner than a pixel), batch indices, attributes."""
    batch, channels = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    height, width = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    count = draw(st.integers(0, 4))
    element_type = draw(st.sampled_from([ElementType.F32, ElementType.F32, ElementType.F16, ElementType.BF16]))
    data = S.values(element_type, (batch, channels, height, width), draw(S.seeds),
                    specials=specials and draw(st.integers(0, 3)) == 0)
    scale = draw(st.sampled_from(SCALES[:4] if dyadic else SCALES))
    extent = np.array([width, height, width, height]) / scale
    corners = np.random.default_rng(draw(S.seeds)).uniform(-0.3, 1.2, (count, 4)) * extent
    if dyadic:
        corners = np.round(corners * 8) / 8
    if draw(st.booleans()):  # ordered corners: sizes from a fraction of a pixel up
        corners[:, 2:] = corners[:, :2] + np.abs(corners[:, 2:] - corners[:, :2]) * draw(st.sampled_from([0.1, 1.0]))
    rois = corners.astype(element_type.numpy_dtype)
    if specials and count and draw(st.integers(0, 5)) == 0:
        rois[draw(st.integers(0, count - 1)), draw(st.integers(0, 3))] = draw(st.sampled_from([np.nan, np.inf, 1e30]))
    index_type = draw(st.sampled_from([np.int32, np.int32, np.int64]))
    indices = np.random.default_rng(draw(S.seeds)).integers(0, batch, count).astype(index_type)
    attributes = {"pooled_h": draw(st.integers(1, 3)), "pooled_w": draw(st.integers(1, 3)),
                  "sampling_ratio": draw(st.integers(0, 3)), "spatial_scale": scale,
                  "mode": draw(st.sampled_from(POOLING_MODES))}
    return data, rois, indices, attributes


@OP_EXAMPLES
@given(data=st.data())
def test_roi_align3_matches_openvino(data):
    features, rois, indices, attributes = data.draw(configuration())
    op = ROIAlign3(**attributes)
    check_op(op, [features, rois, indices], same_op(op))


@OP_EXAMPLES
@given(data=st.data())
def test_roi_align9_matches_the_cpu_plugin(data):
    """openvino 2026.4.1 folds no ROIAlign-9: its CPU plugin judges f32 (a few ULP apart: CPU_TOLERANCE)."""
    features, rois, indices, attributes = data.draw(configuration(specials=False))
    op = ROIAlign9(**attributes, aligned_mode=data.draw(st.sampled_from(ALIGNED_MODES)))
    if op.aligned_mode != "asymmetric" and op.sampling_ratio == 0:
        # a reversed box's bins are negative: OpenVINO's reference stops there (and irgraph refuses, see
        # test_refused_where_openvino_reads_outside_or_stops), its CPU plugin samples anyway
        rois = np.concatenate([np.minimum(rois[:, :2], rois[:, 2:]), np.maximum(rois[:, :2], rois[:, 2:])], axis=1)
    inputs = [features.astype(np.float32), rois.astype(np.float32), indices.astype(np.int32)]
    check_op(op, inputs, same_op(op), cpu_tolerance=CPU_TOLERANCE)


SHIFTS = {"asymmetric": (0.0, 0.0), "half_pixel_for_nn": (0.0, -0.5), "half_pixel": (0.5, -0.5)}
"""aligned_mode's (before, after) scaling, as the spec words them."""


def _shifted(rois, spatial_scale, aligned_mode):
    """The boxes ROIAlign-9 samples, in map pixels: ``(x + before) * scale + after`` in f32."""
    before, after = SHIFTS[aligned_mode]
    wide = rois.astype(np.float32)
    return (wide + np.float32(before)) * np.float32(spatial_scale) + np.float32(after)


@OP_EXAMPLES
@given(data=st.data())
def test_roi_align9_is_roi_align3_on_shifted_boxes(data):
    """Bit for bit: ROIAlign-9 equals openvino 2026.4.1's ROIAlign-3 reference run on the boxes shifted and scaled
    as aligned_mode says (spatial_scale 1 there), for boxes at least a pixel wide and high (ROIAlign-3 widens
    thinner ones). Boxes on eighths and dyadic scales keep every shifted box exact in f16 too."""
    features, rois, indices, attributes = data.draw(configuration(specials=False, dyadic=True))
    if features.dtype == BF16:  # 8 significant bits hold too few of these boxes exactly
        features, rois = features.astype(np.float16), rois.astype(np.float32).astype(np.float16)
    aligned_mode = data.draw(st.sampled_from(ALIGNED_MODES))
    scale = attributes["spatial_scale"]
    before, after = SHIFTS[aligned_mode]
    shifted = _shifted(rois, scale, aligned_mode)
    shifted[:, 2:] = np.maximum(shifted[:, 2:], shifted[:, :2] + 1)  # at least a pixel
    # back to ROI coordinates: exact for dyadic scales
    rois = ((shifted - np.float32(after)) / np.float32(scale) - np.float32(before)).astype(features.dtype)
    assume(np.array_equal(_shifted(rois, scale, aligned_mode), shifted))
    assume(np.array_equal(shifted.astype(features.dtype).astype(np.float32), shifted))
    op = ROIAlign9(**attributes, aligned_mode=aligned_mode)
    node = ov_ops3.roi_align(ov_constant(features), ov_constant(shifted.astype(features.dtype)), ov_constant(indices),
                             attributes["pooled_h"], attributes["pooled_w"], attributes["sampling_ratio"], 1.0,
                             attributes["mode"])
    (expected,) = ov_reference(node)  # OpenVINO's ROIAlign-3 reference on the shifted boxes judges
    judge = Independent("reference", lambda op, arrays, types: [expected], in_output_type=True)
    assert check_op(op, [features, rois, indices], same_op(op), cpu=False, independent=judge).judge in ("reference",
                                                                                                       "empty")
    (got,) = op.evaluate([features, rois, indices])
    unsigned = f"u{got.itemsize}"
    np.testing.assert_array_equal(got.view(unsigned), expected.view(unsigned))


def test_spec_example():
    """The spec's ROIAlign-9 layer: 1000 boxes over [7,256,200,200] pooled 6x6 give [1000,256,6,6]."""
    op = ROIAlign9.from_attributes({"pooled_h": "6", "pooled_w": "6", "spatial_scale": "16.0", "sampling_ratio": "2",
                                    "mode": "avg", "aligned_mode": "half_pixel"})
    assert infer(op, [tt("7,256,200,200"), tt("1000,4"), tt("1000", "i64")], [None, None, None]) == [
        "[1000,256,6,6]"]


def _run3(data, rois, indices=None, **attributes):
    rois = np.asarray(rois, data.dtype)
    indices = np.zeros(len(rois), np.int32) if indices is None else np.asarray(indices, np.int32)
    defaults = {"pooled_h": 1, "pooled_w": 1, "sampling_ratio": 1, "spatial_scale": 1.0, "mode": "avg"}
    return ROIAlign3(**{**defaults, **attributes}).evaluate([data, rois, indices])[0]


def test_one_sample_by_hand():
    """A 1x1 bin of the box [0,0,3,3] has its one sample at (1.5, 1.5): the mean of pixels 5, 6, 9 and 10."""
    ramp = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    assert _run3(ramp, [[0, 0, 3, 3]]).tolist() == [[[[7.5]]]]
    # 2x2 samples (sampling_ratio 0: ceil(3 / 1) = 3 per axis) at 0.5, 1.5, 2.5: their mean is the centre, 7.5
    assert _run3(ramp, [[0, 0, 3, 3]], sampling_ratio=0).tolist() == [[[[7.5]]]]
    # pooled 2x2, one sample per bin at (0.75, 0.75), (2.25, 0.75), ...: 3.75, 5.25, 9.75, 11.25
    assert _run3(ramp, [[0, 0, 3, 3]], pooled_h=2, pooled_w=2).tolist() == [[[[3.75, 5.25], [9.75, 11.25]]]]
    # the batch index picks the map; spatial_scale maps box coordinates to map pixels
    two = np.stack([ramp[0], -ramp[0]])
    assert _run3(two, [[0, 0, 6, 6]], [1], spatial_scale=0.5).tolist() == [[[[-7.5]]]]


def test_max_starts_from_zero():
    """openvino 2026.4.1's reference (and irgraph) pools 'max' from 0: a bin of negative samples gives 0."""
    negative = np.full((1, 1, 4, 4), -2.0, np.float32)
    assert _run3(negative, [[0, 0, 3, 3]], mode="max").tolist() == [[[[0.0]]]]
    node = ov_ops3.roi_align(ov_constant(negative), ov_constant(np.array([[0, 0, 3, 3]], np.float32)),
                             ov_constant(np.zeros(1, np.int32)), 1, 1, 1, 1.0, "max")
    assert ov_reference(node)[0].tolist() == [[[[0.0]]]]


def test_samples_outside_weigh_pixel_zero_by_zero():
    """A sample more than a pixel outside counts as pixel (0, 0) times 0: an infinite pixel there makes it NaN (as
    openvino 2026.4.1's reference computes it)."""
    data = np.ones((1, 1, 4, 4), np.float32)
    data[0, 0, 0, 0] = np.inf
    far = [[10, 10, 12, 12]]
    assert np.isnan(_run3(data, far)).all()
    node = ov_ops3.roi_align(ov_constant(data), ov_constant(np.array(far, np.float32)),
                             ov_constant(np.zeros(1, np.int32)), 1, 1, 1, 1.0, "avg")
    assert np.isnan(ov_reference(node)[0]).all()
    assert _run3(np.ones((1, 1, 4, 4), np.float32), far).tolist() == [[[[0.0]]]]


def test_aligned_modes_shift_and_keep_thin_boxes():
    ramp = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    rois, indices = np.array([[1, 1, 2, 2]], np.float32), np.zeros(1, np.int32)

    def run(aligned_mode, box=rois):
        op = ROIAlign9(pooled_h=1, pooled_w=1, sampling_ratio=1, spatial_scale=1.0, mode="avg",
                       aligned_mode=aligned_mode)
        return op.evaluate([ramp, box, indices])[0].item()

    assert run("asymmetric") == 7.5  # sample at (1.5, 1.5)
    assert run("half_pixel_for_nn") == 5.0  # box [0.5, 1.5]: sample at (1, 1)
    assert run("half_pixel") == 7.5  # (x + 0.5) - 0.5: the box itself
    thin = np.array([[1, 1, 1.5, 1.5]], np.float32)
    assert run("asymmetric", thin) == 7.5  # widened to a pixel: sample at (1.5, 1.5)
    assert run("half_pixel", thin) == 6.25  # kept half a pixel: sample at (1.25, 1.25)


def test_partial_shapes_match_openvino():
    def build(d, r, b):
        return ov_ops9.roi_align(d, r, b, 3, 2, 0, 1.0, "avg", "asymmetric")

    op = ROIAlign9(pooled_h=3, pooled_w=2, sampling_ratio=0, spatial_scale=1.0, mode="avg")
    for data, rois, batch in [("?,8,?,?", "5..9,4", "?"), ("...", "...", "..."), ("2,3,4,5", "?,?", "7"),
                              ("2,?,4,5", "...", "3..4")]:
        check_types(op, [tt(data), tt(rois), tt(batch, "i32")], build)


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ([tt("1,1,4,4"), tt("2,4", "f16"), tt("2", "i32")],
         "The data type for input and ROIs is expected to be a same floating point type. Got: f32 and: f16"),
        ([tt("1,1,4,4", "i32"), tt("2,4", "i32"), tt("2", "i32")],
         "The data type for input and ROIs is expected to be a same floating point type. Got: i32 and: i32"),
        ([tt("1,1,4,4"), tt("2,4"), tt("2")], "The data type for batch indices is expected to be an integer. Got: f32"),
        ([tt("1,4,4"), tt("2,4"), tt("2", "i32")], "Expected a 4D tensor for the input data. Got: [1,4,4]"),
        ([tt("1,1,4,4"), tt("2,4,1"), tt("2", "i32")], "Expected a 2D tensor for the ROIs input. Got: [2,4,1]"),
        ([tt("1,1,4,4"), tt("2,4"), tt("2,1", "i32")], "Expected a 1D tensor for the batch indices input. Got: [2,1]"),
        ([tt("1,1,4,4"), tt("2,5"), tt("2", "i32")],
         "The second dimension of ROIs input should contain box coordinates. op dimension is expected to be equal "
         "to 4. Got: 5"),
        ([tt("1,1,4,4"), tt("2,4"), tt("3", "i32")],
         "The first dimension of ROIs input must be equal to the first dimension of the batch indices input. "
         "Got: 2 and: 3"),
    ],
)
def test_refused_as_openvino_refuses(inputs, message):
    op = ROIAlign3(pooled_h=2, pooled_w=2, sampling_ratio=0, spatial_scale=1.0, mode="avg")
    with pytest.raises(OpError) as refusal:
        infer(op, inputs, [None, None, None])
    assert str(refusal.value) == message
    parameters = [ov_parameter(t) for t in inputs]
    with pytest.raises(RuntimeError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        ov_ops3.roi_align(*parameters, 2, 2, 0, 1.0, "avg")


def test_refused_where_openvino_reads_outside_or_stops():
    data = np.ones((2, 1, 4, 4), np.float32)
    with pytest.raises(OpError, match="batch index 2 of ROI 0 is outside the data's batch of 2"):
        _run3(data, [[0, 0, 1, 1]], [2])
    with pytest.raises(OpError, match="batch index -1 of ROI 0"):
        _run3(data, [[0, 0, 1, 1]], [-1])
    with pytest.raises(OpError, match=r"ROI 0 has bins of nan x .* no sampling ratio"):
        _run3(data, [[np.nan, 0, 1, 1]], sampling_ratio=0)
    reversed_box = ROIAlign9(pooled_h=1, pooled_w=1, sampling_ratio=0, spatial_scale=1.0, mode="avg",
                             aligned_mode="half_pixel")  # not widened: bins of -2 pixels
    with pytest.raises(OpError, match="ROI 0 has bins of -2.0 x 1.0 pixels: no sampling ratio"):
        reversed_box.evaluate([data, np.array([[3, 0, 1, 1]], np.float32), np.zeros(1, np.int32)])
    with pytest.raises(OpError, match="no pixel to sample"):
        _run3(np.ones((1, 1, 0, 4), np.float32), [[0, 0, 1, 1]])
    with pytest.raises(OpError, match="sampling_ratio must be non-negative"):
        infer(ROIAlign3(pooled_h=1, pooled_w=1, sampling_ratio=-1, spatial_scale=1.0, mode="avg"),
              [tt("1,1,4,4"), tt("1,4"), tt("1", "i32")], [None, None, None])
    with pytest.raises(OpError, match="Attribute 'mode' must be one of avg, max. Got: 'sum'"):
        ROIAlign3(pooled_h=1, pooled_w=1, sampling_ratio=1, spatial_scale=1.0, mode="sum")
    with pytest.raises(OpError, match="Attribute 'aligned_mode' must be one of"):
        ROIAlign9(pooled_h=1, pooled_w=1, sampling_ratio=1, spatial_scale=1.0, mode="avg", aligned_mode="centre")


def test_no_rois_and_no_bins():
    data = np.ones((1, 2, 4, 4), np.float32)
    assert _run3(data, np.zeros((0, 4))).shape == (0, 2, 1, 1)
    assert _run3(data, [[0, 0, 1, 1]], pooled_h=0).shape == (1, 2, 0, 1)


def test_versions_and_attributes():
    assert lookup("ROIAlign", "opset3") is ROIAlign3 and lookup("ROIAlign", "opset8") is ROIAlign3
    assert lookup("ROIAlign", "opset9") is ROIAlign9 and lookup("ROIAlign", "opset16") is ROIAlign9
    texts = {"pooled_h": "7", "pooled_w": "7", "sampling_ratio": "2", "spatial_scale": "0.0625", "mode": "avg",
             "aligned_mode": "half_pixel"}
    op = ROIAlign9.from_attributes(texts)
    assert op.to_attributes() == texts
    with pytest.raises(OpError, match="needs the attribute 'spatial_scale'"):
        ROIAlign3.from_attributes({"pooled_h": "7", "pooled_w": "7", "sampling_ratio": "2", "mode": "avg"})


@pytest.mark.parametrize("version", [3, 9])
def test_an_openvino_ir_runs_through_the_cli(version, tmp_path, capsys):
    rng = np.random.default_rng(4)
    features = rng.standard_normal((2, 3, 10, 12)).astype(np.float32)
    rois = np.array([[1, 1, 30, 25], [-4, 8, 20, 40], [10, 10, 16, 14]], np.float32)
    indices = np.array([1, 0, 1], np.int32)
    if version == 3:
        assert_openvino_ir_runs(lambda d, r, b: ov_ops3.roi_align(d, r, b, 2, 3, 0, 0.25, "max"),
                                [features, rois, indices], tmp_path, capsys)
        return
    shifted = _shifted(rois, 0.25, "half_pixel")  # every box at least a pixel: ROIAlign-3's reference judges it
    assert (shifted[:, 2:] - shifted[:, :2] >= 1).all()
    expected = ov_reference(ov_ops3.roi_align(ov_constant(features), ov_constant(shifted), ov_constant(indices),
                                              2, 3, 0, 1.0, "avg"))
    assert_openvino_ir_runs(lambda d, r, b: ov_ops9.roi_align(d, r, b, 2, 3, 0, 0.25, "avg", "half_pixel"),
                            [features, rois, indices], tmp_path, capsys, expected=expected)


@pytest.mark.parametrize("mode", POOLING_MODES)
def test_f64_computes_in_f64(mode):
    """openvino 2026.4.1 neither folds f64 nor runs it in its CPU plugin (f32 there). Integer maps, boxes on eighths,
    power-of-two bins and sample counts: every step is exact in f32 and f64 alike, so the f64 result is the f32
    reference's bit for bit."""
    rng = np.random.default_rng(11)
    features = rng.integers(-8, 9, (2, 3, 6, 7)).astype(np.float64)
    rois = np.round(rng.uniform(-1, 8, (6, 4)) * 8) / 8
    indices = rng.integers(0, 2, 6).astype(np.int32)
    for pooled, ratio, scale in [(1, 1, 1.0), (2, 2, 0.5), (4, 1, 2.0), (2, 4, 1.0)]:
        op = ROIAlign3(pooled_h=pooled, pooled_w=2, sampling_ratio=ratio, spatial_scale=scale, mode=mode)
        (got,) = op.evaluate([features, rois, indices])
        assert got.dtype == np.float64
        node = ov_ops3.roi_align(ov_constant(features.astype(np.float32)), ov_constant(rois.astype(np.float32)),
                                 ov_constant(indices), pooled, 2, ratio, scale, mode)
        np.testing.assert_array_equal(got, ov_reference(node)[0].astype(np.float64))
