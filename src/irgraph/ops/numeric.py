"""Element type conversions exactly as OpenVINO's reference makes them (``static_cast`` on x86-64).

OpenVINO 2026.4.1's constant folding (``ov::reference::convert`` and the ``ov::bfloat16`` /
``ov::float16`` constructors), measured bit for bit:

- float -> integer truncates toward zero like the x86 ``cvtt`` instructions: NaN and values out
  of range give the minimum of the instruction's width (int32 for targets up to 16 bits and i32,
  int64 for i64 and u32), and the result wraps to the target's bits (f32 300.0 -> u8 44; NaN -> i8
  0; 3e9 -> i32 -2147483648). u64 takes the compiler's two-branch sequence around 2**63, and so
  does f32 -> u32 around 2**31 (the vectorised loop; OpenVINO's last ``n % 8`` elements take the
  int64 path instead, so f32 values outside the u32 range, undefined in C++, depend on their
  position there: irgraph applies the vectorised rule everywhere).
- f32 -> bf16 is ``ov::bfloat16::round_to_nearest_even``: it adds half a unit only when the kept
  last bit is odd, so below-half and above-half fractions round down when that bit is even
  (10.6640625 -> 10.625, where round-to-nearest gives 10.6875). Every source reaches bf16 through
  f32 (f64 -> f32 rounds first).
- f16 rounds to nearest even from f32 (f64 -> f32 -> f16: two roundings); i32 -> f16 clamps to
  +-65504 (a specialised kernel), other integers overflow to inf.
- Integer -> integer wraps; anything -> boolean is ``!= 0`` (NaN is true); boolean is 0 or 1.
- nf4 is 16 levels: floats quantize by OpenVINO's thresholds (NaN -> code 0) and dequantize by its
  table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import ml_dtypes
import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError

NF4_LEVELS = np.array(
    [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
     -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
     0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0],
    dtype=np.float32,
)
NF4_THRESHOLDS = np.array(
    [-0.8480964004993439, -0.6106329262256622, -0.4599952697753906, -0.33967943489551544, -0.23460740596055984,
     -0.13791173323988914, -0.045525018125772476, 0.03979014977812767, 0.1202552504837513, 0.2035212516784668,
     0.2920137718319893, 0.3893125355243683, 0.5016634166240692, 0.6427869200706482, 0.8614784181118011],
    dtype=np.float32,
)
"""A value above k thresholds (compared in f32) gets code k (OpenVINO's ConvertNF4::quantize)."""

_F16_MAX = 65504.0
_SUB_BYTE_BITS = {ElementType.I4: 4, ElementType.U1: 1, ElementType.U2: 2, ElementType.U3: 3, ElementType.U4: 4,
                  ElementType.U6: 6}
_FLOAT8 = (ElementType.F8E4M3, ElementType.F8E5M2, ElementType.F8E8M0, ElementType.F4E2M1)
CONVERTIBLE = frozenset(t for t in ElementType if t not in (ElementType.DYNAMIC, ElementType.STRING))
"""Element types Convert handles (both as source and destination)."""


def round_to_bf16(values: np.ndarray) -> np.ndarray:
    """f32 values -> bf16 as ``ov::bfloat16::round_to_nearest_even`` does (uint32 arithmetic wraps)."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)  # asarray: a 0-d array stays 0-d
    return ((bits + ((bits & np.uint32(0x10000)) >> np.uint32(1))) >> np.uint32(16)).astype(np.uint16).view(
        ml_dtypes.bfloat16
    ).reshape(np.shape(values))


def round_float(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Floating-point ``values`` rounded to the float ``dtype`` as OpenVINO's reference rounds them."""
    if dtype == values.dtype:
        return values
    if dtype == np.dtype(ml_dtypes.bfloat16):
        return round_to_bf16(values.astype(np.float32))
    with np.errstate(all="ignore"):
        if dtype == np.float64:
            return values.astype(np.float64)
        # f64 through f32 as OpenVINO does; f32 values (a widened f16 computation's result) rounded in one pass
        return values.astype(np.float32, copy=False).astype(dtype)


_F32_CHUNK = 1 << 14
"""Elements per pass of ``f16_through_f32``: its f32 buffer (64 KiB) stays in cache and off fresh pages."""


def f16_through_f32(ufunc: np.ufunc, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``ufunc(a, b)`` of f16 arrays as ``widened`` computes it (in f32, rounded once to f16: the same cast as
    ``round_float``'s), written into ``out`` (of ``a``'s shape; ``a`` itself may be it), a block of rows at a time
    through a small f32 buffer: no f32 copy of the whole of ``a`` or of the result (on the weights of a folded int8
    or int4 decompression chain, those fresh arrays cost more than the arithmetic)."""
    rows = a.shape[0]
    per_row = max(1, a.size // rows) if rows else 1
    step = max(1, _F32_CHUNK // per_row)
    if b.ndim == a.ndim and b.shape[0] == rows and rows > 1:
        whole_b = None  # cut with a's rows
    else:
        whole_b = b.astype(np.float32)  # broadcast along a's rows (a scale of shape (1, N), a scalar)
    with np.errstate(all="ignore"):
        for start in range(0, rows, step):
            stop = start + step
            wide = a[start:stop].astype(np.float32)
            ufunc(wide, b[start:stop].astype(np.float32) if whole_b is None else whole_b, out=wide)
            np.copyto(out[start:stop], wide, casting="unsafe")
    return out


CHUNK = 65536
"""Values an activation of several passes computes at a time (:func:`in_chunks`): its scratch array (256 KiB of
f32) stays in the core's cache and no temporary of the whole size is allocated. YOLOv8n's largest Swish
(1x16x320x320) took 3.1 ms in four whole-array passes with one temporary and 1.8 ms in chunks of 65,536 (16,384:
2.4 ms, 262,144: 2.3 ms; AMD EPYC, NumPy 2.4.6)."""

ChunkKernel = Callable[[np.ndarray, np.ndarray, np.ndarray], object]
"""(data part, scratch part, output part): writes the values of the data part into the output part."""


def in_chunks(kernel: ChunkKernel, data: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``kernel`` over ``CHUNK`` values at a time of ``data`` into ``target`` (same shape and dtype, possibly
    ``data`` itself: each part is read before its output part is written). Element-wise kernels give the values
    of one pass over the whole. Both must be C-contiguous (flat views), which the callers check."""
    flat, out = data.reshape(-1), target.reshape(-1)
    scratch = np.empty(min(CHUNK, flat.size), data.dtype)
    for start in range(0, flat.size, CHUNK):
        part = flat[start:start + CHUNK]
        kernel(part, scratch[:part.size], out[start:start + CHUNK])
    return target


def _truncate(values: np.ndarray, bits: int) -> np.ndarray:
    """x86 ``cvtt`` to a signed integer of ``bits`` (32 or 64), as int64: NaN and out of range -> minimum."""
    low = -(2.0 ** (bits - 1))
    with np.errstate(invalid="ignore"):
        truncated = np.trunc(values)
        inside = (truncated >= low) & (truncated < -low)
    return np.where(inside, truncated, low).astype(np.int64)


def truncate_to_int(values: np.ndarray, bits: int = 64) -> np.ndarray:
    """``static_cast<int64_t>`` (``bits`` 64) or ``static_cast<int>`` (32) of f32/f64 ``values`` on x86-64, as int64:
    toward zero; NaN and out of range give the type's minimum."""
    return _truncate(values, bits)


def _float_to_integer(values: np.ndarray, target: ElementType, source: ElementType) -> np.ndarray:
    """Float (f32 or f64) ``values`` -> the integer ``target``'s values as int64/uint64 before wrapping."""
    if target is ElementType.U32 and source is ElementType.F32:
        # The vectorised f32 -> u32 sequence (what OpenVINO runs on all but an array's last few elements):
        # values from 2**31 are shifted down, converted with cvttps2dq and shifted back.
        big = values >= np.float32(2.0**31)
        shifted = _truncate(np.where(big, values - np.float32(2.0**31), 0), 32) ^ np.int64(-(2**31))
        return np.where(big, shifted, _truncate(values, 32))
    if target is ElementType.U64:
        big = values >= 2.0**63
        shifted = _truncate(np.where(big, values - values.dtype.type(2.0**63), 0), 64) ^ np.int64(-(2**63))
        return np.where(big, shifted, _truncate(values, 64)).view(np.uint64)
    wide = target in (ElementType.I64, ElementType.U32)
    return _truncate(values, 64 if wide else 32)


def _wrap(integers: np.ndarray, target: ElementType) -> np.ndarray:
    """Integers (int64 or uint64) wrapped to ``target``'s width, in its in-memory dtype."""
    bits = _SUB_BYTE_BITS.get(target)
    if bits is None:
        return integers.astype(target.numpy_dtype)
    codes = (integers.astype(np.int64) & ((1 << bits) - 1)).astype(np.int8 if target is ElementType.I4 else np.uint8)
    if target is ElementType.I4:
        codes = ((codes ^ 8) - 8).astype(np.int8)
    return codes.astype(target.numpy_dtype)


def _to_e8m0(single: np.ndarray) -> np.ndarray:
    """f32 -> f8e8m0 (a power of two, 2**-127 .. 2**127, or NaN) as OpenVINO rounds it: the biased f32
    exponent, plus one when the mantissa is above half (or exactly half and the exponent odd); values
    with the sign bit set (-NaN too), zero and f32 subnormals give 2**-127; infinity and overflow
    saturate to 2**127."""
    bits = np.asarray(single, dtype=np.float32).view(np.uint32)
    exponent = ((bits >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int64)
    mantissa = bits & np.uint32(0x7FFFFF)
    half = np.uint32(0x400000)
    up = (mantissa > half) | ((mantissa == half) & (exponent % 2 == 1))
    code = np.minimum(exponent + up, 254)
    code = np.where(np.isposinf(single), 254, code)
    code = np.where(np.isnan(single), 255, code)
    code = np.where((single <= 0) | (exponent == 0) | np.signbit(single), 0, code)
    f8e8m0 = ElementType.F8E8M0.numpy_dtype
    assert f8e8m0 is not None  # ml_dtypes provides it
    return code.astype(np.uint8).view(f8e8m0)


def _as_computable(values: np.ndarray, source: ElementType) -> np.ndarray:
    """Source values in a dtype NumPy computes with: f32/f64 for floats, int64/uint64 for integers."""
    if source is ElementType.NF4:
        return NF4_LEVELS[values.astype(np.intp) & 15]
    if source is ElementType.BOOLEAN:
        return values.astype(np.uint8)
    if source.is_real:
        return values if source in (ElementType.F32, ElementType.F64) else values.astype(np.float32)
    if source in _SUB_BYTE_BITS:
        return values.astype(np.int8 if source is ElementType.I4 else np.uint8)
    return values


def convert(values: np.ndarray, source: ElementType, target: ElementType) -> np.ndarray:
    """``values`` (in ``source``'s in-memory dtype) converted to ``target`` as OpenVINO's Convert does."""
    for element_type in (source, target):
        if element_type not in CONVERTIBLE:
            raise OpError(f"Convert cannot convert {source} to {target}: {element_type} has no numeric values")
    if source is target:
        return values.copy()
    data = _as_computable(np.asarray(values), source)
    floating = data.dtype.kind == "f"
    with np.errstate(all="ignore"):
        if target is ElementType.BOOLEAN:
            return data != 0
        if target is ElementType.NF4:
            wide = data.astype(np.float32)
            codes = np.searchsorted(NF4_THRESHOLDS, wide, side="left").astype(np.uint8)
            return np.where(np.isnan(wide), np.uint8(0), codes).astype(ElementType.NF4.numpy_dtype)
        if target.is_integral:
            integers = _float_to_integer(data, target, source) if floating else data
            return _wrap(integers, target)
        if target is ElementType.F64:
            return data.astype(np.float64)
        # every other float target is reached through f32; f16/bf16 data are f32 already (_as_computable's copy)
        single = data.astype(np.float32, copy=False)
        if target is ElementType.F32:
            return single
        if target is ElementType.BF16:
            return round_to_bf16(single)
        if target is ElementType.F16:
            if source is ElementType.I32:
                single = np.clip(single, -_F16_MAX, _F16_MAX)
            return single.astype(np.float16)
        if target is ElementType.F8E8M0:
            return _to_e8m0(single)
        if target is ElementType.F4E2M1:  # rounds to nearest even and saturates; NaN saturates too (keeping its sign)
            return np.where(np.isnan(single), np.copysign(np.float32(6.0), single), single).astype(target.numpy_dtype)
        if target in _FLOAT8:
            return single.astype(target.numpy_dtype)
    raise OpError(f"Convert cannot convert {source} to {target}")


# W. J. Cody's near-minimax rational approximations ("Rational Chebyshev approximations for the error function",
# Math. Comp. 23, 1969, pp. 631-638; the coefficients of his CALERF in netlib's specfun), highest power last:
# erf(x) = x P(x^2) / Q(x^2) for |x| <= 0.46875; erfc(y) = exp(-y^2) R(y) for 0.46875 < y <= 4, and
# exp(-y^2) / y (1/sqrt(pi) - z S(z)) with z = 1 / y^2 beyond 4.
_ERF_P = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03)
_ERF_P_TOP = 1.85777706184603153e-1
_ERF_Q = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_ERFC_R = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
           8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03)
_ERFC_R_TOP = 2.15311535474403846e-8
_ERFC_S = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
           3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
_ERFC_T = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
           6.58749161529837803e-4)
