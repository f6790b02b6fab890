"""ScatterNDUpdate-3/15 against OpenVINO: index depths, negative indices, reductions (booleans included)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.movement.scatter_nd_update import ScatterNDUpdate3, ScatterNDUpdate15
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op


@OP_EXAMPLES
@given(data=st.data())
def test_scatter_nd_update_matches_openvino(data):
    element_type = data.draw(st.sampled_from(S.ALL))
    shape = data.draw(S.shapes(min_rank=1, max_rank=3, zero=False))
    k = data.draw(st.integers(1, len(shape)))
    batch = data.draw(S.shapes(max_rank=2, max_side=3))
    columns = [S.values(S.SIGNED[3], batch, data.draw(S.seeds), specials=False, low=-shape[j], high=shape[j] - 1)
               for j in range(k)]
    indices = np.stack(columns, axis=-1).astype(data.draw(st.sampled_from([np.int32, np.int64])))
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False)
    updates = S.values(element_type, batch + shape[k:], data.draw(S.seeds), specials=False)
    reduction = data.draw(st.sampled_from(["none", "sum", "sub", "prod", "min", "max"]))
    if element_type.ir_name == "bf16":  # openvino 2026.4.1 rounds bf16 products toward zero (see below)
        reduction = "none"
    if element_type.ir_name == "boolean" or reduction == "none":
        op = ScatterNDUpdate3() if data.draw(st.booleans()) and reduction == "none" else ScatterNDUpdate15(reduction)
    else:
        op = ScatterNDUpdate15(reduction)
    check_op(op, [x, indices, updates], same_op(op), moved=(0, 2) if reduction == "none" else ())


def test_spec_example():
    x = np.array([1, 2, 3, 4, 5, 6, 7, 8], np.float32)
    (got,) = ScatterNDUpdate3().evaluate([x, np.array([[4], [3], [-7], [7]]), np.array([9, 10, 11, 12], np.float32)])
    assert got.tolist() == [1, 11, 3, 10, 9, 6, 7, 12]
    (got,) = ScatterNDUpdate15("sum").evaluate([x, np.array([[0], [0]]), np.array([1, 2], np.float32)])
    assert got.tolist() == [4, 2, 3, 4, 5, 6, 7, 8]


def test_boolean_reductions_are_logical_as_openvino():
    x = np.array([True, False, True, False])
    indices = np.array([[0], [1], [1], [2], [3], [3]])
    updates = np.array([True, True, True, False, True, False])
    expected = {"sum": [1, 1, 1, 1], "sub": [0, 0, 1, 1], "prod": [1, 0, 0, 0], "min": [1, 0, 0, 0],
                "max": [1, 1, 1, 1]}
    for reduction, values in expected.items():
        op = ScatterNDUpdate15(reduction)
        assert check_op(op, [x, indices, updates], same_op(op)).reference
        assert op.evaluate([x, indices, updates])[0].astype(int).tolist() == values


def test_bf16_products_round_to_nearest():
    """openvino 2026.4.1 folds bf16 2.734375 * -5 (-13.671875) to -13.625 (toward zero); irgraph rounds to
    the nearest bf16, -13.6875, as NumPy's bf16 (ml_dtypes) does."""
    x = np.array([2.734375], "bfloat16")
    (got,) = ScatterNDUpdate15("prod").evaluate([x, np.array([[0]]), np.array([-5], "bfloat16")])
    assert float(got[0]) == -13.6875


def test_out_of_range_indices_are_refused():
    """openvino 2026.4.1 raises 'Index is out of bounds' for [[5]] on [5]; for [[0, 5]] on [2,3] it only checks the
    flat offset and writes element [1,2]: irgraph refuses both."""
    op = ScatterNDUpdate3()
    assert check_op(op, [np.zeros(5, np.float32), np.array([[5]]), np.ones(1, np.float32)], same_op(op)).refused
    with pytest.raises(OpError, match="index 5 is out of bounds for the axis of size 3"):
        op.evaluate([np.zeros((2, 3), np.float32), np.array([[0, 5]]), np.ones(1, np.float32)])
