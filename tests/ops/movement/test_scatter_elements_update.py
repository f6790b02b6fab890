"""ScatterElementsUpdate-3/12 against OpenVINO: axes, negative indices, repeated positions, every reduction
with and without the initial value (integer mean floors)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.movement.scatter_elements_update import ScatterElementsUpdate3, ScatterElementsUpdate12
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import tt

TYPES = (ElementType.F32, ElementType.I32, ElementType.I64, ElementType.F16, ElementType.U8, ElementType.I8,
         ElementType.F64, ElementType.BOOLEAN)


@OP_EXAMPLES
@given(data=st.data())
def test_scatter_elements_update_matches_openvino(data):
    element_type = data.draw(st.sampled_from(TYPES))
    shape = data.draw(S.shapes(min_rank=1, max_rank=3, zero=False))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    indices_shape = tuple(data.draw(st.integers(0, 4 if i == axis % len(shape) else d)) for i, d in enumerate(shape))
    indices = S.values(data.draw(st.sampled_from([ElementType.I32, ElementType.I64])), indices_shape,
                       data.draw(S.seeds), specials=False, low=-shape[axis], high=shape[axis] - 1)
    reductions = ["none", "sum", "prod", "min", "max"] + ([] if element_type is ElementType.BOOLEAN else ["mean"])
    if data.draw(st.booleans()):
        op = ScatterElementsUpdate3()
    else:
        op = ScatterElementsUpdate12(data.draw(st.sampled_from(reductions)), data.draw(st.booleans()))
    # integer mean: values within 2**40, where openvino 2026.4.1's double arithmetic is exact (see
    # test_integer_mean_is_exact_where_openvino_rounds)
    bound = 2**40 if getattr(op, "reduction", "") == "mean" and element_type.is_integral else None
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False, low=None if bound is None else -bound,
                 high=bound)
    updates = S.values(element_type, indices_shape, data.draw(S.seeds), specials=False,
                       low=None if bound is None else -bound, high=bound)
    moved = (0, 2) if getattr(op, "reduction", "none") == "none" else ()  # only moved: any type travels as bits
    check_op(op, [x, indices, updates, np.array(axis, np.int64)], same_op(op), moved=moved)


@pytest.mark.parametrize(
    ("reduction", "init", "expected"),
    [("sum", True, [10, -5, 3, 13]), ("sum", False, [9, -7, 3, 9]), ("prod", True, [20, -14, 3, 36]),
     ("min", False, [4, -7, 3, 9]), ("max", True, [5, 2, 3, 9]), ("mean", True, [3, -3, 3, 6]),
     ("mean", False, [4, -7, 3, 9]), ("none", True, [5, -7, 3, 9])],
)
def test_reductions_as_openvino_computes_them(reduction, init, expected):
    """Values folded by openvino 2026.4.1 (integer mean floors: -2.5 -> -3, 6.5 -> 6)."""
    args = [np.array([1, 2, 3, 4], np.int32), np.array([0, 0, 1, -1]), np.array([4, 5, -7, 9], np.int32), np.array(0)]
    (got,) = ScatterElementsUpdate12(reduction, init).evaluate(args)
    assert got.tolist() == expected


def test_integer_mean_is_exact_where_openvino_rounds():
    """openvino 2026.4.1 folds the mean of the single update -3717182306025508508 (i64) to -3717182306025508864
    (through double, one ulp further down); irgraph's floor division is exact."""
    args = [np.array([14], np.int64), np.array([0]), np.array([-3717182306025508508], np.int64), np.array(0)]
    (got,) = ScatterElementsUpdate12("mean", use_init_val=False).evaluate(args)
    assert got.tolist() == [-3717182306025508508]


