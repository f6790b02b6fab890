"""Convolutions: Convolution, GroupConvolution and their backprop-data (transposed) forms.

All four take ``strides``, ``dilations``, ``pads_begin``, ``pads_end`` and ``auto_pad``; an empty
list means ones (strides, dilations) or zeros (pads), as in OpenVINO. Shapes follow OpenVINO
2026.4.1's convolution shape inference (see ``irgraph.ops.families.spatial``), messages too; ``infer``
is each op's one shape rule. The kernels evaluation runs are ``irgraph.ops.families.convolution_kernels``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.families import spatial
from irgraph.ops.families.convolution_kernels import (
    bound_windows,
    convolve_flat,
    convolve_shifted,
    convolve_taps,
    convolve_windows,
)
from irgraph.ops.families.depthwise_kernels import bound_depthwise
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check, checked
from irgraph.ops.traits import OpTraits

CONVOLUTION_TOLERANCE = Tolerance(ulp=1, sum_eps=16)
"""Sums of products: 1 ULP (f16/bf16 rounding once from f32) or 16 eps of the sum of the absolute
products (OpenVINO's CPU plugin sums in another order, by blocks and vectors)."""



def check_types(data: ElementType, filters: ElementType) -> ElementType:
    """The merged element type of data and filters; OpenVINO's messages when they differ or are not numeric."""
    merged = data.merge(filters)
    if merged is None:
        raise OpError(f"Element types for data batch and filters do not match (data batch element type: {data}, "
                      f"filters element type: {filters}).")
    check(merged.is_dynamic or merged.is_real or merged.is_integral, f"Element types must be numeric. Got: {merged}")
    return merged




@dataclass(frozen=True)
class ConvolutionFamily(Op):
    """Attributes, checks and the kernel-tap loop shared by the four convolutions.

    Members set ``filter_prefix`` (the non-spatial dims of the filters: 2, or 3 with groups).
    """

    traits = OpTraits(calls_blas=True)

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
    return checked(groups.merge(derived), message)


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

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """One batched matmul over the windows (or, for huge copies, one per kernel tap). The inputs passed
        ``infer`` (shape inference, or ``output_shapes`` for shapes it left open): only the sizes are computed."""
        data, filters = inputs
        count = data.ndim - 2
        sizes = tuple(d.value for d in self.forward_spatial(Shape.static(data.shape), Shape.static(filters.shape),
                                                             count))
        weights = self.grouped_weights(filters)
        strides, dilations, _, _ = self.resolved(count)
        begin, _ = self.forward_pads(data.shape[2:], weights.shape[3:])
        return [forward(data, weights, strides, dilations, begin, sizes)]

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """``evaluate`` of static shapes: the output sizes, strides, pads and (of constant filters) the grouped
        weights worked out once; the same kernel runs."""
        data, filters = inputs[0].shape, inputs[1].shape
        if type(self).evaluate is not ForwardConvolution.evaluate:  # a member of its own kind (BinaryConvolution)
            return None
        if len(inputs) != 2 or not (data.is_static and filters.is_static and outputs[0].shape.is_static) or \
                data.rank != filters.rank + 2 - self.filter_prefix:
            return None
        count = data.rank - 2
        sizes = tuple(d.value for d in self.forward_spatial(data, filters, count))
        strides, dilations, _, _ = self.resolved(count)
        begin, _ = self.forward_pads(data.to_tuple()[2:], filters.to_tuple()[self.filter_prefix:])
        fixed = None if constants[1] is None else self.grouped_weights(constants[1])
        dtype = inputs[0].element_type.numpy_dtype
        if fixed is not None and dtype is not None and (
                depthwise := bound_depthwise(data.to_tuple(), dtype, fixed, strides, dilations, begin, sizes)):

            def by_depthwise(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
                return [depthwise(arrays[0])]

            return by_depthwise
        if fixed is not None and dtype is not None and not _tries_shifts(fixed, strides) and (
                windows := bound_windows(data.to_tuple(), dtype, fixed, strides, dilations, begin, sizes)):

            def by_windows(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
                return [windows(arrays[0])]

            return by_windows
        grouped = self.grouped_weights

        def convolved(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
            weights = fixed if fixed is not None else grouped(arrays[1])
            return [forward(arrays[0], weights, strides, dilations, begin, sizes)]

        return convolved


def forward(data: np.ndarray, weights: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
            begin: Sequence[int], sizes: Sequence[int]) -> np.ndarray:
    """The forward convolution of ``data`` (N, G*Ci, *S) with ``weights`` (G, Co, Ci, *K) to the output
    ``sizes``: the kernel that suits the shapes (see irgraph.ops.families.convolution_kernels)."""
    if 0 not in sizes and 0 not in data.shape and 0 not in weights.shape:
        result = None
        depthwise = weights.shape[2] == 1
        # depthwise f32 and f64: the kernel a plan binds, so that a run gives the same bits without the plan
        bound = bound_depthwise(data.shape, data.dtype, weights, strides, dilations, begin, sizes) if depthwise \
            else None
        if bound is not None:
            with np.errstate(all="ignore"):
                result = bound(data)
        elif depthwise and _tries_shifts(weights, strides):  # the copy is the cost, made of long rows
            result = convolve_flat(data, weights, dilations, begin, sizes)
        elif _tries_shifts(weights, strides):  # half the outputs or fewer: shift
            result = convolve_shifted(data, weights, dilations, begin, sizes)
        if result is None:
            result = convolve_windows(data, weights, strides, dilations, begin, sizes)
        if result is not None:
            return result
    return convolve_taps(data, weights, strides, dilations, begin, sizes)


def _tries_shifts(weights: np.ndarray, strides: Sequence[int]) -> bool:
    """Whether :func:`forward` tries a kernel of shifted taps first: unit strides, more than one tap, and a
    depthwise layer or one with at most half as many outputs as inputs per group."""
    return all(s == 1 for s in strides) and math.prod(weights.shape[3:]) > 1 and (
        weights.shape[2] == 1 or 2 * weights.shape[1] <= weights.shape[2])


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

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """One batched matmul per kernel tap, scattered into strided slices of the output."""
        data, filters = inputs[0], inputs[1]
        (shape,) = self.output_shapes(inputs)
        weights = self.grouped_weights(filters)
        strides, dilations, _, _ = self.resolved(data.ndim - 2)
        begin = self.backprop_pads(data.shape[2:], weights.shape[3:], shape[2:], len(inputs) > 2)
        return [convolve_taps(data, weights, strides, dilations, begin, shape[2:], transposed=True)]
