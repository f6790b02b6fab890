"""PSROIPooling-1 against openvino 2026.4.1, which folds no PSROIPooling: its CPU plugin (f32) on generated
configurations of boxes inside the map (bit for bit for average pooling, a few ULP for bilinear), f16 against
the plugin's f32 results on values every step keeps exact, named cases (where the plugin and the reference part
ways) and refusals."""

from __future__ import annotations

import re

import numpy as np
import openvino.opset1 as ov_ops1
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.detection.psroi_pooling import MODES, PSROIPooling
from irgraph.ops.op import EXACT, Tolerance
from irgraph.ops.registry import lookup
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, Independent, check_op, check_types, ov_cpu, ov_parameter
from tests.ops.helpers import infer, tt
from tests.ops.ir_cli import assert_openvino_ir_runs

CPU_TOLERANCE = Tolerance(ulp=8, eps=64)
"""openvino 2026.4.1's CPU plugin interpolates bilinear samples in its own order: a few f32 ULP, or of the inputs'
magnitude (up to 10 here) where the differences of neighbouring pixels cancel."""


@st.composite
def configuration(draw, mode, *, exact=False):
    """Maps of the channels the attributes address and boxes [batch_id, x1, y1, x2, y2] inside the map (average:
    image pixels whose rounded, scaled bins stay on the map; bilinear: normalised to [0, 1]). ``exact``: integer
    maps and dyadic boxes, scales and bin counts, so every step is exact."""
    group = draw(st.sampled_from([1, 2, 3, 5]) if exact else st.integers(1, 3))
    output_dim = draw(st.integers(1, 2))
    bins_x, bins_y = (draw(st.sampled_from([1, 2])), draw(st.sampled_from([1, 2]))) if mode == "bilinear" else (1, 1)
    channels = output_dim * (group * group if mode == "average" else bins_x * bins_y)
    batch, height, width = draw(st.integers(1, 2)), draw(st.integers(2, 7)), draw(st.integers(2, 7))
    count = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(S.seeds))
    if exact:
        data = rng.integers(-8, 9, (batch, channels, height, width)).astype(np.float32)
    else:
        data = S.values(ElementType.F32, (batch, channels, height, width), draw(S.seeds), specials=False)
    scale = draw(st.sampled_from([1.0, 0.5, 0.25] if exact else [1.0, 0.5, 0.25, 0.0625, 0.3]))
    if mode == "average":
        reach = np.maximum(np.array([width, height]) / scale - 1.5, 0)  # (round(x) + 1) * scale stays <= size
        corners = rng.uniform(0, 1, (count, 2, 2)) * reach
    else:
        corners = rng.uniform(0, 1, (count, 2, 2))
    if exact or draw(st.booleans()):
        corners = np.round(corners * 8) / 8
    corners = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)
    rois = np.column_stack([rng.integers(0, batch, count), corners]).astype(np.float32)
    attributes = {"output_dim": output_dim, "group_size": group, "spatial_scale": scale, "mode": mode,
                  "spatial_bins_x": bins_x, "spatial_bins_y": bins_y}
    return data, rois, attributes


def _build(attributes):
    def build(data, rois):
        return ov_ops1.psroi_pooling(data, rois, attributes["output_dim"], attributes["group_size"],
                                     attributes["spatial_scale"], attributes["spatial_bins_x"],
                                     attributes["spatial_bins_y"], attributes["mode"])

    return build


@pytest.mark.parametrize("mode", MODES)
@OP_EXAMPLES
@given(data=st.data())
def test_psroi_pooling_matches_the_cpu_plugin(mode, data):
    features, rois, attributes = data.draw(configuration(mode))
    tolerance = EXACT if mode == "average" else CPU_TOLERANCE
    assert check_op(PSROIPooling(**attributes), [features, rois], _build(attributes), cpu_tolerance=tolerance).cpu


@pytest.mark.parametrize("mode", MODES)
@OP_EXAMPLES
@given(data=st.data())
def test_f16_computes_in_f32(mode, data):
    """f16 maps and boxes: the CPU plugin's f32 result on the same values, rounded to f16 (exact sums and samples,
    so the plugin's order of operations cannot move a rounding)."""
    features, rois, attributes = data.draw(configuration(mode, exact=True))
    narrow = [features.astype(np.float16), rois.astype(np.float16)]
    op = PSROIPooling(**attributes)
    judge = Independent("cpu-widened", lambda op, arrays, types: [
        ov_cpu(_build(attributes), [features, rois], ())[0].astype(np.float16)], in_output_type=True)
    assert check_op(op, narrow, _build(attributes), cpu=False, independent=judge).judge == "cpu-widened"


