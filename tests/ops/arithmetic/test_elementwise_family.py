"""The element-wise family's own rules (ops/families/elementwise.py), named through its members: refusals of
mixed types and unfit pdpd shapes, the plan-time ufunc and in-place queries, and the bounds of shape arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

from irgraph.core.errors import OpError
from irgraph.core.shapes import PartialValue
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.sqrt import Sqrt
from irgraph.ops.bitwise.bitwise_and import BitwiseAnd
from irgraph.ops.comparison.equal import Equal
from tests.ops.differential import check_op, same_op
from tests.ops.helpers import tt

I64_MAX = np.iinfo(np.int64).max


def test_inputs_of_two_element_types_are_refused_by_evaluate_too():
    """infer refuses them first in a model; evaluate, called on its own, names both dtypes."""
    with pytest.raises(OpError, match=r"^Argument element types are inconsistent. Got: float32 and int32$"):
        Add().evaluate([np.ones(2, np.float32), np.ones(2, np.int32)])
    with pytest.raises(OpError, match=r"^Argument element types are inconsistent. Got: object and float32$"):
        Equal().evaluate([np.array(["a", "b"], object), np.ones(2, np.float32)])


def test_pdpd_refuses_a_smaller_dim_that_is_not_one():
    """[4] + [2] under pdpd: 2 fits within 4 but does not broadcast to it; openvino 2026.4.1 refuses it too."""
    a, b = np.ones(4, np.float32), np.ones(2, np.float32)
    op = Add(auto_broadcast="pdpd")
    assert check_op(op, [a, b], same_op(op)).refused
    with pytest.raises(OpError, match=r"^Argument shapes are inconsistent. pdpd broadcast of \[2\] into \[4\] fails$"):
        op.evaluate([a, b])


def test_a_ufunc_without_a_loop_for_the_type_is_not_a_plan_step():
    """np.bitwise_and has no f32 loop: the plan keeps the op's own evaluate, which refuses f32 by its rule."""
    assert BitwiseAnd().ufunc_call([tt("2", "f32"), tt("2", "f32")]) is None
    assert BitwiseAnd().ufunc_call([tt("2", "i32"), tt("2", "i32")]) is not None


def test_integer_square_roots_written_in_place_are_rounded_as_evaluate_rounds_them():
    """Sqrt of i32 is computed in f64 and rounded (OpenVINO's integer Sqrt): never by np.sqrt into an i32 target."""
    data = np.array([2, 3, 8, 15], np.int32)
    (expected,) = Sqrt().evaluate([data])
    (got,) = Sqrt().evaluate_into([data], data.copy())
    assert expected.tolist() == got.tolist() == [1, 2, 3, 4]


def test_an_unknown_upper_bound_gives_an_unknown_sum():
    """A dim known as 3.. (upper bound i64's maximum, unknown) plus 2: OpenVINO's interval evaluator gives
    [0, max], as irgraph does, rather than a wrapped sum."""
    from_three = PartialValue(np.array([3], np.int64), np.array([I64_MAX], np.int64))
    two = PartialValue.exact(np.array([2], np.int64))
    (found,) = Add().bounds([tt("1", "i64")] * 2, [from_three, two])
    assert (found.lower.tolist(), found.upper.tolist()) == ([0], [I64_MAX])


def test_bounds_of_values_that_do_not_broadcast_are_none():
    """Bounds never raise: the shapes' inconsistency is infer's to report."""
    values = [PartialValue.exact(np.array([1, 2], np.int64)), PartialValue.exact(np.array([1, 2, 3], np.int64))]
    assert Add().bounds([tt("2", "i64"), tt("3", "i64")], values) is None


def test_a_ufunc_member_writes_into_the_target_it_is_given():
    """evaluate_into with a target of the output's shape and dtype: Add's np.add writes there (no new array)."""
    a, b = np.array([1, 2, 3], np.float32), np.array([10, 20, 30], np.float32)
    (got,) = Add().evaluate_into([a, b], a)
    assert got is a and a.tolist() == [11, 22, 33]


