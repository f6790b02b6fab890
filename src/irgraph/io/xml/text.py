"""Text formatting shared by the writer: pugixml's attribute escaping and libstdc++'s std::sort order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from irgraph.core.lazy import lazy_pattern

_SPECIAL = lazy_pattern(r'[&<"\x00-\x1f]')
_ESCAPES = {"&": "&amp;", "<": "&lt;", '"': "&quot;"}
_ESCAPES.update({chr(code): f"&#{code // 10}{code % 10};" for code in range(32)})


def escape_attribute(value: str) -> str:
    """Escape an attribute value exactly as pugixml writes it.

    ``&``, ``<`` and ``"`` become entities, every control character below 32 (tab, newline
    included) becomes ``&#NN;`` with two decimal digits; ``>`` and ``'`` stay as they are.
    """
    if _SPECIAL.search(value) is None:
        return value
    return _SPECIAL.sub(lambda match: _ESCAPES[match.group()], value)


def escape_text(value: str) -> str:
    """Escape element text as pugixml writes it: ``&``, ``<`` and ``>`` become entities."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


T = TypeVar("T")

_THRESHOLD = 16  # libstdc++ _S_threshold


def cxx_sort(items: Sequence[T], key: Callable[[T], int]) -> list[T]:
    """Sort like libstdc++'s ``std::sort`` (introsort) comparing ``key(a) < key(b)``.

    ``std::sort`` is not stable: elements with equal keys end up in an order that depends on the
    algorithm. OpenVINO sorts ``<edge>`` elements this way (by from-layer only), so reproducing
    its files byte for byte needs this exact procedure, not Python's stable sort.
    """
    values = list(items)
    keys = [key(item) for item in values]
    count = len(values)
    if count < 2:
        return values
    if all(keys[i] < keys[i + 1] for i in range(count - 1)):
        return values  # strictly increasing: every algorithm agrees
    _introsort(keys, values, 0, count, 2 * (count.bit_length() - 1))
    _insertion_sort(keys, values, 0, min(count, _THRESHOLD))
    for i in range(_THRESHOLD, count):
        _linear_insert(keys, values, i)
    return values


def _introsort(keys: list[int], values: list, first: int, last: int, depth: int) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(keys, values, first, last)
            return
        depth -= 1
        _median_to_first(keys, values, first, first + 1, first + (last - first) // 2, last - 1)
        cut = _partition(keys, values, first + 1, last, first)
        _introsort(keys, values, cut, last, depth)
        last = cut


def _swap(keys: list[int], values: list, i: int, j: int) -> None:
    keys[i], keys[j] = keys[j], keys[i]
    values[i], values[j] = values[j], values[i]


def _median_to_first(keys: list[int], values: list, result: int, a: int, b: int, c: int) -> None:
    if keys[a] < keys[b]:
        if keys[b] < keys[c]:
            _swap(keys, values, result, b)
        elif keys[a] < keys[c]:
            _swap(keys, values, result, c)
        else:
            _swap(keys, values, result, a)
    elif keys[a] < keys[c]:
        _swap(keys, values, result, a)
    elif keys[b] < keys[c]:
        _swap(keys, values, result, c)
    else:
        _swap(keys, values, result, b)


def _partition(keys: list[int], values: list, first: int, last: int, pivot: int) -> int:
    pivot_key = keys[pivot]  # the pivot element is never moved while partitioning
    while True:
        while keys[first] < pivot_key:
            first += 1
        last -= 1
        while pivot_key < keys[last]:
            last -= 1
        if not first < last:
            return first
        _swap(keys, values, first, last)
        first += 1


def _linear_insert(keys: list[int], values: list, i: int) -> None:
    key, value = keys[i], values[i]
    j = i - 1
    while key < keys[j]:
        keys[j + 1], values[j + 1] = keys[j], values[j]
        j -= 1
    keys[j + 1], values[j + 1] = key, value


def _insertion_sort(keys: list[int], values: list, first: int, last: int) -> None:
    for i in range(first + 1, last):
        if keys[i] < keys[first]:
            key, value = keys[i], values[i]
            keys[first + 1 : i + 1], values[first + 1 : i + 1] = keys[first:i], values[first:i]
            keys[first], values[first] = key, value
        else:
            _linear_insert(keys, values, i)


def _heap_sort(keys: list[int], values: list, first: int, last: int) -> None:
    length = last - first
    for parent in range((length - 2) // 2, -1, -1):
        _adjust_heap(keys, values, first, parent, length, keys[first + parent], values[first + parent])
    while last - first > 1:
        last -= 1
        key, value = keys[last], values[last]
        keys[last], values[last] = keys[first], values[first]
        _adjust_heap(keys, values, first, 0, last - first, key, value)


def _adjust_heap(keys: list[int], values: list, first: int, hole: int, length: int, key: int, value: object) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if keys[first + child] < keys[first + child - 1]:
            child -= 1
        keys[first + hole], values[first + hole] = keys[first + child], values[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        keys[first + hole], values[first + hole] = keys[first + child - 1], values[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and keys[first + parent] < key:
        keys[first + hole], values[first + hole] = keys[first + parent], values[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    keys[first + hole], values[first + hole] = key, value
