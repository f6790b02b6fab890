"""Convolutions: Convolution, GroupConvolution and their backprop-data (transposed) forms.

All four take ``strides``, ``dilations``, ``pads_begin``, ``pads_end`` and ``auto_pad``; an empty
list means ones (strides, dilations) or zeros (pads), as in OpenVINO. Shapes follow OpenVINO
2026.4.1's convolution shape inference (see ``irgraph.ops.families.spatial``), messages too.

A forward convolution is one batched matrix product (``convolve_windows``): the windows of the
(padded) data, a strided view, are copied once into columns ``(batch, groups, in per group * taps,
positions)`` and multiplied by the weights ``(groups, out per group, in per group * taps)``, which
writes the output in its final layout; a 1x1 convolution with unit strides and no padding multiplies
the data itself. With unit strides and at most half as many output as input channels, the data are
multiplied as they are by every tap's weights at once and each tap's product is added, shifted, into
the output (``convolve_shifted``), which moves fewer values than the window copy. When the columns
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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import ml_dtypes
import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.families import spatial
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check

CONVOLUTION_TOLERANCE = Tolerance(ulp=1, sum_eps=16)
"""Sums of products: 1 ULP (f16/bf16 rounding once from f32) or 16 eps of the sum of the absolute
products (OpenVINO's CPU plugin sums in another order, by blocks and vectors)."""

_WIDENED = {np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)}


def check_types(data: ElementType, filters: ElementType) -> ElementType:
    """The merged element type of data and filters; OpenVINO's messages when they differ or are not numeric."""
    merged = data.merge(filters)
    if merged is None:
        raise OpError(f"Element types for data batch and filters do not match (data batch element type: {data}, "
                      f"filters element type: {filters}).")
    check(merged.is_dynamic or merged.is_real or merged.is_integral, f"Element types must be numeric. Got: {merged}")
    return merged


def widen(array: np.ndarray) -> np.ndarray:
    """f16 and bf16 as f32 (OpenVINO computes them through float); other dtypes unchanged."""
    return array.astype(np.float32) if array.dtype in _WIDENED else array


