"""Deferred Concat: a join kept as the list of its parts until something needs its bytes.

A Concat output is *deferred*: it is kept as the list of its parts (views); splitting it slices the
parts, and joining it again extends the list. The bytes are written once, into the output array, when
a Result (or an op that needs a real array) asks for it. A chain of splits and concats therefore costs
one copy and the memory of its inputs and outputs, as OpenVINO's in-place Split and Concat do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from irgraph.core.errors import ResourceLimitError

MAX_PARTS = 4096
"""A deferred Concat with more parts than this (counting nested ones) is written at once."""
MAX_DEPTH = 16
"""A deferred Concat nested deeper than this (concats along alternating axes) is written at once."""


class Joined:
    """A Concat output not written yet: ``parts`` joined along ``axis``.

    Parts are arrays (views of feeds, Consts or written tensors) or other ``Joined`` values along
    other axes (``depth`` > 1); ``count`` is the number of arrays under it. It offers what Split,
    VariadicSplit and Concat read (``ndim``, ``shape``, ``dtype``, ``size`` and slicing with step
    1); slicing cuts the parts without copying. ``materialize`` writes the bytes once.
    """

    __slots__ = ("axis", "parts", "shape", "dtype", "ndim", "size", "count", "depth", "array")

    def __init__(
        self, axis: int, parts: list[Any], shape: tuple[int, ...], dtype: np.dtype, count: int, depth: int
    ) -> None:
        self.axis = axis
        self.parts = parts
        self.shape = shape
        self.dtype = dtype
        self.ndim = len(shape)
        self.size = math.prod(shape)
        self.count = count
        self.depth = depth
        self.array: np.ndarray | None = None

    def __getitem__(self, key: Any) -> Any:
        if self.array is not None:
            return self.array[key]
        if not isinstance(key, tuple):
            key = (key,)
        if len(key) > self.ndim or not all(type(k) is slice and k.step in (None, 1) for k in key):
            return self.materialize()[key]
        bounds = [k.indices(size)[:2] for k, size in zip(key, self.shape, strict=False)]
        bounds += [(0, size) for size in self.shape[len(key):]]
        return self._cut([(start, max(start, stop)) for start, stop in bounds])

    def _cut(self, bounds: list[tuple[int, int]]) -> Joined:
        """The box ``bounds`` (one (start, stop) per dim), still deferred."""
        axis = self.axis
        start, stop = bounds[axis]
        parts = []
        count, depth = 0, 1
        offset = 0
        for part in self.parts:
            if type(part) is Joined and part.array is not None:
                part = part.array
            length = part.shape[axis]
            low, high = max(start, offset), min(stop, offset + length)
            if low < high:
                inner = list(bounds)
                inner[axis] = (low - offset, high - offset)
                if type(part) is Joined:
                    piece = part._cut(inner)  # nesting is bounded by MAX_DEPTH
                    count += piece.count
                    depth = max(depth, piece.depth + 1)
                else:
                    piece = part[tuple(slice(a, b) for a, b in inner)]
                    count += 1
                parts.append(piece)
            offset += length
            if offset >= stop:
                break
        return Joined(axis, parts, tuple(b - a for a, b in bounds), self.dtype, count, depth)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self.materialize()
        return array if dtype is None else array.astype(dtype, copy=False)

    def materialize(self) -> np.ndarray:
        """The joined array, written now (once) into fresh memory."""
        array = self.array
        if array is None:
            array = np.empty(self.shape, self.dtype)
            self.write(array)  # which makes it self.array
        return array

    def write(self, target: np.ndarray) -> None:
        """Write the joined data into ``target`` (of this shape and dtype); it becomes the array."""
        parts = self.parts
        if self.depth == 1:  # arrays only: one NumPy call
            if len(parts) > 1:
                np.concatenate(parts, axis=self.axis, out=target)
            elif parts:
                np.copyto(target, parts[0])
        else:
            head = (slice(None),) * self.axis
            offset = 0
            for part in parts:
                length = part.shape[self.axis]
                window = target[(*head, slice(offset, offset + length))]
                if type(part) is not Joined:
                    np.copyto(window, part)
                elif part.array is not None:
                    np.copyto(window, part.array)
                else:
                    part.write(window)  # nesting is bounded by MAX_DEPTH
                offset += length
        self.array = target
        self.parts = [target]
        self.count = self.depth = 1


def dense(value: Any) -> Any:
    """An array for ops that need one (a deferred Concat is written now)."""
    return value.materialize() if type(value) is Joined else value


class Joining(Protocol):
    """What a join asks of its op (Concat, the one op whose traits say ``joins_inputs``)."""

    def check_inputs(self, inputs: Sequence[Any]) -> int:
        """The checks the op's ``evaluate`` makes on ``inputs``; the axis they are joined along."""
        ...


def join(op: Joining, inputs: list[Any], limit: int) -> Any:
    """A join (Concat) without copying: check as its ``evaluate`` does, then list the parts."""
    axis = op.check_inputs(inputs)
    parts: list[Any] = []
    count, depth, length = 0, 1, 0
    for value in inputs:
        length += value.shape[axis]
        if value.size == 0:
            continue
        while type(value) is Joined:
            if value.array is not None:
                value = value.array
            elif len(value.parts) == 1:
                value = value.parts[0]
            else:
                break
        if type(value) is not Joined:
            parts.append(value)
            count += 1
        elif value.axis == axis:
            parts.extend(value.parts)
            count += value.count
            depth = max(depth, value.depth)
        else:
            parts.append(value)
            count += value.count
            depth = max(depth, value.depth + 1)
    first = inputs[0].shape
    joined = Joined(axis, parts, (*first[:axis], length, *first[axis + 1 :]), inputs[0].dtype, count, depth)
    if joined.size > limit:
        raise ResourceLimitError(f"output 0 has {joined.size} elements, above the limit of {limit}")
    if count > MAX_PARTS or depth > MAX_DEPTH:
        return joined.materialize()
    return joined
