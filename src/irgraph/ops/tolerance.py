"""Tolerance: how far an op's floating-point outputs may be from OpenVINO's reference (docs/tolerances.md)."""

from __future__ import annotations

from irgraph.core.records import Record

__all__ = ["EXACT", "Tolerance"]


class Tolerance(Record):
    """How far an op's floating-point outputs may be from OpenVINO's reference implementation.

    A value passes when it is within ``ulp`` units in the last place of the output element type,
    or within ``eps`` machine epsilons of that type absolutely (for results near zero, where a
    ULP bound means nothing: sin(pi)), or within ``sum_eps`` machine epsilons times the magnitude
    of the terms the value sums (ops that accumulate: MatMul, convolutions, AvgPool). That
    magnitude is the op evaluated again in f64 on the absolute values of its floating-point inputs
    (``sum |a_i * b_i|`` for a dot product), or the op's own ``term_magnitudes(inputs)`` where that
    is not the sum (a DFT's terms are ``|x_n|`` times twiddles of modulus 1): a sum of terms of both
    signs may cancel to a value far smaller than its rounding errors, which any ULP bound on the
    result would reject. NaN
    matches NaN; infinities match exactly. Integer and boolean outputs are always compared
    exactly. The default is exact (bit for bit, -0.0 and 0.0 apart).

    A Record rather than a frozen dataclass (the same equality, hash, repr and immutability; copies by
    ``.replace``): every start-up creates this class, and a dataclass compiles its methods when it does.
    """

    __slots__ = ("ulp", "eps", "sum_eps")

    ulp: int
    eps: float
    sum_eps: float

    def __init__(self, ulp: int = 0, eps: float = 0.0, sum_eps: float = 0.0) -> None:
        object.__setattr__(self, "ulp", ulp)
        object.__setattr__(self, "eps", eps)
        object.__setattr__(self, "sum_eps", sum_eps)

    @property
    def is_exact(self) -> bool:
        """True when outputs must be bit for bit OpenVINO's."""
        return self.ulp == 0 and self.eps == 0.0 and self.sum_eps == 0.0

    def describe(self) -> str:
        """``exact``, ``4 ULP``, ``4 ULP or 2 eps``, ``1 ULP or 16 eps x sum|terms|`` (docs/tolerances.md)."""
        if self.is_exact:
            return "exact"
        parts = [f"{self.ulp} ULP"] if self.ulp else []
        if self.eps:
            parts.append(f"{self.eps:g} eps")
        if self.sum_eps:
            parts.append(f"{self.sum_eps:g} eps x sum|terms|")
        return " or ".join(parts)


EXACT = Tolerance()
