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
from collections.abc import Callable, Sequence

import numpy as np

from irgraph.ops import Op
from irgraph.shapes import TensorType
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
