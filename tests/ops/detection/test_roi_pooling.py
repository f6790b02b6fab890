"""ROIPooling-2 against openvino 2026.4.1, which folds no ROIPooling: its CPU plugin (f32) on generated
configurations, bit for bit for max pooling and for bilinear pooling of values every step keeps exact; f16 against
the CPU plugin's f32 results on the same values; named cases and refusals."""

from __future__ import annotations

import re

import numpy as np
import openvino as ov
import openvino.opset2 as ov_ops2
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irgraph as ir
from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.detection.roi_pooling import METHODS, ROIPooling
from irgraph.ops.op import EXACT, Tolerance
from irgraph.ops.registry import lookup
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, Independent, check_op, check_types, ov_cpu, ov_parameter
from tests.ops.helpers import infer, tt
from tests.ops.ir_cli import assert_openvino_ir_runs

CPU_TOLERANCE = Tolerance(ulp=8, eps=64)
"""openvino 2026.4.1's CPU plugin interpolates bilinear bins in its own order: a few f32 ULP, or of the inputs'
magnitude (up to 10 here) where the differences of neighbouring pixels cancel."""


@st.composite
def configuration(draw, method, *, exact=False):
    """Maps and boxes [batch_id, x1, y1, x2, y2]: max boxes in image pixels across and beyond the map, bilinear
    boxes normalised, some outside [0, 1]. ``exact``: integer maps and boxes on halves (bilinear: every step exact)."""
    batch, channels = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    height, width = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    count = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(S.seeds))
    if exact:
        data = rng.integers(-8, 9, (batch, channels, height, width)).astype(np.float32)
    else:
        # no NaN, infinities or -0.0 (+ 0): the CPU plugin, the only oracle, scans max bins its own way on them,
        # see test_max_scans_as_the_reference_does
        data = S.values(ElementType.F32, (batch, channels, height, width), draw(S.seeds), specials=False) + 0
    scale = draw(st.sampled_from([1.0, 0.5, 0.25, 0.0625] if exact else [1.0, 0.5, 0.25, 0.0625, 0.3, 2.0]))
    if method == "max":
        corners = rng.uniform(-0.3, 1.3, (count, 4)) * np.array([width, height, width, height]) / scale
    else:
        corners = rng.uniform(-0.2, 1.2, (count, 4))
    if exact or draw(st.booleans()):  # halves: std::round's ties, bilinear samples on exact points
        corners = np.round(corners * 2) / 2
    if exact and method == "bilinear":  # exact steps: spans of (size - 1) / (pooled - 1) on halves
        corners = np.round(rng.uniform(-0.2, 1.2, (count, 4)) * 4) / 4
    rois = np.column_stack([rng.integers(0, batch, count), corners]).astype(np.float32)
    counts = st.sampled_from([1, 2, 3, 5]) if exact and method == "bilinear" else st.integers(1, 4)
    attributes = {"pooled_h": draw(counts), "pooled_w": draw(counts), "spatial_scale": scale, "method": method}
    return data, rois, attributes


def _build(attributes):
    def build(data, rois):
        return ov_ops2.roi_pooling(data, rois, [attributes["pooled_h"], attributes["pooled_w"]],
                                   attributes["spatial_scale"], attributes["method"])

    return build


@pytest.mark.parametrize("method", METHODS)
@OP_EXAMPLES
@given(data=st.data())
def test_roi_pooling_matches_the_cpu_plugin(method, data):
    features, rois, attributes = data.draw(configuration(method))
    tolerance = EXACT if method == "max" else CPU_TOLERANCE
    assert check_op(ROIPooling(**attributes), [features, rois], _build(attributes), cpu_tolerance=tolerance).cpu


@OP_EXAMPLES
@given(data=st.data())
def test_bilinear_is_bit_for_bit_where_every_step_is_exact(data):
    """Integer maps, corners on quarters, bins spanning (size - 1) / (pooled - 1) with pooled - 1 a power of two:
    every value is exact, so openvino 2026.4.1's CPU plugin must agree bit for bit."""
    features, rois, attributes = data.draw(configuration("bilinear", exact=True))
    assert check_op(ROIPooling(**attributes), [features, rois], _build(attributes), cpu_tolerance=EXACT).cpu


@pytest.mark.parametrize("method", METHODS)
@OP_EXAMPLES
@given(data=st.data())
def test_f16_computes_in_f32(method, data):
    """f16 maps and boxes: the CPU plugin's f32 result on the same values, rounded to f16 (exact values, so the
    plugin's own order of operations cannot move a rounding)."""
    features, rois, attributes = data.draw(configuration(method, exact=True))
    narrow = [features.astype(np.float16), rois.astype(np.float16)]
    assert np.array_equal(narrow[1].astype(np.float32), rois)
    op = ROIPooling(**attributes)
    judge = Independent("cpu-widened", lambda op, arrays, types: [
        ov_cpu(_build(attributes), [features, rois], ())[0].astype(np.float16)], in_output_type=True)
    assert check_op(op, narrow, _build(attributes), cpu=False, independent=judge).judge == "cpu-widened"


