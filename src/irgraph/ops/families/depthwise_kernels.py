"""Depthwise convolutions (one input channel per group) with unit strides, bound at plan time: ShuffleNet's and
MobileNet's 3x3 layers.

A depthwise layer's products are trivial (each output sums ``taps`` products); its cost is moving the data. The
kernels here are :func:`irgraph.ops.families.convolution_kernels.convolve_flat`'s with the geometry worked out
once per layer of static shapes. The data go into one flat buffer per channel, laid out so that every kernel tap
reads one contiguous run of it; those runs, copied, are the columns ``(groups, taps, positions)`` of one batched
matrix product with the weights ``(groups, multiplier, taps)``:

- ``_same_width``: a 1-D or 2-D layer whose output is as wide as its data ("same" padding of the last axis:
  ShuffleNet's and MobileNet's 3x3 layers). The rows are kept unpadded, positions are numbered over the output
  itself and the product is written straight into it. A tap reading past a row's start or end reads the
  neighbouring row there instead of padding: those entries of the copied columns are zeroed;
- ``_padded_rows``, the others: positions are numbered over the padded extent's rows (every column of a row),
  tap ``t`` of position ``p`` reads flat element ``p + offset(t)``, and the columns past an output row's end
  are cut in the copy to the output (``convolve_flat``'s arrays and product).

Each output is BLAS's dot of length ``taps`` of the same terms in the kernel's row-major tap order, so the kernels
agree with the other convolution kernels within a few ULPs (BLAS may use other instructions for other column
counts) and exactly on exact sums. ``forward`` takes the same kernel for f32 and f64 depthwise layers when no plan
binds it, so a run gives the same bits with and without the fast paths. On ShuffleNet v1 (13 such layers, 7x7 to
28x28 planes, 136 to 544 channels) they take 4.3 ms a run against ``convolve_flat``'s 5.8 ms.

Measured and not kept (ShuffleNet v1 in the network, 2026-11-27, load 1.5-4 on 2 cores): a buffer kept per layer
is slower than a fresh one each run (malloc hands back memory another layer just freed, still in cache; a kept
buffer is evicted by the rest of the network between runs); the columns' product made in channel blocks that fit
the cache was no faster; summing the taps as element-wise multiply-adds (9 products and 8 sums over the output,
in NCHW or channels-last order) and products of banded (Toeplitz) weight matrices were slower; for strides above
1 a copy of the padded data split into stride phases, read at unit stride, was slower than ``bound_windows``'
window copy, which those layers keep.
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
    if dtype not in _FLOATS or weights.dtype != dtype or len(data_shape) < 3 or any(s != 1 for s in strides) or \
            any(p < 0 for p in pads_begin):  # the ops refuse negative pads; the geometry assumes none
        return None
    batch, channels = data_shape[:2]
    groups, multiplier, in_per_group = weights.shape[:3]
    kernel = weights.shape[3:]
    in_spatial = data_shape[2:]
    taps = math.prod(kernel)
    if in_per_group != 1 or channels != groups or taps < 2 or 0 in data_shape or 0 in out_spatial or \
            weights.size == 0 or len(kernel) != len(in_spatial):
        return None
    # The columns hold at most one padded row per output row more than the output: the budget of the window copies.
    extent = [o + (k - 1) * d for o, k, d in zip(out_spatial, kernel, dilations, strict=True)]
    length = out_spatial[0] * math.prod(extent[1:])
    outputs = batch * groups * multiplier * math.prod(out_spatial)
    if batch * channels * taps * length > max(WINDOW_COPY_LIMIT,
                                              WINDOW_COPY_FACTOR * (math.prod(data_shape) + outputs)):
        return None
    matrix = np.ascontiguousarray(weights.reshape(groups, multiplier, taps))
    same_width = len(kernel) <= 2 and out_spatial[-1] == in_spatial[-1]
    return (_same_width if same_width else _padded_rows)(data_shape, dtype, matrix, kernel, dilations, pads_begin,
                                                         out_spatial)


def _padded_rows(data_shape: tuple[int, ...], dtype: np.dtype, matrix: np.ndarray, kernel: Sequence[int],
                 dilations: Sequence[int], pads_begin: Sequence[int], out_spatial: Sequence[int],
                 ) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`bound_depthwise` over the padded data, positions numbered over the padded rows: the columns past an
    output row's end are cut in the copy to the output (``convolve_flat``'s arrays and product)."""
    batch, channels, *in_spatial = data_shape
    groups, multiplier, taps = matrix.shape
    extent = [o + (k - 1) * d for o, k, d in zip(out_spatial, kernel, dilations, strict=True)]
    pitch = [math.prod(extent[axis + 1:]) for axis in range(len(extent))]
    length = out_spatial[0] * pitch[0]
    # The last taps of the last row read past the extent by their offset along the later axes: zeros there.
    total = math.prod(extent) + sum((k - 1) * d * p for k, d, p in zip(kernel[1:], dilations[1:], pitch[1:],
                                                                       strict=True))
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


