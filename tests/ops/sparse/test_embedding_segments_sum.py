"""EmbeddingSegmentsSum-3 against OpenVINO: segments in any order, empty segments, default rows, weights."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.sparse.embedding_segments_sum import EmbeddingSegmentsSum
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op

TABLE_TYPES = (ElementType.F32, ElementType.F16, ElementType.F64, ElementType.I32)


@OP_EXAMPLES
@given(data=st.data())
def test_embedding_segments_sum_matches_openvino(data):
    table_type = data.draw(st.sampled_from(TABLE_TYPES))
    rows = data.draw(st.integers(1, 5))
    table = S.values(table_type, (rows, *data.draw(S.shapes(max_rank=2, max_side=3))), data.draw(S.seeds),
                     specials=False)
    # no zeros: the reference adds rows to zeros (+0.0 where a bag sums one -0.0 or 0 * -w) while openvino
    # 2026.4.1's CPU plugin, the only oracle (the op does not fold), starts from the first row (-0.0)
    table = np.where(table == 0, 1, table).astype(table.dtype)
    count, segments = data.draw(st.integers(0, 6)), data.draw(st.integers(1, 4))
    index_type = data.draw(st.sampled_from([ElementType.I32, ElementType.I64]))
    indices = S.values(index_type, (count,), data.draw(S.seeds), specials=False, low=0, high=rows - 1)
    # sorted, as the spec asks: openvino 2026.4.1's CPU plugin assumes it (segments [0,1,1,1,0] sum wrongly there);
    # irgraph, as the reference, takes any order (test_unsorted_segment_ids)
    segment_ids = np.sort(S.values(index_type, (count,), data.draw(S.seeds), specials=False, low=0, high=segments - 1))
    inputs = [table, indices, segment_ids, np.array(segments, indices.dtype)]
    if data.draw(st.booleans()):
        inputs.append(np.array(data.draw(st.integers(0, rows - 1)), indices.dtype))
        if data.draw(st.booleans()):
            inputs.append(S.values(table_type, (count,), data.draw(S.seeds), specials=False, low=1, high=3))
    op = EmbeddingSegmentsSum()
    check_op(op, inputs, same_op(op), constant=(3,))


def test_spec_example():
    table = np.array([[-0.2, -0.6], [-0.1, -0.4], [-1.9, -1.8], [-1.0, 1.5], [0.8, -0.7]], np.float32)
    args = [table, np.array([0, 2, 3, 4]), np.array([0, 0, 2, 2]), np.array(3), np.array(0),
            np.full(4, 0.5, np.float32)]
    (got,) = EmbeddingSegmentsSum().evaluate(args)
    np.testing.assert_allclose(got, [[-1.05, -1.2], [-0.2, -0.6], [-0.1, 0.4]], rtol=1e-6)


def test_unsorted_segment_ids():
    table = np.array([[2.0], [-5.0]], np.float32)
    args = [table, np.array([1, 1, 1, 0, 0]), np.array([0, 1, 1, 1, 0]), np.array(2)]
    (got,) = EmbeddingSegmentsSum().evaluate(args)
    assert got.tolist() == [[-3.0], [-8.0]]


def test_bad_segments_and_defaults_are_refused():
    """OpenVINO's reference (embedding_segments_sum.hpp) throws for a segment id at or past num_segments and
    for a negative default index; openvino 2026.4.1 does not fold the op (the CPU plugin is the oracle of
    the differential test above). irgraph refuses both."""
    table = np.ones((3, 2), np.float32)
    op = EmbeddingSegmentsSum()
    args = [table, np.array([0, 1]), np.array([0, 3]), np.array(3)]
    with pytest.raises(OpError, match="Segment index could not be more than segments number. Got segment id 3"):
        op.evaluate(args)
    with pytest.raises(OpError, match="Invalid default index -1"):
        op.evaluate([table, np.array([0]), np.array([0]), np.array(2), np.array(-1)])