def test_spec_example():
    op = PSROIPooling.from_attributes({"group_size": "6", "mode": "bilinear", "output_dim": "360",
                                       "spatial_bins_x": "3", "spatial_bins_y": "3", "spatial_scale": "1"})
    assert infer(op, [tt("1,3240,38,38"), tt("100,5")], [None, None]) == ["[100,360,6,6]"]


def _run(data, rois, **attributes):
    defaults = {"output_dim": 1, "group_size": 2, "spatial_scale": 1.0}
    return PSROIPooling(**{**defaults, **attributes}).evaluate([data, np.asarray(rois, np.float32)])[0]


def test_average_by_hand():
    """Box x 0..3, y 0..1 (+1: 4 x 2 pixels) in 2x2 bins: bin (i, j) averages a 1x2 block of channel 2i + j."""
    planes = np.arange(4 * 2 * 4, dtype=np.float32).reshape(1, 4, 2, 4)
    out = _run(planes, [[0, 0, 0, 3, 1]])
    assert out.tolist() == [[[[0.5, 10.5], [20.5, 30.5]]]]  # channel 0 row 0 cols 0-1, channel 1 row 0 cols 2-3, ...


def test_bilinear_by_hand():
    """One bin over the whole map: its centre ((W - 1) / 2, (H - 1) / 2) of channel c."""
    ramp = np.arange(2 * 3 * 5, dtype=np.float32).reshape(1, 2, 3, 5)
    out = _run(ramp, [[0, 0, 0, 1, 1]], output_dim=2, group_size=1, mode="bilinear")
    assert out.tolist() == [[[[7.0]], [[22.0]]]]


def test_bins_past_the_map_follow_the_reference():
    """A bin starting at or past the far edge: OpenVINO's reference clamps its start to the last pixel and pools
    that pixel (irgraph does); openvino 2026.4.1's CPU plugin gives 0 there."""
    planes = np.arange(4 * 2 * 2, dtype=np.float32).reshape(1, 4, 2, 2) + 1
    rois = np.array([[0, 0, 0, 3, 1]], np.float32)  # 4 pixels wide on a map 2 wide: the right bins start at x = 2
    np.testing.assert_array_equal(_run(planes, rois), [[[[1.5, 6], [11.5, 16]]]])
    (cpu,) = ov_cpu(_build({"output_dim": 1, "group_size": 2, "spatial_scale": 1.0, "mode": "average",
                            "spatial_bins_x": 1, "spatial_bins_y": 1}), [planes, rois], ())
    np.testing.assert_array_equal(cpu, [[[[1.5, 0], [11.5, 0]]]])


def test_partial_shapes_match_openvino():
    attributes = {"output_dim": 2, "group_size": 3, "spatial_scale": 1.0, "mode": "average", "spatial_bins_x": 1,
                  "spatial_bins_y": 1}
    for data, rois in [("?,18,?,?", "5..9,5"), ("...", "..."), ("2,?,4,5", "?,?")]:
        check_types(PSROIPooling(**attributes), [tt(data), tt(rois)], _build(attributes))


@pytest.mark.parametrize(
    ("attributes", "inputs", "message"),
    [
        ({}, [tt("1,8,4,4", "i32"), tt("2,5")], "Feature maps' data type must be floating point. Got i32"),
        ({}, [tt("1,8,4,4"), tt("2,5", "i32")], "Coords' data type must be floating point. Got i32"),
        ({"group_size": 0}, [tt("1,8,4,4"), tt("2,5")], "group_size has to be greater than 0"),
        ({"mode": "bilinear", "spatial_bins_x": 0}, [tt("1,8,4,4"), tt("2,5")],
         "spatial_bins_x has to be greater than 0"),
        ({"spatial_scale": 0.0}, [tt("1,8,4,4"), tt("2,5")],
         "The spatial scale attribute should be a positive floating point number. Got: 0"),
        ({}, [tt("1,7,4,4"), tt("2,5")],
         "Number of input's channels must be a multiply of output_dim * group_size * group_size"),
        ({"mode": "bilinear", "spatial_bins_x": 2, "spatial_bins_y": 2}, [tt("1,7,4,4"), tt("2,5")],
         "Number of input's channels must be a multiply of output_dim * spatial_bins_x * spatial_bins_y"),
        ({}, [tt("1,8,4"), tt("2,5")], "Expected a 4D tensor for the feature maps input. Got: [1,8,4]"),
        ({}, [tt("1,8,4,4"), tt("2,4")], "The second dimension of ROIs input should contain batch id and box "
         "coordinates. This dimension is expected to be equal to 5. Got: 4"),
    ],
)
def test_refused_as_openvino_refuses(attributes, inputs, message):
    attributes = {"output_dim": 2, "group_size": 2, "spatial_scale": 1.0, "mode": "average", "spatial_bins_x": 1,
                  "spatial_bins_y": 1, **attributes}
    with pytest.raises(OpError) as refusal:
        infer(PSROIPooling(**attributes), inputs, [None, None])
    assert str(refusal.value).startswith(message)
    with pytest.raises(RuntimeError, match=re.escape(message)):
        _build(attributes)(*[ov_parameter(t) for t in inputs])


