"""ReorgYolo-2 and RegionYolo-1 (YOLO v2 and v3 heads) against OpenVINO 2026.4.1 (reference evaluate and CPU
plugin) on generated configurations, OpenVINO's attribute text, and irgraph's stricter refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.detection.region_yolo import RegionYolo
from irgraph.ops.detection.reorg_yolo import ReorgYolo
from irgraph.ops.op import CODECS, Tolerance
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, same_op
from tests.ops.helpers import infer, tt

V2_ANCHORS = (0.57273, 0.677385, 1.87446, 2.06253, 3.33843, 5.47434, 7.88282, 3.52778, 9.77052, 9.16828)


@OP_EXAMPLES
@given(st.data())
def test_reorg_yolo_matches_openvino(data):
    stride = data.draw(st.integers(1, 3))
    shape = (data.draw(st.integers(1, 2)), stride * stride * data.draw(st.integers(1, 3)),
             stride * data.draw(st.integers(1, 3)), stride * data.draw(st.integers(1, 3)))
    x = S.values(data.draw(st.sampled_from(S.NUMERIC)), shape, data.draw(S.seeds))
    op = ReorgYolo(stride=(stride,))
    check_op(op, [x], same_op(op), moved=(0,))


@OP_EXAMPLES
@given(st.data())
def test_region_yolo_matches_openvino(data):
    v2 = data.draw(st.booleans())
    coords, classes = data.draw(st.integers(2, 4)), data.draw(st.integers(1, 5))
    num = data.draw(st.integers(1, 5))
    mask = () if v2 else tuple(data.draw(st.lists(st.integers(0, num - 1), min_size=1, max_size=3)))
    regions = num if v2 else len(mask)
    # OpenVINO 2026.4.1's reference fills only the first batch item of a v3 output: batch 1 there
    shape = (data.draw(st.integers(1, 2)) if v2 else 1, regions * (coords + classes + 1), data.draw(st.integers(1, 4)),
             data.draw(st.integers(1, 4)))
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F16]))
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False, low=-8, high=8)
    axis, end_axis = data.draw(st.sampled_from([(1, 3), (1, -1), (0, 3), (2, 3), (1, 1)]))
    op = RegionYolo(anchors=V2_ANCHORS, axis=axis, coords=coords, classes=classes, end_axis=end_axis, num=num,
                    do_softmax=v2, mask=mask)
    # the CPU plugin's vectorised exp is a few ULP from the C library's in the softmax
    check_op(op, [x], same_op(op), cpu_tolerance=Tolerance(ulp=8, eps=8))


def test_reorg_yolo_exact_case():
    x = np.arange(8 * 2 * 2, dtype=np.int32).reshape(1, 8, 2, 2)
    (got,) = ReorgYolo(stride=(2,)).evaluate([x])
    assert got.shape == (1, 32, 1, 1)
    # in [N, C, H, W] order, element (i*2 + j)*2 + c', h, w is element (c', h*2 + i, w*2 + j) of the input read
    # as [1, 2, 4, 4] (value c'*16 + row*4 + column): the first four are (0,0,0), (0,0,2), (0,2,0), (0,2,2)
    assert got.ravel().tolist()[:4] == [0, 2, 8, 10]


def test_region_yolo_v3_keeps_the_shape_and_the_v2_flattens():
    v3 = RegionYolo(anchors=(), axis=1, coords=4, classes=80, end_axis=3, num=9, do_softmax=False, mask=(6, 7, 8))
    assert infer(v3, [tt("1,255,13,13")], [None]) == ["[1,255,13,13]"]
    v2 = RegionYolo(anchors=V2_ANCHORS, axis=1, coords=4, classes=20, end_axis=3, num=5, do_softmax=True)
    assert infer(v2, [tt("1,125,13,13")], [None]) == ["[1,21125]"]
    with pytest.raises(OpError, match="the input has 124 channels; 5 regions of 4 coords"):
        v2.evaluate([np.zeros((1, 124, 2, 2), np.float32)])


def test_region_yolo_flattens_a_zero_dim_against_a_dynamic_one_to_zero():
    """OpenVINO 2026.4.1's Dimension product: 0 * ? = 0, so [1, 0, ?, 4] flattens to [1, 0], not [1, ?]."""
    v2 = RegionYolo(anchors=V2_ANCHORS, axis=1, coords=4, classes=20, end_axis=3, num=5, do_softmax=True)
    assert infer(v2, [tt("1,0,?,4")], [None]) == ["[1,0]"]
    check_types(v2, [tt("1,0,?,4")], same_op(v2))


def test_anchors_are_written_as_openvino_writes_float_vectors():
    """std::ostream's 6 significant digits, as OpenVINO 2026.4.1 serializes a RegionYolo's anchors."""
    codec = CODECS[tuple[float, ...]]
    text = "0.57273, 0.677385, 10, 1e-07, 1.23457e+08"
    assert codec.write(codec.read(text)) == text


def test_reorg_yolo_refuses_channels_the_stride_does_not_divide():
    with pytest.raises(OpError, match="C must be a multiple of stride"):
        ReorgYolo(stride=(2,)).evaluate([np.zeros((1, 6, 2, 2), np.float32)])