@pytest.mark.parametrize("op_class", ["Minimum", "Maximum"])
def test_equal_zeros_of_either_sign_give_the_first_input(op_class):
    """std::min and std::max (openvino 2026.4.1's reference) return a when a and b compare equal: min(0.0, -0.0)
    is 0.0 and min(-0.0, 0.0) is -0.0, the sign of zero the reference keeps."""
    from irgraph.ops.arithmetic.maximum import Maximum
    from irgraph.ops.arithmetic.minimum import Minimum
    from tests.ops.differential import ov_constant, ov_reference

    op = {"Minimum": Minimum(), "Maximum": Maximum()}[op_class]
    a, b = np.array([0.0, -0.0, 1.0], np.float32), np.array([-0.0, 0.0, 1.0], np.float32)
    (folded,) = ov_reference(same_op(op)(ov_constant(a), ov_constant(b)))
    (got,) = op.evaluate([a, b])
    assert np.signbit(got).tolist() == np.signbit(folded).tolist() == [False, True, False]


def test_bf16_results_are_rounded_as_openvinos_reference_rounds_them():
    """bf16 1.0 + 0.005859375 is f32 1.005859375 (bits 0x3F80C000): ov::bfloat16::round_to_nearest_even of
    openvino 2026.4.1 adds half a unit only to an odd last bit, so it gives 1.0 where IEEE rounding gives 1.0078125."""
    import ml_dtypes

    from tests.ops.differential import ov_constant, ov_reference

    a, b = np.array([1.0], ml_dtypes.bfloat16), np.array([0.005859375], ml_dtypes.bfloat16)
    (folded,) = ov_reference(same_op(Add())(ov_constant(a), ov_constant(b)))
    (got,) = Add().evaluate([a, b])
    assert got.astype(np.float32).tolist() == folded.astype(np.float32).tolist() == [1.0]


def test_pdpd_with_an_input_of_unknown_rank_gives_an_unknown_rank():
    """openvino 2026.4.1 infers [...] for pdpd Add of [2,3] and a tensor of unknown rank, either way round."""
    from tests.ops.differential import check_types

    op = Add(auto_broadcast="pdpd")
    check_types(op, [tt("2,3"), tt("...")], same_op(op))
    check_types(op, [tt("..."), tt("2,3")], same_op(op))


def test_bounds_pass_a_division_by_exactly_one():
    """A dim 3..8 divided by 1 (a positive divisor, known exactly) keeps its bounds."""
    from irgraph.ops.arithmetic.divide import Divide

    dim = PartialValue(np.array([3], np.int64), np.array([8], np.int64))
    (found,) = Divide().bounds([tt("1", "i64")] * 2, [dim, PartialValue.exact(np.array([1], np.int64))])
    assert (found.lower.tolist(), found.upper.tolist()) == ([3], [8])


def test_a_plain_unary_member_is_a_ufunc_step_on_floats():
    """Sqrt's compute is np.sqrt itself on f32 and f64 (the plan calls it directly); not on i32 (rounded)."""
    assert Sqrt().ufunc_call([tt("2", "f32")]) is not None
    assert Sqrt().ufunc_call([tt("2", "f64")]) is not None
    assert Sqrt().ufunc_call([tt("2", "i32")]) is None


def test_a_plain_unary_member_writes_floats_into_the_target_it_is_given():
    """evaluate_into of Sqrt on f32: np.sqrt writes into the target (no new array)."""
    data = np.array([4, 9, 16], np.float32)
    (got,) = Sqrt().evaluate_into([data], data)
    assert got is data and data.tolist() == [2, 3, 4]