_ERFC_T_TOP = 1.63153871373020978e-2
_ERFC_U = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
           2.33520497626869185e-3)
_INV_SQRT_PI = 0.56418958354775628695
_ERF_NEAR = 0.46875
_ERFC_MIDDLE = 4.0
_ERFC_ZERO = 26.543
"""erfc of f64 arguments from here on is 0 (below the smallest subnormal)."""


def _ratio(x: np.ndarray, top: float, numerator: Sequence[float], denominator: Sequence[float]) -> np.ndarray:
    """Cody's form (top x^n + n_0 x^(n-1) + ... + n_last) / (x^n + d_0 x^(n-1) + ... + d_last), by Horner."""
    upper = top * x
    lower = x.copy()
    for a, b in zip(numerator[:-1], denominator[:-1], strict=True):
        upper += a
        upper *= x
        lower += b
        lower *= x
    upper += numerator[-1]
    lower += denominator[-1]
    upper /= lower
    return upper


def _erfc_far(y: np.ndarray) -> np.ndarray:
    """erfc of f64 values y > 0.46875, to the accuracy erf = 1 - erfc needs."""
    middle = y <= _ERFC_MIDDLE
    if middle.all():  # activations mostly: no value beyond 4, nothing to pick out
        result = _ratio(y, _ERFC_R_TOP, _ERFC_R, _ERFC_S)
    else:
        result = np.empty_like(y)
        result[middle] = _ratio(y[middle], _ERFC_R_TOP, _ERFC_R, _ERFC_S)
        far = y[~middle]
        inverse = 1.0 / (far * far)
        result[~middle] = (_INV_SQRT_PI - inverse * _ratio(inverse, _ERFC_T_TOP, _ERFC_T, _ERFC_U)) / far
    # exp(-y^2) with y^2 rounded: a relative error of up to y^2 ULPs in erfc, less than an ULP of erf = 1 - erfc
    # (erfc <= 0.5 there); Cody splits y^2 for erfc itself, which nothing here needs.
    result *= np.exp(-(y * y))
    result[y >= _ERFC_ZERO] = 0.0
    return result


