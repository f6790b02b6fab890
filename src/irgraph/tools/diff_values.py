"""What ir-diff compares by content: rt_info entries (flattened to paths) and Const values (decoded, by their bits)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from irgraph.core.text import plural
from irgraph.graph import RtEntry
from irgraph.ops import Const


# ------------------------------------------------------------------------------------ rt_info
def rt_key(entry: RtEntry) -> str:
    """``fused_names`` for ``<attribute name="fused_names" .../>``; the tag for ``<Runtime_version .../>``."""
    for key, value in entry.attributes:
        if key == "name":
            return value
    return entry.tag


def _rt_value(entry: RtEntry) -> str:
    """The value an entry holds: its ``value`` attribute alone, else every attribute but ``name`` as k=v."""
    attributes = [(k, v) for k, v in entry.attributes if k != "name"]
    if len(attributes) == 1 and attributes[0][0] == "value":
        return attributes[0][1]
    return " ".join(f"{k}={v}" for k, v in attributes)


def _flatten(entries: Iterable[RtEntry]) -> dict[str, str]:
    """Every entry by its path (``conversion_parameters/input_model``); repeated keys get ``#2``, ``#3``."""
    flat: dict[str, str] = {}
    stack: list[tuple[str, RtEntry]] = [("", entry) for entry in reversed(tuple(entries))]
    while stack:
        prefix, entry = stack.pop()
        key = prefix + rt_key(entry)
        unique, count = key, 1
        while unique in flat:
            count += 1
            unique = f"{key}#{count}"
        if entry.children:
            if entry.attributes:
                flat[unique] = _rt_value(entry)
            stack.extend((unique + "/", child) for child in reversed(entry.children))
        else:
            flat[unique] = _rt_value(entry)
    return flat


def rt_info_changes(a: tuple[RtEntry, ...], b: tuple[RtEntry, ...], ignored: frozenset[str] = frozenset()
                    ) -> Iterator[tuple[str, str | None, str | None]]:
    """(path, old, new) for each entry that differs; top-level keys in ``ignored`` are left out."""
    if a == b:
        return
    if ignored:
        a = tuple(entry for entry in a if rt_key(entry) not in ignored)
        b = tuple(entry for entry in b if rt_key(entry) not in ignored)
    flat_a, flat_b = _flatten(a), _flatten(b)
    for key in union(flat_a, flat_b):
        old, new = flat_a.get(key), flat_b.get(key)
        if old != new:
            yield key, old, new


def union(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """Keys of both, in first's order then second's."""
    return list(dict.fromkeys([*first, *second]))


# ------------------------------------------------------------------------------------ values
def _value_bytes(value: np.ndarray) -> np.ndarray:
    """The value's bytes as a flat uint8 array (a view, no copy); strings UTF-8 encoded and joined by NUL."""
    if value.dtype.kind == "O":
        text = "\0".join(str(item) for item in value.reshape(-1).tolist()).encode("utf-8", "surrogatepass")
        return np.frombuffer(text, np.uint8)
    return np.ascontiguousarray(value).reshape(-1).view(np.uint8)


def value_digest(value: np.ndarray | None) -> str:
    """The sha256 of a Const's decoded value (its bytes; strings joined by NUL), as hex."""
    if value is None:
        return "(not loaded)"
    return hashlib.sha256(_value_bytes(value).data).hexdigest()


def values_equal(a: Const, b: Const) -> bool:
    """True when the two Consts hold the same bits (or the very same array)."""
    value_a, value_b = a.value, b.value
    if value_a is value_b:
        return True
    return value_a is not None and value_b is not None and np.array_equal(_value_bytes(value_a), _value_bytes(value_b))


def value_difference(a: Const, b: Const) -> str:
    """Empty when the values are equal (or their types/shapes differ: the attributes say so), else a description."""
    if a.element_type != b.element_type or a.shape != b.shape or values_equal(a, b):
        return ""
    value_a, value_b = a.value, b.value
    detail = f"sha256 {value_digest(value_a)[:12]}.. -> {value_digest(value_b)[:12]}.."
    if value_a is not None and value_b is not None:
        differing = _differing(value_a, value_b)
        if value_a.dtype.kind not in "Ob" and differing.size:
            detail += f"; max abs diff {float(np.max(gaps(value_a, value_b, differing))):.6g}"
        detail += f"; {differing.size} of {value_a.size} {plural(value_a.size, 'element')} differ"
    return detail


def gaps(a: np.ndarray, b: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """``|a - b|`` in float64 over the flat indices ``where`` (all when None): only the differing elements of a
    200 MB weight are converted."""
    flat_a, flat_b = a.reshape(-1), b.reshape(-1)
    if where is not None:
        flat_a, flat_b = flat_a[where], flat_b[where]
    with np.errstate(all="ignore"):
        return np.abs(flat_a.astype(np.float64) - flat_b.astype(np.float64))


def _differing(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The flat indices of the elements whose bits (or strings) differ."""
    if a.dtype.kind == "O":
        return np.flatnonzero(np.array([x != y for x, y in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist(),
                                                                 strict=True)], dtype=bool))
    width = a.dtype.itemsize
    if width in (1, 2, 4, 8):  # one unsigned integer per element: compares bits, so NaN equals itself
        unsigned = np.dtype(f"u{width}")
        return np.flatnonzero(np.ascontiguousarray(a).reshape(-1).view(unsigned)
                              != np.ascontiguousarray(b).reshape(-1).view(unsigned))
    bytes_a, bytes_b = _value_bytes(a).reshape(-1, width), _value_bytes(b).reshape(-1, width)
    return np.flatnonzero(np.any(bytes_a != bytes_b, axis=1))
