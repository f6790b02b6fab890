"""Divide-1: element-wise a / b; integers floor (``m_pythondiv``, the default) or truncate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from irgraph.core.errors import OpError
from irgraph.ops.families.elementwise import BinaryArithmetic
from irgraph.ops.op import attribute
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Divide(BinaryArithmetic):
    """a / b with auto_broadcast. Spec: Divide-1.

    Floats divide as IEEE does (x / 0 is +-inf or NaN). Integers divide rounding toward minus
    infinity when ``m_pythondiv`` is true (Python's ``//``), toward zero otherwise; an integer zero
    divisor is an error.
    """

    type_name = "Divide"
    bounds_by_positive_divisor = True
    introduced = 1
    cpu_plugin_differs = (
        'openvino 2026.4.1 truncates signed integer quotients toward zero even with m_pythondiv="true" (-7 / 2 '
        "is -3); its reference floors (-4), as irgraph does, and has no i8/i16 kernel. OpenVINO's ONNX frontend "
        "writes ONNX's truncating Div as m_pythondiv=\"true\": onnx's test_div_int32_trunc expects the CPU's -1, "
        "irgraph gives the reference's -2."
    )

    m_pythondiv: bool = attribute(True)
    float_ufunc = np.divide

    def compute_values(self, a: np.ndarray, b: np.ndarray) -> Any:
        """Float division, or integer division (a zero divisor is an error, as in OpenVINO's reference)."""
        if a.dtype.kind == "f":
            return np.divide(a, b)
        return integer_divide(a, b, floor=self.m_pythondiv)


def integer_divide(a: np.ndarray, b: np.ndarray, *, floor: bool) -> np.ndarray:
    """a / b for integer arrays, floored or truncated; MIN / -1 wraps to MIN (where C++ traps).

    Raises OpError for a zero divisor: OpenVINO 2026.4.1's reference throws "integer division by zero".
    """
    if not np.all(b):
        raise OpError("integer division by zero")
    quotient = np.floor_divide(a, b)
    if not floor and a.dtype.kind == "i":
        inexact = np.remainder(a, b) != 0
        quotient = np.where(inexact & ((a < 0) != (b < 0)), quotient + 1, quotient)
    return quotient.astype(a.dtype, copy=False)
