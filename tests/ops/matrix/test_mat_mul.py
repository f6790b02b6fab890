"""MatMul-1: named cases, OpenVINO (reference and CPU) through the harness, partial shapes, refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.matrix.mat_mul import MatMul
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops
from tests.ops.helpers import infer, tt

TYPES = (ElementType.F32, ElementType.F16, ElementType.BF16, ElementType.F64, ElementType.I32, ElementType.I64,
         ElementType.I8, ElementType.U8, ElementType.BOOLEAN)


def test_transposes_and_one_dimensional_operands():
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    b = np.arange(6, dtype=np.float32).reshape(2, 3)
    (result,) = MatMul(transpose_a=True, transpose_b=True).evaluate([a, b])
    np.testing.assert_array_equal(result, a.T @ b.T)
    vectors = [np.ones(3, np.float32), np.arange(3.0, dtype=np.float32)]
    (dot,) = MatMul(transpose_a=True, transpose_b=True).evaluate(vectors)
    assert dot.shape == () and dot.item() == 3


def test_batch_dims_broadcast():
    a = np.ones((1, 5, 2, 3), np.float32)
    b = np.ones((4, 1, 3, 7), np.float32)
    (result,) = MatMul().evaluate([a, b])
    assert result.shape == (4, 5, 2, 7) and np.all(result == 3)


def test_integers_wrap():
    a = np.full((1, 2), 100, np.int8)
    (result,) = MatMul().evaluate([a, np.full((2, 1), 2, np.int8)])
    assert result.tolist() == [[400 - 512]]


def crashes_openvino(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """openvino 2026.4.1's reference MatMul dies of SIGFPE on batched operands with an empty dim
    ((1, 1, 1, 0) @ (1, 0, 4) kills the process): such pairs are not sent to it."""
    return max(len(a), len(b)) >= 3 and 0 in (*a, *b)


@st.composite
def operand_shapes(draw):
    k = draw(st.integers(0, 4))
    rank_a, rank_b = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    batch = draw(S.shapes(max_rank=2, max_side=3))
    def operand(rank, last_two):
        if rank == 1:
            return (k,)
        lead = batch[len(batch) - min(rank - 2, len(batch)):] if rank > 2 else ()
        lead = tuple(1 if draw(st.booleans()) else d for d in lead)
        return (*((1,) * (rank - 2 - len(lead))), *lead, *last_two)
    a = operand(rank_a, (draw(st.integers(1, 4)), k))
    b = operand(rank_b, (k, draw(st.integers(1, 4))))
    return a, b


@OP_EXAMPLES
@given(st.data())
def test_mat_mul_matches_openvino(data):
    element_type = data.draw(st.sampled_from(TYPES))
    (a_shape, b_shape), ta, tb = data.draw(operand_shapes()), data.draw(st.booleans()), data.draw(st.booleans())
    if ta and len(a_shape) > 1:
        a_shape = (*a_shape[:-2], a_shape[-1], a_shape[-2])
    if tb and len(b_shape) > 1:
        b_shape = (*b_shape[:-2], b_shape[-1], b_shape[-2])
    if data.draw(st.integers(0, 8)) == 0:  # now and then an unrelated pair (OpenVINO refuses most)
        b_shape = data.draw(S.shapes(min_rank=1, max_rank=3))
    assume(not crashes_openvino(a_shape, b_shape))
    low, high = (-4, 4) if element_type.is_integral else (-3.0, 3.0)
    a = S.values(element_type, a_shape, data.draw(S.seeds), specials=False, low=low, high=high)
    b = S.values(element_type, b_shape, data.draw(S.seeds), specials=False, low=low, high=high)
    check_op(MatMul(transpose_a=ta, transpose_b=tb), [a, b], lambda x, y: ov_ops.matmul(x, y, ta, tb))


@OP_EXAMPLES
@given(st.data())
def test_mat_mul_partial_shapes_match_openvino(data):
    dims = st.sampled_from(["?", "1", "2", "3", "0..4", "2..6", "1..3", "4.."])
    def shape():
        if data.draw(st.integers(0, 8)) == 0:
            return "..."
        return ",".join(data.draw(dims) for _ in range(data.draw(st.integers(1, 4))))
    ta, tb = data.draw(st.booleans()), data.draw(st.booleans())
    check_types(MatMul(transpose_a=ta, transpose_b=tb), [tt(shape()), tt(shape())],
                lambda x, y: ov_ops.matmul(x, y, ta, tb))


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [("", "3", "Scalars are not supported as MatMul inputs."),
     ("2,3", "4,5", "Incompatible MatMul matrix dimension. First input dimension=3 at COL_INDEX_DIM=1 doesn't match "
                    "the second input dimension=4 at ROW_INDEX_DIM=0"),
     ("2,2,3", "3,3,5", "Incompatible MatMul batch dimension. Can't merge first input dimension=2 with second input "
                        "dimension=3 at index=0")],
)
def test_refusals_carry_openvinos_message(a, b, message):
    with pytest.raises(OpError) as refused:
        infer(MatMul(), [tt(a), tt(b)], [None, None])
    assert str(refused.value) == message


def test_element_types_must_agree():
    with pytest.raises(OpError, match="Arguments do not have the same element type"):
        infer(MatMul(), [tt("2,3", "i32"), tt("3,5")], [None, None])


def test_scalars_and_strings_are_refused():
    op = MatMul()
    types = [tt("2,3"), tt("")]
    assert check_types(op, types, lambda a, b: ov_ops.matmul(a, b, False, False)).refused
    with pytest.raises(OpError, match=r"^Scalars are not supported as MatMul inputs\.$"):
        op.infer(types, [None, None])
    with pytest.raises(OpError, match="^MatMul cannot multiply strings$"):
        op.infer([tt("2,3", "string"), tt("3,2", "string")], [None, None])


def test_arrays_of_two_element_types_are_refused_at_run_time():
    with pytest.raises(OpError, match=r"^Arguments do not have the same element type \(arg0 element type: f32, arg1 "
                                      r"element type: f16\)\.$"):
        MatMul().evaluate([np.ones((2, 2), np.float32), np.ones((2, 2), np.float16)])
