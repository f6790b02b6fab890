"""Pad-1 and Pad-12: pad (or, with negative pads, crop) a tensor at both ends of each axis."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, PartialValue, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values, shape_text
from irgraph.ops.registry import register

MODES = ("constant", "edge", "reflect", "symmetric")


@dataclass(frozen=True)
class _Pad(Op):
    """Both versions (openvino 2026.4.1 takes negative pads in Pad-1 too): a negative pad removes
    elements, a positive one adds them by ``pad_mode`` — constant (``pad_value``, 0 by default),
    edge (repeat the edge), reflect (mirror without the edge; a pad at most dim - 1) or symmetric
    (mirror with the edge; at most dim). An axis that would end negative is ``?`` to shape
    inference (as in OpenVINO) and an error at run time. The output size is checked before it is
    allocated."""

    type_name = "Pad"
    inputs = Inputs.optional(
        3, InputSpec("data"), InputSpec("pads_begin", bounds=True),
        InputSpec("pads_end", bounds=True),
        InputSpec("pad_value"),
    )
    bound_inputs = (0,)

    pad_mode: str = attribute("constant")

    def __post_init__(self) -> None:
        check(self.pad_mode in MODES, f"Pad mode must be one of {', '.join(MODES)}. Got: {self.pad_mode!r}")

    def infer(
        self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | PartialValue | None]
    ) -> list[TensorType]:
        """Each dim plus its two pads (``?`` when that is negative; intervals from pads' bounds)."""
        data = inputs[0]
        for tensor, name in zip(inputs[1:3], ("pads_begin", "pads_end"), strict=True):
            check(tensor.element_type.is_integral or tensor.element_type.is_dynamic,
                  f"{name} must be an integral number, but is: {tensor.element_type}")
            check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 1,
                  f"Argument for {name} is not 1D (shape: {tensor.shape})")
        if len(inputs) > 3:
            value = inputs[3]
            check(value.shape.rank_is_dynamic or value.shape.rank == 0,
                  f"Argument for padding value is not a scalar (shape: {value.shape})")
            check(data.element_type.merge(value.element_type) is not None,
                  f"Argument element types do not match (input arg element type: {data.element_type}, "
                  f"arg_pad element type: {value.element_type})")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        for tensor, name in zip(inputs[1:3], ("pads_begin", "pads_end"), strict=True):
            if not tensor.shape.rank_is_dynamic and tensor.shape[0].min > data.shape.rank:
                raise OpError(f"Number of elements of {name} must be >= 0 and <= arg rank. Got: {tensor.shape[0]} "
                              f"for rank {data.shape.rank}")
        if values[1] is None or values[2] is None:
            return [TensorType(data.element_type, Shape.dynamic(data.shape.rank))]
        if isinstance(values[1], PartialValue) or isinstance(values[2], PartialValue):
            return [TensorType(data.element_type, self._bounded(data.shape, values[1], values[2]))]
        begin, end = self._pads(data.shape.rank, values[1], values[2])
        dims = []
        for dim, low, high in zip(data.shape, begin, end, strict=True):
            if dim.is_static:
                self._check_mode(dim.value, low, high)
            dims.append(dim.padded(low + high))
        return [TensorType(data.element_type, Shape(tuple(dims)))]

    def _bounded(self, shape: Shape, begin: np.ndarray | PartialValue, end: np.ndarray | PartialValue) -> Shape:
        """Dims from pads known by their bounds (pads of a shape sub-graph): each dim plus the lower
        pads .. plus the upper pads (unbounded where a pad is)."""
        sides = [v if isinstance(v, PartialValue) else PartialValue.exact(np.asarray(v)) for v in (begin, end)]
        lows = [self._pads(shape.rank, s.lower, s.lower)[0] for s in sides]
        highs = [self._pads(shape.rank, s.upper, s.upper)[0] for s in sides]
        unknown = [s.unknown for s in sides]
        dims = []
        for i, dim in enumerate(shape):
            minimum = max(dim.min + lows[0][i] + lows[1][i], 0)
            open_ended = dim.max is None or highs[0][i] >= unknown[0] or highs[1][i] >= unknown[1]
            maximum = None if open_ended or dim.max is None else dim.max + highs[0][i] + highs[1][i]
            dims.append(Dim.dynamic() if maximum is not None and maximum < minimum else Dim(minimum, maximum))
        return Shape(tuple(dims))

    @staticmethod
    def _pads(rank: int, begin: np.ndarray, end: np.ndarray) -> tuple[list[int], list[int]]:
        low, high = integer_values(begin, "pads_begin"), integer_values(end, "pads_end")
        check(len(low) == rank,
              f"length of pads_begin mismatches with rank of input, expect {rank}, but got {len(low)}")
        check(len(high) == rank,
              f"length of pads_end mismatches with rank of input, expect {rank}, but got {len(high)}")
        return low, high

    def _check_mode(self, size: int, low: int, high: int) -> None:
        if self.pad_mode == "reflect":
            check(low <= size - 1 and high <= size - 1,
                  "REFLECT padding mode requires that 'pads_begin[D]' and 'pads_end[D]' must be not greater than "
                  f"'data_shape[D] - 1'. Got: pads {low}, {high} for a dim of {size}")
        elif self.pad_mode == "symmetric":
            check(low <= size and high <= size,
                  "SYMMETRIC padding mode requires that 'pads_begin[D]' and 'pads_end[D]' must be not greater than "
                  f"'data_shape[D]'. Got: pads {low}, {high} for a dim of {size}")
        elif self.pad_mode == "edge":
            check(size >= 1 or (low <= 0 and high <= 0),
                  "EDGE padding mode requires an input of dimension of at least 1 at each spatial axis.")

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The padded shape, computed without allocating."""
        shape = np.shape(inputs[0])
        begin, end = self._pads(len(shape), inputs[1], inputs[2])
        out = tuple(s + low + high for s, low, high in zip(shape, begin, end, strict=True))
        if any(s < 0 for s in out):
            raise OpError(f"Pad of {shape_text(shape)} by pads_begin {shape_text(begin)} and pads_end "
                          f"{shape_text(end)} gives a negative dimension: {shape_text(out)}")
        for size, low, high in zip(shape, begin, end, strict=True):
            self._check_mode(size, low, high)
        return [out]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Output element ``i`` of an axis reads input coordinate ``i - pads_begin`` (as OpenVINO's
        reference does, so negative and positive pads combine in one step); a coordinate outside the
        axis is the pad value, the clipped edge, or its mirror image. One gather per axis."""
        data = np.asarray(inputs[0])
        (shape,) = self.output_shapes(inputs)
        begin, _ = self._pads(data.ndim, inputs[1], inputs[2])
        if math.prod(shape) == 0:
            return [np.empty(shape, data.dtype)]
        if self.pad_mode == "constant":
            fill = np.asarray(inputs[3]).reshape(()) if len(inputs) > 3 else np.zeros((), data.dtype)
            if fill.dtype != data.dtype:
                raise OpError(f"Argument element types do not match (input arg element type: {data.dtype}, "
                              f"arg_pad element type: {fill.dtype})")
            result = np.empty(shape, data.dtype)
            result[...] = fill
            target, source = [], []
            for low, size, length in zip(begin, data.shape, shape, strict=True):
                first, last = max(0, low), min(length, low + size)
                target.append(slice(first, max(first, last)))
                source.append(slice(first - low, max(first, last) - low))
            result[tuple(target)] = data[tuple(source)]
            return [result]
        result = data
        for axis, (low, size, length) in enumerate(zip(begin, data.shape, shape, strict=True)):
            coordinates = np.arange(length, dtype=np.int64) - low
            if self.pad_mode == "edge":
                coordinates = np.clip(coordinates, 0, size - 1)
            elif self.pad_mode == "reflect":
                coordinates = np.where(coordinates < 0, -coordinates, coordinates)
                coordinates = np.where(coordinates >= size, 2 * (size - 1) - coordinates, coordinates)
            else:  # symmetric
                coordinates = np.where(coordinates < 0, -coordinates - 1, coordinates)
                coordinates = np.where(coordinates >= size, 2 * size - 1 - coordinates, coordinates)
            result = np.take(result, coordinates, axis=axis)
        return [result]


@register
@dataclass(frozen=True)
class Pad(_Pad):
    """Pad-1."""

    introduced = 1


@register
@dataclass(frozen=True)
class Pad12(_Pad):
    """Pad-12: Pad-1 with negative pads in its spec."""

    introduced = 12
