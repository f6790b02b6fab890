"""Independent formulations: the oracles of configurations OpenVINO 2026.4.1 does not evaluate.

Each formulation computes an op from its specification, in higher precision than the output type (NumPy's
longdouble, 64-bit mantissa on x86, or f64; then rounded once by the harness), without irgraph's code:
differential.check_op uses it when OpenVINO's reference gives no values (the f64 kernels its wheels do not
compile, ops constant folding skips) and compares within ``higher_precision_tolerance``. With
``IRGRAPH_CHECK_FORMULATIONS=1`` every formulation is also compared with OpenVINO wherever OpenVINO answers, so
a formulation is itself checked against the oracle it stands in for.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import ml_dtypes
import numpy as np

from irgraph.core.shapes import TensorType
from irgraph.ops import Op
from tests.ops.differential import Independent

WIDE = np.longdouble
"""The precision of the formulations: 64 mantissa bits on x86 (f64 where the platform has no wider type)."""

Compute = Callable[[Op, list[np.ndarray], list[TensorType]], list[np.ndarray] | None]
FORMULATIONS: dict[str, Independent] = {}
"""By op type name."""


def formulation_of(op: Op) -> Independent | None:
    """The independent formulation of ``op``'s type, if the tests have one."""
    return FORMULATIONS.get(op.type_name)


def formulation(*type_names: str, oracle: str = "higher-precision") -> Callable[[Compute], Compute]:
    """Register ``compute`` as the formulation of ``type_names``."""
    def register(compute: Compute) -> Compute:
        for name in type_names:
            FORMULATIONS[name] = Independent(oracle, compute)
        return compute

    return register


def _floats(arrays: Sequence[np.ndarray]) -> bool:
    return all(x.dtype.kind == "f" or x.dtype.name == "bfloat16" for x in arrays)


def _exact(dtype: np.dtype) -> type:
    """Where sums of products of ``dtype`` are computed: longdouble for floats; for integers 64 bits, whose
    wrapping keeps the low bits C++'s narrower wrapping keeps."""
    if dtype.kind == "u":
        return np.uint64
    return np.int64 if dtype.kind == "i" else WIDE


