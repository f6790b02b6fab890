"""The convolution kernels: the batched matrix products a convolution's evaluation is made of.

A forward convolution is one batched matrix product (``convolve_windows``): the windows of the
(padded) data, a strided view, are copied once into columns ``(batch, groups, in per group * taps,
positions)`` and multiplied by the weights ``(groups, out per group, in per group * taps)``, which
writes the output in its final layout; a 1x1 convolution with unit strides and no padding multiplies
the data itself. With unit strides and at most half as many output as input channels, the data are
multiplied as they are by every tap's weights at once and each tap's product is added, shifted, into
the output (``convolve_shifted``), which moves fewer values than the window copy. Depthwise convolutions
(one input channel per group) with unit strides copy their windows from the flattened padded data, where
each tap's window is one contiguous run (``convolve_flat``): the copy moves long rows instead of rows
as short as the output is wide, and the few values computed past a row's end are cut. When the columns
or the padded copy would be large against the data and the output (huge kernels, strides or pads of
hostile models), and for the transposed convolutions, evaluation is
one batched matrix product per kernel tap (``convolve_taps``): each product is added into a strided
slice of the output (``spatial.offset_slices``), so padding allocates nothing and no loop runs over
output positions. f16 and bf16 compute in f32 and round once; integers wrap in their own width (their
products and sums modulo 2^bits are the ones C++ makes).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import ml_dtypes
import numpy as np

from irgraph.ops.families import spatial

_WIDENED = {np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)}


def widen(array: np.ndarray) -> np.ndarray:
    """f16 and bf16 as f32 (OpenVINO computes them through float); other dtypes unchanged."""
    return array.astype(np.float32) if array.dtype in _WIDENED else array


def convolve_taps(
    data: np.ndarray,
    weights: np.ndarray,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads_begin: Sequence[int],
    out_spatial: Sequence[int],
    transposed: bool = False,
) -> np.ndarray:
    """The grouped convolution of ``data`` (N, G*Ci, *S) with ``weights`` (G, Co, Ci, *K) -> (N, G*Co, *O).

    ``transposed`` scatters instead (ConvolutionBackpropData): data position ``i`` feeds output
    position ``i * stride + tap * dilation - pad_begin``. One batched matmul per kernel tap.
    """
    batch, channels = data.shape[:2]
    groups, out_per_group, in_per_group = weights.shape[:3]
    kernel = weights.shape[3:]
    in_spatial = data.shape[2:]
    dtype = data.dtype
    compute = np.result_type(widen(data[:0]).dtype)
    # (G, Ci, N, *S): the tap's slice reshapes to (G, Ci, N * positions) for one batched matmul.
    grouped = widen(data).reshape(batch, groups, in_per_group, *in_spatial).swapaxes(0, 1).swapaxes(1, 2)
    taps = widen(weights).astype(compute, copy=False)
    result = np.zeros((groups, out_per_group, batch, *out_spatial), dtype=compute)
    if result.size == 0 or grouped.size == 0:
        return _finish(result, batch, groups * out_per_group, out_spatial, dtype)
    per_axis = [spatial.live_taps(kernel[axis], dilations[axis], in_spatial[axis], out_spatial[axis], strides[axis],
                                  pads_begin[axis], transposed) for axis in range(len(kernel))]
    with np.errstate(all="ignore"):
        for combination in itertools.product(*per_axis):
            tap = tuple(t[0] for t in combination)
            # (tap, positions of this side, positions of the other): output then data, or data then output
            first, second = tuple(t[1] for t in combination), tuple(t[2] for t in combination)
            source, target = (first, second) if transposed else (second, first)
            window = grouped[(slice(None), slice(None), slice(None), *source)]
            positions = window.shape[3:]
            columns = window.reshape(groups, in_per_group, batch * math.prod(positions))
            tap_index: tuple[slice | int, ...] = (slice(None), slice(None), slice(None), *tap)
            product = np.matmul(taps[tap_index], columns)
            result[(slice(None), slice(None), slice(None), *target)] += product.reshape(
                groups, out_per_group, batch, *positions)
    return _finish(result, batch, groups * out_per_group, out_spatial, dtype)


WINDOW_COPY_LIMIT = 1 << 22
"""Columns (and padded copies) of up to this many elements are always allowed; beyond it they may be
at most ``WINDOW_COPY_FACTOR`` times the data plus the output, else the per-tap path runs."""
WINDOW_COPY_FACTOR = 16


def convolve_windows(
    data: np.ndarray,
    weights: np.ndarray,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads_begin: Sequence[int],
    out_spatial: Sequence[int],
) -> np.ndarray | None:
    """The forward grouped convolution of ``data`` (N, G*Ci, *S) with ``weights`` (G, Co, Ci, *K) as one
    batched matmul over the windows (im2col); None when the copies it needs are too large (see
    ``WINDOW_COPY_LIMIT``)."""
    batch, channels = data.shape[:2]
    groups, out_per_group, in_per_group = weights.shape[:3]
    kernel = weights.shape[3:]
    in_spatial = data.shape[2:]
    positions, taps = math.prod(out_spatial), math.prod(kernel)
    # The span of data the windows read on each axis, counted from the start of the padding.
    extent = [(o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out_spatial, strides, kernel, dilations, strict=True)]
    padded = any(p > 0 for p in pads_begin) or any(e > p + n for e, p, n in zip(extent, pads_begin, in_spatial,
                                                                                 strict=True))
    budget = max(WINDOW_COPY_LIMIT, WINDOW_COPY_FACTOR * (data.size + batch * groups * out_per_group * positions))
    if batch * channels * taps * positions > budget or (padded and batch * channels * math.prod(extent) > budget):
        return None
    dtype = data.dtype
    source = widen(data)
    compute = source.dtype
    matrix = widen(weights).astype(compute, copy=False).reshape(groups, out_per_group, in_per_group * taps)
    if taps == 1 and not padded and all(s == 1 for s in strides):
        columns = source.reshape(batch, groups, in_per_group, positions)  # 1x1: the data are the columns
    else:
        if padded:
            window = np.zeros((batch, channels, *extent), dtype=compute)
            inner = tuple(slice(p, min(p + n, e)) for p, n, e in zip(pads_begin, in_spatial, extent, strict=True))
            copied = tuple(slice(0, max(0, piece.stop - piece.start)) for piece in inner)
            window[(slice(None), slice(None), *inner)] = source[(slice(None), slice(None), *copied)]
        else:
            window = source
        steps = window.strides
        view = np.lib.stride_tricks.as_strided(
            window,
            shape=(batch, channels, *kernel, *out_spatial),
            strides=(steps[0], steps[1], *(t * d for t, d in zip(steps[2:], dilations, strict=True)),
                     *(t * s for t, s in zip(steps[2:], strides, strict=True))),
            writeable=False,
        )
        return _windows_by_rows(view, matrix, groups, dtype, data.size)
    result = np.empty((batch, groups * out_per_group, *out_spatial), dtype=compute)
    with np.errstate(all="ignore"):
        np.matmul(matrix, columns, out=result.reshape(batch, groups, out_per_group, positions))  # the output's layout
    return result.astype(dtype, copy=False)  # an array of its own (base None): later steps may write over it


COLUMN_CHUNK = 1 << 18
"""Window copies (im2col columns) are made a band of output rows at a time, at most this many elements
(1 MiB of f32) or the layer's input and output together if larger, so a large 3x3 layer does not hold 9x
its input at once."""


BAND_POSITIONS = 1024
"""The fewest output positions a band holds: the matrix products of narrower bands lose 10-20% on two threads."""


def _windows_by_rows(view: np.ndarray, matrix: np.ndarray, groups: int, dtype: np.dtype, data_size: int) -> np.ndarray:
    """The products of ``matrix`` (G, Co, Ci*K) with the windows ``view`` (N, C, *K, *O), one band of output
    rows at a time: each band's columns are copied, multiplied straight into its rows of the output."""
    batch = view.shape[0]
    out_spatial = view.shape[2 + (view.ndim - 2) // 2:]
    rows, rest = out_spatial[0], math.prod(out_spatial[1:])
    out_per_group = matrix.shape[1]
    depth = matrix.shape[2]
    # Columns as large as the layer's input and output together take no more memory than the layer's own
    # tensors, and keep each product large enough that banding costs it nothing measurable.
    budget = max(COLUMN_CHUNK, data_size + batch * groups * out_per_group * rows * rest)
    band = budget // max(1, batch * groups * depth * rest)  # column elements per output row
    band = max(1, min(rows, max(band, -(-BAND_POSITIONS // rest))))  # products of fewer columns run slower
    result = np.empty((batch, groups * out_per_group, *out_spatial), dtype=matrix.dtype)
    by_rows = result.reshape(batch, groups, out_per_group, rows, rest)
    lead = view.ndim - len(out_spatial)
    # One buffer for every band's columns: a fresh multi-MiB array per band made glibc hand its pages back and
    # fault them in again at the next band (Inception v1's 3x3 layer on 56x56: 2,256 page faults a run).
    buffer = np.empty(batch * groups * depth * band * rest, dtype=view.dtype)
    with np.errstate(all="ignore"):
        for first in range(0, rows, band):
            last = min(rows, first + band)
            window = view[(slice(None),) * lead + (slice(first, last),)]
            columns = buffer[:window.size].reshape(window.shape)
            np.copyto(columns, window)  # the copy, of this band only
            target = by_rows[:, :, :, first:last].reshape(batch, groups, out_per_group, (last - first) * rest)
            np.matmul(matrix, columns.reshape(batch, groups, depth, (last - first) * rest), out=target)
    return result.astype(dtype, copy=False)  # an array of its own (base None): later steps may write over it


def convolve_shifted(
    data: np.ndarray,
    weights: np.ndarray,
    dilations: Sequence[int],
    pads_begin: Sequence[int],
    out_spatial: Sequence[int],
) -> np.ndarray | None:
    """The forward grouped convolution with unit strides as one batched matmul of every tap's weights with
    the data as they are, ``(taps * out per group, in per group) @ (in per group, positions)``, then one
    shifted add per tap into the output. It moves ``taps * out channels`` values per position where the
    window copy of ``convolve_windows`` moves ``taps * in channels``: the cheaper one when a convolution
    has fewer output than input channels (DenseNet's 3x3 layers: 128 in, 32 out). None when the
    per-tap products would be large (see ``WINDOW_COPY_LIMIT``)."""
    batch, channels = data.shape[:2]
    groups, out_per_group, in_per_group = weights.shape[:3]
    kernel = weights.shape[3:]
    in_spatial = data.shape[2:]
    taps, positions = math.prod(kernel), math.prod(in_spatial)
    outputs = batch * groups * out_per_group * math.prod(out_spatial)
    if batch * groups * taps * out_per_group * positions > max(WINDOW_COPY_LIMIT,
                                                                WINDOW_COPY_FACTOR * (data.size + outputs)):
        return None
    dtype = data.dtype
    source = widen(data)
    compute = source.dtype
    stacked = widen(weights).astype(compute, copy=False).reshape(groups, out_per_group, in_per_group, taps)
    matrix = np.moveaxis(stacked, 3, 1).reshape(groups, taps * out_per_group, in_per_group)
    with np.errstate(all="ignore"):
        products = np.matmul(matrix, source.reshape(batch, groups, in_per_group, positions))
        products = products.reshape(batch, groups, *kernel, out_per_group, *in_spatial)
        result = np.zeros((batch, groups, out_per_group, *out_spatial), dtype=compute)
        per_axis = [spatial.live_taps(kernel[axis], dilations[axis], in_spatial[axis], out_spatial[axis], 1,
                                      pads_begin[axis]) for axis in range(len(kernel))]
        every = (slice(None),) * 3
        for combination in itertools.product(*per_axis):
            tap = tuple(t[0] for t in combination)
            target = every + tuple(t[1] for t in combination)
            result[target] += products[(slice(None), slice(None), *tap, slice(None), *(t[2] for t in combination))]
    return result.reshape(batch, groups * out_per_group, *out_spatial).astype(dtype, copy=False)


def convolve_flat(
    data: np.ndarray,
    weights: np.ndarray,
    dilations: Sequence[int],
    pads_begin: Sequence[int],
    out_spatial: Sequence[int],
) -> np.ndarray | None:
    """The forward grouped convolution with unit strides as one batched matmul over columns copied from the
    flattened padded data. Positions are numbered over the padded extent's rows (every column of a row,
    ``extent[1:]`` wide, not only the ``out_spatial[1:]`` an output has): then tap ``t`` of position ``p``
    reads flat element ``p + offset(t)``, each tap's window is one contiguous run of the flat data, and the
    columns beyond the output's width are cut from the product. Worth it for depthwise layers, whose products
    are trivial next to the copy: ShuffleNet's 3x3 layers on 7x7 to 28x28 planes ran 5-45 % faster than
    ``convolve_windows``, whose copies move rows only 7-28 long. None when the columns would be large (see
    ``WINDOW_COPY_LIMIT``)."""
    batch, channels = data.shape[:2]
    groups, out_per_group, in_per_group = weights.shape[:3]
    kernel = weights.shape[3:]
    in_spatial = data.shape[2:]
    taps = math.prod(kernel)
    extent = [o + (k - 1) * d for o, k, d in zip(out_spatial, kernel, dilations, strict=True)]
    pitch = [math.prod(extent[axis + 1:]) for axis in range(len(extent))]
    length = out_spatial[0] * pitch[0]
    # The last taps of the last row read past the extent by their offset along the later axes: zeros there.
    tail = sum((k - 1) * d * p for k, d, p in zip(kernel[1:], dilations[1:], pitch[1:], strict=True))
    outputs = batch * groups * out_per_group * math.prod(out_spatial)
    if batch * channels * taps * length > max(WINDOW_COPY_LIMIT, WINDOW_COPY_FACTOR * (data.size + outputs)):
        return None
    dtype = data.dtype
    source = widen(data)
    compute = source.dtype
    matrix = widen(weights).astype(compute, copy=False).reshape(groups, out_per_group, in_per_group * taps)
    flat = np.zeros((batch, channels, math.prod(extent) + tail), dtype=compute)
    window = flat[:, :, :math.prod(extent)].reshape(batch, channels, *extent)
    inner = tuple(slice(p, min(p + n, e)) for p, n, e in zip(pads_begin, in_spatial, extent, strict=True))
    copied = tuple(slice(0, max(0, piece.stop - piece.start)) for piece in inner)
    window[(slice(None), slice(None), *inner)] = source[(slice(None), slice(None), *copied)]
    step = flat.strides[2]
    view = np.lib.stride_tricks.as_strided(
        flat,
        shape=(batch, channels, *kernel, length),
        strides=(*flat.strides[:2], *(d * p * step for d, p in zip(dilations, pitch, strict=True)), step),
        writeable=False,
    )
    with np.errstate(all="ignore"):
        product = np.matmul(matrix, view.reshape(batch, groups, in_per_group * taps, length))  # the copy
    rows = product.reshape(batch, groups * out_per_group, out_spatial[0], *extent[1:])
    result = np.empty((batch, groups * out_per_group, *out_spatial), dtype=dtype)
    np.copyto(result, rows[(slice(None),) * 3 + tuple(slice(0, o) for o in out_spatial[1:])], casting="unsafe")
    return result  # an array of its own (base None): later steps may write over it


def _finish(result: np.ndarray, batch: int, channels: int, out_spatial: Sequence[int], dtype: np.dtype) -> np.ndarray:
    """(G, Co, N, *O) -> (N, G*Co, *O) in the output dtype, contiguous."""
    moved = np.moveaxis(result.reshape(channels, batch, *out_spatial), 1, 0)
    return np.ascontiguousarray(moved.astype(dtype, copy=False))


def bound_windows(
    data_shape: tuple[int, ...],
    dtype: np.dtype,
    weights: np.ndarray,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads_begin: Sequence[int],
    out_spatial: Sequence[int],
) -> Callable[[np.ndarray], np.ndarray] | None:
    """:func:`convolve_windows` of f32 or f64 data of ``data_shape`` with the constant ``weights`` (G, Co, Ci, *K)
    as a function of the data, its geometry worked out once (a layer of static shapes calls it every run), for
    the layers whose windows it copies in one band (``_windows_by_rows``) and the 1x1 ones it multiplies as they
    are: the same products of the same arrays. None for the others (and data not laid out in C order gets
    :func:`convolve_windows` itself). Float warnings are the caller's to silence."""
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)) or weights.dtype != dtype:
        return None
    batch, channels = data_shape[:2]
    groups, out_per_group, in_per_group = weights.shape[:3]
    kernel = weights.shape[3:]
    in_spatial = data_shape[2:]
    positions, taps = math.prod(out_spatial), math.prod(kernel)
    if 0 in data_shape or positions == 0 or weights.size == 0:
        return None
    extent = [(o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out_spatial, strides, kernel, dilations, strict=True)]
    padded = any(p > 0 for p in pads_begin) or any(e > p + n for e, p, n in zip(extent, pads_begin, in_spatial,
                                                                                 strict=True))
    size = math.prod(data_shape)
    budget = max(WINDOW_COPY_LIMIT, WINDOW_COPY_FACTOR * (size + batch * groups * out_per_group * positions))
    if batch * channels * taps * positions > budget or (padded and batch * channels * math.prod(extent) > budget):
        return None
    matrix = weights.reshape(groups, out_per_group, in_per_group * taps)
    out_shape = (batch, groups * out_per_group, *out_spatial)
    product_shape = (batch, groups, out_per_group, positions)
    if taps == 1 and not padded and all(s == 1 for s in strides):
        columns_shape = (batch, groups, in_per_group, positions)

        def pointwise(data: np.ndarray) -> np.ndarray:
            result = np.empty(out_shape, dtype)
            np.matmul(matrix, data.reshape(columns_shape), out=result.reshape(product_shape))
            return result

        return pointwise
    rows, rest = out_spatial[0], math.prod(out_spatial[1:])
    band_budget = max(COLUMN_CHUNK, size + batch * groups * out_per_group * rows * rest)
    band = band_budget // max(1, batch * groups * in_per_group * taps * rest)
    if max(1, min(rows, max(band, -(-BAND_POSITIONS // rest)))) < rows:
        return None  # several bands: _windows_by_rows
    source_shape = (batch, channels, *extent) if padded else data_shape
    item = dtype.itemsize
    steps = [item * math.prod(source_shape[axis + 1:]) for axis in range(len(source_shape))]
    view_shape = (batch, channels, *kernel, *out_spatial)
    view_strides = (steps[0], steps[1], *(t * d for t, d in zip(steps[2:], dilations, strict=True)),
                    *(t * s for t, s in zip(steps[2:], strides, strict=True)))
    columns_shape = (batch, groups, in_per_group * taps, positions)
    inner = (slice(None), slice(None), *(slice(p, min(p + n, e)) for p, n, e in zip(pads_begin, in_spatial, extent,
                                                                                    strict=True)))
    copied = (slice(None), slice(None), *(slice(0, max(0, piece.stop - piece.start)) for piece in inner[2:]))
    general = (weights, strides, dilations, pads_begin, out_spatial)

    def windows(data: np.ndarray) -> np.ndarray:
        if padded:
            source = np.zeros(source_shape, dtype)
            source[inner] = data[copied]
        elif data.flags.c_contiguous:
            source = data
        else:
            return convolve_windows(data, *general)  # type: ignore[return-value]  # not None: checked above
        view = np.ndarray(view_shape, dtype, source, 0, view_strides)
        result = np.empty(out_shape, dtype)
        np.matmul(matrix, view.reshape(columns_shape), out=result.reshape(product_shape))
        return result

    return windows
