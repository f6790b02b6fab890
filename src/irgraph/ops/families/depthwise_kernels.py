"""Depthwise convolutions (one input channel per group), bound at plan time: ShuffleNet's and MobileNet's 3x3 and
5x5 layers, of any strides and dilations.

A depthwise layer's products are trivial (each output sums ``taps`` products); its cost is moving the data. Layers
of one output per channel (``_by_phases``) sum the taps' products over views of the data, all channels at once,
with no window copy and no product of tiny matrices:

- the data are copied once, channels last, into a zeroed buffer of the padded extent split into its stride
  phases (an axis of stride 2 is two interleaved halves), so that every tap reads a unit-stride view of one
  phase, for any stride and dilation (tap ``i`` of output ``o`` reads padded position ``o * s + i * d``:
  phase ``(i * d) % s``, offset ``(i * d) // s``);
- the taps that read one phase, at regular offsets, are one strided view ``(taps..., rows..., columns x
  channels)``: the last output axis and the channels make one contiguous run, and the weights, tiled along
  that run at plan time, match it element for element;
- ``np.einsum`` sums each such view's products with its weights in one call (NumPy's sum-of-products loop:
  the products of the taps, in row-major order, added one tap after the other: the bits of a multiply and an
  add per tap, the loop being NumPy's baseline SIMD, which on x86-64 has no fused multiply-add, whatever the
  CPU), the phases' partial sums are added in phase order, and the sum, channels last, is copied into the
  output in NCHW order.

Each output is then the kernel's taps' products summed in a fixed order, one rounding per product and per sum:
within the Convolution tolerance of any other order (docs/tolerances.md), and exact on exact sums.
``forward`` takes the same kernel for f32 and f64 depthwise layers when no plan binds it, so a run gives the same
bits with and without the fast paths.

Layers of several outputs per channel and unit strides keep the earlier kernels (measured faster for them: 4
channels x 8 outputs at 56x56, 43 against 279 us; the phase buffer would hold every input M times), which are
:func:`irgraph.ops.families.convolution_kernels.convolve_flat`'s with the geometry worked out once per layer: the
data go into one flat buffer per channel, laid out so that every kernel tap reads one contiguous run of it; those
runs, copied, are the columns ``(groups, taps, positions)`` of one batched product with the weights ``(groups,
multiplier, taps)``: ``_same_width`` for a 1-D or 2-D layer whose output is as wide as its data (rows unpadded,
the product written straight into the output, the entries a tap reads across a row's end zeroed), ``_padded_rows``
for the others (positions numbered over the padded rows, the columns past an output row's end cut in the copy to
the output). Their outputs are BLAS's dots of the same terms, within a few ULPs of the other kernels. Strides
above 1 with several outputs per channel are left to ``bound_windows``.

Measured per layer (ShuffleNet v1's and MobileNet-v3-small's depthwise layers, f32, batch 1, 2026-11-27, load
2.5 on 2 cores, medians): 2-5x faster than the earlier kernels (batched products of copied columns for unit
strides, ``bound_windows``' window copy for strides 2): 136x28x28 3x3 550 -> 275 us, 544x7x7 3x3 130 -> 60 us,
240x14x14 5x5 850 -> 200 us, 576x7x7 5x5 680 -> 130 us, 288x14x14 5x5 stride 2 380 -> 115 us; the stride-2 layers
of large planes (16x112x112, 72x56x56, 112x56x56) about the same. Measured and not kept: the same sums as one
multiply and one add per tap (NumPy passes: 1.2-2x slower than ``einsum``'s one call, the calls' overhead
dominating on 7x7 and 14x14 planes), the same in NCHW order over the padded rows (rows 7-28 long: slower still),
``einsum`` writing into the output's NCHW order (its loops then run along the short rows: 1.5-3x slower),
``einsum`` in NCHW order over flat padded rows (the taps become the inner loop: 4-10x slower, with the weights
broadcast along the rows as well), and zeroing only the padding instead of the whole buffer (no faster); for the
earlier kernels' own measurements see benchmarks/RESULTS.md (branch h-perf-group).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import product
from string import ascii_lowercase
from typing import Any

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
    (G, M, 1, *K), G the data's channels, as a function of the data (see the module docstring); None for other
    layers (more than one input channel per group, other dtypes, empty tensors, a single tap, several outputs per
    channel with strides above 1, or a phase buffer or columns too large: see ``WINDOW_COPY_LIMIT``). Float
    warnings are the caller's to silence."""
    dtype = np.dtype(dtype)
    if dtype not in _FLOATS or weights.dtype != dtype or len(data_shape) < 3 or \
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
    extent = [(o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out_spatial, strides, kernel, dilations, strict=True)]
    phases = [-(-e // s) for e, s in zip(extent, strides, strict=True)]
    outputs = batch * groups * multiplier * math.prod(out_spatial)
    budget = max(WINDOW_COPY_LIMIT, WINDOW_COPY_FACTOR * (math.prod(data_shape) + outputs))
    if multiplier == 1:
        buffered = batch * math.prod(strides) * math.prod(phases) * channels + taps * out_spatial[-1] * channels
        return None if buffered > budget else _by_phases(data_shape, dtype, weights.reshape(channels, *kernel),
                                                         strides, dilations, pads_begin, out_spatial)
    if any(s != 1 for s in strides):
        return None
    # The columns hold at most one padded row per output row more than the output.
    length = out_spatial[0] * math.prod(extent[1:])
    if batch * channels * taps * length > budget:
        return None
    matrix = np.ascontiguousarray(weights.reshape(groups, multiplier, taps))
    same_width = len(kernel) <= 2 and out_spatial[-1] == in_spatial[-1]
    return (_same_width if same_width else _padded_rows)(data_shape, dtype, matrix, kernel, dilations, pads_begin,
                                                         out_spatial)


def _by_phases(data_shape: tuple[int, ...], dtype: np.dtype, kernel: np.ndarray, strides: Sequence[int],
               dilations: Sequence[int], pads_begin: Sequence[int], out_spatial: Sequence[int],
               ) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`bound_depthwise` of one output per channel, ``kernel`` (channels, *K): the phase buffer's copies, the
    taps' views grouped by phase with their tiled weights, and the sum (see the module docstring)."""
    batch, channels, *in_spatial = data_shape
    sizes = kernel.shape[1:]
    count = len(sizes)
    extent = [(o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out_spatial, strides, sizes, dilations, strict=True)]
    phase_extent = [-(-e // s) for e, s in zip(extent, strides, strict=True)]
    buffer_shape = (batch, *strides, *phase_extent, channels)
    item = dtype.itemsize
    pitch = [item * math.prod(buffer_shape[axis + 1:]) for axis in range(len(buffer_shape))]
    phase_pitch, position_pitch = pitch[1:1 + count], pitch[1 + count:1 + 2 * count]

    # The copies into the phases: along each axis, phase b holds the data positions y with (y + pad) % s == b.
    per_axis = []
    for n, s, p, e in zip(in_spatial, strides, pads_begin, extent, strict=True):
        pieces = []
        for phase in range(s):
            first = (phase - p) % s
            held = len(range(first, min(n, e - p), s))
            if held:
                start = (first + p) // s
                pieces.append((phase, slice(start, start + held), slice(first, first + (held - 1) * s + 1, s)))
        per_axis.append(pieces)
    copies: list[tuple[tuple[Any, ...], tuple[slice, ...]]] = []  # (where in the buffer, what of the data)
    for combined in product(*per_axis):
        target = (slice(None), *(phase for phase, _, _ in combined), *(held for _, held, _ in combined), slice(None))
        copies.append((target, (slice(None), slice(None), *(source for _, _, source in combined))))

    # The taps reading one phase: along each axis, every step-th tap from a first one.
    steps = [s // math.gcd(s, d) for s, d in zip(strides, dilations, strict=True)]
    run = out_spatial[-1] * channels
    letters = ascii_lowercase[:count], ascii_lowercase[count:2 * count - 1]
    subscripts = f"z{letters[0]}{letters[1]}y,{letters[0]}y->z{letters[1]}y"
    views = []
    for firsts in product(*(range(min(step, k)) for step, k in zip(steps, sizes, strict=True))):
        picked = tuple(range(first, k, step) for first, k, step in zip(firsts, sizes, steps, strict=True))
        offset = sum(pp * ((f * d) % s) + qp * ((f * d) // s) for pp, qp, f, d, s in zip(
            phase_pitch, position_pitch, firsts, dilations, strides, strict=True))
        shape = (batch, *(len(p) for p in picked), *out_spatial[:-1], run)
        view_strides = (pitch[0], *(qp * (step * d // s) for qp, step, d, s in zip(position_pitch, steps, dilations,
                                                                                    strides, strict=True)),
                        *position_pitch[:-1], item)
        picked_weights = kernel[np.ix_(list(range(channels)), *(list(p) for p in picked))]
        # (taps..., channels) repeated along the last output axis: a weight for each element of the view's runs
        by_tap = np.moveaxis(picked_weights, 0, -1)[..., None, :]
        tiled = np.ascontiguousarray(np.broadcast_to(by_tap, (*by_tap.shape[:-2], out_spatial[-1], channels)))
        views.append((offset, shape, view_strides, tiled.reshape(*tiled.shape[:-2], run)))
    sum_shape = (batch, *out_spatial, channels)
    order = (0, count + 1, *range(1, count + 1))  # channels last -> NCHW
    out_shape = (batch, channels, *out_spatial)

    def depthwise(data: np.ndarray) -> np.ndarray:
        buffer = np.zeros(buffer_shape, dtype)
        for target, source in copies:
            buffer[target] = np.moveaxis(data[source], 1, -1)
        sums = (np.einsum(subscripts, np.ndarray(shape, dtype, buffer, offset, view_strides), weights)
                for offset, shape, view_strides, weights in views)
        total = next(sums)
        for later in sums:  # the phases' sums added in order
            np.add(total, later, out=total)
        result = np.empty(out_shape, dtype)
        np.copyto(result, total.reshape(sum_shape).transpose(order))
        return result  # an array of its own (base None): later steps may write over it

    return depthwise


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
