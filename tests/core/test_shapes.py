"""Dim and Shape: parsing, printing and OpenVINO's interval arithmetic."""

from __future__ import annotations

import re
from dataclasses import FrozenInstanceError

import numpy as np
import pytest

from irgraph.core.errors import IrParseError
from irgraph.core.shapes import Dim, Shape


@pytest.mark.parametrize(
    ("text", "low", "high", "printed"),
    [("6", 6, 6, "6"), ("?", 0, None, "?"), ("-1", 0, None, "?"), ("1..10", 1, 10, "1..10"),
     ("..10", 0, 10, "..10"), ("2..", 2, None, "2.."), (" 3 ", 3, 3, "3"), ("0", 0, 0, "0")],
)
def test_dim_parse_and_print(text, low, high, printed):
    dim = Dim.parse(text)
    assert (dim.min, dim.max, str(dim)) == (low, high, printed)


@pytest.mark.parametrize("text", ["-2", "a", "1.5", "5..2", ""])
def test_dim_parse_rejects(text):
    with pytest.raises(IrParseError):
        Dim.parse(text)


@pytest.mark.parametrize(
    ("a", "b", "merged"),
    [("1..5", "3..8", "3..5"), ("?", "4", "4"), ("2..", "..6", "2..6"), ("3", "3", "3"), ("1..3", "4", None),
     ("2", "3", None)],
)
def test_dim_merge_is_interval_intersection(a, b, merged):
    result = Dim.parse(a).merge(Dim.parse(b))
    assert (str(result) if result else None) == merged


@pytest.mark.parametrize(
    ("a", "b", "total"), [("1..3", "2..5", "3..8"), ("?", "2", "2.."), ("4", "5", "9"), ("..2", "..3", "..5")]
)
def test_dim_addition(a, b, total):
    assert str(Dim.parse(a) + Dim.parse(b)) == total


@pytest.mark.parametrize(("dim", "parts", "result"), [("1..10", 2, "..5"), ("5..7", 2, "2..3"), ("2..", 4, "?"),
                                                      ("5..11", 4, "1..2"), ("12", 3, "4")])
def test_dim_floor_div_floors_both_bounds(dim, parts, result):
    assert str(Dim.parse(dim).floor_div(parts)) == result


@pytest.mark.parametrize(
    ("text", "printed", "ir_text"),
    [("2,6,4", "[2,6,4]", "2,6,4"), ("[1,?,1..8]", "[1,?,1..8]", "1,?,1..8"), ("...", "[...]", "..."),
     ("", "[]", ""), ("2, -1", "[2,?]", "2,?"), ("..5,3,?,7..", "[..5,3,?,7..]", "..5,3,?,7..")],
)
def test_shape_parse_and_print(text, printed, ir_text):
    shape = Shape.parse(text)
    assert (str(shape), shape.to_ir()) == (printed, ir_text)


def test_shape_properties():
    shape = Shape.parse("2,1..8")
    assert shape.rank == 2 and not shape.is_static and shape.accepts((2, 5)) and not shape.accepts((2, 9))
    assert not shape.accepts((2,)) and Shape.parse("...").accepts((1, 2, 3))
    assert Shape.parse("2,3").to_tuple() == (2, 3) and Shape.parse("2,3").is_static
    assert Shape.parse("2,..4").element_count_bound() == 8 and Shape.parse("2,?").element_count_bound() is None
    assert Shape.of([1, -1, None, "2..3"]) == Shape.parse("1,?,?,2..3")
    assert Shape.parse("2,?").compatible(Shape.parse("2,7")) and not Shape.parse("2").compatible(Shape.parse("3"))
    with pytest.raises(ValueError, match="dynamic rank"):
        _ = Shape.parse("...").rank


def test_port_dims_lose_interval_bounds():
    assert [d.to_port_dim() for d in Shape.parse("..5,3,?,7..")] == [-1, 3, -1, -1]


def test_a_shape_that_is_not_static_has_no_tuple_and_a_dynamic_rank_has_no_dims():
    with pytest.raises(ValueError, match=r"^shape \[2,\?\] is not static$"):
        Shape.parse("2,?").to_tuple()
    with pytest.raises(ValueError, match=r"^shape \[\.\.\.\] is not static$"):
        Shape.parse("...").to_tuple()
    assert Shape.parse("").to_tuple() == ()
    with pytest.raises(ValueError, match="^shape has a dynamic rank$"):
        _ = Shape.parse("...")[0]
    with pytest.raises(ValueError, match="^shape has a dynamic rank$"):
        len(Shape.parse("..."))
    assert Shape.parse("2,1..3")[1] == Dim(1, 3) and Shape.parse("2,1..3")[-2] == Dim.static(2)


