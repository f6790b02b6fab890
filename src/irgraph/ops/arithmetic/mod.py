"""Mod-1: element-wise remainder with the sign of the dividend."""

from __future__ import annotations

import numpy as np

from irgraph.core.errors import OpError
from irgraph.ops.families.elementwise import BinaryArithmetic
from irgraph.ops.registry import register


def _mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # OpenVINO's reference for floats: x - std::truncf(static_cast<float>(x / y)) * y, the quotient going
    # through f32 (for f64 too); integers take C's exact remainder.
    if a.dtype.kind == "f":
        quotient = np.trunc(np.divide(a, b).astype(np.float32))
        return a - quotient.astype(a.dtype) * b
    if not np.all(b):
        raise OpError("integer division by zero")  # OpenVINO 2026.4.1's reference dies of SIGFPE here
    return np.fmod(a, b)  # integers: exact, with the sign of the dividend (C's %)


@register
class Mod(BinaryArithmetic):
    """a - trunc(a / b) * b with auto_broadcast, as OpenVINO's reference computes it. Spec: Mod-1."""

    type_name = "Mod"
    bounds_by_positive_divisor = True
    remainder = True
    introduced = 1
    compute = staticmethod(_mod)
