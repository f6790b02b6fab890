"""Dim's interval arithmetic (OpenVINO's Dimension/Interval, openvino core/src/dimension.cpp and interval.cpp):
named cases, and hypothesis properties that each result holds every value the operation gives on members of
its operands (soundness) and reaches its bounds where the operands have them (tightness)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.shapes import Dim

SPAN = 40
"""How far past the min a member of an unbounded dim is drawn."""


@st.composite
def dims(draw: st.DrawFn) -> Dim:
    """A static, interval or unbounded dim with small bounds (0 included)."""
    low = draw(st.integers(0, 30))
    high = draw(st.one_of(st.none(), st.integers(low, low + 30)))
    return Dim(low, high)


@st.composite
def dim_and_member(draw: st.DrawFn) -> tuple[Dim, int]:
    """A dim and one size inside it."""
    dim = draw(dims())
    return dim, draw(st.integers(dim.min, dim.min + SPAN if dim.max is None else dim.max))


@pytest.mark.parametrize(
    ("a", "b", "product"),
    [("2..3", "4..5", "8..15"), ("0", "?", "0"), ("?", "0", "0"), ("..0", "3..", "0"), ("2..", "3", "6.."),
     ("1..4", "?", "?"), ("6", "1", "6"), ("1", "2..5", "2..5")],
)
def test_dim_product_as_openvino(a, b, product):
    assert str(Dim.parse(a) * Dim.parse(b)) == product


@pytest.mark.parametrize(
    ("a", "b", "difference"),
    [("5..9", "2..3", "2..7"), ("4", "6", "0"), ("3..8", "5..", "..3"), ("2..", "1", "1.."), ("?", "3", "?"),
     ("7", "0", "7")],
)
def test_dim_difference_clamps_at_zero(a, b, difference):
    assert str(Dim.parse(a) - Dim.parse(b)) == difference


@pytest.mark.parametrize(
    ("dim", "amount", "padded", "shifted"),
    [("5", -7, "?", "0"), ("5", 2, "7", "7"), ("3..8", -5, "..3", "..3"), ("2..", -4, "?", "?"),
     ("4..", -2, "2..", "2.."), ("1..3", -5, "?", "0"), ("?", 0, "?", "?"), ("2..5", 1, "3..6", "3..6"),
     ("4", 1, "5", "5"), ("2..5", 0, "2..5", "2..5"),
     # a bound landing on 0 exactly is kept: OpenVINO 2026.4.1's Pad-12 takes [5] and [2..5] with pads -5 to [0]
     ("5", -5, "0", "0"), ("2..5", -5, "0", "0")],
)
def test_dim_padded_loses_a_bound_below_zero_where_shifted_clamps(dim, amount, padded, shifted):
    assert (str(Dim.parse(dim).padded(amount)), str(Dim.parse(dim).shifted(amount))) == (padded, shifted)


@pytest.mark.parametrize(
    ("dim", "divisor", "floored", "ceiled", "divided"),
    [("12", 3, "4", "4", "4"), ("5..11", 4, "1..2", "2..3", "2"), ("1..10", 2, "..5", "1..5", "1..5"),
     ("2..", 4, "?", "1..", "1.."), ("0", 5, "0", "0", "0")],
)
def test_dim_divisions(dim, divisor, floored, ceiled, divided):
    parsed = Dim.parse(dim)
    assert [str(parsed.floor_div(divisor)), str(parsed.ceil_div(divisor)), str(parsed.divided(divisor))] == \
        [floored, ceiled, divided]


def test_dim_divided_without_a_multiple_is_refused():
    with pytest.raises(ValueError):
        Dim(5, 7).divided(4)


def test_int_operands_are_static_dims():
    dim = Dim(2, 5)
    assert (dim + 3, 3 + dim, dim - 1, dim * 2, 2 * dim) == (Dim(5, 8), Dim(5, 8), Dim(1, 4), Dim(4, 10), Dim(4, 10))


def _reaches(result: Dim, low: int, high: int | None) -> bool:
    return result.min == low and result.max == high


@given(dim_and_member(), dim_and_member())
def test_sum_is_sound_and_tight(a, b):
    (left, x), (right, y) = a, b
    total = left + right
    assert total.contains(x + y)
    assert _reaches(total, left.min + right.min,
                    None if left.max is None or right.max is None else left.max + right.max)


@given(dim_and_member(), dim_and_member())
def test_difference_is_sound_and_tight(a, b):
    (left, x), (right, y) = a, b
    difference = left - right
    assert difference.contains(max(0, x - y))
    assert _reaches(difference, 0 if right.max is None else max(0, left.min - right.max),
                    None if left.max is None else max(0, left.max - right.min))


@given(dim_and_member(), dim_and_member())
def test_product_is_sound_and_tight(a, b):
    (left, x), (right, y) = a, b
    product = left * right
    assert product.contains(x * y)
    assert product.min == left.min * right.min
    if 0 in (left.max, right.max):
        assert product.max == 0
    elif left.max is not None and right.max is not None:
        assert product.max == left.max * right.max
    else:
        assert product.max is None


@given(dim_and_member(), st.integers(-40, 40))
def test_shifted_is_sound(member, amount):
    dim, x = member
    assert dim.shifted(amount).contains(max(0, x + amount))
    assert dim.shifted(amount) == (dim + amount if amount >= 0 else dim - (-amount))


@given(dim_and_member(), st.integers(-40, 40))
def test_padded_is_sound(member, amount):
    dim, x = member
    padded = dim.padded(amount)
    if x + amount >= 0:
        assert padded.contains(x + amount)
    if dim.is_static and x + amount >= 0:
        assert padded.is_static


@given(dim_and_member(), st.integers(1, 12))
def test_divisions_are_sound(member, divisor):
    dim, x = member
    assert dim.floor_div(divisor).contains(x // divisor)
    assert dim.ceil_div(divisor).contains(-(-x // divisor))
    multiples = [m for m in range(dim.min, (dim.min + SPAN if dim.max is None else dim.max) + 1) if m % divisor == 0]
    if dim.max is not None and not multiples:
        with pytest.raises(ValueError):
            dim.divided(divisor)
    elif multiples:
        quotient = dim.divided(divisor)
        assert all(quotient.contains(m // divisor) for m in multiples)
        assert quotient.min == multiples[0] // divisor
        if dim.max is not None:
            assert quotient.max == multiples[-1] // divisor


@pytest.mark.parametrize(("dim", "written"), [("3", 3), ("0", 0), ("?", -1), ("2..", "2.."), ("..8", "..8"),
                                              ("2..8", "2..8")])
def test_a_dim_in_the_tools_json_is_its_size_minus_one_or_its_interval(dim, written):
    assert Dim.parse(dim).to_json() == written