def test_dim_construction_and_its_checks():
    assert Dim() == Dim.dynamic() == Dim(0, None) and Dim.of(Dim(1, 2)) == Dim(1, 2) and Dim.of(None) == Dim.dynamic()
    assert (Dim.of(-1), Dim.of(3), Dim.of("2..")) == (Dim.dynamic(), Dim.static(3), Dim(2, None))
    with pytest.raises(ValueError, match=re.escape("dimension must be >= -1, got -2")):
        Dim.of(-2)
    with pytest.raises(ValueError, match=re.escape("invalid dimension interval [3, 2]")):
        Dim(3, 2)
    with pytest.raises(ValueError, match=re.escape("invalid dimension interval [-1, 5]")):
        Dim(-1, 5)
    assert Dim.parse("3..3") == Dim.static(3) and repr(Dim(1, 2)) == "Dim(1..2)"


def test_dim_predicates_and_value():
    assert (Dim(1, 2).is_dynamic, Dim.static(2).is_dynamic, Dim.dynamic().is_dynamic) == (True, False, True)
    assert Dim.static(4).value == 4
    with pytest.raises(ValueError, match=re.escape("dimension 1..2 is not static")):
        _ = Dim(1, 2).value
    assert Dim.static(2).compatible(Dim(1, 3)) and not Dim.static(5).compatible(Dim(0, 3))
    assert Dim(1, 4).merge(Dim(2, None)) == Dim(2, 4) == Dim(2, None).merge(Dim(1, 4))


def test_shape_coercion_merge_and_bounds():
    two_by_any = Shape.parse("2,?")
    assert Shape.of(two_by_any) is two_by_any and Shape.of(None) == Shape.dynamic_rank() == Shape(None)
    assert Shape.of("[1,2]") == Shape.static([1, 2]) and repr(two_by_any) == "Shape([2,?])"
    with pytest.raises(IrParseError, match=re.escape("cannot parse dimension '[2'")):
        Shape.parse("[2,3")
    assert two_by_any.merge(Shape.parse("?,3")) == Shape.parse("2,3") and two_by_any.merge(Shape.parse("3,3")) is None
    assert Shape.dynamic_rank().merge(two_by_any) is two_by_any and two_by_any.merge(Shape.dynamic_rank()) is two_by_any
    assert two_by_any.merge(Shape.parse("2")) is None and len(two_by_any) == 2
    assert Shape.parse("0,?").element_count_bound() == 0 and Shape.parse("1,?").element_count_bound() is None
    assert Shape.parse("...").element_count_bound() is None and Shape.parse("").element_count_bound() == 1
    assert Shape.dynamic(2) == two_by_any.replace(0, Dim.dynamic())


@pytest.mark.parametrize("value", [True, np.bool_(False), 2.5, np.float32(3.0)])
def test_a_dim_is_not_made_from_a_bool_or_a_float(value):
    """int() would make True a 1 and 2.5 a 2 without a word."""
    with pytest.raises(IrParseError, match=re.escape(f"a dimension is an int, None, '?' or a range like '1..8', "
                                                     f"got {value!r}")):
        Dim.of(value)
    assert Dim.of(np.int64(3)) == Dim.static(3)


def test_a_shape_in_the_tools_json_lists_its_dims_and_a_dynamic_rank_is_null():
    assert Shape.parse("1,?,1..8,2..").to_json() == [1, -1, "1..8", "2.."]
    assert Shape.parse("").to_json() == [] and Shape.dynamic_rank().to_json() is None


def test_dims_and_shapes_refuse_assignment_and_deletion_as_frozen_dataclasses_do():
    dim, shape = Dim(1, 2), Shape.parse("2,3")
    with pytest.raises(FrozenInstanceError, match=re.escape("cannot assign to field 'max'")):
        dim.max = 5  # type: ignore[misc]  # the assignment is what is tested
    with pytest.raises(FrozenInstanceError, match=re.escape("cannot assign to field 'dims'")):
        shape.dims = None  # type: ignore[misc]  # the assignment is what is tested
    with pytest.raises(FrozenInstanceError, match=re.escape("cannot delete field 'min'")):
        del dim.min  # type: ignore[misc]  # the deletion is what is tested
    assert (dim, shape) == (Dim(1, 2), Shape.parse("2,3"))