def test_refused_where_openvino_reads_outside():
    data = np.ones((2, 4, 4, 4), np.float32)
    with pytest.raises(OpError, match=r"ROI batch id must be in the range of \[0, N-1\]: ROI 0 has 2.0"):
        _run(data, [[2, 0, 0, 1, 1]])
    with pytest.raises(OpError, match="a bin starts before the map"):
        _run(data, [[0, -2, 0, 1, 1]])
    with pytest.raises(OpError, match="a bin ends before it starts"):
        _run(data, [[0, 3, 0, 0, 1]])
    with pytest.raises(OpError, match="a sample lies before the map"):
        _run(data, [[0, -1, 0, 0.2, 1]], output_dim=4, group_size=1, mode="bilinear")  # centre x -1.2
    with pytest.raises(OpError, match=r"no pixel to pool in data of shape \[2,4,4,0\]"):
        _run(np.ones((2, 4, 4, 0), np.float32), [[0, 0, 0, 1, 1]])
    with pytest.raises(OpError, match="NaN box coordinate"):
        _run(data, [[0, np.nan, 0, 1, 1]])
    evaluate = PSROIPooling(output_dim=1, spatial_scale=1.0, group_size=2).evaluate
    for feature_maps, coords in ((data, np.array([[0, 0, 0, 1, 1]], np.int32)),
                                 (data.astype(np.int32), np.array([[0, 0, 0, 1, 1]], np.float32))):
        with pytest.raises(OpError, match="Feature maps and coords must be floating point"):
            evaluate([feature_maps, coords])
    with pytest.raises(OpError, match="Expected 'average' or 'bilinear' mode. Got max"):
        PSROIPooling(output_dim=1, spatial_scale=1.0, mode="max")


def test_versions_and_attributes():
    assert lookup("PSROIPooling", "opset1") is PSROIPooling and lookup("PSROIPooling", "opset16") is PSROIPooling
    texts = {"output_dim": "2", "group_size": "3", "spatial_scale": "0.0625", "mode": "average",
             "spatial_bins_x": "1", "spatial_bins_y": "1"}
    op = PSROIPooling.from_attributes(texts)
    assert op.to_attributes() == texts and list(op.to_attributes()) == list(texts)


@pytest.mark.parametrize("mode", MODES)
def test_an_openvino_ir_runs_through_the_cli(mode, tmp_path, capsys):
    """openvino 2026.4.1 folds no PSROIPooling: the expected values are its CPU plugin's, on exact values."""
    rng = np.random.default_rng(7)
    features = rng.integers(-8, 9, (2, 18, 10, 12)).astype(np.float32)
    boxes = [[1, 8, 4, 30, 20], [0, 0, 0, 40, 30]] if mode == "average" else [[1, 0.25, 0.125, 0.75, 0.5],
                                                                              [0, 0, 0, 1, 1]]
    rois = np.array(boxes, np.float32)
    attributes = {"output_dim": 2, "group_size": 3, "spatial_scale": 0.25, "mode": mode,
                  "spatial_bins_x": 3 if mode == "bilinear" else 1, "spatial_bins_y": 3 if mode == "bilinear" else 1}
    if mode == "bilinear":
        attributes["output_dim"] = 2
    expected = ov_cpu(_build(attributes), [features, rois], ())
    assert_openvino_ir_runs(_build(attributes), [features, rois], tmp_path, capsys, expected=expected)
