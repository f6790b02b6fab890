"""BatchNormInference-1 and -5: (x - mean) / sqrt(variance + epsilon) * gamma + beta per channel (axis 1)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.families.convolution_kernels import widen
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check, checked
from irgraph.ops.registry import register

PARAMETERS = ("gamma", "beta", "mean", "variance")


@dataclass(frozen=True)
class BatchNormBase(Op):
    """Shared rules; members set ``data_index`` (where the data sits among the five inputs)."""

    data_index: ClassVar[int] = 0
    tolerance = Tolerance(ulp=4, eps=64)
    """Per element a subtraction, a division by a square root, a product and a sum: 4 ULP, or 64 eps
    absolutely where (x - mean) cancels (the CPU plugin folds it into x * scale + shift)."""

    epsilon: float = attribute()

    def __post_init__(self) -> None:
        check(self.epsilon >= 0, f"Attribute 'epsilon' must be non negative value. Got: {self.epsilon:g}")

    def split(self, inputs: Sequence) -> tuple:
        """(data, gamma, beta, mean, variance) from the inputs in this version's order."""
        items = list(inputs)
        data = items.pop(self.data_index)
        return (data, *items)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data type; OpenVINO's checks of the element types, ranks and channel counts."""
        data, *parameters = self.split(inputs)
        element_type = data.element_type
        for tensor in parameters:
            merged = element_type.merge(tensor.element_type)
            check(merged is not None, "Input element types do not match.")
            element_type = merged
        check(element_type.is_dynamic or element_type.is_real,
              f"Input element types must be floating-point. Got: {element_type}")
        if not data.shape.rank_is_dynamic:
            check(data.shape.rank >= 2,
                  f"Input argument must have rank of at least 2 (input argument shape: {data.shape}).")
        channels = Dim.dynamic()
        for tensor in parameters:
            if tensor.shape.rank_is_dynamic:
                continue
            check(tensor.shape.rank == 1, "Shapes for gamma/beta/mean/variance do not match.")
            channels = checked(channels.merge(tensor.shape[0]), "Shapes for gamma/beta/mean/variance do not match.")
        if data.shape.rank_is_dynamic:
            return [TensorType(element_type, data.shape)]
        merged_dim = data.shape[1].merge(channels)
        check(merged_dim is not None, "Input channel dimension does not match shape for gamma/beta/mean/variance.")
        check(not (merged_dim.is_static and merged_dim.value == 0), "Channel count must be at least 1.")
        return [TensorType(element_type, data.shape.replace(1, merged_dim))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The reference's formula per channel, f16/bf16 through f32."""
        data, gamma, beta, mean, variance = self.split(inputs)
        self.infer([TensorType(ElementType.from_numpy(x.dtype), Shape.static(x.shape)) for x in inputs], [None] * 5)
        if data.dtype.kind not in "fV":
            raise OpError(f"BatchNormInference needs floating-point inputs. Got: {data.dtype}")
        view = (1, -1) + (1,) * (data.ndim - 2)
        x = widen(data)
        kind = x.dtype.type
        with np.errstate(all="ignore"):
            scale = np.sqrt(widen(variance).reshape(view) + kind(self.epsilon))
            result = (x - widen(mean).reshape(view)) / scale * widen(gamma).reshape(view) + widen(beta).reshape(view)
        return [result.astype(data.dtype)]


@register
@dataclass(frozen=True)
class BatchNormInference(BatchNormBase):
    """Spec: BatchNormInference-1 (opsets 1-4): inputs gamma, beta, data, mean, variance."""

    type_name = "BatchNormInference"
    introduced = 1
    inputs = Inputs.of(*(InputSpec(n) for n in ("gamma", "beta", "data", "mean", "variance")))
    data_index = 2


@register
@dataclass(frozen=True)
class BatchNormInference5(BatchNormBase):
    """Spec: BatchNormInference-5 (opsets 5-16): inputs data, gamma, beta, mean, variance."""

    type_name = "BatchNormInference"
    introduced = 5
    inputs = Inputs.of(*(InputSpec(n) for n in ("data", "gamma", "beta", "mean", "variance")))
    data_index = 0
