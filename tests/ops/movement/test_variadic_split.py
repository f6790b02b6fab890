"""VariadicSplit-1: every row of ir-format.md table 5.3, plus evaluation."""

from __future__ import annotations

import re

import numpy as np
import pytest

from irgraph.core.errors import OpError
from irgraph.ops import VariadicSplit
from tests.ops.helpers import infer, tt

OP = VariadicSplit()


def lengths_type(values):
    return tt(str(len(values)), "i64")


@pytest.mark.parametrize(
    ("data", "axis", "lengths", "expected"),
    [
        ("2,6", 1, [1, 2, 3], ["[2,1]", "[2,2]", "[2,3]"]),
        ("2,6", 1, [1, -1], ["[2,1]", "[2,5]"]),
        ("2,6", 1, [0, 6, 0], ["[2,0]", "[2,6]", "[2,0]"]),
        ("2,6", 1, [0, -1, 0], ["[2,0]", "[2,6]", "[2,0]"]),
        ("2,6", 1, [6, -1], ["[2,6]", "[2,0]"]),
        ("2,6", 1, [6], ["[2,6]"]),
        ("2,6", 1, [-1], ["[2,6]"]),
        ("2,0", 1, [], []),
        ("2,6", -1, [2, 4], ["[2,2]", "[2,4]"]),
        ("2,2..8", 1, [1, -1], ["[2,1]", "[2,?]"]),
        ("2,2..8", 1, [5, 5], ["[2,5]", "[2,5]"]),
        ("...", 1, [1, 2], ["[...]", "[...]"]),
    ],
    ids=["1-2-3", "minus-one", "zeros", "zeros-minus-one", "minus-one-to-zero", "single", "single-minus-one",
         "empty-on-zero", "neg-axis", "interval-minus-one", "interval-no-sum-check", "dynamic-rank"],
)
def test_variadic_split_infers(data, axis, lengths, expected):
    values = [None, axis, np.asarray(lengths, np.int64)]
    assert infer(OP, [tt(data), tt("", "i64"), lengths_type(lengths)], values) == expected


def test_axis_of_shape_one_is_accepted():
    assert infer(OP, [tt("2,6"), tt("1", "i32"), tt("2", "i64")], [None, [1], np.array([2, 4])]) == ["[2,2]",
                                                                                                       "[2,4]"]


def test_lengths_from_a_parameter_give_dynamic_axis_dims():
    assert infer(OP, [tt("2,6"), tt("", "i64"), tt("3", "i64")], [None, 1, None]) == ["[2,?]"] * 3


def test_lengths_of_unknown_count_give_zero_outputs():
    assert infer(OP, [tt("2,6"), tt("", "i64"), tt("?", "i64")], [None, 1, None]) == []


def test_float_axis_and_lengths_are_accepted_like_openvino():
    assert infer(OP, [tt("2,6"), tt("", "f32"), tt("2", "f32")], [None, np.float32(1), np.array([2.0, 4.0])]) == [
        "[2,2]", "[2,4]"]


@pytest.mark.parametrize(
    ("data", "axis_shape", "lengths_shape", "axis", "lengths", "message"),
    [
        ("2,6", "", "2", 1, [-1, -1], "Cannot infer split with multiple -1 values at 0 and 1"),
        ("2,7", "", "3", 1, [-1, 3, -1], "Cannot infer split with multiple -1 values at 0 and 2"),
        ("2,6", "", "2", 1, [1, 2], "Total length of splits: 3 must match the length of the chosen axis: 6"),
        ("2,6", "", "2", 1, [4, 4], "Total length of splits: 8 must match the length of the chosen axis: 6"),
        ("2,6", "", "2", 1, [8, -2], "Invalid value -2 in split lengths input. Should be >= -1."),
        ("2,6", "", "0", 1, [], "Total length of splits: 0 must match the length of the chosen axis: 6"),
        ("2,6", "2", "2", 1, [3, 3], "Axis should be a scalar or of shape [1]. Got [2] instead."),
        ("2,6", "1,1", "2", 1, [3, 3], "Axis should be a scalar or of shape [1]. Got [1,1] instead."),
        ("2,6", "", "1", 2, [6], "Axis 2 out of the tensor rank range [-2, 1]."),
        ("2,6", "", "1,2", 1, [[2, 4]], "Split lengths should be a 1-D tensor. Got 2 instead."),
        ("2,6", "", "", 1, 6, "Split lengths should be a 1-D tensor. Got 0 instead."),
    ],
    ids=["two-minus-one", "two-minus-one-apart", "sum-3", "sum-8", "minus-two", "empty-on-6", "axis-vector-2",
         "axis-matrix", "axis-out-of-range", "lengths-2d", "lengths-scalar"],
)
def test_variadic_split_rejects(data, axis_shape, lengths_shape, axis, lengths, message):
    axis_value = np.full([int(d) for d in axis_shape.split(",") if d], axis) if axis_shape else axis
    with pytest.raises(OpError) as caught:
        infer(OP, [tt(data), tt(axis_shape, "i64"), tt(lengths_shape, "i64")], [None, axis_value,
                                                                                 np.asarray(lengths)])
    assert message in str(caught.value)


