"""Tensor values in brief, as ir-info's views and the Graphviz drawing show them: the first elements, flat."""

from __future__ import annotations

import math

import numpy as np

from irgraph.tools.compare import element_type_name

__all__ = ["first_values", "item_text", "values_text"]


def values_text(array: np.ndarray, limit: int | None = None) -> str:
    """The first elements, flat: ``[1, 2]``; floats with 4 significant digits (f16, bf16, f8 as numbers);
    ``...`` after the first ``limit`` when there are more."""
    flat = np.asarray(array).reshape(-1)
    items = [item_text(item) for item in first_values(flat, limit if limit is not None else flat.size)]
    more = ", ..." if limit is not None and flat.size > limit else ""
    return "[" + ", ".join(items) + more + "]"


def item_text(item: object) -> str:
    """A value as text: floats with 4 significant digits."""
    return f"{item:.4g}" if isinstance(item, float) else str(item)


def first_values(flat: np.ndarray, count: int) -> list[object]:
    """The first ``count`` elements as JSON values: ints, floats (4 significant digits), strings for text,
    NaN and infinities as strings."""
    head = flat[:count]
    if head.dtype.kind in "OUS":
        return [str(item) for item in head.tolist()]
    if head.dtype.kind in "biu":
        return [int(item) if head.dtype.kind != "b" else bool(item) for item in head.tolist()]
    try:
        numbers = head.astype(np.float64).tolist()
    except (TypeError, ValueError):  # a packed or opaque element type: its raw codes
        return [str(item) for item in head.tolist()]
    if element_type_name(flat).startswith(("i", "u")):  # i4, u4, u1 ... held in ml_dtypes
        return [int(number) for number in numbers]
    return [float(f"{number:.4g}") if math.isfinite(number) else str(number) for number in numbers]
