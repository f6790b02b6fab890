"""NormalizeL2: named cases, OpenVINO's CPU plugin through the harness, refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.normalization.normalize_l2 import NormalizeL2
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, ov_ops
from tests.ops.helpers import infer, tt


def test_eps_modes():
    data = np.array([3, 4], np.float32)
    # openvino 2026.4.1's reference kernel floors the sum at eps in 'max' mode; its CPU plugin adds eps in both modes
    # (x 0.8 alone, eps 1e-3: 0.99922 for 1.0), so 'max' follows the reference and the spec.
    maxed = NormalizeL2(eps=100.0, eps_mode="max").evaluate([data, np.array([0])])[0]
    added = NormalizeL2(eps=1e-30, eps_mode="add").evaluate([data, np.array([0])])[0]
    np.testing.assert_array_equal(maxed, np.array([0.3, 0.4], np.float32))
    np.testing.assert_array_equal(added, np.array([0.6, 0.8], np.float32))


@OP_EXAMPLES
@given(st.data())
def test_normalize_l2_matches_openvino(data):
    shape = tuple(data.draw(st.integers(1, 4)) for _ in range(data.draw(st.integers(1, 4))))
    axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape)))
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F16]))
    eps, mode = data.draw(st.sampled_from([1e-10, 1e-3, 2.0])), "add"  # 'max': test_eps_modes says why
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False, low=-3, high=3)
    outcome = check_op(NormalizeL2(eps=eps, eps_mode=mode), [x, np.array(axes, np.int32)],
                       lambda d, a: ov_ops.normalize_l2(d, a, eps, mode), constant=(1,))
    assert outcome.cpu


@pytest.mark.parametrize(
    ("axes_shape", "axes", "message"),
    [("1", [3], "Axis 3 out of the tensor rank range [-3, 2]."),
     ("1,1", [[1]], "Input axes must be scalar or have rank equal to 1 (axes rank: 2).")],
)
def test_refusals_carry_openvinos_message(axes_shape, axes, message):
    with pytest.raises(OpError) as refused:
        infer(NormalizeL2(eps=1e-3, eps_mode="add"), [tt("2,3,4"), tt(axes_shape, "i64")], [None, np.array(axes)])
    assert str(refused.value) == message


def test_no_axes_gives_ones_where_the_data_is_not_zero():
    """Empty axes: 1 where the data is not 0 (negatives too), else 0, as openvino 2026.4.1 computes it (check_op)."""
    x = np.array([[0.0, 2.0, -3.0], [0.5, 0.0, -0.25]], np.float32)
    op = NormalizeL2(eps=1e-10, eps_mode="add")
    (got,) = op.evaluate([x, np.array([], np.int64)])
    assert got.tolist() == [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]
    check_op(op, [x, np.array([], np.int64)], lambda d, a: ov_ops.normalize_l2(d, a, 1e-10, "add"), constant=(1,))
