"""Relu-1: element-wise max(x, 0)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import UnaryMath, plain_float
from irgraph.ops.registry import register
from irgraph.ops.traits import UfuncCall

# OpenVINO's reference is std::max(x, 0), `x < 0 ? 0 : x`: NaN (its payload too) and -0.0 pass through.
# A masked select (np.where, copyto(where=)) is branchy and runs ~15x slower than one ufunc on data with
# both signs (3 ms for SqueezeNet's first layer); np.maximum(0, x) is the same selection for f32 and f64
# on NumPy's SIMD loops, which keep the second operand for equal zeros and any NaN: probed once per dtype.


@functools.cache
def _maximum_selects(dtype: np.dtype) -> bool:
    """True when ``np.maximum(0, x)`` gives ``x < 0 ? 0 : x`` bit for bit on ``dtype`` (signed zeros, NaNs)."""
    if dtype.kind in "iu":
        return True  # integers have one zero and no NaN
    if dtype not in (np.float32, np.float64):
        return False
    bits = np.dtype(f"u{dtype.itemsize}")
    sign = 1 << (8 * dtype.itemsize - 1)
    exponent = np.finfo(dtype).nexp
    mantissa = np.finfo(dtype).nmant
    quiet_nan = ((1 << exponent) - 1) << mantissa | 1 << (mantissa - 1)
    specials = np.array([sign, 0, quiet_nan | 5, sign | quiet_nan | 9, ((1 << exponent) - 1) << mantissa | 3],
                        dtype=bits).view(dtype)
    # Every position of a SIMD block and of the scalar tail sees each special value.
    probe = np.resize(np.concatenate([specials, np.array([-1.5, 2.5, -0.0, 1e-30], dtype=dtype)]), 67)
    for shift in range(len(specials)):
        data = np.roll(probe, shift)
        expected = np.where(data < 0, dtype.type(0), data)
        with np.errstate(invalid="ignore"):
            if not np.array_equal(np.maximum(dtype.type(0), data).view(bits), expected.view(bits)):
                return False
    return True


def _relu(x: np.ndarray) -> np.ndarray:
    if _maximum_selects(x.dtype):
        return np.maximum(x.dtype.type(0), x)
    return np.where(x < 0, x.dtype.type(0), x)


def _relu_into(x: np.ndarray, target: np.ndarray) -> None:
    # The same selection written into target (x itself when the interpreter donates it): negatives become 0.
    if _maximum_selects(x.dtype):
        np.maximum(x.dtype.type(0), x, out=target)
        return
    negative = x < 0
    if target is not x:
        np.copyto(target, x)
    np.copyto(target, x.dtype.type(0), where=negative)


@register
class Relu(UnaryMath):
    """std::max(x, 0): x < 0 ? 0 : x (NaN stays NaN). Spec: Relu-1."""

    type_name = "ReLU"  # as OpenVINO writes it in IR (its class is Relu)
    introduced = 1
    compute = staticmethod(_relu)
    compute_into = staticmethod(_relu_into)
    integers = "native"

    def ufunc_call(self, inputs: Sequence[TensorType]) -> UfuncCall | None:
        """``maximum(0, x)`` where it is the selection bit for bit (f32, f64: see ``_maximum_selects``)."""
        (data,) = inputs
        dtype = data.element_type.numpy_dtype
        if dtype is None or not plain_float(data) or not _maximum_selects(dtype):
            return None
        return UfuncCall(np.maximum, (dtype.type(0),))