@dataclass(frozen=True)
class ConvolutionFamily(Op):
    """Attributes, checks and the kernel-tap loop shared by the four convolutions.

    Members set ``filter_prefix`` (the non-spatial dims of the filters: 2, or 3 with groups).
    """

    inputs = Inputs.of(InputSpec("data"), InputSpec("filters"))
    tolerance = CONVOLUTION_TOLERANCE
    filter_prefix: ClassVar[int] = 2

    strides: tuple[int, ...] = attribute(())
    dilations: tuple[int, ...] = attribute(())
    pads_begin: tuple[int, ...] = attribute(())
    pads_end: tuple[int, ...] = attribute(())
    auto_pad: str = attribute("explicit")

    def __post_init__(self) -> None:
        object.__setattr__(self, "auto_pad", spatial.check_auto_pad(self.auto_pad))
        spatial.check_positive(self.strides, "Strides has zero dimension(s). Strides")
        spatial.check_positive(self.dilations, "Filter dilations has zero dimension(s). Strides")
        check(
            all(p >= 0 for p in (*self.pads_begin, *self.pads_end)),
            "Pads must not be negative (OpenVINO 2026.4.1 turns a total of -1 into a dynamic dim and its CPU plugin "
            f"refuses them). Got: pads_begin {list(self.pads_begin)}, pads_end {list(self.pads_end)}",
        )

    # ---------------------------------------------------------------- attributes per spatial rank
    def spatial_count(self, data: Shape, filters: Shape) -> int | None:
        """The number of spatial dims: from the data rank, else the filters rank, else the attributes."""
        if not data.rank_is_dynamic:
            return data.rank - 2
        if not filters.rank_is_dynamic:
            return filters.rank - self.filter_prefix
        for values in (self.strides, self.dilations, self.pads_begin, self.pads_end):
            if values:
                return len(values)
        return None

    def resolved(self, count: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """strides, dilations, pads_begin, pads_end for ``count`` spatial dims (empty lists filled);
        OpenVINO's messages when a list has another length."""
        strides = self.strides or (1,) * count
        dilations = self.dilations or (1,) * count
        begin = self.pads_begin or (0,) * count
        end = self.pads_end or (0,) * count
        check(len(strides) == count, "Strides should be defined for all and only spatial dimensions.")
        check(len(dilations) == count, "Dilations should be defined for all and only spatial dimensions.")
        check(len(begin) == count and len(end) == count,
              "Pads begin and end should be defined for all and only spatial dimensions.")
        if self.auto_pad == "valid":
            begin = end = (0,) * count
        return strides, dilations, begin, end

    def check_ranks(self, data: Shape, filters: Shape, count: int) -> None:
        """Data of rank 3..5 and filters of the matching rank."""
        if not data.rank_is_dynamic:
            check(data.rank in (3, 4, 5), f"Expected a 3D, 4D or 5D tensor for the input. Got: {data}")
        if not filters.rank_is_dynamic:
            check(filters.rank == count + self.filter_prefix,
                  f"Data batch and filters rank do not match (data batch shape: {data}, filters shape: {filters}).")

    # ---------------------------------------------------------------- forward spatial dims
    def forward_spatial(self, data: Shape, filters: Shape, count: int) -> tuple[Dim, ...]:
        """Output spatial dims of a forward convolution (OpenVINO's ``append_spatial_shape``)."""
        strides, dilations, begin, end = self.resolved(count)
        data_dims = tuple(data)[2:] if not data.rank_is_dynamic else (Dim.dynamic(),) * count
        kernel_dims = tuple(filters)[self.filter_prefix:] if not filters.rank_is_dynamic else (Dim.dynamic(),) * count
        dims = []
        for axis in range(count):
            if self.auto_pad in spatial.SAME:
                dims.append(data_dims[axis].ceil_div(strides[axis]))
                continue
            padded = data_dims[axis].shifted(begin[axis] + end[axis])
            window = spatial.dilated(kernel_dims[axis], dilations[axis])
            if padded.is_static and window.is_static:
                check(window.value <= padded.value,
                      f"Kernel after dilation has size (dim: {window.value}) larger than the data shape after "
                      f"padding (dim: {padded.value}) at axis {axis}.")
            dims.append((padded - window).floor_div(strides[axis]) + 1)
        return tuple(dims)

    def forward_pads(self, data: Sequence[int], kernel: Sequence[int]) -> tuple[list[int], list[int]]:
        """pads_begin, pads_end for static data and kernel spatial sizes (auto_pad applied)."""
        strides, dilations, begin, end = self.resolved(len(data))
        if self.auto_pad not in spatial.SAME:
            return list(begin), list(end)
        pairs = [spatial.same_padding(size, k, d, s, self.auto_pad == "same_upper")
                 for size, k, d, s in zip(data, kernel, dilations, strides, strict=True)]
        return [p[0] for p in pairs], [p[1] for p in pairs]

    # ---------------------------------------------------------------- evaluation
    def check_arrays(self, data: np.ndarray, filters: np.ndarray) -> ElementType:
        """Run-time checks of the arrays (the same rules as ``infer``)."""
        element_type = check_types(ElementType.from_numpy(data.dtype), ElementType.from_numpy(filters.dtype))
        count = data.ndim - 2
        self.check_ranks(Shape.static(data.shape), Shape.static(filters.shape), count)
        self.resolved(count)
        return element_type


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
    with np.errstate(all="ignore"):
        for first in range(0, rows, band):
            last = min(rows, first + band)
            columns = view[(slice(None),) * lead + (slice(first, last),)].reshape(
                batch, groups, depth, (last - first) * rest)  # the copy, of this band only
            target = by_rows[:, :, :, first:last].reshape(batch, groups, out_per_group, (last - first) * rest)
            np.matmul(matrix, columns, out=target)
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


def _finish(result: np.ndarray, batch: int, channels: int, out_spatial: Sequence[int], dtype: np.dtype) -> np.ndarray:
    """(G, Co, N, *O) -> (N, G*Co, *O) in the output dtype, contiguous."""
    moved = np.moveaxis(result.reshape(channels, batch, *out_spatial), 1, 0)
    return np.ascontiguousarray(moved.astype(dtype, copy=False))


def group_count(channels: Dim, groups: Dim, in_per_group: Dim) -> Dim:
    """The number of groups of a GroupConvolution: the filters' first dim, merged with data channels /
    filter input channels; OpenVINO's message when they cannot agree."""
    message = "Input channels dimension of data batch is incompatible with filter groups or input channels."
    if not in_per_group.is_static:
        return groups
    size = in_per_group.value
    if size == 0:  # OpenVINO 2026.4.1 refuses it against static channels only
        check(not channels.is_static, message)
        return groups
    try:
        derived = channels.divided(size)
    except ValueError:  # no group count fits (7..11 by 6)
        raise OpError(message) from None
    merged = groups.merge(derived)
    check(merged is not None, message)
    return merged  # type: ignore[return-value]


_CHECKED_SHAPES: dict[tuple, tuple[int, ...]] = {}
"""(op, data shape, filters shape, dtypes) -> output shape, for inputs that passed the op's checks."""
_CHECKED_SHAPES_LIMIT = 4096


@dataclass(frozen=True)
class ForwardConvolution(ConvolutionFamily):
    """Convolution and GroupConvolution: shapes and evaluation of the forward pass."""

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Batch from the data, channels from the filters, spatial dims by OpenVINO's rule."""
        data, filters = inputs[0].shape, inputs[1].shape
        element_type = check_types(inputs[0].element_type, inputs[1].element_type)
        count = self.spatial_count(data, filters)
        if count is None:
            return [TensorType(element_type, DYNAMIC_RANK)]
        self.check_ranks(data, filters, count)
        self.resolved(count)
        batch = data[0] if not data.rank_is_dynamic else Dim.dynamic()
        channels = data[1] if not data.rank_is_dynamic else Dim.dynamic()
        prefix = tuple(filters)[: self.filter_prefix] if not filters.rank_is_dynamic else None
        out_channels = self.output_channels(channels, prefix)
        return [TensorType(element_type, Shape((batch, out_channels, *self.forward_spatial(data, filters, count))))]

    def output_channels(self, channels: Dim, prefix: tuple[Dim, ...] | None) -> Dim:
        """Output channels from the data channels and the filters' non-spatial dims (None: unknown)."""
        raise NotImplementedError

    def grouped_weights(self, filters: np.ndarray) -> np.ndarray:
        """The filters as (groups, out per group, in per group, *kernel)."""
        raise NotImplementedError

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The output shape from the input shapes alone (nothing allocated); remembered per op, shapes and
        dtypes, since a network asks it of each layer on every run."""
        data, filters = inputs
        key = (self, data.shape, filters.shape, data.dtype, filters.dtype)
        shape = _CHECKED_SHAPES.get(key)
        if shape is None:
            types = [TensorType(ElementType.from_numpy(x.dtype), Shape.static(x.shape)) for x in (data, filters)]
            shape = self.infer(types, [None, None])[0].shape.to_tuple()
            if len(_CHECKED_SHAPES) >= _CHECKED_SHAPES_LIMIT:
                _CHECKED_SHAPES.clear()
            _CHECKED_SHAPES[key] = shape
        return [shape]

    def evaluate(self, inputs: Sequence[np.ndarray], out: Sequence[np.ndarray | None] = ()) -> list[np.ndarray]:
        """One batched matmul over the windows (or, for huge copies, one per kernel tap)."""
        data, filters = inputs
        if (self, data.shape, filters.shape, data.dtype, filters.dtype) not in _CHECKED_SHAPES:
            self.check_arrays(data, filters)  # else checked already: infer makes the same checks
        (shape,) = self.output_shapes(inputs)
        weights = self.grouped_weights(filters)
        strides, dilations, _, _ = self.resolved(data.ndim - 2)
        begin, _ = self.forward_pads(data.shape[2:], weights.shape[3:])
        if 0 not in shape and 0 not in data.shape and 0 not in weights.shape:
            result = None
            if all(s == 1 for s in strides) and math.prod(weights.shape[3:]) > 1 \
                    and 2 * weights.shape[1] <= weights.shape[2]:  # half the output channels or fewer: shift
                result = convolve_shifted(data, weights, dilations, begin, shape[2:])
            if result is None:
                result = convolve_windows(data, weights, strides, dilations, begin, shape[2:])
            if result is not None:
                return [result]
        return [convolve_taps(data, weights, strides, dilations, begin, shape[2:])]


@dataclass(frozen=True)
class BackpropConvolution(ConvolutionFamily):
    """ConvolutionBackpropData and GroupConvolutionBackpropData: the transposed (scatter) convolution.

    Data position ``i`` and tap ``k`` feed output position ``i * stride + k * dilation - pad_begin``.
    Without the optional ``output_shape`` input the output spatial size is
    ``(in - 1) * stride + (K - 1) * dilation + 1 + output_padding - pads_begin - pads_end`` (auto_pad
    same_* and valid zero the pads; a negative size is a dynamic dim in OpenVINO, refused at run
    time). With it, the size is given and same_* pads split ``(in - 1) * stride + (K - 1) * dilation + 1
    - out + output_padding`` with the odd unit at the start for same_upper (OpenVINO's backprop rule).
    """

    inputs = Inputs(fixed=(InputSpec("data"), InputSpec("filters"), InputSpec("output_shape")),
                    minimum=2)

    output_padding: tuple[int, ...] = attribute(())

    def __post_init__(self) -> None:
        object.__setattr__(self, "auto_pad", spatial.check_auto_pad(self.auto_pad))
        spatial.check_positive(self.strides, "Strides has zero dimension(s). Strides")
        spatial.check_positive(self.dilations, "Filter dilations has zero dimension(s). Strides")

    def padding_for(self, count: int) -> tuple[int, ...]:
        """output_padding for ``count`` spatial dims; OpenVINO's message for another length."""
        padding = self.output_padding or (0,) * count
        check(len(padding) == count, "Output padding should be defined for all and only spatial dimensions.")
        return padding

    def in_out_channels(self, channels: Dim, prefix: tuple[Dim, ...] | None) -> Dim:
        """Output channels from the data channels and the filters' non-spatial dims."""
        raise NotImplementedError

    def grouped_weights(self, filters: np.ndarray) -> np.ndarray:
        """The filters as (groups, out per group, in per group, *kernel)."""
        raise NotImplementedError

    def output_shape_dims(self, tensor: TensorType | None, value: np.ndarray | None) -> list[Dim] | None:
        """The spatial dims given by the ``output_shape`` input (None without it); its checks."""
        if tensor is None:
            return None
        check(tensor.element_type.is_dynamic or tensor.element_type.is_integral,
              f"Element type for output shape should be of integer type (output_shape element type: "
              f"{tensor.element_type}).")
        check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 1, "Input delivering output shape must have rank 1.")
        if value is not None:
            sizes = [int(v) for v in np.asarray(value).reshape(-1).tolist()]
            check(all(s >= 0 for s in sizes), f"Output shape must not be negative. Got: {sizes}")
            return [Dim.static(s) for s in sizes]
        if tensor.shape.rank_is_dynamic or not tensor.shape[0].is_static:
            return []  # unknown length
        return [Dim.dynamic()] * tensor.shape[0].value

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """OpenVINO's backprop shape rule."""
        data, filters = inputs[0].shape, inputs[1].shape
        merged = inputs[0].element_type.merge(inputs[1].element_type)
        if merged is None:
            raise OpError(f"Element types for data batch and filters do not match (data batch element type: "
                          f"{inputs[0].element_type}, filters element type: {inputs[1].element_type}).")
        check(merged.is_dynamic or merged.is_real or merged.is_integral,
              f"Element type of inputs must be numeric. Got: {merged}")
        given = self.output_shape_dims(inputs[2] if len(inputs) > 2 else None, values[2] if len(values) > 2 else None)
        count = self.spatial_count(data, filters)
        if count is None and given:
            count = len(given)
        if count is None:
            return [TensorType(merged, DYNAMIC_RANK)]
        self.check_ranks(data, filters, count)
        strides, dilations, begin, end = self.resolved(count)
        padding = self.padding_for(count)
        batch = data[0] if not data.rank_is_dynamic else Dim.dynamic()
        channels = data[1] if not data.rank_is_dynamic else Dim.dynamic()
        prefix = tuple(filters)[: self.filter_prefix] if not filters.rank_is_dynamic else None
        out_channels = self.in_out_channels(channels, prefix)
        if given is not None:
            if given or not (len(inputs) > 2 and inputs[2].shape.rank_is_dynamic):
                check(len(given) == count, "Output shape should be defined for all and only spatial dimensions.")
                return [TensorType(merged, Shape((batch, out_channels, *given)))]
            return [TensorType(merged, Shape((batch, out_channels, *(Dim.dynamic(),) * count)))]
        if self.auto_pad in spatial.SAME:
            begin = end = (0,) * count
        data_dims = tuple(data)[2:] if not data.rank_is_dynamic else (Dim.dynamic(),) * count
        kernel_dims = tuple(filters)[self.filter_prefix:] if not filters.rank_is_dynamic else (Dim.dynamic(),) * count
        dims = []
        for axis in range(count):
            total = (data_dims[axis] - 1) * strides[axis] + spatial.dilated(kernel_dims[axis], dilations[axis])
            dims.append(total.padded(padding[axis] - begin[axis] - end[axis]))
        return [TensorType(merged, Shape((batch, out_channels, *dims)))]

    def backprop_pads(self, data: Sequence[int], kernel: Sequence[int], out: Sequence[int], given: bool) -> list[int]:
        """pads_begin for the scatter (static sizes; auto_pad applied)."""
        count = len(data)
        strides, dilations, begin, _ = self.resolved(count)
        if self.auto_pad == "valid" or (self.auto_pad in spatial.SAME and not given):
            return [0] * count
        if self.auto_pad not in spatial.SAME:
            return list(begin)
        padding = self.padding_for(count)
        pads = []
        for axis in range(count):
            total = max(0, (data[axis] - 1) * strides[axis] + spatial.dilated(max(kernel[axis], 1), dilations[axis])
                        - out[axis] + padding[axis])
            pads.append(total - total // 2 if self.auto_pad == "same_upper" else total // 2)
        return pads

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The output shape from the input shapes and the output_shape values (nothing allocated)."""
        types = [TensorType(ElementType.from_numpy(x.dtype), Shape.static(x.shape)) for x in inputs]
        values = [None, None, *inputs[2:]]
        shape = self.infer(types, values)[0].shape
        check(shape.is_static, f"The output size is negative: {shape} (OpenVINO makes such a dim dynamic)")
        return [shape.to_tuple()]

    def evaluate(self, inputs: Sequence[np.ndarray], out: Sequence[np.ndarray | None] = ()) -> list[np.ndarray]:
        """One batched matmul per kernel tap, scattered into strided slices of the output."""
        data, filters = inputs[0], inputs[1]
        (shape,) = self.output_shapes(inputs)
        weights = self.grouped_weights(filters)
        strides, dilations, _, _ = self.resolved(data.ndim - 2)
        begin = self.backprop_pads(data.shape[2:], weights.shape[3:], shape[2:], len(inputs) > 2)
        return [convolve_taps(data, weights, strides, dilations, begin, shape[2:], transposed=True)]