def erf(x: np.ndarray) -> np.ndarray:
    """The error function of f64 values, vectorised (no SciPy): Cody's rational approximations, each a few
    Horner passes over the values in its range (ranges holding no value skipped); accurate to about one f64
    ULP."""
    x = np.asarray(x, dtype=np.float64)
    magnitude = np.abs(x)
    result = np.empty_like(x)
    with np.errstate(all="ignore"):
        near = magnitude <= _ERF_NEAR
        if near.any():
            small = x[near]
            result[near] = small * _ratio(small * small, _ERF_P_TOP, _ERF_P, _ERF_Q)
        unknown = np.isnan(x)
        outside = ~(near | unknown)
        if outside.any():
            result[outside] = np.copysign((0.5 - _erfc_far(magnitude[outside])) + 0.5, x[outside])
        if unknown.any():
            result[unknown] = x[unknown]  # NaN as it came (its payload and sign too)
    return result


def round_half_away(values: np.ndarray) -> np.ndarray:
    """``std::round``: to the nearest integer value, halves away from zero (exact: no ``floor(x + 0.5)``)."""
    with np.errstate(invalid="ignore"):
        whole = np.trunc(values)
        return np.where(np.abs(values - whole) >= 0.5, whole + np.sign(values), whole)  # keeps -0.0
