"""SegmentMax-16 against OpenVINO 2026.4.1 (reference evaluate and CPU plugin) on generated segments: empty
segments, both fill modes, num_segments below, at and above the ids, and its refusals."""

from __future__ import annotations

import numpy as np
import openvino.opset16 as ov16
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.arithmetic.segment_max import SegmentMax
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op
from tests.ops.helpers import infer, tt


@OP_EXAMPLES
@given(st.data())
def test_segment_max_matches_openvino(data):
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F16, ElementType.I32, ElementType.I64,
                                              ElementType.U8]))
    rows = data.draw(st.integers(1, 8))
    ids = np.sort(np.array(data.draw(st.lists(st.integers(0, 5), min_size=rows, max_size=rows)),
                           np.dtype(data.draw(st.sampled_from(["int32", "int64"])))))
    x = S.values(element_type, (rows, *data.draw(S.shapes(max_rank=2, max_side=3))), data.draw(S.seeds),
                 specials=False)
    mode = data.draw(st.sampled_from(["zero", "lowest"]))
    op = SegmentMax(fill_mode=mode)
    # openvino 2026.4.1's CPU plugin fills an empty f16 segment with f32's lowest, -inf once rounded to f16;
    # OpenVINO's reference kernel (and irgraph) with f16's lowest, -65504. That reference is neither folded nor
    # evaluated by 2026.4.1, so f16 "lowest" is checked for types only here (its values: the named test below)
    cpu = not (element_type is ElementType.F16 and mode == "lowest")
    count = np.array(data.draw(st.integers(0, 7)), ids.dtype) if data.draw(st.booleans()) else None

    def check(index_type):
        inputs = [x, ids.astype(index_type)] + ([] if count is None else [count.astype(index_type)])
        return inputs, check_op(op, inputs, lambda d, i, n=None: ov16.segment_max(d, i, n, mode.upper()),
                                constant=set(range(1, len(inputs))), cpu=cpu)

    inputs, outcome = check(ids.dtype)
    if cpu and x.size and element_type is not ElementType.I64 and not (outcome.cpu or outcome.refused):
        # SegmentMax is neither folded nor evaluated by 2026.4.1 and the CPU harness takes no i64: the plugin
        # judges the same segments with int32 ids, and irgraph's answer must not depend on the id type
        narrow, outcome = check(np.int32)
        for mine, same in zip(op.evaluate(inputs), op.evaluate(narrow), strict=True):
            np.testing.assert_array_equal(mine, same)
        assert outcome.cpu or outcome.refused  # the CPU plugin compared


def test_exact_case():
    x = np.array([[1, 5], [3, 2], [7, 0], [4, 4]], np.int32)
    ids = np.array([0, 0, 2, 2], np.int64)
    assert SegmentMax(fill_mode="zero").evaluate([x, ids])[0].tolist() == [[3, 5], [0, 0], [7, 4]]
    (lowest,) = SegmentMax(fill_mode="LOWEST").evaluate([x, ids, np.array(2, np.int64)])
    assert lowest.tolist() == [[3, 5], [np.iinfo(np.int32).min] * 2]  # segment 2 dropped, segment 1 empty


def test_an_empty_f16_segment_is_f16s_lowest():
    x = np.array([[1.5], [-2.0]], np.float16)
    (out,) = SegmentMax(fill_mode="lowest").evaluate([x, np.array([0, 2], np.int32)])
    assert out.dtype == np.float16 and out[:, 0].tolist() == [1.5, -65504.0, -2.0]  # not -inf


def test_refusals():
    with pytest.raises(OpError, match="^segment_ids must be sorted."):
        infer(SegmentMax(fill_mode="zero"), [tt("3,2"), tt("3", "i64")], [None, [1, 0, 2]])
    with pytest.raises(OpError, match="^The number of elements in segment_ids must match the first dimension"):
        infer(SegmentMax(fill_mode="zero"), [tt("3,2"), tt("4", "i64")], [None, None])
    with pytest.raises(OpError, match="^fill_mode must be one of ZERO, LOWEST"):
        SegmentMax(fill_mode="max")


def test_a_dynamic_rank_data_gives_a_dynamic_rank():
    assert infer(SegmentMax(fill_mode="zero"), [tt("..."), tt("3", "i64")], [None, None]) == ["[...]"]
    assert infer(SegmentMax(fill_mode="zero"), [tt("3,2"), tt("...", "i64")], [None, None]) == ["[?,2]"]


def test_segment_ids_of_rank_two_are_refused_with_openvinos_message():
    ids = ov16.parameter([3, 1], np.int64)
    with pytest.raises(RuntimeError, match=r"segment_ids must be a 1D input\. Got: \[3,1\]"):
        ov16.segment_max(ov16.parameter([3, 2], np.float32), ids, fill_mode="zero")
    with pytest.raises(OpError, match=r"^segment_ids must be a 1D input\. Got: \[3,1\]$"):
        infer(SegmentMax(fill_mode="zero"), [tt("3,2"), tt("3,1", "i64")], [None, None])
