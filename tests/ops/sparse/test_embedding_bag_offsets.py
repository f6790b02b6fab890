"""EmbeddingBagOffsetsSum-3 and EmbeddingBagOffsets-15 against OpenVINO: bags from offsets, empty bags with and
without a default row, per-sample weights, mean; bad offsets and indices refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.sparse.embedding_bag_offsets import EmbeddingBagOffsets
from irgraph.ops.sparse.embedding_bag_offsets_sum import EmbeddingBagOffsetsSum
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import tt

TABLE_TYPES = (ElementType.F32, ElementType.F16, ElementType.F64, ElementType.I32)


@OP_EXAMPLES
@given(data=st.data())
def test_embedding_bag_offsets_matches_openvino(data):
    table_type = data.draw(st.sampled_from(TABLE_TYPES))
    rows = data.draw(st.integers(1, 5))
    table = S.values(table_type, (rows, *data.draw(S.shapes(min_rank=1, max_rank=2, max_side=3))), data.draw(S.seeds),
                     specials=False)
    # no zeros: the reference adds rows to zeros (+0.0 where a bag sums one -0.0 or 0 * -w) while openvino
    # 2026.4.1's CPU plugin, the only oracle (the op does not fold), starts from the first row (-0.0)
    table = np.where(table == 0, 1, table).astype(table.dtype)
    count = data.draw(st.integers(1, 6))
    index_type = data.draw(st.sampled_from([np.int32, np.int64]))
    indices = np.array(data.draw(st.lists(st.integers(0, rows - 1), min_size=count, max_size=count)), index_type)
    offsets = np.array(sorted(data.draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=4))), index_type)
    mean = data.draw(st.booleans())
    op = EmbeddingBagOffsets(reduction="mean") if mean else data.draw(
        st.sampled_from([EmbeddingBagOffsetsSum(), EmbeddingBagOffsets()]))
    inputs = [table, indices, offsets]
    if data.draw(st.booleans()):
        inputs.append(np.array(data.draw(st.integers(-1, rows - 1)), index_type))
        if not mean and data.draw(st.booleans()):
            inputs.append(S.values(table_type, (count,), data.draw(S.seeds), specials=False, low=1, high=3))
    check_op(op, inputs, same_op(op))


def test_spec_example():
    table = np.array([[-0.2, -0.6], [-0.1, -0.4], [-1.9, -1.8], [-1.0, 1.5], [0.8, -0.7]], np.float32)
    indices, offsets = np.array([0, 2, 3, 4]), np.array([0, 2, 2])
    weights = np.array([0.5, 0.5, 0.5, 0.5], np.float32)
    (got,) = EmbeddingBagOffsetsSum().evaluate([table, indices, offsets, np.array(0), weights])
    np.testing.assert_allclose(got, [[-1.05, -1.2], [-0.2, -0.6], [-0.1, 0.4]], rtol=1e-6)
    (got,) = EmbeddingBagOffsets(reduction="mean").evaluate([table, indices, offsets])
    np.testing.assert_allclose(got, [[-1.05, -1.2], [0, 0], [-0.1, 0.4]], rtol=1e-6)


def test_bad_offsets_and_indices_are_refused():
    """OpenVINO's reference (embedding_bag_offsets.hpp) throws for an offset at or past the indices count and
    reads out of bounds for falling offsets and indices outside the table; openvino 2026.4.1 does not fold
    the op, and its CPU plugin takes an offset equal to the count as an empty bag. irgraph refuses all three."""
    table = np.ones((3, 2), np.float32)
    op = EmbeddingBagOffsetsSum()
    with pytest.raises(OpError, match="Offset value exceeds indices size in the model. offset: 2; indices size: 2"):
        op.evaluate([table, np.array([0, 1]), np.array([0, 2])])
    with pytest.raises(OpError, match="Offsets must not decrease"):
        op.evaluate([table, np.array([0, 1, 2]), np.array([1, 0])])
    with pytest.raises(OpError, match="Index 3 is out of the embedding table's 3 rows"):
        op.evaluate([table, np.array([0, 3]), np.array([0])])
    with pytest.raises(OpError, match=r"^default_index 3 is out of the embedding table's 3 rows$"):
        op.evaluate([table, np.array([0, 1]), np.array([0, 1, 1]), np.array(3)])
    with pytest.raises(OpError, match="Per sample weights can only be used in Reduction::SUM mode"):
        EmbeddingBagOffsets(reduction="mean").infer(
            [*(tt(s, t) for s, t in [("3,2", "f32"), ("2", "i64"), ("1", "i64"), ("", "i64"), ("2", "f32")])],
            [None] * 5)




@pytest.mark.parametrize(("shapes", "message"), [
    (("3,2", "2,1", "1"), r"^INDICES must be 1D\. Got: \[2,1\]$"),
    (("3,2", "2", "1,1"), r"^OFFSETS must be 1D\. Got: \[1,1\]$"),
    (("3,2", "2", "1", "1"), r"^DEFAULT_INDEX must be a scalar\. Got: \[1\]$"),
    (("3,2", "2", "1", "", "3"), r"^PER_SAMPLE_WEIGHTS shape must match INDICES shape\. Got: \[3\] and \[2\]$"),
])
def test_badly_shaped_inputs_are_refused_as_openvino_refuses_them(shapes, message):
    """openvino 2026.4.1's opset3.embedding_bag_offsets_sum refuses each of these shapes too ("INDICES must be
    1D.", "OFFSETS must be 1D.", "DEFAULT_INDEX must be a scalar.", "INDICES and PER_SAMPLE_WEIGHTS shape must
    be same.")."""
    import openvino.opset3 as ov3

    types = [tt(shape, "f32" if position in (0, 4) else "i64") for position, shape in enumerate(shapes)]
    with pytest.raises(OpError, match=message):
        EmbeddingBagOffsetsSum().infer(types, [None] * len(types))
    parameters = [ov3.parameter([int(d) for d in shape.split(",") if d], np.float32 if position in (0, 4) else
                                np.int64) for position, shape in enumerate(shapes)]
    with pytest.raises(RuntimeError, match=r"must be 1D\.|must be a scalar\.|shape must be same\."):
        ov3.embedding_bag_offsets_sum(*parameters)


def test_the_last_row_can_be_the_default():
    """default_index rows - 1 fills the empty bag (the second: offsets 1 to 1) with the table's last row."""
    table = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    (got,) = EmbeddingBagOffsetsSum().evaluate([table, np.array([0, 1]), np.array([0, 1, 1]), np.array(2)])
    assert got.tolist() == [[1, 2], [5, 6], [3, 4]]
