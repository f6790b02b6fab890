"""Describing tensors as text: statistics (name, type, shape, min, max, mean) and aligned columns.

Split from :mod:`irgraph.tools.compare`, which re-exports these names for its callers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrParseError, printable
from irgraph.ops.op import shape_text

__all__ = ["array_element_type", "element_type_name", "format_columns", "format_stats_table", "tensor_stats"]


def tensor_stats(key: str, array: np.ndarray) -> dict[str, object]:
    """Name, element type, shape, min, max and mean of one (stored) tensor (strings: no mean)."""
    element_type = element_type_name(array)
    row: dict[str, object] = {
        "name": key, "element_type": element_type, "shape": list(array.shape), "min": None, "max": None, "mean": None,
    }
    if not array.size:
        return row
    if element_type == "string":
        items = [str(item) for item in array.reshape(-1).tolist()]
        row["min"], row["max"] = min(items), max(items)
        return row
    values = array.astype(np.float64)
    integral = array.dtype.kind in "biu" or element_type.startswith(("i", "u"))  # also i4, u1, u2, u4 (ml_dtypes)
    row["min"] = _json_number(float(values.min()), integral)
    row["max"] = _json_number(float(values.max()), integral)
    row["mean"] = _json_number(float(values.mean()), False)
    return row


def _json_number(value: float, integral: bool) -> float | int | str:
    if math.isnan(value) or math.isinf(value):
        return str(value)
    return int(value) if integral else value


def element_type_name(array: np.ndarray) -> str:
    """The IR element type of an array (``string`` for text, the NumPy name when IR has none)."""
    if array.dtype.kind in "OUS":
        return "string"
    try:
        return str(ElementType.from_numpy(array.dtype))
    except IrParseError:
        return str(array.dtype)


def array_element_type(array: np.ndarray) -> ElementType:
    """The IR element type of an array; ``string`` when IR has none for its dtype (text, Python objects)."""
    try:
        return ElementType.from_numpy(array.dtype)
    except IrParseError:
        return ElementType.STRING


def format_stats_table(rows: Sequence[Mapping[str, object]], title: str = "output") -> str:
    """The table of :func:`tensor_stats` rows: name, element type, shape, min, max, mean."""
    header = (title, "type", "shape", "min", "max", "mean")
    lines: list[tuple[str, ...]] = [header]
    for row in rows:
        shape = row["shape"]
        assert isinstance(shape, list)
        lines.append((
            printable(str(row["name"])), str(row["element_type"]), shape_text(tuple(shape)),
            *(_cell(row[k]) for k in ("min", "max", "mean")),
        ))
    return "\n".join(format_columns(lines))


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def format_columns(rows: Sequence[tuple[str, ...]], indent: str = "") -> list[str]:
    """Rows of cells as left-aligned columns separated by two spaces."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in rows]