def _run(data, rois, **attributes):
    defaults = {"pooled_h": 1, "pooled_w": 1, "spatial_scale": 1.0, "method": "max"}
    return ROIPooling(**{**defaults, **attributes}).evaluate([data, np.asarray(rois, data.dtype)])[0]


def test_max_by_hand():
    ramp = np.arange(20, dtype=np.float32).reshape(1, 1, 4, 5)
    # box x 1..3, y 0..2 (inclusive): a 3x3 region; 2x2 bins split rows [0,2) [1,3) and columns [1,3) [2,4)
    assert _run(ramp, [[0, 1, 0, 3, 2]], pooled_h=2, pooled_w=2).tolist() == [[[[7, 8], [12, 13]]]]
    # coordinates scaled and rounded half away from zero: 2.5 * 0.5 = 1.25 -> 1, 5 * 0.5 = 2.5 -> 3
    assert _run(ramp, [[0, 2.5, 0, 5, 1]], spatial_scale=0.5).tolist() == [[[[8]]]]
    # a reversed box is one pixel; a box off the map pools nothing: 0
    assert _run(ramp, [[0, 3, 2, 1, 0]]).tolist() == [[[[13]]]]
    assert _run(ramp, [[0, 9, 9, 12, 12]]).tolist() == [[[[0]]]]


def test_max_scans_as_the_reference_does():
    """OpenVINO's reference scans a bin with ``r = std::max(d, r)`` (``d < r ? r : d``) from the lowest float: a NaN
    survives only as the last pixel, -inf pixels leave the lowest float, the later of two equal zeros wins.
    irgraph follows it; openvino 2026.4.1's CPU plugin starts from the first pixel and keeps a value unless a
    later one is greater, which differs on exactly these cases (and agrees on ordinary values)."""
    rois = np.array([[0, 0, 0, 2, 0]], np.float32)
    cases = [([np.nan, 1.0, 2.0], 2.0, np.nan), ([1.0, 2.0, np.nan], np.nan, 2.0),
             ([-np.inf, -np.inf, -np.inf], -3.4028235e38, -np.inf), ([-0.0, 0.0, -0.0], -0.0, -0.0),
             ([0.0, -0.0, 0.0], 0.0, 0.0), ([-0.0, 0.0, 0.0], 0.0, -0.0), ([3.0, 1.0, 2.0], 3.0, 3.0)]
    for row, reference, plugin in cases:
        data = np.array(row, np.float32).reshape(1, 1, 1, 3)
        (cpu,) = ov_cpu(_build({"pooled_h": 1, "pooled_w": 1, "spatial_scale": 1.0, "method": "max"}), [data, rois],
                        ())
        np.testing.assert_array_equal(_run(data, rois).view(np.uint32).ravel(),
                                      np.array([reference], np.float32).view(np.uint32), err_msg=str(row))
        np.testing.assert_array_equal(cpu.view(np.uint32).ravel(), np.array([plugin], np.float32).view(np.uint32),
                                      err_msg=str(row))


def test_bilinear_by_hand():
    ramp = np.arange(20, dtype=np.float32).reshape(1, 1, 4, 5)
    # the whole map, 2x2 bins: its corners
    assert _run(ramp, [[0, 0, 0, 1, 1]], pooled_h=2, pooled_w=2, method="bilinear").tolist() == [
        [[[0, 4], [15, 19]]]]
    # one bin: the centre (1.5, 2) -> 5 * 1.5 + 2 = 9.5
    assert _run(ramp, [[0, 0, 0, 1, 1]], method="bilinear").tolist() == [[[[9.5]]]]
    # a sample outside the map is 0
    assert _run(ramp, [[0, 1.5, 1.5, 2, 2]], method="bilinear").tolist() == [[[[0]]]]


def test_partial_shapes_match_openvino():
    op = ROIPooling(pooled_h=3, pooled_w=2, spatial_scale=1.0)
    for data, rois in [("?,8,?,?", "5..9,5"), ("...", "..."), ("2,3,4,5", "?,?")]:
        check_types(op, [tt(data), tt(rois)], _build({"pooled_h": 3, "pooled_w": 2, "spatial_scale": 1.0,
                                                      "method": "max"}))


