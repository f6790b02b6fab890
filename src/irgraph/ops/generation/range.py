"""Range-1 and Range-4: an arithmetic sequence ``start, start + step, ...`` below ``stop``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.numeric import convert, round_float
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked, shape_text
from irgraph.ops.registry import register

_WIDENED = {ElementType.F16.dtype, ElementType.BF16.dtype}


def _scalar(value: np.ndarray, name: str) -> float:
    check(np.size(value) == 1, f"'{name}' input is not a scalar. Got: {shape_text(np.shape(value))}")
    return float(np.asarray(value).reshape(()))


@dataclass(frozen=True)
class _Range(Op):
    """Both versions: ``ceil(|stop - start| / |step|)`` elements (0 when the step points away from
    ``stop``), computed in double as OpenVINO's shape inference does; element ``i`` is
    ``start + i * step`` computed in f32 (f64 for f64) and rounded to the output type once, or in
    the output type (integers, start and step cast as C++ casts them). Only exact values give a
    static length (OpenVINO 2026.4.1 does not read a ShapeOf-derived stop's bounds: ``[?]``). The
    length is checked against the element budget before anything is allocated."""

    type_name = "Range"
    inputs = Inputs.of(
        InputSpec("start"), InputSpec("stop"),
        InputSpec("step"),
    )

    def result_type(self, inputs: Sequence[ElementType]) -> ElementType:
        """The output element type."""
        raise NotImplementedError

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[n]``: static when start, stop and step are known (no bounds input: never a PartialValue)."""
        for tensor, name in zip(inputs, ("start", "stop", "step"), strict=True):
            check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 0 or
                  (tensor.shape.rank == 1 and tensor.shape[0].contains(1)),
                  f"'{name}' input is not a scalar. Got: {tensor.shape}")
        element_type = self.result_type([t.element_type for t in inputs])
        start, stop, step = values
        if start is None or stop is None or step is None:
            return [TensorType(element_type, Shape.dynamic(1))]
        begin, stride = self._checked(_scalar(start, "start"), "start"), self._checked(_scalar(step, "step"), "step")
        integral = element_type.is_integral
        if integral:
            begin, stride = math.trunc(begin), math.trunc(stride)
        check(stride != 0, "'step' cannot be zero.")
        end = self._checked(_scalar(stop, "stop"), "stop")
        if integral:
            end = math.trunc(end)
        return [TensorType(element_type, Shape((Dim.static(self.count(begin, end, stride)),)))]

    @staticmethod
    def _checked(value: float, name: str) -> float:
        check(math.isfinite(value), f"'{name}' cannot be nan or infinite.")
        return value

    @staticmethod
    def count(start: float, stop: float, step: float) -> int:
        """Elements from ``start`` towards ``stop`` by ``step``."""
        if (step > 0 and start >= stop) or (step < 0 and start <= stop):
            return 0
        return int(math.ceil(abs(stop - start) / abs(step)))

    def _plan(self, inputs: Sequence[np.ndarray]) -> tuple[np.dtype, float, float, int]:
        element_type = self.result_type([ElementType.from_numpy(np.asarray(x).dtype) for x in inputs])
        start, stop, step = (self._checked(_scalar(v, n), n) for v, n in zip(inputs, ("start", "stop", "step"),
                                                                             strict=True))
        if element_type.is_integral:
            start, stop, step = math.trunc(start), math.trunc(stop), math.trunc(step)
        check(step != 0, "'step' cannot be zero.")
        return element_type.dtype, start, step, self.count(start, stop, step)

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """``(n,)``, computed without allocating."""
        return [(self._plan(inputs)[3],)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``start + i * step`` in the output type."""
        dtype, start, step, count = self._plan(inputs)
        if dtype.kind in "iu":  # start and step cast as C++ casts them (a negative step wraps in u8)
            target = ElementType.from_numpy(dtype)
            first, stride = (convert(np.array(float(v)), ElementType.F64, target) for v in (start, step))
            with np.errstate(over="ignore"):
                index = np.arange(count, dtype=np.int64).astype(dtype)
                return [(first + index * stride).astype(dtype)]
        compute = np.float64 if dtype == np.float64 else np.float32  # f16/bf16 through f32, rounded once
        with np.errstate(all="ignore"):
            first, stride = compute(start), compute(step)
            values = first + np.arange(count, dtype=np.int64).astype(compute) * stride
            return [round_float(values, dtype) if dtype in _WIDENED else values.astype(dtype)]


@register
@dataclass(frozen=True)
class Range(_Range):
    """Range-1: start, stop and step of one numeric element type, which is the output's."""

    introduced = 1

    def result_type(self, inputs: Sequence[ElementType]) -> ElementType:
        """The inputs' common element type."""
        merged = ElementType.DYNAMIC
        for element_type in inputs:
            both = merged.merge(element_type)
            both = checked(both, "Element types for start, stop, and step do not match.")
            merged = both
        check(merged is not ElementType.BOOLEAN, "Element type for start, stop, and step, must not be boolean.")
        return merged


@register
@dataclass(frozen=True)
class Range4(_Range):
    """Range-4: any numeric input types, converted to ``output_type``."""

    introduced = 4

    output_type: ElementType = attribute()

    def result_type(self, inputs: Sequence[ElementType]) -> ElementType:
        """``output_type``."""
        check(self.output_type.is_integral or self.output_type.is_real,
              f"output tensor type should be a numeric type. Got: {self.output_type}")
        for element_type, name in zip(inputs, ("start", "stop", "step"), strict=True):
            check(element_type.is_dynamic or element_type.is_integral or element_type.is_real,
                  f"'{name}' input scalar should be a numeric type. Got: {element_type}")
        return self.output_type
