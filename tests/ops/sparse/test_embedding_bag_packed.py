"""EmbeddingBagPackedSum-3 and EmbeddingBagPacked-15 against OpenVINO: equal-length bags, weights, mean."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.sparse.embedding_bag_packed import EmbeddingBagPacked
from irgraph.ops.sparse.embedding_bag_packed_sum import EmbeddingBagPackedSum
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op

TABLE_TYPES = (ElementType.F32, ElementType.F16, ElementType.F64, ElementType.I32)


@OP_EXAMPLES
@given(data=st.data())
def test_embedding_bag_packed_matches_openvino(data):
    table_type = data.draw(st.sampled_from(TABLE_TYPES))
    rows = data.draw(st.integers(1, 5))
    table = S.values(table_type, (rows, *data.draw(S.shapes(min_rank=1, max_rank=2, max_side=3))), data.draw(S.seeds),
                     specials=False)
    # no zeros: the reference adds rows to zeros (+0.0 where a bag sums one -0.0 or 0 * -w) while openvino
    # 2026.4.1's CPU plugin, the only oracle (the op does not fold), starts from the first row (-0.0)
    table = np.where(table == 0, 1, table).astype(table.dtype)
    bags, length = data.draw(st.integers(0, 3)), data.draw(st.integers(1, 3))
    index_type = data.draw(st.sampled_from([ElementType.I32, ElementType.I64]))
    indices = S.values(index_type, (bags, length), data.draw(S.seeds), specials=False, low=0, high=rows - 1)
    mean = data.draw(st.booleans())
    op = EmbeddingBagPacked(reduction="mean") if mean else data.draw(
        st.sampled_from([EmbeddingBagPackedSum(), EmbeddingBagPacked()]))
    inputs = [table, indices]
    if not mean and data.draw(st.booleans()):
        inputs.append(S.values(table_type, (bags, length), data.draw(S.seeds), specials=False, low=1, high=3))
    check_op(op, inputs, same_op(op))


def test_spec_example():
    table = np.array([[-0.2, -0.6], [-0.1, -0.4], [-1.9, -1.8], [-1.0, 1.5], [0.8, -0.7]], np.float32)
    indices = np.array([[0, 2], [1, 2], [3, 4]])
    (got,) = EmbeddingBagPackedSum().evaluate([table, indices, np.full((3, 2), 0.5, np.float32)])
    np.testing.assert_allclose(got, [[-1.05, -1.2], [-1.0, -1.1], [-0.1, 0.4]], rtol=1e-6)
    (got,) = EmbeddingBagPacked(reduction="mean").evaluate([table, indices])
    np.testing.assert_allclose(got, [[-1.05, -1.2], [-1.0, -1.1], [-0.1, 0.4]], rtol=1e-6)


def test_index_outside_the_table_is_refused():
    with pytest.raises(OpError, match="Index -1 is out of the embedding table's 2 rows"):
        EmbeddingBagPackedSum().evaluate([np.ones((2, 2), np.float32), np.array([[0, -1]])])


def test_weights_shaped_unlike_the_indices_are_refused():
    """openvino 2026.4.1's opset3.embedding_bag_packed_sum refuses them too ("INDICES and PER_SAMPLE_WEIGHTS shape
    must be same.")."""
    import openvino.opset3 as ov3

    from tests.ops.helpers import tt

    with pytest.raises(OpError, match=r"^PER_SAMPLE_WEIGHTS shape must match INDICES shape\. Got: \[2,3\] and "
                                      r"\[2,2\]$"):
        EmbeddingBagPackedSum().infer([tt("3,2"), tt("2,2", "i64"), tt("2,3")], [None] * 3)
    with pytest.raises(RuntimeError, match=r"INDICES and PER_SAMPLE_WEIGHTS shape must be same\."):
        ov3.embedding_bag_packed_sum(ov3.parameter([3, 2], np.float32), ov3.parameter([2, 2], np.int64),
                                     ov3.parameter([2, 3], np.float32))


def test_indices_that_are_not_a_matrix_are_refused_when_run():
    with pytest.raises(OpError, match=r"^INDICES must be 2D\. Got shape \[3\]$"):
        EmbeddingBagPackedSum().evaluate([np.ones((2, 2), np.float32), np.array([0, 1, 1])])
