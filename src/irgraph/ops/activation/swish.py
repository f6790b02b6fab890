"""Swish-4: element-wise x * sigmoid(beta * x), beta an optional scalar input (1 when absent)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import REAL, fits, widened
from irgraph.ops.numeric import in_chunks
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance
from irgraph.ops.registry import register
from irgraph.ops.traits import OpTraits


def _contiguous(data: np.ndarray) -> np.ndarray:
    return data if data.flags.c_contiguous else np.ascontiguousarray(data)


def _swish(x: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _swish_into(_contiguous(x), b, np.empty(x.shape, x.dtype))


def _swish_into(x: np.ndarray, b: np.ndarray, target: np.ndarray) -> np.ndarray:
    # x / (1 + exp(-b * x)): the same calls in the same order as the formula, per chunk
    one, negative_beta = x.dtype.type(1), -b

    def swish(part: np.ndarray, scratch: np.ndarray, out: np.ndarray) -> None:
        np.multiply(negative_beta, part, out=scratch)
        np.exp(scratch, out=scratch)
        np.add(one, scratch, out=scratch)
        np.divide(part, scratch, out=out)

    return in_chunks(swish, x, target)


@register
@dataclass(frozen=True)
class Swish(Op):
    """x / (1 + exp(-beta * x)); floats only; ``beta`` a scalar of the same type (1 when absent). Spec: Swish-4."""

    type_name = "Swish"
    introduced = 4
    inputs = Inputs.optional(1, InputSpec("data"), InputSpec("beta"))
    tolerance = Tolerance(ulp=2)
    traits = OpTraits(writes_in_place=True)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data type; beta must be a scalar (or [1]) of the same element type."""
        data = inputs[0]
        REAL.check(data.element_type)
        if len(inputs) == 2:
            beta = inputs[1]
            if beta.element_type.merge(data.element_type) is None:
                raise OpError(f"Swish inputs must have the same type but they are: {data.element_type} and "
                              f"{beta.element_type}")
            if not beta.shape.rank_is_dynamic and beta.shape.rank != 0:
                raise OpError(f"Swish input with beta must be scalar but it has rank: {beta.shape.rank}")
        return [data]

    def _beta(self, inputs: Sequence[np.ndarray]) -> np.ndarray:
        data = inputs[0]
        if len(inputs) == 2 and inputs[1].ndim != 0:
            raise OpError(f"Swish input with beta must be scalar but it has rank: {inputs[1].ndim}")
        beta = inputs[1] if len(inputs) == 2 else np.ones((), data.dtype)
        if beta.dtype != data.dtype:
            raise OpError(f"Swish inputs must have the same type but they are: {data.dtype} and {beta.dtype}")
        return beta

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """x / (1 + exp(-beta * x))."""
        return [widened(_swish, (inputs[0], self._beta(inputs)), inputs[0].dtype)]

    def evaluate_into(self, inputs: Sequence[np.ndarray], target: np.ndarray) -> list[np.ndarray]:
        """``evaluate`` written into ``target`` (input 0's array, which nothing else sees) when it is f32 or f64 data
        of the output's shape in C order: no array of the whole size is allocated."""
        data, beta = inputs[0], self._beta(inputs)
        if data.dtype in (np.float32, np.float64) and fits(target, data.shape, data.dtype) and \
                data.flags.c_contiguous and target.flags.c_contiguous:
            with np.errstate(all="ignore"):
                return [_swish_into(data, beta, target)]
        return self.evaluate(inputs)
