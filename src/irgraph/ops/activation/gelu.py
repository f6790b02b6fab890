"""Gelu-2 and Gelu-7: x * Phi(x), exactly (erf) or by the tanh approximation (Gelu-7's mode)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import REAL, widened
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register

MODES = ("ERF", "TANH")


ERF_NODES_PER_UNIT = 256
"""The Taylor expansions of erf are centred on the multiples of 1/256: an argument is at most 1/512 from one."""
ERF_ORDER = 5
"""Terms up to d^5: the remainder, at most 0.05 d^6 < 3e-18, is far below what 1 + erf can show (2.2e-16)."""
SQRT_2 = np.sqrt(2.0)
ERF_TABLE_END = 6.0
"""erf(6) = 1 - 2.2e-17 rounds to 1.0 in f64 (half an ULP below 1 is 5.6e-17): arguments beyond read the last node."""


@functools.cache
def erf_taylor_table() -> np.ndarray:
    """The Taylor coefficients of erf at the nodes k / 256, 0 <= k <= 1536, highest order first: row ``ERF_ORDER - j``
    holds erf^(j)(node) / j!, with erf^(j)(s) = 2/sqrt(pi) (-1)^(j-1) H_(j-1)(s) exp(-s^2) (physicists' Hermite
    polynomials) and erf(node) itself from libm (``math.erf``, OpenVINO's ``std::erf``). Built on first use."""
    nodes = np.arange(round(ERF_TABLE_END * ERF_NODES_PER_UNIT) + 1) / ERF_NODES_PER_UNIT
    table = np.empty((ERF_ORDER + 1, nodes.size))
    table[ERF_ORDER] = [math.erf(node) for node in nodes]
    slope = 2.0 / math.sqrt(math.pi) * np.exp(-nodes * nodes)
    hermite_before, hermite = np.zeros_like(nodes), np.ones_like(nodes)  # H_(-1) = 0 and H_0 = 1
    factorial = 1.0
    for order in range(1, ERF_ORDER + 1):
        factorial *= order
        table[ERF_ORDER - order] = (-1.0) ** (order - 1) * hermite * slope / factorial
        hermite_before, hermite = hermite, 2.0 * nodes * hermite - 2.0 * (order - 1) * hermite_before
    return table


ERF_CHUNK = 16384
"""Elements :func:`gelu_erf` computes at a time: its ~30 f64 passes then stay in the core's cache (7 scratch
arrays of 128 KiB) instead of streaming through memory and allocating each time; ViT-Ti's Gelu (151,296 values)
took 2.6 ms of CPU time whole and 1.5 ms in chunks of 16,384 (fastest of 4,096-32,768, AMD EPYC, NumPy 2.4.6)."""


def erf_by_table(scaled: np.ndarray) -> np.ndarray:
    """erf of f64 values, to what Gelu's 1 + erf needs: within 1.2e-16 of libm's erf absolutely (half an f64 ULP
    of 1; not relatively, near 0), by the Taylor expansion at the nearest node of :func:`erf_taylor_table`, by
    Horner. A fixed 16 NumPy calls whatever the values, where Cody's ranges cost ~80 on masked parts. Probed: no
    f32 Gelu of x > -3 out of 1,300,000 changed against libm's erf, and the left tail, where 1 + erf cancels,
    within 4e-6 f32 eps. NaN gives +-1 (Gelu multiplies by x, which makes it NaN again, with x's payload)."""
    flat = scaled.ravel()
    result = np.empty(flat.shape, np.float64)
    _erf_into(flat, result, _Scratch(flat.size))
    return result.reshape(scaled.shape)


class _Scratch:
    """The working arrays of :func:`_erf_into` for up to ``size`` values."""

    def __init__(self, size: int, more: int = 0) -> None:
        """Room for ``size`` values, and ``more`` f64 rows of that size for the caller (:attr:`rows`)."""
        self.magnitude, self.node, self.offset, *self.rows = np.empty((3 + more, size))
        self.index = np.empty(size, np.intp)

    def views(self, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.magnitude[:size], self.node[:size], self.offset[:size], self.index[:size]


def _erf_into(scaled: np.ndarray, result: np.ndarray, scratch: _Scratch) -> None:
    """:func:`erf_by_table` of the 1-D ``scaled`` into ``result`` (its size), every step in ``scratch``."""
    magnitude, node, offset, index = scratch.views(scaled.size)
    np.abs(scaled, out=magnitude)
    np.fmin(magnitude, ERF_TABLE_END, out=magnitude)  # NaN -> 6 too: an index all the same
    np.multiply(magnitude, ERF_NODES_PER_UNIT, out=node)
    np.rint(node, out=node)
    np.multiply(node, 1.0 / ERF_NODES_PER_UNIT, out=offset)  # exact: a power of two
    np.subtract(magnitude, offset, out=offset)  # exact (Sterbenz): at most 1/512 from the node
    np.copyto(index, node, casting="unsafe")  # integral already: the cast is exact
    table = erf_taylor_table()
    # One row at a time (a row's take is a fast 1-D gather, a column's is not); "clip" checks no bounds: the
    # indices are in range by construction.
    table[0].take(index, out=result, mode="clip")
    term = node
    for row in table[1:]:
        result *= offset
        result += row.take(index, out=term, mode="clip")
    np.copysign(result, scaled, out=result)


def gelu_erf(x: np.ndarray) -> np.ndarray:
    """0.5 * x * (1 + erf(x / sqrt(2))), with erf in f64: :func:`erf_by_table` for f16, bf16 and f32, libm's erf
    (the std::erf of OpenVINO's reference) for f64, whose 53 bits would show the table's ULPs: 1 + erf cancels
    in the left tail, where they became 16 eps of the result. Narrower data goes ``ERF_CHUNK`` values at a time
    through reused f64 arrays: element-wise, so the values are those of one pass over the whole."""
    if x.dtype == np.float64:
        scaled = x / SQRT_2
        return 0.5 * x * (1.0 + np.vectorize(math.erf, otypes=[np.float64])(scaled))
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(flat.shape, x.dtype)
    chunk = max(1, min(ERF_CHUNK, flat.size))
    scratch = _Scratch(chunk, more=3)
    wide_buffer, scaled_buffer, phi_buffer = scratch.rows
    for start in range(0, flat.size, chunk):
        part = flat[start:start + chunk]
        size = part.size
        wide, scaled, phi = wide_buffer[:size], scaled_buffer[:size], phi_buffer[:size]
        np.copyto(wide, part)
        np.divide(wide, SQRT_2, out=scaled)
        _erf_into(scaled, phi, scratch)
        # (1 + phi) x / 2 written over phi: halving commutes with rounding where f64 neither overflows nor
        # underflows (narrower data), so the values are 0.5 x (1 + phi)'s.
        phi += 1.0
        phi *= wide
        phi *= 0.5
        np.copyto(out[start:start + size], phi, casting="same_kind")
    return out.reshape(x.shape)


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

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """The mode's kernel itself for f32 and f64 data (``evaluate`` checks the type and silences warnings,
        which the run does around every step)."""
        if inputs[0].element_type not in (ElementType.F32, ElementType.F64):
            return None
        kernel = gelu_tanh if self.mode == "TANH" else gelu_erf

        def activated(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
            return [kernel(arrays[0])]

        return activated

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
