"""FloorMod-1: element-wise remainder with the sign of the divisor (Python's ``%``)."""

from __future__ import annotations

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.families.elementwise import BinaryArithmetic
from irgraph.ops.numeric import convert
from irgraph.ops.registry import register


def _floor_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # OpenVINO's reference: unsigned integers take C's exact x % y (x % 0 traps: an error here); floats
    # and signed integers static_cast<T>(x - y * std::floor(x / static_cast<double>(y))), all in double
    # (so i32 7 % 0 is static_cast<int32_t>(NaN): -2147483648, and large i64 lose precision).
    if a.dtype.kind == "u":
        if not np.all(b):
            raise OpError("integer division by zero")
        return np.remainder(a, b)
    x, y = a.astype(np.float64), b.astype(np.float64)
    result = x - y * np.floor(x / y)
    if a.dtype.kind == "f":
        return result
    return convert(result, ElementType.F64, ElementType.from_numpy(a.dtype))


@register
class FloorMod(BinaryArithmetic):
    """a - b * floor(a / b) with auto_broadcast (f64 for floats and signed integers, exact for unsigned ones,
    as OpenVINO's reference). Spec: FloorMod-1."""

    type_name = "FloorMod"
    bounds_by_positive_divisor = True
    remainder = True
    bounds_of_negative_dividend = True
    introduced = 1
    compute = staticmethod(_floor_mod)