def test_minus_one_resolving_negative_is_an_error_unlike_openvino():
    with pytest.raises(OpError, match=r"split_lengths \[7, -1\] leave -1 for the -1 entry: the other lengths sum "
                                      r"to 7, more than the axis dimension 6"):
        infer(OP, [tt("2,6"), tt("", "i64"), tt("2", "i64")], [None, 1, np.array([7, -1])])


def test_variadic_split_evaluates_views_at_cumulative_lengths():
    data = np.arange(14, dtype=np.int64).reshape(2, 7)
    parts = OP.evaluate([data, np.int64(1), np.array([2, -1, 1])])
    assert [p.tolist() for p in parts] == [[[0, 1], [7, 8]], [[2, 3, 4, 5], [9, 10, 11, 12]], [[6], [13]]]
    assert all(np.shares_memory(p, data) for p in parts if p.size)


def test_variadic_split_checks_the_sum_at_run_time():
    with pytest.raises(OpError, match="Total length of splits: 8 must match the length of the chosen axis: 6"):
        OP.evaluate([np.zeros((2, 6), np.float32), np.int64(1), np.array([4, 4])])


def test_empty_lengths_on_an_empty_axis_give_no_outputs():
    assert OP.evaluate([np.zeros((2, 0), np.float32), np.int64(1), np.zeros(0, np.int64)]) == []


def test_variadic_split_checks_axis_and_lengths_at_run_time():
    data = np.arange(6, dtype=np.int64).reshape(2, 3)
    with pytest.raises(OpError, match=re.escape("Axis should be a scalar or of shape [1]. Got [1,1] instead.")):
        OP.evaluate([data, np.ones((1, 1), np.int64), np.array([1, 2])])
    with pytest.raises(OpError, match=re.escape("Axis should be a scalar or of shape [1]. Got [2] instead.")):
        OP.evaluate([data, np.array([1, 1]), np.array([1, 2])])
    with pytest.raises(OpError, match=re.escape("Split lengths should be a 1-D tensor. Got 2 instead.")):
        OP.evaluate([data, np.int64(1), np.array([[1, 2]])])
    with pytest.raises(OpError, match=re.escape("VariadicSplit 'data' input must have rank >= 1. Got a scalar")):
        OP.evaluate([np.int64(1), np.int64(0), np.array([1])])
    with pytest.raises(OpError, match=re.escape("'split_lengths' input must hold finite numbers. Got: [1.0, inf]")):
        OP.evaluate([data, np.int64(1), np.array([1.0, np.inf])])


def test_variadic_split_truncates_float_axis_and_lengths_at_run_time():
    data = np.arange(6, dtype=np.int64).reshape(2, 3)
    parts = OP.evaluate([data, np.array([1.7], np.float32), np.array([1.9, -1.0], np.float64)])
    assert [p.tolist() for p in parts] == [[[0], [3]], [[1, 2], [4, 5]]]
    assert all(np.shares_memory(p, data) for p in parts)


def test_variadic_split_of_one_dimensional_data():
    assert infer(OP, [tt("6"), tt("", "i64"), tt("2", "i64")], [None, 0, np.array([2, -1])]) == ["[2]", "[4]"]
    parts = OP.evaluate([np.arange(6), np.int64(0), np.array([2, -1])])
    assert [p.tolist() for p in parts] == [[0, 1], [2, 3, 4, 5]]
    assert OP.output_count([None, None]) is None and OP.output_count([None, None, np.array([1, 2, 3])]) == 3
