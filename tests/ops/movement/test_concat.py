"""Concat-1: every row of ir-format.md table 5.4, plus evaluation."""

from __future__ import annotations

import re

import numpy as np
import pytest

from irgraph.core.errors import OpError
from irgraph.ops import Concat
from tests.ops.helpers import tt

INCONSISTENT = "Argument shapes are inconsistent; they must have the same rank, and must have equal dimension " \
               "everywhere except on the concatenation axis (axis {})."


def infer(axis, *inputs):
    return [str(t) for t in Concat(axis=axis).infer(list(inputs), [None] * len(inputs))]


@pytest.mark.parametrize(
    ("axis", "inputs", "expected"),
    [
        (0, [tt("2,3")], "f32[2,3]"),
        (0, [tt("0,3"), tt("2,3")], "f32[2,3]"),
        (0, [tt("0,3"), tt("0,3")], "f32[0,3]"),
        (0, [tt("?,3"), tt("2,3")], "f32[2..,3]"),
        (0, [tt("1..3,4"), tt("2..5,4")], "f32[3..8,4]"),
        (0, [tt("2,1..5"), tt("2,3..8")], "f32[4,3..5]"),
        (1, [tt("..."), tt("2,3")], "f32[2,3..]"),
        (0, [tt("...", "dynamic"), tt("2,3")], "f32[2..,3]"),
        (0, [tt("2,3", "dynamic"), tt("2,3")], "f32[4,3]"),
        (-1, [tt("2,3"), tt("2,4")], "f32[2,7]"),
        (1, [tt("..."), tt("...")], "f32[...]"),
        (0, [tt("2", "boolean"), tt("3", "boolean")], "boolean[5]"),
        (0, [tt("2", "string"), tt("3", "string")], "string[5]"),
        (0, [tt("2", "i4"), tt("3", "i4")], "i4[5]"),
    ],
    ids=["one-input", "zero-size", "all-zero", "dynamic-merges", "interval-sum", "interval-intersect",
         "dynamic-rank-input", "dynamic-type-dynamic-rank", "dynamic-type", "neg-axis", "all-dynamic-rank", "boolean",
         "string", "i4"],
)
def test_concat_infers(axis, inputs, expected):
    assert infer(axis, *inputs) == [expected]


@pytest.mark.parametrize(
    ("axis", "inputs", "message"),
    [
        (0, [tt("2,3"), tt("2,3,1")], INCONSISTENT.format(0)),
        (0, [tt("2,3"), tt("2,4")], INCONSISTENT.format(0)),
        (0, [tt("2,1..3"), tt("2,4")], INCONSISTENT.format(0)),
        (0, [tt("2,3"), tt("2,3", "i32")], "Argument element types are inconsistent."),
        (2, [tt("2,3"), tt("2,3")], "Axis 2 out of the tensor rank range [-2, 1]."),
        (-3, [tt("2,3"), tt("2,3")], "Axis -3 out of the tensor rank range [-2, 1]."),
        (0, [tt(""), tt("")], "Concat inputs must have rank >= 1. Got a scalar at input 0"),
        (0, [], "Concat needs at least one input. Got: 0"),
    ],
    ids=["rank-mismatch", "non-axis-mismatch", "interval-disjoint", "types", "axis-2", "axis-minus-3", "scalars",
         "no-inputs"],
)
def test_concat_rejects(axis, inputs, message):
    with pytest.raises(OpError) as caught:
        infer(axis, *inputs)
    assert message in str(caught.value)


def test_concat_attribute_round_trip_and_default_axis():
    assert Concat.from_attributes({"axis": "-1"}) == Concat(axis=-1)
    assert Concat.from_attributes({}) == Concat(axis=0)
    assert Concat(axis=-1).to_attributes() == {"axis": "-1"}


def test_concat_evaluates_exactly():
    a = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    b = np.array([[7, 8, 9, 10], [11, 12, 13, 14]], np.float32)
    (joined,) = Concat(axis=-1).evaluate([a, b])
    assert joined.tolist() == [[1, 2, 3, 7, 8, 9, 10], [4, 5, 6, 11, 12, 13, 14]]


def test_concat_of_one_input_is_a_copy():
    a = np.arange(3)
    (copy,) = Concat(axis=0).evaluate([a])
    assert copy.tolist() == [0, 1, 2] and not np.shares_memory(copy, a)


def test_concat_rejects_mismatched_runtime_shapes():
    with pytest.raises(OpError, match=r"\(axis 1\)"):
        Concat(axis=1).evaluate([np.zeros((2, 3)), np.zeros((3, 3))])


def test_concat_handles_strings_and_zero_size_inputs():
    (joined,) = Concat(axis=0).evaluate([np.array(["ab", ""], object), np.array([], object), np.array(["x"], object)])
    assert joined.tolist() == ["ab", "", "x"]


def test_concat_checks_its_inputs_at_run_time():
    with pytest.raises(OpError, match=re.escape("Concat needs at least one input. Got: 0")):
        Concat(axis=0).evaluate([])
    with pytest.raises(OpError, match=re.escape("Concat inputs must have rank >= 1. Got a scalar at input 0")):
        Concat(axis=0).evaluate([np.float32(1), np.float32(2)])
    with pytest.raises(OpError, match=re.escape(INCONSISTENT.format(1))):
        Concat(axis=1).evaluate([np.zeros((2, 3)), np.zeros((2, 3, 1))])
    with pytest.raises(OpError, match=re.escape(INCONSISTENT.format(0))):
        Concat(axis=0).evaluate([np.zeros((2, 3)), np.zeros((2, 4))])
    with pytest.raises(OpError, match=re.escape("Argument element types are inconsistent.")):
        Concat(axis=0).evaluate([np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float64)])
    with pytest.raises(OpError, match=re.escape("Axis 2 out of the tensor rank range [-2, 1].")):
        Concat(axis=2).evaluate([np.zeros((2, 3))])