def _same_width(data_shape: tuple[int, ...], dtype: np.dtype, matrix: np.ndarray, kernel: Sequence[int],
                dilations: Sequence[int], pads_begin: Sequence[int], out_spatial: Sequence[int],
                ) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`bound_depthwise` of a 1-D or 2-D layer whose output is as wide as its data ("same" padding of the last
    axis, ShuffleNet's and MobileNet's 3x3 layers): the flat buffer holds the rows unpadded (only the earlier
    axis is padded, with whole rows of zeros), so positions are numbered over the output itself and the product
    is written straight into the output, with no columns to cut. A tap reading left of a row's start or right of
    its end then reads the neighbouring row's data instead of padding: those columns of the copied columns are
    zeroed (a few strided writes per kernel column), which gives every sum the terms it has with padding, in the
    same order, the padding's being zeros."""
    batch, channels, *in_spatial = data_shape
    groups, multiplier, taps = matrix.shape
    width = in_spatial[-1]
    one_row = (1, 1, 1, 1, 0)  # 1-D: one row, no row padding
    rows = (in_spatial[0], out_spatial[0], kernel[0], dilations[0], pads_begin[0]) if len(kernel) == 2 else one_row
    rows_in, rows_out, row_kernel, row_dilation, row_pad = rows
    row_extent = rows_out + (row_kernel - 1) * row_dilation
    margin = pads_begin[-1]  # zeros before the first row: position 0's leftmost tap reads there
    length = rows_out * width
    offsets_row, offsets_column = row_dilation * width, dilations[-1]
    last_tap = (row_kernel - 1) * offsets_row + (kernel[-1] - 1) * offsets_column
    total = max(margin + row_extent * width, last_tap + length)
    first_data = margin + row_pad * width
    data_rows = max(0, min(rows_in, row_extent - row_pad))
    item = dtype.itemsize
    view_shape = (batch, channels, row_kernel, kernel[-1], length)
    view_strides = (channels * total * item, total * item, offsets_row * item, offsets_column * item, item)
    columns_shape = (batch, groups, taps, length)
    # (kernel column, the output columns whose tap reads past a row's end, on the left or on the right)
    wrapped = []
    for column in range(kernel[-1]):
        shift = column * dilations[-1] - pads_begin[-1]
        if shift < 0:
            wrapped.append((column, slice(0, min(width, -shift))))
        elif shift > 0:
            wrapped.append((column, slice(max(0, width - shift), width)))
    out_shape = (batch, groups * multiplier, *out_spatial)
    product_shape = (batch, groups, multiplier, length)

    def depthwise(data: np.ndarray) -> np.ndarray:
        flat = np.empty((batch, channels, total), dtype)
        flat[:, :, :first_data] = 0
        flat[:, :, first_data + data_rows * width:] = 0
        flat[:, :, first_data:first_data + data_rows * width].reshape(batch, channels, data_rows, width)[...] = (
            data.reshape(batch, channels, rows_in, width)[:, :, :data_rows])
        columns = np.empty(columns_shape, dtype)
        # an explicit copy: the view may be one reshape can return as it is (its kernel axes can merge)
        np.copyto(columns.reshape(view_shape), np.ndarray(view_shape, dtype, flat, 0, view_strides))
        by_column = columns.reshape(batch, groups, row_kernel, kernel[-1], rows_out, width)
        for column, outputs in wrapped:
            by_column[:, :, :, column, :, outputs] = 0
        result = np.empty(out_shape, dtype)
        np.matmul(matrix, columns, out=result.reshape(product_shape))
        return result  # an array of its own (base None): later steps may write over it

    return depthwise