@pytest.mark.parametrize(("a", "b", "mode", "message"), [
    # What evaluate meets past inference (a caller's arrays): refused with the shapes, never broadcast anyway.
    ((2, 3), (3, 2), "none", "Argument shapes are inconsistent. auto_broadcast 'none' needs equal shapes. "
                             "Got: [2, 3] and [3, 2]"),
    ((2, 3), (2,), "none", "Argument shapes are inconsistent. auto_broadcast 'none' needs equal shapes. "
                           "Got: [2, 3] and [2]"),
    # pdpd of an empty b into a dim of 1: NumPy would broadcast it to [0, 3]; pdpd aligns b to a and refuses
    ((1, 3), (0,), "pdpd", "Argument shapes are inconsistent. pdpd broadcast of [0] into [1, 3] fails"),
    ((1, 3), (0, 3), "pdpd", "Argument shapes are inconsistent. pdpd broadcast of [0, 3] into [1, 3] fails"),
])
def test_broadcast_arrays_refuses_shapes_its_mode_does_not_join(a, b, mode, message):
    from irgraph.ops.families.array_broadcast import broadcast_arrays

    with pytest.raises(OpError) as refused:
        broadcast_arrays(np.ones(a, np.float32), np.ones(b, np.float32), mode)
    assert str(refused.value) == message


@pytest.mark.parametrize(("shape_a", "shape_b"), [
    ((2816 // 8, 8, 128), (2816 // 8, 8, 1)),  # a grouped int4 chain's zero point and scale: rows cut together
    ((40000, 3), (3,)),  # b broadcast along a's rows, several blocks of rows
    ((3, 70000), (1, 70000)),  # rows wider than a block
    ((5, 4), ()),  # a scalar
    ((0, 7), (7,)),  # nothing to compute
])
def test_f16_arithmetic_in_blocks_is_the_f32_round_trip_bit_for_bit(shape_a, shape_b):
    """f16 Add, Subtract, Multiply and Maximum go through f32 a block of rows at a time (numeric.f16_through_f32),
    into input 0's array when asked: the values of the whole-array f32 round trip (``widened``), bit for bit,
    NaN, infinities and signed zeros included."""
    from irgraph.ops.arithmetic.maximum import Maximum
    from irgraph.ops.arithmetic.multiply import Multiply
    from irgraph.ops.arithmetic.subtract import Subtract
    from irgraph.ops.families.elementwise import widened

    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape_a).astype(np.float16) * np.float16(300)
    b = rng.standard_normal(shape_b).astype(np.float16)
    if a.size:
        a.flat[:4] = [np.nan, np.inf, -0.0, 65504]
    for op in (Add(), Subtract(), Multiply(), Maximum()):
        expected = widened(op.compute_values, (a, b), a.dtype)  # the whole-array round trip
        (made,) = op.evaluate([a, b])
        target = a.copy()
        (into,) = op.evaluate_into([target, b], target)
        assert (into is target) == (op.in_place_ufunc() is not None)  # Maximum's own NaN rule: a new array
        for found in (made, into):
            assert found.dtype == np.float16 and found.shape == a.shape
            assert found.view(np.uint16).tobytes() == expected.view(np.uint16).tobytes()


def test_f16_arithmetic_does_not_write_over_a_target_its_other_input_views():
    a = np.arange(12, dtype=np.float16).reshape(6, 2)
    (found,) = Add().evaluate_into([a, a[::-1]], a)  # b reads rows of a that a block written first would change
    assert found is not a
    assert found.tolist() == (np.arange(12).reshape(6, 2) + np.arange(12).reshape(6, 2)[::-1]).tolist()


def test_a_unary_op_on_integers_gives_integers_of_the_data_s_type():
    """Integer data give integers of their own type (perfect squares: the same values whichever way a
    conversion from floats would round)."""
    data = np.array([0, 1, 4, 9, 16, 1 << 30], np.int32)
    (got,) = Sqrt().evaluate([data])
    assert (got.dtype, got.tolist()) == (np.dtype(np.int32), [0, 1, 2, 3, 4, 32768])
