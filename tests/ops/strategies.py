"""Hypothesis strategies for op configurations: element types, shapes, broadcastable pairs, values.

Values come from a NumPy generator seeded by hypothesis (fast for every dtype, bf16 included) and
mix ordinary numbers with the specials that break implementations: NaN, +-inf, -0.0, the largest
and smallest finite values and subnormals for floats; the minimum and maximum for integers.
"""

from __future__ import annotations

from collections.abc import Sequence

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType

FLOATS = (ElementType.F16, ElementType.BF16, ElementType.F32, ElementType.F64)
SIGNED = (ElementType.I8, ElementType.I16, ElementType.I32, ElementType.I64)
UNSIGNED = (ElementType.U8, ElementType.U16, ElementType.U32, ElementType.U64)
INTEGERS = SIGNED + UNSIGNED
NUMERIC = FLOATS + INTEGERS
ALL = (ElementType.BOOLEAN, *NUMERIC)


def shapes(min_rank: int = 0, max_rank: int = 4, max_side: int = 4, zero: bool = True) -> st.SearchStrategy:
    """Static shapes of rank ``min_rank..max_rank``; a zero-size dim now and then."""
    side = st.integers(0 if zero else 1, max_side) if zero else st.integers(1, max_side)
    return st.lists(side, min_size=min_rank, max_size=max_rank).map(tuple)


@st.composite
def broadcast_pair(draw: st.DrawFn, mode: str, max_rank: int = 4) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes valid together under ``auto_broadcast`` ``mode`` (numpy, pdpd or none)."""
    out = draw(shapes(max_rank=max_rank))
    if mode == "none":
        return out, out

    def thinned(shape: tuple[int, ...]) -> tuple[int, ...]:
        ones = draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
        return tuple(1 if one else d for d, one in zip(shape, ones, strict=True))

    rank_b = draw(st.integers(0, len(out)))
    if mode == "pdpd":  # input 1 aligns with input 0 from axis 0
        return out, thinned(out[:rank_b])
    b = thinned(out[len(out) - rank_b:])
    rank_a = draw(st.integers(0, len(out)))
    a = thinned(out[len(out) - rank_a:])
    # Every output dim must come from a or b: give the full shape to one of them where both thinned it.
    pad_a = len(out) - len(a)
    full_a = (1,) * pad_a + a
    full_b = (1,) * (len(out) - len(b)) + b
    fixed_a = tuple(o if (x != o and y != o) else x for o, x, y in zip(out, full_a, full_b, strict=True))
    keep = 0
    while keep < pad_a and fixed_a[keep] == 1:
        keep += 1
    fixed_a = fixed_a[keep:]
    return (fixed_a, b) if draw(st.booleans()) else (b, fixed_a)


@st.composite
def any_pair(draw: st.DrawFn, mode: str, max_rank: int = 3) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Mostly valid pairs under ``mode``; now and then two unrelated shapes (OpenVINO may refuse them)."""
    if draw(st.integers(0, 4)) == 0:
        return draw(shapes(max_rank=max_rank)), draw(shapes(max_rank=max_rank))
    return draw(broadcast_pair(mode, max_rank))


def _specials(element_type: ElementType) -> np.ndarray:
    dtype = element_type.numpy_dtype
    if element_type is ElementType.BOOLEAN:
        return np.array([True, False])
    if element_type.is_real:
        info = ml_dtypes.finfo(dtype)
        return np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, float(info.max), float(info.min),
                         float(info.smallest_subnormal), -float(info.smallest_normal), 1.0, -1.0, 0.5, 2.5, -2.5],
                        dtype=np.float64).astype(dtype)
    info = np.iinfo(dtype)
    return np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1] + ([-1] if info.min < 0 else []),
                    dtype=dtype)


def values(element_type: ElementType, shape: Sequence[int], seed: int, specials: bool = True,
           low: float | None = None, high: float | None = None) -> np.ndarray:
    """An array of ``shape`` and ``element_type``: ordinary values, and specials where ``specials``.

    ``low``/``high`` bound the ordinary values (and drop the specials outside them).
    """
    rng = np.random.default_rng(seed)
    dtype = element_type.numpy_dtype
    count = int(np.prod(shape, dtype=np.int64))
    if element_type is ElementType.BOOLEAN:
        flat = rng.integers(0, 2, count).astype(bool)
    elif element_type.is_real:
        lo, hi = (-10.0 if low is None else low), (10.0 if high is None else high)
        flat = rng.uniform(lo, hi, count)
        with np.errstate(over="ignore"):
            flat = np.where(rng.integers(0, 4, count) == 0, np.round(flat), flat).astype(dtype)
    else:
        info = np.iinfo(dtype)
        lo = int(info.min if low is None else max(low, info.min))
        hi = int(info.max if high is None else min(high, info.max))
        small = rng.integers(max(lo, -20), min(hi, 20) + 1, count, dtype=np.int64)
        wide = rng.integers(lo, hi, count, dtype=dtype, endpoint=True)
        flat = np.where(rng.integers(0, 3, count) == 0, wide, small.astype(dtype))
    if specials and count and element_type is not ElementType.BOOLEAN:
        special = _specials(element_type)
        if low is not None or high is not None:
            wide = special.astype(np.float64)
            keep = (wide >= (-np.inf if low is None else low)) & (wide <= (np.inf if high is None else high))
            special = special[keep]
        if special.size:
            where = rng.integers(0, 3, count) == 0
            flat = np.where(where, special[rng.integers(0, special.size, count)], flat)
    return np.asarray(flat, dtype=dtype).reshape(tuple(shape))


seeds = st.integers(0, 2**32 - 1)
"""Seeds for :func:`values`."""
