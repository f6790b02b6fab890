"""Depthwise convolutions (one input channel per group) with unit strides, bound at plan time: ShuffleNet's and
MobileNet's 3x3 layers.

A depthwise layer's products are trivial (each output sums ``taps`` products); its cost is moving the data. The
kernel is :func:`irgraph.ops.families.convolution_kernels.convolve_flat` with its geometry worked out once per
layer of static shapes: the padded data go into one flat buffer per channel, positions are numbered over the
padded extent's rows (every column of a row, not only the ``out_spatial[1:]`` an output has), so tap ``t`` of
position ``p`` reads flat element ``p + offset(t)`` and every tap's window is one contiguous run; those runs are
the columns ``(groups, taps, positions)`` of one batched matrix product with the weights ``(groups, multiplier,
taps)`` (the product copies the strided view), and the columns past an output row's end are cut in the copy to
the output. The arrays and the product are ``convolve_flat``'s, so the result is the same, bit for bit: each
output is BLAS's dot of length ``taps`` in the kernel's row-major tap order. On ShuffleNet's layers (7x7 to
28x28 planes, 136 to 544 channels) it runs 10-25 % faster than ``convolve_flat`` called each run.

Measured and not kept (ShuffleNet v1 in the network, 2026-11-27, load ~1.5 on 2 cores): a fresh buffer each run
beats one kept per layer (malloc hands back memory another layer just freed, still in cache; a kept buffer is
evicted by the rest of the network between runs); summing the taps as element-wise multiply-adds (9 products and
8 sums over the output, in NCHW or channels-last order) and products of banded (Toeplitz) weight matrices were
no faster; for strides above 1 a copy of the padded data split into stride phases, read at unit stride, was
slower than ``bound_windows``' window copy, which those layers keep.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from irgraph.ops.families.convolution_kernels import WINDOW_COPY_FACTOR, WINDOW_COPY_LIMIT

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def bound_depthwise(
    data_shape: tuple[int, ...],
    dtype: np.dtype,
    weights: np.ndarray,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads_begin: Sequence[int],
    out_spatial: Sequence[int],
) -> Callable[[np.ndarray], np.ndarray] | None:
    """The forward convolution of f32 or f64 data of ``data_shape`` with the constant depthwise ``weights``
    (G, M, 1, *K), G the data's channels, with unit strides, as a function of the data (see the module
    docstring); None for other layers (more than one input channel per group, strides above 1, other dtypes,
    empty tensors, a single tap, or columns too large: see ``WINDOW_COPY_LIMIT``). Float warnings are the
    caller's to silence."""
    dtype = np.dtype(dtype)
    if dtype not in _FLOATS or weights.dtype != dtype or len(data_shape) < 3 or any(s != 1 for s in strides):
        return None
    batch, channels = data_shape[:2]
    groups, multiplier, in_per_group = weights.shape[:3]
    kernel = weights.shape[3:]
    in_spatial = data_shape[2:]
    taps = math.prod(kernel)
    if in_per_group != 1 or channels != groups or taps < 2 or 0 in data_shape or 0 in out_spatial or \
            weights.size == 0 or len(kernel) != len(in_spatial):
        return None
    extent = [o + (k - 1) * d for o, k, d in zip(out_spatial, kernel, dilations, strict=True)]
    pitch = [math.prod(extent[axis + 1:]) for axis in range(len(extent))]
    length = out_spatial[0] * pitch[0]
    # The last taps of the last row read past the extent by their offset along the later axes: zeros there.
    total = math.prod(extent) + sum((k - 1) * d * p for k, d, p in zip(kernel[1:], dilations[1:], pitch[1:],
                                                                       strict=True))
    outputs = batch * groups * multiplier * math.prod(out_spatial)
    if batch * channels * taps * length > max(WINDOW_COPY_LIMIT,
                                              WINDOW_COPY_FACTOR * (math.prod(data_shape) + outputs)):
        return None
    matrix = np.ascontiguousarray(weights.reshape(groups, multiplier, taps))
    interior = (slice(None), slice(None), *(slice(p, min(p + n, e)) for p, n, e in zip(pads_begin, in_spatial, extent,
                                                                                       strict=True)))
    copied = (slice(None), slice(None), *(slice(0, max(0, piece.stop - piece.start)) for piece in interior[2:]))
    padded_shape = (batch, channels, *extent)
    item = dtype.itemsize
    view_shape = (batch, channels, *kernel, length)
    view_strides = (channels * total * item, total * item, *(d * p * item for d, p in zip(dilations, pitch,
                                                                                         strict=True)), item)
    columns_shape = (batch, groups, taps, length)
    rows_shape = (batch, groups * multiplier, out_spatial[0], *extent[1:])
    cut = (slice(None),) * 3 + tuple(slice(0, o) for o in out_spatial[1:])
    out_shape = (batch, groups * multiplier, *out_spatial)
    size = math.prod(extent)

    def depthwise(data: np.ndarray) -> np.ndarray:
        # A fresh buffer each run: see the module docstring.
        flat = np.zeros((batch, channels, total), dtype)
        flat[:, :, :size].reshape(padded_shape)[interior] = data[copied]
        view = np.ndarray(view_shape, dtype, flat, 0, view_strides)
        product = np.matmul(matrix, view.reshape(columns_shape))  # the copy of the columns
        result = np.empty(out_shape, dtype)
        np.copyto(result, product.reshape(rows_shape)[cut])
        return result  # an array of its own (base None): later steps may write over it

    return depthwise