# ------------------------------------------------------------------------------------ convolutions
def _spatial(op: Op, count: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """strides, dilations, pads_begin, pads_end with OpenVINO's defaults (empty: ones, zeros)."""
    return (list(op.strides or [1] * count), list(op.dilations or [1] * count),  # type: ignore[attr-defined]
            list(op.pads_begin or [0] * count), list(op.pads_end or [0] * count))  # type: ignore[attr-defined]


def _weights(op: Op, filters: np.ndarray) -> np.ndarray:
    """The filters as (groups, out channels per group, in channels per group, *kernel)."""
    layouts = {
        "Convolution": lambda f: f[np.newaxis],  # (O, C, *K)
        "GroupConvolution": lambda f: f,  # (G, O, C, *K)
        "ConvolutionBackpropData": lambda f: f.swapaxes(0, 1)[np.newaxis],  # (C, O, *K)
        "GroupConvolutionBackpropData": lambda f: f.swapaxes(1, 2),  # (G, C, O, *K)
    }
    return layouts[op.type_name](filters)


@formulation("Convolution", "GroupConvolution")
def forward_convolution(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """out[n, g, o, y] = sum over c and taps k of x[n, g, c, y * stride + k * dilation - pad_begin] w[g, o, c, k],
    positions outside the data reading zeros; the output size is OpenVINO's shape inference's."""
    data, filters = arrays
    exact = _exact(data.dtype)
    weights = _weights(op, filters).astype(exact)
    groups, out_per_group, in_per_group = weights.shape[:3]
    kernel = weights.shape[3:]
    batch, spatial = data.shape[0], data.shape[2:]
    out_spatial = types[0].shape.to_tuple()[2:]
    strides, dilations, begin, _ = _spatial(op, len(spatial))
    if op.auto_pad in ("same_upper", "same_lower"):  # type: ignore[attr-defined]
        for axis, size in enumerate(spatial):
            total = max(0, (out_spatial[axis] - 1) * strides[axis] + (kernel[axis] - 1) * dilations[axis] + 1 - size)
            begin[axis] = total // 2 if op.auto_pad == "same_upper" else total - total // 2  # type: ignore[attr-defined]
    elif op.auto_pad == "valid":  # type: ignore[attr-defined]
        begin = [0] * len(spatial)
    # zeros around the data: pad_begin before it, and after it as far as the last window reaches
    reach = [max(0, (o - 1) * s + (k - 1) * d + 1 - b - n) if o else 0
             for o, s, k, d, b, n in zip(out_spatial, strides, kernel, dilations, begin, spatial, strict=True)]
    x = data.astype(exact).reshape(batch, groups, in_per_group, *spatial)
    x = np.pad(x, [(0, 0)] * 3 + list(zip(begin, reach, strict=True)))
    out = np.zeros((batch, groups, out_per_group, *out_spatial), exact)
    for tap in itertools.product(*(range(k) for k in kernel)) if all(out_spatial) else ():
        window = x[(slice(None),) * 3 + tuple(
            slice(t * d, t * d + (o - 1) * s + 1, s) for t, d, o, s in zip(tap, dilations, out_spatial, strides,
                                                                            strict=True))]
        out += np.einsum("ngc...,goc->ngo...", window, weights[(slice(None),) * 3 + tap])
    return [out.reshape(batch, groups * out_per_group, *out_spatial)]


@formulation("ConvolutionBackpropData", "GroupConvolutionBackpropData")
def transposed_convolution(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Data position i and tap k add x[n, g, c, i] w[g, o, c, k] to output position i * stride + k * dilation -
    pad_begin; pad_begin is the attribute (explicit), 0 (valid, or same_* without an output_shape input), or
    with output_shape the total (in - 1) * stride + (K - 1) * dilation + 1 - out + output_padding split with
    the odd unit at the start for same_upper."""
    data, filters = arrays[:2]
    exact = _exact(data.dtype)
    weights = _weights(op, filters).astype(exact)
    groups, out_per_group, in_per_group = weights.shape[:3]
    kernel = weights.shape[3:]
    batch, spatial = data.shape[0], data.shape[2:]
    out_spatial = types[0].shape.to_tuple()[2:]
    strides, dilations, begin, _ = _spatial(op, len(spatial))
    padding = list(op.output_padding or [0] * len(spatial))  # type: ignore[attr-defined]
    same = op.auto_pad in ("same_upper", "same_lower")  # type: ignore[attr-defined]
    if op.auto_pad == "valid" or (same and len(arrays) == 2):  # type: ignore[attr-defined]
        begin = [0] * len(spatial)
    elif same:
        for axis, size in enumerate(spatial):
            total = max(0, (size - 1) * strides[axis] + (max(kernel[axis], 1) - 1) * dilations[axis] + 1
                        - out_spatial[axis] + padding[axis])
            begin[axis] = total - total // 2 if op.auto_pad == "same_upper" else total // 2  # type: ignore[attr-defined]
    full = [max((n - 1) * s + (k - 1) * d + 1, b + o) for n, s, k, d, b, o in
            zip(spatial, strides, kernel, dilations, begin, out_spatial, strict=True)]
    x = data.astype(exact).reshape(batch, groups, in_per_group, *spatial)
    scattered = np.zeros((batch, groups, out_per_group, *full), exact)
    if data.size:
        for tap in itertools.product(*(range(k) for k in kernel)):
            target = (slice(None),) * 3 + tuple(slice(t * d, t * d + (n - 1) * s + 1, s)
                                                for t, d, n, s in zip(tap, dilations, spatial, strides, strict=True))
            scattered[target] += np.einsum("ngc...,goc->ngo...", x, weights[(slice(None),) * 3 + tap])
    out = scattered[(slice(None),) * 3 + tuple(slice(b, b + o) for b, o in zip(begin, out_spatial, strict=True))]
    return [out.reshape(batch, groups * out_per_group, *out_spatial)]


# ------------------------------------------------------------------------------------ data movement
@formulation("Roll")
def roll(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Each axis rolled by its shift (a scalar shift is every axis's; an axis listed twice rolls twice)."""
    data, shift, axes = arrays
    axes_list = [int(a) for a in axes.reshape(-1)]
    shifts = [int(shift)] * len(axes_list) if shift.ndim == 0 else [int(s) for s in shift.reshape(-1)]
    return [np.roll(data, shifts, axes_list) if data.ndim else data.copy()]


@formulation("SliceScatter")
def slice_scatter(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """The data with the elements start:stop:step along each axis replaced by the updates. The bounds are ONNX
    Slice's: negative ones count from the end, then start is clamped to [0, dim] going forward and [0, dim - 1]
    going backward, stop to [0, dim] and [-1, dim - 1] (Python's slices clamp a backward start to -1 instead)."""
    data, updates, start, stop, step = arrays[:5]
    axes = [int(a) % data.ndim for a in arrays[5].reshape(-1)] if len(arrays) > 5 else range(len(start))
    picked = [np.arange(size) for size in data.shape]
    for axis, first, last, stride in zip(axes, start.tolist(), stop.tolist(), step.tolist(), strict=True):
        size = data.shape[axis]
        first, last = first + size if first < 0 else first, last + size if last < 0 else last
        if stride > 0:
            first, last = min(max(first, 0), size), min(max(last, 0), size)
        else:
            first, last = min(max(first, 0), size - 1), min(max(last, -1), size - 1)
        picked[axis] = np.arange(first, last, stride)
    result = data.copy()
    result[np.ix_(*picked)] = updates
    return [result]


@formulation("Col2Im")
def col2im(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Column l of channel c and tap (i, j) adds into image row by * stride + i * dilation - pad_begin and column
    bx * stride + j * dilation - pad_begin, block (by, bx) = divmod(l, blocks per row), inside the image."""
    data, size, kernel = arrays
    height, width = (int(v) for v in size)
    kh, kw = (int(v) for v in kernel)
    (sh, sw), (dh, dw) = op.strides, op.dilations  # type: ignore[attr-defined]
    ph, pw = op.pads_begin  # type: ignore[attr-defined]
    per_row = (width + pw + op.pads_end[1] - (dw * (kw - 1) + 1)) // sw + 1  # type: ignore[attr-defined]
    batched = data if data.ndim == 3 else data[np.newaxis]
    exact = _exact(data.dtype)
    channels = batched.shape[1] // (kh * kw)
    image = np.zeros((batched.shape[0], channels, height, width), exact)
    for n, c, i, j, column in itertools.product(range(batched.shape[0]), range(channels), range(kh), range(kw),
                                                range(batched.shape[2])):
        by, bx = divmod(column, per_row)
        y, x = by * sh + i * dh - ph, bx * sw + j * dw - pw
        if 0 <= y < height and 0 <= x < width:
            image[n, c, y, x] += exact(batched[n, (c * kh + i) * kw + j, column])
    return [image if data.ndim == 3 else image[0]]


@formulation("Unique")
def unique(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """The distinct elements (or slices along the axis) by first occurrence or ascending; each one's first index,
    each element's (slice's) index among them, and their counts. Python equality: -0.0 equals 0.0."""
    data = arrays[0]
    if len(arrays) > 1:
        axis = int(arrays[1]) % data.ndim
        rows = [tuple(np.take(data, i, axis).reshape(-1).tolist()) for i in range(data.shape[axis])]
    else:
        axis, rows = None, [(v,) for v in data.reshape(-1).tolist()]
    first: dict[tuple, int] = {}
    for index, row in enumerate(rows):
        first.setdefault(row, index)
    keys = sorted(first) if op.sorted else list(first)  # type: ignore[attr-defined]
    position = {key: i for i, key in enumerate(keys)}
    counts = [sum(1 for row in rows if row == key) for key in keys]
    if axis is None:
        values = np.array([key[0] for key in keys], data.dtype)
    else:
        values = np.stack([np.take(data, first[key], axis) for key in keys], axis) if keys else np.take(data, [], axis)
    dtypes = [t.element_type.numpy_dtype for t in types]
    return [values, np.array([first[key] for key in keys], dtypes[1]),
            np.array([position[row] for row in rows], dtypes[2]), np.array(counts, dtypes[3])]


def _reduce(values: list, reduction: str) -> object:
    """One position's values (in order) reduced as ScatterElementsUpdate/ScatterNDUpdate reduce them."""
    if reduction == "none":
        return values[-1]
    if reduction == "sum":
        return sum(values[1:], values[0])
    if reduction == "sub":
        return values[0] - sum(values[1:], type(values[0])(0))
    if reduction == "prod":
        product = values[0]
        for value in values[1:]:
            product = product * value
        return product
    if reduction in ("min", "max"):
        return min(values) if reduction == "min" else max(values)
    return sum(values[1:], values[0]) / len(values)  # mean (floats: the integer mean floors)


@formulation("ScatterElementsUpdate")
def scatter_elements_update(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Every update goes to the data position of its own position with the axis coordinate replaced by its index;
    the updates of one position (in order, after the data value when use_init_val) reduce to its value, one
    step at a time in the data type."""
    data, indices, updates, axis = arrays
    reduction = getattr(op, "reduction", "none")
    if data.dtype not in (np.float32, np.float64) and reduction != "none":
        return None  # reductions step by step in the data type, as OpenVINO's (exact) reference does
    axis_ = int(axis) % data.ndim
    wide = data
    gathered: dict[tuple, list] = {}
    for position in itertools.product(*(range(d) for d in indices.shape)):
        target = list(position)
        target[axis_] = int(indices[position]) % data.shape[axis_]
        gathered.setdefault(tuple(target), []).append(wide.dtype.type(updates[position]))
    result = wide.copy()
    for target, values in gathered.items():
        first = [wide[target]] if getattr(op, "use_init_val", True) and reduction != "none" else []
        result[target] = _reduce(first + values, reduction)
    return [result]


@formulation("ScatterNDUpdate")
def scatter_nd_update(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Each index tuple (negative counts from the end) names a slice of the data; its updates reduce into it in
    order, starting from the data (sub subtracts them)."""
    data, indices, updates = arrays
    reduction = getattr(op, "reduction", "none")
    if data.dtype not in (np.float32, np.float64) and reduction != "none":
        return None  # reductions step by step in the data type, as OpenVINO's (exact) reference does
    result = data.copy()
    for position in itertools.product(*(range(d) for d in indices.shape[:-1])):
        target = tuple(int(i) % size for i, size in zip(indices[position], data.shape, strict=False))
        value = updates[position].astype(result.dtype)
        if reduction == "none":
            result[target] = value
        else:
            result[target] = np.vectorize(lambda old, new: _reduce([old, new], reduction), otypes=[result.dtype])(
                result[target], value)
    return [result]


# ------------------------------------------------------------------------------------ element-wise
def _working(dtype: np.dtype) -> type:
    """The float type OpenVINO's reference evaluates a formula in: f64 for f64, f32 for the others."""
    return np.float64 if dtype == np.float64 else np.float32


MATH = {
    "Abs": np.abs, "Acos": np.arccos, "Acosh": np.arccosh, "Asin": np.arcsin, "Asinh": np.arcsinh,
    "Atan": np.arctan, "Atanh": np.arctanh, "Ceiling": np.ceil, "Cos": np.cos, "Cosh": np.cosh, "Exp": np.exp,
    "Floor": np.floor, "Log": np.log, "Negative": np.negative, "Sign": np.sign, "Sin": np.sin, "Sinh": np.sinh,
    "Sqrt": np.sqrt, "Tan": np.tan, "Tanh": np.tanh,
    "Erf": np.vectorize(lambda v: math.erf(float(v)), otypes=[np.float64]),  # libm's erf, not irgraph's series
}
"""Functions of one float, evaluated in longdouble and rounded once (their results are continuous in x: no
rounding of an intermediate result matters at the output's precision)."""


def _round(op: Op, x: np.ndarray) -> np.ndarray:
    if op.mode == "half_to_even":  # type: ignore[attr-defined]
        return np.rint(x)
    return np.sign(x) * np.floor(np.abs(x) + x.dtype.type(0.5))  # half away from zero


def _clamp(op: Op, x: np.ndarray) -> np.ndarray:
    low, high = (x.dtype.type(v) for v in (op.min, op.max))  # type: ignore[attr-defined]
    return np.where(x < low, low, np.where(x > high, high, x))  # NaN compares false: stays NaN


def _elu(op: Op, x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, x.dtype.type(op.alpha) * np.expm1(x))  # type: ignore[attr-defined]


def _gelu(op: Op, x: np.ndarray) -> np.ndarray:
    half = x.dtype.type(0.5)
    if getattr(op, "approximation_mode", "ERF").upper() == "TANH":
        inner = np.sqrt(x.dtype.type(2) / x.dtype.type(np.pi)) * (x + x.dtype.type(0.044715) * x ** 3)
        return half * x * (1 + np.tanh(inner))
    erf = np.vectorize(lambda v: math.erf(float(v)), otypes=[np.float64])(x / np.sqrt(x.dtype.type(2)))
    return half * x * (1 + erf.astype(x.dtype))


FORMULAS: dict[str, Callable[[Op, np.ndarray], np.ndarray]] = {
    "Round": _round, "Clamp": _clamp, "Elu": _elu, "Gelu": _gelu,
    "ReLU": lambda op, x: np.where(x < 0, x.dtype.type(0), x),  # x < 0 ? 0 : x keeps -0.0 and NaN
    "Sigmoid": lambda op, x: 1 / (1 + np.exp(-x)),
    "HSigmoid": lambda op, x: np.minimum(np.maximum(x + 3, 0), 6) / 6,
    "HSwish": lambda op, x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6,
    "SoftPlus": lambda op, x: np.log1p(np.exp(x)),
    "SoftSign": lambda op, x: x / (1 + np.abs(x)),
    "Mish": lambda op, x: x * np.tanh(np.log1p(np.exp(x))),
}
"""Formulas of the specification, evaluated in longdouble (Elu's exp(x) - 1 as expm1: exact near 0)."""
ROUNDED_STEPS = frozenset({"SoftSign", "HSigmoid", "HSwish"})
"""Rational formulas OpenVINO's reference evaluates step by step in its working type (``_working``), with
exact or 1 ULP tolerances: the formulation rounds each step as it does."""
TRUNCATED = frozenset({"Elu", "HSigmoid", "HSwish", "Clamp"})
"""Integer inputs: the formula on the value in f64, truncated toward zero (the C++ template's conversion)."""


@formulation(*MATH, *FORMULAS, "Identity")
def unary(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """One element-wise function, floats as ``MATH`` and ``FORMULAS`` say, integers as ``TRUNCATED`` does."""
    (x,) = arrays
    name = op.type_name
    if name == "Identity":
        return [x.copy()]
    with np.errstate(all="ignore"):
        if x.dtype.kind in "iu":
            if name not in TRUNCATED:
                return None
            value = FORMULAS[name](op, x.astype(np.float64))
            return [np.trunc(value).astype(np.int64 if x.dtype.kind == "i" else np.uint64)]
        if name in MATH:
            return [np.asarray(MATH[name](x.astype(WIDE)))]
        return [np.asarray(FORMULAS[name](op, x.astype(_working(x.dtype) if name in ROUNDED_STEPS else WIDE)))]


def _broadcast(op: Op, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """auto_broadcast: numpy (right-aligned), none (equal shapes) or pdpd (b from axis 0 of a, trailing 1s
    dropped)."""
    if getattr(op, "auto_broadcast", "numpy") == "pdpd":
        shape = list(b.shape)
        while shape and shape[-1] == 1:
            shape.pop()
        b = np.broadcast_to(b.reshape(shape + [1] * (a.ndim - len(shape))), a.shape)
    return np.broadcast_arrays(a, b)  # type: ignore[return-value]


BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "Add": np.add, "Subtract": np.subtract, "Multiply": np.multiply, "Divide": np.divide, "Power": np.power,
    "Maximum": lambda a, b: np.where(a < b, b, a),  # std::max(a, b): a NaN in either place gives a
    "Minimum": lambda a, b: np.where(b < a, b, a),  # std::min(a, b)
    "Mod": np.fmod, "SquaredDifference": lambda a, b: (a - b) * (a - b),
    "Equal": np.equal, "NotEqual": np.not_equal, "Less": np.less, "LessEqual": np.less_equal,
    "Greater": np.greater, "GreaterEqual": np.greater_equal,
}
"""Binary functions of floats evaluated in longdouble (each is one correctly rounded operation, or a
comparison); integer SquaredDifference in 64 bits (C++ keeps the low bits)."""
BITWISE: dict[str, Callable[[int, int, int], int]] = {
    "BitwiseAnd": lambda a, b, bits: a & b, "BitwiseOr": lambda a, b, bits: a | b,
    "BitwiseXor": lambda a, b, bits: a ^ b,
    # C++ promotes narrower types to int and x86 masks the count to the promoted width (x << 32 is x)
    "BitwiseLeftShift": lambda a, b, bits: a << (b & (max(bits, 32) - 1)),
    "BitwiseRightShift": lambda a, b, bits: a >> (b & (max(bits, 32) - 1)),
}
"""Bitwise functions on Python integers (the value's two's complement bits), wrapped to the type's width."""


@formulation(*BINARY)
def binary(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """One broadcast binary function (``BINARY``): floats in longdouble, integer SquaredDifference in 64 bits."""
    a, b = _broadcast(op, *arrays)
    name = op.type_name
    with np.errstate(all="ignore"):
        if a.dtype.kind == "f" or a.dtype.name == "bfloat16":
            return [np.asarray(BINARY[name](a.astype(WIDE), b.astype(WIDE)))]
        if name == "SquaredDifference" and a.dtype.kind in "iu":
            return [BINARY[name](a.astype(_exact(a.dtype)), b.astype(_exact(a.dtype)))]
    return None


@formulation(*BITWISE, "BitwiseNot")
def bitwise(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Bitwise functions on each element's integer value (booleans as 0 and 1), wrapped to the type."""
    if op.type_name == "BitwiseNot":
        (x,) = arrays
        if x.dtype == np.bool_:
            return [~x]
        return [_wrapped([~int(v) for v in x.reshape(-1).tolist()], x.dtype).reshape(x.shape)]
    a, b = _broadcast(op, *arrays)
    if a.dtype == np.bool_:
        return [BITWISE[op.type_name](a, b, 1).astype(bool)] if op.type_name in ("BitwiseAnd", "BitwiseOr",
                                                                                 "BitwiseXor") else None
    bits = a.dtype.itemsize * 8
    values = [BITWISE[op.type_name](int(x), int(y), bits) for x, y in zip(a.reshape(-1).tolist(),
                                                                          b.reshape(-1).tolist(), strict=True)]
    return [_wrapped(values, a.dtype).reshape(a.shape)]


def _wrapped(values: list[int], dtype: np.dtype) -> np.ndarray:
    """Python integers as ``dtype``, keeping their low bits (two's complement)."""
    bits = dtype.itemsize * 8
    unsigned = [v & ((1 << bits) - 1) for v in values]
    return np.array(unsigned, f"u{dtype.itemsize}").view(dtype)


@formulation("SoftMax", "LogSoftmax")
def softmax(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """exp(x - max) / sum exp(x - max) along the axis (log: x - max - log sum exp(x - max)) in longdouble; integers
    in f64, truncated toward zero as the reference template converts them."""
    (x,) = arrays
    axis = op.axis % x.ndim if x.ndim else 0  # type: ignore[attr-defined]
    if x.size == 0:
        return [x.copy()]
    wide = x.astype(np.float64 if x.dtype.kind in "iu" else WIDE)
    with np.errstate(all="ignore"):
        shifted = wide - np.max(wide, axis=axis, keepdims=True)
        total = np.sum(np.exp(shifted), axis=axis, keepdims=True)
        result = shifted - np.log(total) if op.type_name == "LogSoftmax" else np.exp(shifted) / total
    if x.dtype.kind in "iu":
        return [np.trunc(result).astype(np.int64 if x.dtype.kind == "i" else np.uint64)]
    return [result]


@formulation("PReLU")
def prelu(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """x < 0 ? slope * x : x; a 1-D slope as long as the data's dim 1 is per channel, else broadcast numpy-style.
    Floats in longdouble, integers in 64 bits (C++ keeps the low bits)."""
    x, slope = arrays
    if slope.ndim == 1 and x.ndim >= 2 and slope.shape[0] == x.shape[1]:
        slope = slope.reshape(-1, *[1] * (x.ndim - 2))
    exact = _exact(x.dtype)
    wide, wide_slope = x.astype(exact), np.broadcast_to(slope.astype(exact), x.shape)
    with np.errstate(all="ignore"):
        return [np.where(wide < 0, wide * wide_slope, wide)]


@formulation("HardSigmoid")
def hard_sigmoid(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """std::max(0, std::min(1, alpha * x + beta)) in OpenVINO's working type: std::min(a, b) is b < a ? b : a and
    std::max(a, b) is a < b ? b : a, so a NaN line gives 1."""
    x, alpha, beta = (a.astype(_working(arrays[0].dtype)) for a in arrays)
    with np.errstate(all="ignore"):
        line = alpha.reshape(()) * x + beta.reshape(())
        capped = np.where(line < 1, line, x.dtype.type(1))
        return [np.where(0 < capped, capped, x.dtype.type(0))]


@formulation("Selu")
def selu(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """x > 0 ? lambda * x : alpha * lambda * (exp(x) - 1), step by step in OpenVINO's working type (its reference
    subtracts 1 from exp(x): near 0 the result keeps that precision, not expm1's)."""
    x, alpha, scale = (a.astype(_working(arrays[0].dtype)) for a in arrays)
    alpha, scale = alpha.reshape(-1)[0], scale.reshape(-1)[0]
    with np.errstate(all="ignore"):
        return [np.where(x > 0, scale * x, alpha * scale * (np.exp(x) - 1))]


@formulation("Swish")
def swish(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """x / (1 + exp(-beta * x)) in longdouble, beta 1 when absent."""
    x = arrays[0].astype(WIDE)
    beta = arrays[1].astype(WIDE).reshape(-1)[0] if len(arrays) > 1 else WIDE(1)
    with np.errstate(all="ignore"):
        return [x / (1 + np.exp(-beta * x))]


@formulation("CumSum")
def cum_sum(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Running sums along the axis, one addition at a time in the data type from +0 (floats round each step as
    OpenVINO's sequential reference does; integers wrap); exclusive leaves the element itself out, reverse runs
    from the end."""
    data = arrays[0]
    if data.ndim == 0:
        return [np.zeros_like(data) if op.exclusive else data.copy()]  # type: ignore[attr-defined]
    axis = int(arrays[1]) % data.ndim if len(arrays) > 1 else 0
    moved = np.moveaxis(data, axis, 0)
    result = np.empty_like(moved)
    order = range(moved.shape[0] - 1, -1, -1) if op.reverse else range(moved.shape[0])  # type: ignore[attr-defined]
    total = np.zeros(moved.shape[1:], data.dtype)
    with np.errstate(all="ignore"):
        for index in order:
            if op.exclusive:  # type: ignore[attr-defined]
                result[index] = total
                total = total + moved[index]
            else:
                total = total + moved[index]
                result[index] = total
    return [np.moveaxis(result, 0, axis)]


def _cpp_common(a: np.dtype, b: np.dtype) -> np.dtype:
    """C++'s usual arithmetic conversions of two element types: f16/bf16 as float and narrow integers as int
    first; then the wider float, else the wider integer, an unsigned one winning a tie of widths."""
    def promoted(t: np.dtype) -> np.dtype:
        if t.kind == "f" or t.name == "bfloat16":
            return np.dtype(np.float32) if t.itemsize < 4 else t
        return np.dtype(np.int32) if t.itemsize < 4 else t

    a, b = promoted(a), promoted(b)
    if "f" in (a.kind, b.kind):
        return max((t for t in (a, b) if t.kind == "f"), key=lambda t: t.itemsize)
    if a.itemsize != b.itemsize:
        return max(a, b, key=lambda t: t.itemsize)
    return a if a.kind == "u" else b


@formulation("Bucketize")
def bucketize(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Each element's bucket: with_right_bound, the first bound not below it (std::lower_bound), else the first
    bound above it (std::upper_bound), both compared in C++'s common type of the two inputs."""
    data, buckets = arrays
    common = _cpp_common(data.dtype, buckets.dtype)
    with np.errstate(all="ignore"):
        values, bounds = data.astype(common).reshape(-1), buckets.astype(common).reshape(-1)
    found = []
    for value in values:
        if op.with_right_bound:  # type: ignore[attr-defined]
            found.append(next((i for i, bound in enumerate(bounds) if not bound < value), len(bounds)))
        else:
            found.append(next((i for i, bound in enumerate(bounds) if value < bound), len(bounds)))
    return [np.array(found, types[0].element_type.numpy_dtype).reshape(data.shape)]


@formulation("SegmentMax")
def segment_max(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Output row s: the element-wise maximum of the data rows whose id is s, or the fill (0, or the type's
    lowest value) where no row has id s; as many rows as the output shape (OpenVINO's shape inference) has."""
    data, ids = arrays[:2]
    count = types[0].shape.to_tuple()[0]
    lowest = (ml_dtypes.finfo if data.dtype.kind == "f" or data.dtype.name == "bfloat16" else np.iinfo)(data.dtype).min
    fill = 0 if op.fill_mode.lower() == "zero" else lowest  # type: ignore[attr-defined]
    result = np.full((count, *data.shape[1:]), fill, data.dtype)
    for segment in range(count):
        rows = data[ids.reshape(-1) == segment]
        if len(rows):
            result[segment] = np.max(rows, axis=0)
    return [result]


# ------------------------------------------------------------------------------------ pooling
def _pool_pads(op: Op, spatial: Sequence[int], dilations: Sequence[int]) -> tuple[list[int], list[int]]:
    """pads_begin and pads_end after auto_pad: same_* split the total padding an output of ceil(size / stride)
    needs (the odd unit at the end for same_upper; ceil rounding may then add a position), valid has none."""
    count = len(spatial)
    kernel, strides = list(op.kernel), list(op.strides or [1] * count)  # type: ignore[attr-defined]
    if op.auto_pad in ("same_upper", "same_lower"):  # type: ignore[attr-defined]
        totals = [max(0, (-(-n // s) - 1) * s + (k - 1) * d + 1 - n)
                  for s, k, d, n in zip(strides, kernel, dilations, spatial, strict=True)]
        begin = [t // 2 if op.auto_pad == "same_upper" else t - t // 2 for t in totals]  # type: ignore[attr-defined]
        return begin, [t - b for t, b in zip(totals, begin, strict=True)]
    if op.auto_pad == "valid":  # type: ignore[attr-defined]
        return [0] * count, [0] * count
    return list(op.pads_begin or [0] * count), list(op.pads_end or [0] * count)  # type: ignore[attr-defined]


def _windows(op: Op, data: np.ndarray, out_spatial: Sequence[int], dilations: Sequence[int]):
    """For each output position: the data positions of its taps inside the data (row-major tap order)."""
    spatial = data.shape[2:]
    begin, _ = _pool_pads(op, spatial, dilations)
    strides = list(op.strides or [1] * len(spatial))  # type: ignore[attr-defined]
    for position in itertools.product(*(range(o) for o in out_spatial)):
        taps = []
        for tap in itertools.product(*(range(k) for k in op.kernel)):  # type: ignore[attr-defined]
            where = tuple(p * s - b + t * d for p, s, b, t, d in zip(position, strides, begin, tap, dilations,
                                                                       strict=True))
            if all(0 <= w < n for w, n in zip(where, spatial, strict=True)):
                taps.append(where)
        yield position, taps


@formulation("AvgPool")
def avg_pool(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Each window's sum in longdouble over the taps inside the data, divided by those taps' count (exclude-pad,
    or no padding after auto_pad) or the kernel size (padding counted, as OpenVINO's CPU plugin divides even a
    ceil-mode window hanging past the padding); a window without data gives 0; integer means round to nearest."""
    (data,) = arrays
    out_spatial = types[0].shape.to_tuple()[2:]
    dilations = [1] * len(out_spatial)
    begin, end = _pool_pads(op, data.shape[2:], dilations)
    padded = any(begin) or any(end)
    result = np.zeros(types[0].shape.to_tuple(), WIDE)
    for position, taps in _windows(op, data, out_spatial, dilations):
        total = sum((data[(slice(None), slice(None), *t)].astype(WIDE) for t in taps), np.zeros(data.shape[:2], WIDE))
        count = math.prod(op.kernel) if padded and not op.exclude_pad else len(taps)  # type: ignore[attr-defined]
        result[(slice(None), slice(None), *position)] = total / count if taps else 0
    if data.dtype.kind in "iu":
        info = np.iinfo(data.dtype)
        return [np.clip(np.rint(result), info.min, info.max).astype(np.int64)]
    return [result]


def _lowest(dtype: np.dtype) -> object:
    """numeric_limits<T>::lowest(): the lowest finite value, but -inf for OpenVINO's own f16 and bf16 classes."""
    if dtype == np.bool_:
        return False
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    return -np.inf if dtype.itemsize == 2 else ml_dtypes.finfo(dtype).min


@formulation("MaxPool")
def max_pool(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Each window scanned from the type's lowest value, a tap taken when strictly greater (the first of equal
    maxima wins, NaN never does); its index is the tap's flat position over the dims from ``axis`` on, a window
    nothing beats keeping the index of its channel's first element."""
    (data,) = arrays
    out_spatial = types[0].shape.to_tuple()[2:]
    dilations = list(getattr(op, "dilations", ()) or [1] * len(out_spatial))
    values = np.full(types[0].shape.to_tuple(), _lowest(data.dtype), data.dtype)
    axis = getattr(op, "axis", 0) % data.ndim
    indices = np.zeros(types[0].shape.to_tuple(), np.int64)
    windows = list(_windows(op, data, out_spatial, dilations))
    for n, c in itertools.product(range(data.shape[0]), range(data.shape[1])):
        for position, taps in windows:
            best, where = values[(n, c, *position)], (n, c) + (0,) * len(out_spatial)
            for tap in taps:
                value = data[(n, c, *tap)]
                if value > best:
                    best, where = value, (n, c, *tap)
            values[(n, c, *position)] = best
            indices[(n, c, *position)] = np.ravel_multi_index(where[axis:], data.shape[axis:])
    return [values] if len(types) == 1 else [values, indices.astype(types[1].element_type.numpy_dtype)]


def _adaptive(data: np.ndarray, out_spatial: Sequence[int]):
    """For each output position, the data positions of its window: [floor(i * D / O), ceil((i + 1) * D / O))."""
    spans = [[range(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]
             for size, out in zip(data.shape[2:], out_spatial, strict=True)]
    for position in itertools.product(*(range(o) for o in out_spatial)):
        yield position, list(itertools.product(*(spans[a][p] for a, p in enumerate(position))))


@formulation("AdaptiveAvgPool")
def adaptive_avg_pool(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Each window's mean: floats in longdouble; integers summed in their type (wrapping) and divided as the
    reference's C++ does, toward zero, but i8 and u8 rounded to nearest even (std::nearbyint)."""
    data = arrays[0]
    out_spatial = types[0].shape.to_tuple()[2:]
    integral = data.dtype.kind in "iu"
    result = np.zeros(types[0].shape.to_tuple(), np.int64 if integral else WIDE)
    for position, taps in _adaptive(data, out_spatial):
        for n, c in itertools.product(range(data.shape[0]), range(data.shape[1])):
            if integral:
                total = _wrapped([sum(int(data[(n, c, *t)]) for t in taps)], data.dtype)[0]
                if data.dtype.itemsize == 1:
                    mean = round(int(total) / len(taps))  # Python rounds halves to even, as nearbyint does
                else:
                    mean = int(abs(int(total)) // len(taps)) * (-1 if total < 0 else 1)
                result[(n, c, *position)] = mean
            else:
                result[(n, c, *position)] = sum(WIDE(data[(n, c, *t)]) for t in taps) / len(taps)
    return [result]


@formulation("AdaptiveMaxPool")
def adaptive_max_pool(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Each window's maximum, the first of equal maxima in row-major order, and its flat index in its channel's
    spatial plane."""
    data = arrays[0]
    out_spatial = types[0].shape.to_tuple()[2:]
    values = np.zeros(types[0].shape.to_tuple(), data.dtype)
    indices = np.zeros(types[0].shape.to_tuple(), np.int64)
    for position, taps in _adaptive(data, out_spatial):
        for n, c in itertools.product(range(data.shape[0]), range(data.shape[1])):
            best = max(taps, key=lambda t: (data[(n, c, *t)], -np.ravel_multi_index(t, data.shape[2:])))
            values[(n, c, *position)] = data[(n, c, *best)]
            indices[(n, c, *position)] = np.ravel_multi_index(best, data.shape[2:])
    return [values, indices.astype(types[1].element_type.numpy_dtype)]


# ------------------------------------------------------------------------------------ reductions
def _sequential(step: Callable, start: object) -> Callable[[list], object]:
    def reduce(group: list) -> object:
        total = start
        for value in group:
            total = step(total, value)
        return total

    return reduce


def _extreme(pick_first: Callable[[object, object], bool], start: object) -> Callable[[list], object]:
    """std::max/std::min from ``start``: a value replaces the running one only when ``pick_first(value, running)``
    holds (a NaN never does)."""
    def reduce(group: list) -> object:
        running = start
        for value in group:
            if pick_first(value, running):
                running = value
        return running

    return reduce


@formulation("ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceMin", "ReduceMax")
def reduction(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Each group of the reduced axes in row-major order: Sum and Mean in longdouble (Mean of integers divides the
    wrapped sum toward zero), Prod, L1 and L2 one step at a time in the data type (f16/bf16 in f32), Max and Min
    from the lowest float (+inf, or the integer type's extreme) taking only strictly better values."""
    data, axes = arrays
    name = op.type_name
    count = data.ndim
    reduced = sorted({int(a) % max(count, 1) for a in axes.reshape(-1)}) if count else []
    kept = [a for a in range(count) if a not in reduced]
    size = math.prod(data.shape[a] for a in reduced)
    groups = np.transpose(data, kept + reduced).reshape(*(data.shape[a] for a in kept), size)
    floats = data.dtype.kind == "f" or data.dtype.name == "bfloat16"
    integral = data.dtype.kind in "iu"
    compute = _working(data.dtype) if floats else data.dtype.type
    if name in ("ReduceSum", "ReduceMean"):
        wide = groups.astype(WIDE if floats else object)
        totals = np.sum(wide, axis=-1) if groups.shape[-1] else np.zeros(groups.shape[:-1], wide.dtype)
        if integral:
            totals = np.vectorize(lambda v: int(_wrapped([int(v)], data.dtype)[0]), otypes=[object])(totals)
        if name == "ReduceMean" and groups.shape[-1]:
            size = groups.shape[-1]
            totals = (np.vectorize(lambda v: (abs(v) // size) * (-1 if v < 0 else 1), otypes=[object])(totals)
                      if integral else totals / size)
        result = totals.astype(np.int64 if data.dtype.kind == "i" else np.uint64) if integral else totals
        return [result.reshape(types[0].shape.to_tuple())]
    if name in ("ReduceMin", "ReduceMax"):
        if data.dtype == np.bool_:
            return None
        maximum = name == "ReduceMax"
        if floats:
            start = ml_dtypes.finfo(compute).min if maximum else compute(np.inf)
        else:
            start = np.iinfo(data.dtype).min if maximum else np.iinfo(data.dtype).max
        reduce = _extreme((lambda v, r: v > r) if maximum else (lambda v, r: v < r), start)
    else:
        steps = {"ReduceProd": (lambda t, v: t * v, 1), "ReduceL1": (lambda t, v: t + abs(v), 0),
                 "ReduceL2": (lambda t, v: t + v * v, 0)}
        step, start = steps[name]
        reduce = _sequential(step, compute(start))
    flat = groups.reshape(math.prod(groups.shape[:-1]), size).astype(compute)
    with np.errstate(all="ignore"):
        values = np.array([reduce(list(row)) for row in flat], compute).reshape(groups.shape[:-1])
        if name == "ReduceL2":
            values = np.sqrt(values) if floats else None
    return None if values is None else [values.reshape(types[0].shape.to_tuple())]


# ------------------------------------------------------------------------------------ matrices
@formulation("MatMul")
def mat_mul(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """NumPy's matmul rules after the transposes of the last two dims (a 1-D operand is a row or a column and
    its dim is dropped after): floats in longdouble, integers in 64 bits (wrapped back), booleans an OR of ANDs."""
    a, b = arrays
    if op.transpose_a and a.ndim > 1:  # type: ignore[attr-defined]
        a = a.swapaxes(-1, -2)
    if op.transpose_b and b.ndim > 1:  # type: ignore[attr-defined]
        b = b.swapaxes(-1, -2)
    if a.dtype == np.bool_:
        return [np.matmul(a.astype(np.int64), b.astype(np.int64)) > 0]
    exact = _exact(a.dtype)
    with np.errstate(all="ignore"):
        return [np.asarray(np.matmul(a.astype(exact), b.astype(exact)))]


@formulation("Einsum")
def einsum(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """NumPy's einsum of the equation in longdouble (integers in 64 bits)."""
    exact = _exact(arrays[0].dtype)
    with np.errstate(all="ignore"):
        return [np.asarray(np.einsum(op.equation, *(x.astype(exact) for x in arrays)))]  # type: ignore[attr-defined]


def _inverse(matrix: np.ndarray) -> tuple[np.ndarray, object]:
    """Gauss-Jordan elimination with partial pivoting in the matrix's dtype: (inverse, determinant)."""
    size = matrix.shape[0]
    work = np.concatenate([matrix, np.eye(size, dtype=matrix.dtype)], axis=1)
    determinant = matrix.dtype.type(1)
    for column in range(size):
        pivot = column + int(np.argmax(np.abs(work[column:, column])))
        if pivot != column:
            work[[column, pivot]] = work[[pivot, column]]
            determinant = -determinant
        determinant = determinant * work[column, column]
        work[column] = work[column] / work[column, column]
        for row in range(size):
            if row != column:
                work[row] = work[row] - work[row, column] * work[column]
    return work[:, size:], determinant


@formulation("Inverse")
def inverse(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """The inverse of each matrix of the last two dims by Gauss-Jordan in longdouble; ``adjoint`` times its
    determinant (the adjugate)."""
    (data,) = arrays
    wide = data.astype(WIDE).reshape(-1, *data.shape[-2:])
    result = np.empty_like(wide)
    with np.errstate(all="ignore"):
        for index, matrix in enumerate(wide):
            inverted, determinant = _inverse(matrix)
            result[index] = inverted * determinant if op.adjoint else inverted  # type: ignore[attr-defined]
    return [result.reshape(data.shape)]


# ------------------------------------------------------------------------------------ normalization
@formulation("GroupNormalization")
def group_normalization(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """(x - mean) / sqrt(variance + epsilon) * scale[c] + bias[c], the mean and the (population) variance over each
    group of num_groups consecutive channels and all positions of a batch item, in longdouble."""
    data, scale, bias = (x.astype(WIDE) for x in arrays)
    batch, channels = data.shape[:2]
    groups = data.reshape(batch, op.num_groups, -1)  # type: ignore[attr-defined]
    mean = groups.mean(axis=-1, keepdims=True)
    variance = ((groups - mean) ** 2).mean(axis=-1, keepdims=True)
    with np.errstate(all="ignore"):
        normalized = ((groups - mean) / np.sqrt(variance + WIDE(op.epsilon))).reshape(data.shape)  # type: ignore
    view = (1, channels) + (1,) * (data.ndim - 2)
    return [normalized * scale.reshape(view) + bias.reshape(view)]


# ------------------------------------------------------------------------------------ embeddings
def _bags(table: np.ndarray, indices: list[int], bags: list[int], count: int, weights: np.ndarray | None,
          default: int | None, mean: bool) -> np.ndarray:
    """Rows table[indices[i]] (times weights[i]) added into bag bags[i] one at a time in the table's type (f16
    and bf16 in f32); an empty bag takes the default row, or zeros; ``mean`` divides by the rows summed."""
    compute = _working(table.dtype) if table.dtype.kind == "f" or table.dtype.name == "bfloat16" else table.dtype.type
    rows = table.astype(compute)
    out = np.zeros((count, *table.shape[1:]), compute)
    counts = [0] * count
    with np.errstate(all="ignore"):
        for i, (row, bag) in enumerate(zip(indices, bags, strict=True)):
            out[bag] = out[bag] + (rows[row] * compute(weights[i]) if weights is not None else rows[row])
            counts[bag] += 1
        for bag in range(count):
            if not counts[bag] and default is not None and default >= 0:
                out[bag], counts[bag] = rows[default], 1
            if mean and counts[bag]:
                out[bag] = out[bag] / compute(counts[bag])
    return out


@formulation("EmbeddingBagOffsets", "EmbeddingBagOffsetsSum")
def embedding_bag_offsets(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Bag b sums indices[offsets[b]:offsets[b + 1]] (the last bag runs to the end)."""
    table, indices, offsets = arrays[:3]
    starts = [int(v) for v in offsets.reshape(-1)]
    ends = starts[1:] + [indices.size]
    picked, bags = [], []
    for bag, (start, end) in enumerate(zip(starts, ends, strict=True)):
        for position in range(start, end):
            picked.append(position)
            bags.append(bag)
    default = int(arrays[3]) if len(arrays) > 3 else None
    weights = arrays[4].reshape(-1)[picked] if len(arrays) > 4 else None
    rows = [int(v) for v in indices.reshape(-1)[picked]]
    mean = getattr(op, "reduction", "sum") == "mean"
    return [_bags(table, rows, bags, len(starts), weights, default, mean)]


@formulation("EmbeddingBagPacked", "EmbeddingBagPackedSum")
def embedding_bag_packed(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Bag b sums the rows of indices[b]."""
    table, indices = arrays[:2]
    rows = [int(v) for v in indices.reshape(-1)]
    bags = [b for b in range(indices.shape[0]) for _ in range(indices.shape[1])]
    weights = arrays[2].reshape(-1) if len(arrays) > 2 else None
    mean = getattr(op, "reduction", "sum") == "mean"
    return [_bags(table, rows, bags, indices.shape[0], weights, None, mean)]


@formulation("EmbeddingSegmentsSum")
def embedding_segments_sum(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Segment s sums the rows of the indices whose segment id is s; num_segments segments."""
    table, indices, segments, count = arrays[:4]
    default = int(arrays[4]) if len(arrays) > 4 else None
    weights = arrays[5].reshape(-1) if len(arrays) > 5 else None
    return [_bags(table, [int(v) for v in indices.reshape(-1)], [int(v) for v in segments.reshape(-1)], int(count),
                  weights, default, mean=False)]


# ------------------------------------------------------------------------------------ images
def _planes(op: Op, arrays: list[np.ndarray], height: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y [N, H, W] and U, V [N, H/2, W/2] from one plane (Y rows, then the chroma rows) or apart."""
    nv12 = op.type_name.startswith("NV12")
    if len(arrays) == 1:
        plane = arrays[0][..., 0]
        y, chroma = plane[:, :height], plane[:, height:]
        width = y.shape[2]
        if nv12:  # interleaved UV rows of width W: pairs (u, v)
            pairs = chroma.reshape(chroma.shape[0], height // 2, width // 2, 2)
            return y, pairs[..., 0], pairs[..., 1]
        quarter = chroma.reshape(chroma.shape[0], -1)  # U (H/2 x W/2 values), then V
        half = (height // 2) * (width // 2)
        return (y, quarter[:, :half].reshape(-1, height // 2, width // 2),
                quarter[:, half:].reshape(-1, height // 2, width // 2))
    if nv12:
        return arrays[0][..., 0], arrays[1][..., 0], arrays[1][..., 1]
    return arrays[0][..., 0], arrays[1][..., 0], arrays[2][..., 0]


@formulation("NV12toRGB", "NV12toBGR", "I420toRGB", "I420toBGR")
def yuv_to_rgb(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """BT.601 video range in f32, each pixel from its Y and its 2x2 block's U and V: r = 1.164(y-16) + 1.596(v-128),
    g = 1.164(y-16) - 0.391(u-128) - 0.813(v-128), b = 1.164(y-16) + 2.018(u-128), clipped to [0, 255] (u8
    rounded half away from zero first)."""
    height = types[0].shape.to_tuple()[1]
    y, u, v = (p.astype(np.float32) for p in _planes(op, arrays, height))
    u, v = (np.repeat(np.repeat(p, 2, axis=1), 2, axis=2) for p in (u, v))
    c, d, e = y - np.float32(16), u - np.float32(128), v - np.float32(128)
    f = np.float32
    red = f(1.164) * c + f(1.596) * e
    green = f(1.164) * c - f(0.391) * d - f(0.813) * e
    blue = f(1.164) * c + f(2.018) * d
    channels = [blue, green, red] if op.type_name.endswith("BGR") else [red, green, blue]
    pixels = np.stack(channels, axis=-1)
    if arrays[0].dtype == np.uint8:
        rounded = np.sign(pixels) * np.floor(np.abs(pixels) + f(0.5))
        return [np.clip(rounded, 0, 255).astype(np.int64)]
    return [np.clip(pixels, 0, 255)]


# ------------------------------------------------------------------------------------ sorting
@formulation("TopK")
def top_k(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """Along the axis, the k largest (max) or smallest (min) values, ties to the lower index; sort "value" keeps
    them in that order, "index" and "none" in the order of their indices."""
    data, k = arrays
    axis = op.axis % data.ndim  # type: ignore[attr-defined]
    count = types[0].shape.to_tuple()[axis]
    moved = np.moveaxis(data, axis, -1)
    values = np.empty((*moved.shape[:-1], count), data.dtype)
    indices = np.empty((*moved.shape[:-1], count), np.int64)
    largest = op.mode == "max"  # type: ignore[attr-defined]
    for position in itertools.product(*(range(d) for d in moved.shape[:-1])):
        row = moved[position].tolist()
        order = sorted(range(len(row)), key=lambda i: (-row[i] if largest else row[i], i))[:count]
        if op.sort in ("index", "none"):  # type: ignore[attr-defined]
            order = sorted(order)
        values[position] = [row[i] for i in order]
        indices[position] = order
    return [np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis).astype(types[1].element_type.numpy_dtype)]


@formulation("SearchSorted")
def search_sorted(op: Op, arrays: list[np.ndarray], types: list[TensorType]) -> list[np.ndarray] | None:
    """For each value, how many elements of its row of the sorted sequence are smaller (right_mode: not greater);
    a 1-D sequence serves every value."""
    sequence, values = arrays
    result = np.zeros(values.shape, types[0].element_type.numpy_dtype)
    for position in itertools.product(*(range(d) for d in values.shape)):
        row = sequence if sequence.ndim == 1 else sequence[position[:-1]]
        value = values[position]
        below = [x <= value if op.right_mode else x < value for x in row.tolist()]  # type: ignore[attr-defined]
        result[position] = sum(below)
    return [result]