@pytest.mark.parametrize(
    ("reduction", "init", "data", "indices", "updates", "expected"),
    [
        # f16 accumulates in f32 and rounds once: 2048 + 1 + 1 = 2050 (in f16 each + 1 ties back to 2048)
        ("sum", True, np.array([2048], np.float16), [0, 0], np.array([1, 1], np.float16), [2050.0]),
        # float mean divides: (1 + 2 + 4) / 3 and (2 + 5) / 2
        ("mean", True, np.array([1, 2], np.float32), [0, 0, 1], np.array([2, 4, 5], np.float32),
         [np.float32(7) / np.float32(3), 3.5]),
        # without the initial value, max starts from -inf and min from +inf (positions no update reaches keep theirs)
        ("max", False, np.array([1, 2], np.float32), [0, 0], np.array([-5, -3], np.float32), [-3.0, 2.0]),
        ("min", False, np.array([1, 2], np.float32), [1, 1], np.array([5, 3], np.float32), [1.0, 3.0]),
    ],
)
def test_float_reductions_as_openvino_folds_them(reduction, init, data, indices, updates, expected):
    """openvino 2026.4.1's folding judges each (checked here), and the values are the hand-worked ones."""
    op = ScatterElementsUpdate12(reduction, init)
    args = [data, np.array(indices), updates, np.array(0)]
    assert check_op(op, args, same_op(op)).reference
    (got,) = op.evaluate(args)
    assert got.dtype == data.dtype and got.tolist() == expected


def test_u64_indices_are_read_as_int64():
    """openvino 2026.4.1 folds a u64 index 2^64 - 1 as -1 (the last position) and names 2^63 as
    -9223372036854775808 in its refusal: the bits read as int64."""
    op = ScatterElementsUpdate12("sum")
    args = [np.array([1, 2, 3, 4], np.int32), np.array([2**64 - 1], np.uint64), np.array([4], np.int32), np.array(0)]
    assert check_op(op, args, same_op(op)).reference
    assert op.evaluate(args)[0].tolist() == [1, 2, 3, 8]
    args[1] = np.array([2**63], np.uint64)
    assert check_op(op, args, same_op(op)).refused
    with pytest.raises(OpError, match="index -9223372036854775808 is out of bounds for the axis of size 4"):
        op.evaluate(args)


def test_the_first_of_several_bad_indices_is_named():
    op = ScatterElementsUpdate12("sum")
    args = [np.array([1, 2, 3, 4], np.int32), np.array([7, 9]), np.array([4, 4], np.int32), np.array(0)]
    with pytest.raises(OpError, match="^ScatterElementsUpdate index 7 is out of bounds for the axis of size 4$"):
        op.evaluate(args)


@pytest.mark.parametrize("index", [4, -5])
def test_out_of_range_indices_are_refused_as_openvino_does(index):
    op = ScatterElementsUpdate12("sum")
    args = [np.array([1, 2, 3, 4], np.int32), np.array([index]), np.array([4], np.int32), np.array(0)]
    assert check_op(op, args, same_op(op)).refused
    with pytest.raises(OpError, match=f"index {index} is out of bounds for the axis of size 4"):
        op.evaluate(args)


def test_boolean_mean_is_refused():
    with pytest.raises(OpError, match="The 'mean' reduction type is not supported for boolean tensors"):
        ScatterElementsUpdate12("mean").infer([tt("3", "boolean"), tt("3", "i64"), tt("3", "boolean"), tt("", "i64")],
                                              [None] * 4)


def test_an_axis_given_as_a_one_element_vector_is_taken():
    import openvino.opset3 as ov3

    types = [tt("2,3"), tt("2,3", "i64"), tt("2,3"), tt("1", "i64")]
    assert [str(t) for t in ScatterElementsUpdate3().infer(types, [None, None, None, None])] == ["f32[2,3]"]
    parameters = [ov3.parameter(shape, dtype) for shape, dtype in
                  (([2, 3], np.float32), ([2, 3], np.int64), ([2, 3], np.float32), ([1], np.int64))]
    assert str(ov3.scatter_elements_update(*parameters).get_output_partial_shape(0)) == "[2,3]"
