"""Gelu-2 and Gelu-7: x * Phi(x), exactly (erf) or by the tanh approximation (Gelu-7's mode)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import REAL, widened
from irgraph.ops.numeric import erf
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register

MODES = ("ERF", "TANH")


def gelu_erf(x: np.ndarray) -> np.ndarray:
    """0.5 * x * (1 + erf(x / sqrt(2))), with erf in f64: irgraph's series for f16, bf16 and f32, libm's erf (the
    std::erf of OpenVINO's reference) for f64, whose 53 bits would show the series' few ULPs: 1 + erf cancels
    in the left tail, where they became 16 eps of the result."""
    wide = x.astype(np.float64)
    scaled = wide / np.sqrt(2.0)
    if x.dtype == np.float64:
        return 0.5 * wide * (1.0 + np.vectorize(math.erf, otypes=[np.float64])(scaled))
    phi = erf(scaled)
    # (1 + phi) x / 2 written over phi: halving commutes with rounding where f64 neither overflows nor underflows
    # (narrower data), so the values are 0.5 x (1 + phi)'s.
    phi += 1.0
    phi *= wide
    phi *= 0.5
    return phi.astype(x.dtype)


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    """0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), in f64 as OpenVINO's reference."""
    wide = x.astype(np.float64)
    if x.dtype == np.float64:
        return 0.5 * wide * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (wide + 0.044715 * wide**3)))
    # Narrower data, in one f64 buffer: x^3 as two products, not pow (10x slower; the two differ by at most an f64
    # ULP, far below f32's: no f32 result of 5 million probed changed) and the halving last (exact there).
    inner = np.multiply(wide, wide, out=np.empty_like(wide))  # an array even for 0-d data
    inner *= wide
    inner *= 0.044715
    inner += wide
    inner *= np.sqrt(2.0 / np.pi)
    np.tanh(inner, out=inner)
    inner += 1.0
    inner *= wide
    inner *= 0.5
    return inner.astype(x.dtype)


@dataclass(frozen=True)
class _Gelu(Op):
    """What the versions share: one float input, the same type out."""

    type_name = "Gelu"
    inputs = Inputs.of(InputSpec("data"))
    tolerance = Tolerance(ulp=4, eps=1)  # far left, 1 + tanh(...) cancels: tiny results keep few digits

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input type (floats only)."""
        REAL.check(inputs[0].element_type)
        return [inputs[0]]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Gelu by ``mode``."""
        (data,) = inputs
        REAL.check(ElementType.from_numpy(data.dtype))
        return [widened(gelu_tanh if self.mode == "TANH" else gelu_erf, (data,), data.dtype)]

    @property
    def mode(self) -> str:
        """ERF or TANH."""
        return "ERF"


@register
@dataclass(frozen=True)
class Gelu2(_Gelu):
    """Gelu with erf (opsets 2-6). Spec: Gelu-2."""

    introduced = 2


@register
@dataclass(frozen=True)
class Gelu7(_Gelu):
    """Gelu with ``approximation_mode`` ERF or TANH (any case in the IR). Spec: Gelu-7."""

    introduced = 7

    approximation_mode: str = attribute("ERF")

    def __post_init__(self) -> None:
        object.__setattr__(self, "approximation_mode", self.approximation_mode.upper())
        check(self.approximation_mode in MODES,
              f"Attribute 'approximation_mode' must be erf or tanh. Got: {self.approximation_mode!r}")

    @property
    def mode(self) -> str:
        """The attribute."""
        return self.approximation_mode
