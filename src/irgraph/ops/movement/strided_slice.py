"""StridedSlice-1: slicing with begin/end masks, new axes, shrunk axes and an ellipsis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, PartialValue, Shape, TensorType
from irgraph.ops.movement.slice import corner_values, hull, python_slice, sliced_dim
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values
from irgraph.ops.registry import register

_MAX = 2**63 - 1
_MIN = -(2**63)


@register
@dataclass(frozen=True)
class StridedSlice(Op):
    """Slice ``data`` by ``begin``/``end``/``strides`` entries. Spec: StridedSlice-1.

    Entry ``i`` is, in this order of precedence (OpenVINO 2026.4.1's shape inference): the ellipsis
    (``ellipsis_mask``: as many full axes as the other entries leave), a new axis of size 1
    (``new_axis_mask``), one index that removes its axis (``shrink_axis_mask``; out of range is an
    error), or a
    ``begin:end:stride`` slice where ``begin_mask``/``end_mask`` mean "from the start"/"to the
    end". Axes after the entries are taken whole. The output is a view (NumPy basic indexing
    with a computed tuple of slices, ints, ``np.newaxis`` and ``...``).
    """

    type_name = "StridedSlice"
    introduced = 1
    inputs = Inputs.optional(
        3, InputSpec("data"), InputSpec("begin", bounds=True),
        InputSpec("end", bounds=True),
        InputSpec("strides"),
    )
    bound_inputs = (0,)

    begin_mask: tuple[int, ...] = attribute()
    end_mask: tuple[int, ...] = attribute()
    new_axis_mask: tuple[int, ...] = attribute(())
    shrink_axis_mask: tuple[int, ...] = attribute(())
    ellipsis_mask: tuple[int, ...] = attribute(())

    def __post_init__(self) -> None:
        check(sum(1 for m in self.ellipsis_mask if m) <= 1, "Only one non-zero bit is allowed in ellipsis_mask")
        size = len(self.begin_mask)
        others = (self.end_mask, *(m for m in (self.new_axis_mask, self.shrink_axis_mask, self.ellipsis_mask) if m))
        check(all(len(m) == size for m in others),
              "All masks of StridedSlice must have the same size. Got: begin_mask, end_mask, new_axis_mask, "
              f"shrink_axis_mask, ellipsis_mask of sizes {size}, {len(self.end_mask)}, {len(self.new_axis_mask)}, "
              f"{len(self.shrink_axis_mask)}, {len(self.ellipsis_mask)}")

    @staticmethod
    def _bit(mask: tuple[int, ...], index: int) -> bool:
        return index < len(mask) and mask[index] != 0

    def _entries(self, rank: int, values: Sequence[Any]) -> list[tuple[str, int, int, int]]:
        """(kind, begin, end, stride) per entry: kind is new, shrink, ellipsis or slice; then one
        ``ellipsis`` entry stands for the whole axes the entries leave (None when none)."""
        begin = integer_values(values[1], "begin")
        end = integer_values(values[2], "end")
        strides = integer_values(values[3], "strides") if len(values) > 3 else [1] * len(begin)
        check(len(begin) == len(end), f"Begin and end need to have same number of values. Got: {len(begin)}, "
                                      f"{len(end)}")
        check(len(strides) == len(begin), f"Stride and begin need to have same number of values. Got: "
                                          f"{len(strides)}, {len(begin)}")
        entries = []
        for i, (b, e, s) in enumerate(zip(begin, end, strides, strict=True)):
            if self._bit(self.ellipsis_mask, i):
                entries.append(("ellipsis", 0, 0, 1))
            elif self._bit(self.new_axis_mask, i):
                entries.append(("new", 0, 0, 1))
            elif self._bit(self.shrink_axis_mask, i):
                entries.append(("shrink", b, b, 1))
            else:
                check(s != 0, "Stride must be non-zero")
                start = (0 if s > 0 else _MAX) if self._bit(self.begin_mask, i) else b
                stop = (_MAX if s > 0 else _MIN) if self._bit(self.end_mask, i) else e
                entries.append(("slice", start, stop, s))
        # OpenVINO counts new-axis bits past the entries too (its shape inference then drops the
        # entries that find no axis, and its reference refuses them: irgraph's evaluate does).
        new_axes = sum(1 for m in self.new_axis_mask if m)
        check(
            any(self.ellipsis_mask) or rank + new_axes >= len(begin),
            "Input rank plus number of new axis has to be at least the size of Lower and Upper bounds vector. "
            f"Got: rank {rank}, {new_axes} new axes, {len(begin)} entries",
        )
        return entries

    def infer(
        self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | PartialValue | None]
    ) -> list[TensorType]:
        """The sliced dims where begin, end and strides are known."""
        data = inputs[0]
        for tensor, name in zip(inputs[1:], ("Begin", "End", "Stride"), strict=False):
            check(tensor.element_type.is_integral or tensor.element_type.is_dynamic,
                  f"{name} mask must be an integral number, but is: {tensor.element_type}")
            check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 1,
                  f"{name} input must be 1D ({name.lower()} rank: {tensor.shape}).")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        if any(v is None for v in values[1:]):
            strides = values[3] if len(values) > 3 else None
            return [TensorType(data.element_type, self._unknown(data.shape, inputs[1].shape, strides,
                                                                 has_strides=len(values) > 3))]
        if any(isinstance(v, PartialValue) for v in values):  # begin/end from a shape sub-graph
            combos = corner_values(values, (1, 2))
            if combos is None:
                return [TensorType(data.element_type, DYNAMIC_RANK)]
            return [TensorType(data.element_type, hull([self.infer(inputs, c)[0].shape for c in combos]))]
        dims = list(data.shape)
        out: list[Dim] = []
        position = 0
        entries = self._entries(len(dims), values)
        real = sum(1 for kind, *_ in entries if kind in ("shrink", "slice"))
        seen_ellipsis = False
        for kind, start, stop, stride in entries:
            if kind == "new":
                out.append(Dim.static(1))
            elif kind == "ellipsis":
                seen_ellipsis = True
                count = len(dims) - real
                out.extend(dims[position:position + count])
                position += count
            elif position >= len(dims):
                continue
            elif kind == "shrink":  # an index out of range fails at run time, as in OpenVINO
                position += 1
            else:
                out.append(sliced_dim(dims[position], start, stop, stride))
                position += 1
        if not seen_ellipsis:
            out.extend(dims[position:])
        return [TensorType(data.element_type, Shape(tuple(out)))]

    def _unknown(
        self, shape: Shape, begin: Shape, strides: np.ndarray | PartialValue | None, *, has_strides: bool
    ) -> Shape:
        """Unknown begin or end (OpenVINO 2026.4.1's shape inference): the masks still place the entries. A new
        axis is 1, a shrunk axis goes, the ellipsis keeps the axes it covers, and a sliced axis is bounded as
        ``_unknown_slice`` says. The rank is unknown only when the number of entries is."""
        count = None if begin.rank_is_dynamic or begin[0].is_dynamic else begin[0].value
        if count is None:
            return DYNAMIC_RANK
        new_axes = sum(1 for m in self.new_axis_mask if m)
        check(any(self.ellipsis_mask) or shape.rank + new_axes >= count,
              "Input rank plus number of new axis has to be at least the size of Lower and Upper bounds vector. "
              f"Got: rank {shape.rank}, {new_axes} new axes, {count} entries")
        steps = [1] * count if not has_strides else None if strides is None or isinstance(strides, PartialValue) \
            else integer_values(strides, "strides")
        kinds = ["ellipsis" if self._bit(self.ellipsis_mask, i) else "new" if self._bit(self.new_axis_mask, i)
                 else "shrink" if self._bit(self.shrink_axis_mask, i) else "slice" for i in range(count)]
        real = sum(1 for kind in kinds if kind in ("shrink", "slice"))
        dims, out, position, seen_ellipsis = list(shape), [], 0, False
        for i, kind in enumerate(kinds):
            if kind == "new":
                out.append(Dim.static(1))
            elif kind == "ellipsis":
                seen_ellipsis = True
                covered = len(dims) - real
                out.extend(dims[position:position + covered])
                position += covered
            elif position >= len(dims):
                continue
            elif kind == "shrink":
                position += 1
            else:
                out.append(self._unknown_slice(dims[position], i, None if steps is None else steps[i]))
                position += 1
        if not seen_ellipsis:
            out.extend(dims[position:])
        return Shape(tuple(out))

    def _unknown_slice(self, dim: Dim, index: int, stride: int | None) -> Dim:
        """A sliced axis whose begin or end is unknown: with both masks and a known stride, the whole axis at
        that stride; else at most that (``..d`` for an unknown stride)."""
        if stride is None:
            return Dim(0, dim.max)
        check(stride != 0, "Stride must be non-zero")
        whole = sliced_dim(dim, 0 if stride > 0 else _MAX, _MAX if stride > 0 else _MIN, stride)
        if self._bit(self.begin_mask, index) and self._bit(self.end_mask, index):
            return whole
        return Dim(0, whole.max)

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The sliced shape."""
        return [np.shape(self.evaluate(inputs)[0])]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Basic indexing with the computed key: a view."""
        data = inputs[0]
        for value, name in zip(inputs[1:], ("Begin", "End", "Stride"), strict=False):
            check(np.ndim(value) == 1, f"{name} input must be 1D ({name.lower()} rank: {np.ndim(value)}).")
        shape = np.shape(data)
        entries = self._entries(len(shape), inputs)
        real = sum(1 for kind, *_ in entries if kind in ("shrink", "slice"))
        check(real <= len(shape), f"StridedSlice slices {real} axes of a tensor of rank {len(shape)}")
        key: list[Any] = []
        position = 0
        for kind, start, stop, stride in entries:
            if kind == "new":
                key.append(np.newaxis)
            elif kind == "ellipsis":
                key.append(Ellipsis)
                position += len(shape) - real
            elif kind == "shrink":
                key.append(_check_index(start, shape[position]))
                position += 1
            else:
                key.append(python_slice(shape[position], start, stop, stride))
                position += 1
        return [data[tuple(key)]]


def _check_index(index: int, size: int) -> int:
    if not -size <= index < size:
        raise OpError(f"Index {index} of a shrunk axis is out of range for a dimension of size {size}")
    return index + size if index < 0 else index
