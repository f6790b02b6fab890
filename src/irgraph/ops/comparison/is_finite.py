"""IsFinite-10: which elements of a float tensor are finite."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, check
from irgraph.ops.registry import register


def check_real(element_type: ElementType, title: str) -> None:
    """The float-classification ops (IsFinite, IsInf, IsNaN) take float tensors only."""
    check(element_type.is_dynamic or element_type.is_real,
          f"{title}: the element type of the input tensor must be a floating point number. Got: {element_type}")


@dataclass(frozen=True)
class FloatClassification(Op):
    """One float input; a boolean tensor of its shape (IsFinite, IsInf, IsNaN)."""

    inputs = Inputs.of(InputSpec("data"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """A boolean tensor of the input's shape."""
        check_real(inputs[0].element_type, self.title())
        return [TensorType(ElementType.BOOLEAN, inputs[0].shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The classification of each element (f16/bf16 widened to f32: classification is exact)."""
        data = inputs[0]
        check_real(ElementType.from_numpy(data.dtype), self.title())
        if data.dtype.itemsize < 4:
            data = data.astype(np.float32)
        return [np.asarray(self.classify(data), dtype=bool)]

    def classify(self, data: np.ndarray) -> np.ndarray:
        raise NotImplementedError


@register
@dataclass(frozen=True)
class IsFinite(FloatClassification):
    """True where the element is neither infinite nor NaN. Spec: IsFinite-10."""

    type_name = "IsFinite"
    introduced = 10

    def classify(self, data: np.ndarray) -> np.ndarray:
        return np.isfinite(data)