@pytest.mark.parametrize(
    ("attributes", "inputs", "message"),
    [
        ({}, [tt("1,1,4,4"), tt("2,5", "f16")],
         "Type of feature maps (inputs) and ROIs is expected to be the same. Got: f32 and: f16"),
        ({}, [tt("1,1,4,4", "i32"), tt("2,5", "i32")],
         "The data type for input and ROIs is expected to be a floating point type. Got: i32 and: i32"),
        ({}, [tt("1,4,4"), tt("2,5")], "Expected a 4D tensor for the feature maps input. Got: [1,4,4]"),
        ({}, [tt("1,1,4,4"), tt("2,5,1")],
         "Expected a 2D tensor for the ROIs input with box coordinates. Got: [2,5,1]"),
        ({}, [tt("1,1,4,4"), tt("2,4")], "The second dimension of ROIs input should contain batch id and box "
         "coordinates. This dimension is expected to be equal to 5. Got: 4"),
        ({"pooled_h": 0}, [tt("1,1,4,4"), tt("2,5")], "Pooled size attributes pooled_h and pooled_w should should be "
         "positive integers. Got: 0 and: 2respectively"),
        ({"spatial_scale": 0.0}, [tt("1,1,4,4"), tt("2,5")],
         "The spatial scale attribute should be a positive floating point number. Got: 0"),
        ({"spatial_scale": -1.0}, [tt("1,1,4,4"), tt("2,5")],
         "The spatial scale attribute should be a positive floating point number. Got: -1"),
    ],
)
def test_refused_as_openvino_refuses(attributes, inputs, message):
    attributes = {"pooled_h": 2, "pooled_w": 2, "spatial_scale": 1.0, "method": "max", **attributes}
    with pytest.raises(OpError) as refusal:
        infer(ROIPooling(**attributes), inputs, [None, None])
    assert str(refusal.value).startswith(message)
    pattern = re.escape(message)
    with pytest.raises(RuntimeError, match=pattern):
        _build(attributes)(*[ov_parameter(t) for t in inputs])


def test_refused_where_openvino_reads_outside_or_stops():
    data = np.ones((2, 1, 4, 4), np.float32)
    with pytest.raises(OpError, match=r"ROI batch id must be in the range of \[0, N-1\]: ROI 0 has 2.0"):
        _run(data, [[2, 0, 0, 1, 1]])
    with pytest.raises(OpError, match="ROI batch id must be in the range"):
        _run(data, [[np.nan, 0, 0, 1, 1]])
    with pytest.raises(OpError, match="a NaN box coordinate makes a NaN sample"):
        _run(data, [[0, np.nan, 0, 1, 1]], method="bilinear")
    with pytest.raises(OpError, match="Pooling method attribute should be either 'max' or 'bilinear'. Got: avg"):
        ROIPooling(pooled_h=1, pooled_w=1, spatial_scale=1.0, method="avg")


def test_empty_maps_pool_to_zero():
    assert _run(np.ones((1, 2, 0, 3), np.float32), [[0, 0, 0, 1, 1]]).tolist() == [[[[0]], [[0]]]]


def test_openvinos_file_rewrites_byte_for_byte(tmp_path):
    """openvino 2026.4.1 writes the pooled size three times (output_size, output_roi, pooled_h/pooled_w)."""
    data, rois = ov_ops2.parameter([1, 2, 6, 7], np.float32), ov_ops2.parameter([3, 5], np.float32)
    model = ov.Model([ov_ops2.roi_pooling(data, rois, [2, 3], 0.0625, "max")], [data, rois])
    ov.save_model(model, tmp_path / "a.xml")
    text = (tmp_path / "a.xml").read_text()
    assert '<data output_size="2, 3" output_roi="2, 3" pooled_h="2" pooled_w="3" spatial_scale="0.0625" ' \
           'method="max" />' in text
    ir.write_model(ir.read_model(tmp_path / "a.xml"), tmp_path / "b.xml")
    assert (tmp_path / "b.xml").read_text() == text
    spec = ROIPooling.from_attributes({"pooled_h": "6", "pooled_w": "6", "spatial_scale": "0.062500"})
    assert "output_size" not in spec.to_attributes() and spec.method == "max"
    # ROIPooling is in opset2 on; openvino 2026.4.1's IR reader also takes version="opset1" for it (the catalogue)
    assert lookup("ROIPooling", "opset2") is ROIPooling and lookup("ROIPooling", "opset1") is ROIPooling


def test_an_openvino_ir_runs_through_the_cli(tmp_path, capsys):
    """openvino 2026.4.1 folds no ROIPooling: the expected values are its CPU plugin's (max: exact)."""
    rng = np.random.default_rng(6)
    features = rng.standard_normal((2, 3, 10, 12)).astype(np.float32)
    rois = np.array([[1, 10, 12, 100, 90], [0, -20, 40, 60, 200], [1, 30, 30, 31, 30]], np.float32)
    attributes = {"pooled_h": 3, "pooled_w": 2, "spatial_scale": 0.125, "method": "max"}
    expected = ov_cpu(_build(attributes), [features, rois], ())
    assert_openvino_ir_runs(_build(attributes), [features, rois], tmp_path, capsys, expected=expected)
