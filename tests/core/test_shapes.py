"""Dim and Shape: parsing, printing and OpenVINO's interval arithmetic."""

from __future__ import annotations

import pytest

from irgraph.errors import IrParseError
from irgraph.shapes import Dim, Shape


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
def test_dim_floordiv_floors_both_bounds(dim, parts, result):
    assert str(Dim.parse(dim).floordiv(parts)) == result


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
