"""ShapeOf-1 and ShapeOf-3: the shape of a tensor as a 1-D integer tensor."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, PartialValue, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register


@dataclass(frozen=True)
class _ShapeOf(Op):
    """Both versions: shape inference knows the value where the input shape is static, and bounds
    where it has intervals or ``?`` dims (``?`` gives ``[0, max of the output type]``, OpenVINO's
    encoding)."""

    type_name = "ShapeOf"
    inputs = Inputs.of(InputSpec("data"))
    reads_values = False

    @property
    def result_type(self) -> ElementType:
        """The output element type."""
        return ElementType.I64

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[rank]`` of ``output_type`` (``[?]`` for a dynamic rank)."""
        shape = inputs[0].shape
        length = Dim.dynamic() if shape.rank_is_dynamic else Dim.static(shape.rank)
        return [TensorType(self.result_type, Shape((length,)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The shape (an i32 output wraps dims above 2**31 - 1, as OpenVINO's reference does)."""
        return [np.array(np.shape(inputs[0]), dtype=np.int64).astype(self.result_type.numpy_dtype)]

    def bounds(
        self, inputs: Sequence[TensorType], values: Sequence[PartialValue | None]
    ) -> list[PartialValue | None] | None:
        """Each dim's interval; an unbounded dim's upper bound is the maximum of ``output_type``."""
        shape = inputs[0].shape
        if shape.rank_is_dynamic:
            return None
        dtype = self.result_type.numpy_dtype
        unknown = int(np.iinfo(dtype).max)
        lower = np.array([min(d.min, unknown) for d in shape], dtype=dtype)
        upper = np.array([unknown if d.max is None else min(d.max, unknown) for d in shape], dtype=dtype)
        return [PartialValue(lower, upper)]


@register
@dataclass(frozen=True)
class ShapeOf1(_ShapeOf):
    """The input's shape as i64. Spec: ShapeOf-1 (no attributes)."""

    introduced = 1


@register
@dataclass(frozen=True)
class ShapeOf3(_ShapeOf):
    """The input's shape as ``output_type`` (i64 or i32). Spec: ShapeOf-3."""

    introduced = 3

    output_type: ElementType = attribute(ElementType.I64)

    def __post_init__(self) -> None:
        check(
            self.output_type in (ElementType.I64, ElementType.I32),
            f"Output type must be i64 or i32. Got: {self.output_type}",
        )

    @property
    def result_type(self) -> ElementType:
        """``output_type``."""
        return self.output_type
