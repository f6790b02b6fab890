"""NonZero-3 against OpenVINO: every element type (NaN non-zero, -0.0 zero), the data-dependent shape."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.condition.non_zero import NonZero
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, same_op
from tests.ops.helpers import infer, tt


@OP_EXAMPLES
@given(data=st.data())
def test_non_zero_matches_openvino(data):
    element_type = data.draw(st.sampled_from(S.ALL))
    x = S.values(element_type, data.draw(S.shapes(min_rank=1, max_rank=3)), data.draw(S.seeds))
    if element_type is not ElementType.BOOLEAN:
        x = np.where(np.arange(x.size).reshape(x.shape) % 3 == 0, 0, x).astype(x.dtype)
    op = NonZero(output_type=data.draw(st.sampled_from([ElementType.I32, ElementType.I64])))
    check_op(op, [x], same_op(op), constant=(0,))  # OpenVINO infers the exact count from a constant


@OP_EXAMPLES
@given(shape=st.sampled_from(["2,3", "2..4,3", "?,3", "...", "", "0,5"]))
def test_partial_shapes_infer_as_openvino(shape):
    check_types(NonZero(), [tt(shape)], same_op(NonZero()))


def test_spec_example():
    x = np.array([[0, 1, 0], [-0.0, np.nan, 2]], np.float32)
    (got,) = NonZero(output_type=ElementType.I32).evaluate([x])
    assert got.dtype == np.int32 and got.tolist() == [[0, 1, 1], [1, 1, 2]]
    assert infer(NonZero(), [tt("2,3")], [None]) == ["[2,..6]"]


def test_output_type_must_be_an_index_type():
    with pytest.raises(OpError, match="Output type must be i32 or i64. Got: f32"):
        NonZero(output_type=ElementType.F32)


@pytest.mark.parametrize(("scalar", "expected"), [
    (np.float32(5), [[0]]), (np.float32(np.nan), [[0]]), (np.True_, [[0]]),
    (np.int32(0), []), (np.False_, []), (np.float32(-0.0), [])])
def test_a_scalar_gives_one_coordinate_when_non_zero_else_none(scalar, expected):
    """openvino 2026.4.1's reference folds NonZero of a non-zero scalar to [[0]] (shape [1,1]) and of a zero scalar
    to shape [0,0] (its CPU plugin gives [1,0] there: the reference, which does not depend on the CPU, judges)."""
    x = np.asarray(scalar)
    outcome = check_op(NonZero(), [x], same_op(NonZero()), constant=(0,))
    assert outcome.reference
    (got,) = NonZero().evaluate([x])
    assert got.dtype == np.int64 and got.shape == (len(expected), len(expected)) and got.tolist() == expected
