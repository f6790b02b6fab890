"""Split-1: every row of ir-format.md table 5.2, plus evaluation."""

from __future__ import annotations

import re

import numpy as np
import pytest

from irgraph.core.errors import OpError
from irgraph.ops import Split
from tests.ops.helpers import infer, tt

I64 = tt("", "i64")


@pytest.mark.parametrize(
    ("data", "axis", "parts", "expected"),
    [
        ("6,12,10,24", 1, 3, ["[6,4,10,24]"] * 3),
        ("2,6", -1, 2, ["[2,3]"] * 2),
        ("2,6", -2, 2, ["[1,6]"] * 2),
        ("2,6", 1, 6, ["[2,1]"] * 6),
        ("2,6", 1, 1, ["[2,6]"]),
        ("2,0", 1, 3, ["[2,0]"] * 3),
        ("2,1..10", 1, 2, ["[2,..5]"] * 2),
        ("2,5..7", 1, 2, ["[2,2..3]"] * 2),
        ("2,2..", 1, 4, ["[2,?]"] * 4),
        ("2,?", 1, 2, ["[2,?]"] * 2),
        ("2,5..11", 1, 4, ["[2,1..2]"] * 4),
        ("...", 0, 2, ["[...]"] * 2),
    ],
    ids=["spec-example", "neg-axis", "neg-axis-2", "n-equals-dim", "n-1", "zero-dim", "interval-low0",
         "interval-floor", "unbounded", "dynamic", "anchor-5..11", "dynamic-rank"],
)
def test_split_infers_equal_parts(data, axis, parts, expected):
    assert infer(Split(num_splits=parts), [tt(data), I64], [None, axis]) == expected


def test_split_with_non_constant_axis_makes_every_dim_dynamic():
    assert infer(Split(num_splits=2), [tt("2,6"), I64], [None, None]) == ["[?,?]"] * 2


@pytest.mark.parametrize("axis_type", ["i32", "u8", "u64", "i64", "i8"])
def test_split_accepts_any_integer_axis_type(axis_type):
    assert infer(Split(num_splits=2), [tt("2,6"), tt("", axis_type)], [None, 1]) == ["[2,3]"] * 2


@pytest.mark.parametrize(
    ("data", "axis_type", "axis_shape", "axis", "parts", "message"),
    [
        ("2,6", "i64", "", 1, 4, "Dimension of data input shape along 'axis': 6 must be evenly divisible by "
                                 "'num_splits' attribute value: 4"),
        ("2,6", "i64", "", 1, 7, "evenly divisible by 'num_splits' attribute value: 7"),
        ("2,6", "i64", "", 2, 2, "Axis 2 out of the tensor rank range [-2, 1]."),
        ("2,6", "i64", "", -3, 2, "Axis -3 out of the tensor rank range [-2, 1]."),
        ("2,6", "i64", "1", 1, 2, "'axis' input must be a scalar. Got: [1]"),
        ("2,6", "f32", "", 1, 2, "Element type of 'axis' input must be integer. Got: f32"),
        ("2,6", "boolean", "", 1, 2, "Element type of 'axis' input must be integer. Got: boolean"),
        ("", "i64", "", 0, 2, "Split 'data' input must have rank >= 1. Got a scalar"),
        ("2,..1", "i64", "", 1, 2, "The interval maximum of the dimension for data input shape along 'axis' must "
                                   "be greater or equal to 'num_splits' attribute. Got: ..1 and 2"),
    ],
    ids=["4-on-6", "7-on-6", "axis-2", "axis-minus-3", "axis-vector", "axis-f32", "axis-bool", "scalar-data",
         "interval-max-below-n"],
)
def test_split_rejects(data, axis_type, axis_shape, axis, parts, message):
    with pytest.raises(OpError) as caught:
        infer(Split(num_splits=parts), [tt(data), tt(axis_shape, axis_type)], [None, np.full(
            [int(d) for d in axis_shape.split(",") if d], axis) if axis_shape else axis])
    assert message in str(caught.value)


@pytest.mark.parametrize("parts", [0, -1])
def test_split_needs_positive_num_splits(parts):
    with pytest.raises(OpError, match=f"Attribute 'num_splits' must be greater than zero. Got: {parts}"):
        Split(num_splits=parts)


def test_missing_num_splits_attribute_reads_as_zero_like_openvino():
    with pytest.raises(OpError, match="Got: 0"):
        Split.from_attributes({})


@pytest.mark.parametrize("text", ["3.0", "abc", "+1", "", "1e0", "0x1"])
def test_num_splits_text_must_be_an_integer(text):
    with pytest.raises(OpError, match=re.escape(f"attribute 'num_splits' must be an integer. Got: {text!r}")):
        Split.from_attributes({"num_splits": text})


def test_split_attribute_round_trip():
    assert Split.from_attributes({"num_splits": "3"}) == Split(num_splits=3)
    assert Split(num_splits=3).to_attributes() == {"num_splits": "3"}


def test_split_evaluates_to_views_of_the_input():
    data = np.arange(24, dtype=np.float32).reshape(2, 12)
    parts = Split(num_splits=3).evaluate([data, np.int64(-1)])
    assert [p.tolist() for p in parts] == [[[0, 1, 2, 3], [12, 13, 14, 15]], [[4, 5, 6, 7], [16, 17, 18, 19]],
                                           [[8, 9, 10, 11], [20, 21, 22, 23]]]
    assert all(np.shares_memory(p, data) for p in parts)


def test_split_checks_divisibility_at_run_time():
    with pytest.raises(OpError, match="Dimension of data input shape along 'axis': 7 must be evenly divisible"):
        Split(num_splits=2).evaluate([np.zeros((2, 7), np.float32), np.int64(1)])


def test_split_checks_the_axis_at_run_time():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(OpError, match=re.escape("'axis' input must be a scalar. Got: [2]")):
        Split(num_splits=3).evaluate([data, np.array([1, 1], np.int64)])
    with pytest.raises(OpError, match=re.escape("'axis' input must hold finite numbers. Got: [nan]")):
        Split(num_splits=3).evaluate([data, np.float32(np.nan)])
    with pytest.raises(OpError, match=re.escape("Split 'data' input must have rank >= 1. Got a scalar")):
        Split(num_splits=1).evaluate([np.float32(1), np.int64(0)])


def test_a_float_axis_truncates_at_run_time_like_openvino():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    parts = Split(num_splits=3).evaluate([data, np.float64(1.9)])
    assert [p.tolist() for p in parts] == [[[0], [3]], [[1], [4]], [[2], [5]]]
    with pytest.raises(OpError, match=re.escape("Dimension of data input shape along 'axis': 3 must be evenly")):
        Split(num_splits=2).evaluate([data, np.array(-1.5, np.float32)])  # truncated to -1, not floored to -2


def test_split_infers_without_the_axis_value_and_at_the_interval_edge():
    assert infer(Split(num_splits=2), [tt("2,6"), I64], [None]) == ["[?,?]"] * 2  # no value given for the axis
    assert infer(Split(num_splits=2), [tt("2,1..2"), I64], [None, 1]) == ["[2,..1]"] * 2
    with pytest.raises(OpError, match=re.escape("must be greater or equal to 'num_splits' attribute. Got: 1..2 and 3")):
        infer(Split(num_splits=3), [tt("2,1..2"), I64], [None, 1])
