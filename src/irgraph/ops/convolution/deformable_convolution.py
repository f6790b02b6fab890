"""DeformableConvolution-1 and -8: a 2D convolution whose taps read the data at learned fractional offsets.

Every tap ``(fy, fx)`` of output position ``(oy, ox)`` reads the data at ``(oy * stride - pad_begin + fy *
dilation + dy, ...)``, with ``(dy, dx)`` from the offsets input (channels ``[deformable group, tap, (y, x)]``),
by bilinear interpolation; -8 multiplies each sample by the optional mask (channels ``[deformable group,
tap]``) and, with ``bilinear_interpolation_pad``, reads zeros outside the data instead of clamping to its
edge. Input channel ``c`` belongs to deformable group ``c // (C / deformable_group)``.

Evaluation gathers the four neighbours of every sample at once, interpolates as OpenVINO's reference does
(positions rounded to the data type, weights in f32), and multiplies the columns ``(N, group, C/group *
taps, positions)`` by the filters in one batched matrix product. f16 and bf16 compute in f32 and round
once; f64 in f64 (OpenVINO 2026.4.1 has no evaluate for the op: its reference kernel, which the tests port,
interpolates in f32 and sums in the data type).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.families.convolution import CONVOLUTION_TOLERANCE, ConvolutionFamily
from irgraph.ops.families.convolution_kernels import widen
from irgraph.ops.numeric import round_float
from irgraph.ops.op import UNSETTLED, Inputs, InputSpec, attribute, check, checked
from irgraph.ops.registry import register

_NAMES = ("Input", "Offsets", "Filters", "Mask")
COLUMNS_LIMIT = 1 << 22
"""Elements of sampled columns gathered at once (each batch item's output rows go in blocks within it)."""
_COMPUTED = (ElementType.F32, ElementType.F16, ElementType.BF16, ElementType.F64)


def _divisible(dim: Dim, divisor: int) -> bool:
    """OpenVINO's ``dim::is_divisible``: a static dim divides evenly; an interval holds a multiple."""
    if dim.is_static:
        return dim.value % divisor == 0
    if dim.max is None:
        return True
    return -(-dim.min // divisor) * divisor <= dim.max


@dataclass(frozen=True)
class DeformableConvolutionBase(ConvolutionFamily):
    """Attributes, shape rule and evaluation shared by both versions (``group`` and ``deformable_group``)."""

    inputs = Inputs.of(InputSpec("data"), InputSpec("offsets"), InputSpec("filters"))
    tolerance = CONVOLUTION_TOLERANCE
    interpolation_pad: ClassVar[bool] = False

    group: int = attribute(1)
    deformable_group: int = attribute(1)

    def __post_init__(self) -> None:
        super().__post_init__()
        check(self.group > 0, f"Attribute 'group' must be any value starting from 1. Got: {self.group}")
        check(self.deformable_group > 0,
              f"Attribute 'deformable group' must be any value starting from 1. Got: {self.deformable_group}")

    @property
    def pads_outside(self) -> bool:
        """True when samples outside the data read zeros (-8's ``bilinear_interpolation_pad``)."""
        return self.interpolation_pad

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """OpenVINO's rule: rank-4 inputs, channels divisible by the groups, offsets (and mask) channels
        ``deformable_group * taps * 2`` (``* 1``), their spatial dims those of the output."""
        element_type = inputs[0].element_type
        for tensor in inputs[1:]:
            merged = element_type.merge(tensor.element_type)
            merged = checked(merged,
                  f"Element types of inputs do not match. Got: {[str(t.element_type) for t in inputs]}")
            element_type = merged
        check(element_type.is_dynamic or element_type.is_real or element_type.is_integral,
              f"Element type of inputs must be numeric. Got: {element_type}")
        shapes = [t.shape for t in inputs]
        data, offsets, filters = shapes[0], shapes[1], shapes[2]
        mask = shapes[3] if len(shapes) > 3 else None
        if mask is not None and not mask.rank_is_dynamic:
            if not filters.rank_is_dynamic:
                wanted = self._taps_dim(filters)
                check(mask[1].compatible(wanted),
                      f"The channels dimension of mask input is not compatible with filters and 'deformable group' "
                      f"attribute. Mask input shape: {mask}, deformable 'group' attribute value: "
                      f"{self.deformable_group}, filters shape: {filters}")
            self._check_divisible(mask[1], "Mask", self.deformable_group, "deformable group")
            if not data.rank_is_dynamic:
                check(mask[0].compatible(data[0]),
                      f"Data batch and mask batch dimension must be same value. Got: {mask[0]} and {data[0]}")
        count = None
        for shape in (data, filters, offsets):
            if not shape.rank_is_dynamic:
                count = shape.rank - 2
                break
        if count is None:
            return [TensorType(element_type, DYNAMIC_RANK)]
        for shape, name in zip(shapes, _NAMES, strict=False):
            if not shape.rank_is_dynamic:
                check(shape.rank == 4, f"{name} must be of rank 4. Got: {shape.rank}")
        self.resolved(count)
        batch = data[0] if not data.rank_is_dynamic else Dim.dynamic()
        if not data.rank_is_dynamic:
            self._check_divisible(data[1], "Input", self.group, "group")
        if not offsets.rank_is_dynamic:
            if not filters.rank_is_dynamic:
                wanted = self._taps_dim(filters)
                wanted = wanted * 2
                check(offsets[1].compatible(wanted),
                      f"The channels dimension of offsets input is not compatible with filters and 'deformable "
                      f"group' attribute. Offsets input shape: {offsets}, deformable 'group' attribute value: "
                      f"{self.deformable_group}, filters shape: {filters}")
            self._check_divisible(offsets[1], "Offsets", self.deformable_group, "deformable group")
            merged_batch = batch.merge(offsets[0])
            merged_batch = checked(merged_batch,
                  f"Data batch and offsets batch dimension must be same value. Got: {batch} and {offsets[0]}")
            batch = merged_batch
        if not filters.rank_is_dynamic:
            self._check_divisible(filters[0], "Filters", self.group, "group")
            in_channels = filters[1] * self.group
            if not data.rank_is_dynamic:
                check(data[1].compatible(in_channels), f"Data batch channel count ({data[1]}) does not match filter "
                      f"input channel count ({in_channels})")
            out_channels = filters[0]
        else:
            out_channels = Dim.dynamic()
        dims = self.forward_spatial(data, filters, count)
        output = Shape((batch, out_channels, *dims))
        for source, what in ((offsets, "offsets"), (mask, "mask")):
            if source is not None and not source.rank_is_dynamic:
                check(all(d.compatible(s) for d, s in zip(dims, tuple(source)[2:], strict=True)),
                      f"Spatial dimensions of {what} and output must be compatible.{output}")
        return [TensorType(element_type, output)]

    def _taps_dim(self, filters: Shape) -> Dim:
        """``KH * KW * deformable_group`` as an interval."""
        taps = Dim.static(self.deformable_group)
        for dim in tuple(filters)[2:4]:
            taps = taps * dim
        return taps

    def _check_divisible(self, dim: Dim, name: str, group: int, what: str) -> None:
        check(_divisible(dim, group),
              f"{name} channels dimension ({dim}) must be evenly divisible by the '{what}': {group}")

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Gather the bilinear samples of every tap at once, then one batched matmul with the filters."""
        (shape,) = checked(self.output_shapes(inputs), UNSETTLED)
        data, offsets, filters = (np.asarray(x) for x in inputs[:3])
        mask = np.asarray(inputs[3]) if len(inputs) > 3 else None
        dtype = data.dtype
        if ElementType.from_numpy(dtype) not in _COMPUTED:
            raise OpError(f"{self.title()} runs f32, f16, bf16 and f64 data (OpenVINO's reference kernel is for "
                          f"floating-point types). Got: {ElementType.from_numpy(dtype)}")
        batch, channels, height, width = data.shape
        out_channels, in_per_group, kernel_y, kernel_x = filters.shape
        out_y, out_x = shape[2:]
        if 0 in shape:
            return [np.zeros(shape, dtype)]
        strides, dilations, _, _ = self.resolved(2)
        begin, _ = self.forward_pads(data.shape[2:], filters.shape[2:])
        groups, deformable = self.group, self.deformable_group
        taps = kernel_y * kernel_x
        compute = np.float64 if dtype == np.float64 else np.float32
        # Base positions (taps, out positions) of every tap before its offset.
        base_y = (np.arange(out_y) * strides[0] - begin[0])[None, :, None] + \
            (np.arange(kernel_y) * dilations[0]).repeat(kernel_x)[:, None, None]
        base_x = (np.arange(out_x) * strides[1] - begin[1])[None, None, :] + \
            np.tile(np.arange(kernel_x) * dilations[1], kernel_y)[:, None, None]
        pairs = widen(offsets).astype(compute, copy=False).reshape(batch, deformable, taps, 2, out_y, out_x)
        scale = None if mask is None else widen(mask).astype(compute, copy=False).reshape(
            batch, deformable, taps, out_y, out_x)
        source = widen(data).astype(compute, copy=False)
        matrix = widen(filters).astype(compute, copy=False).reshape(groups, out_channels // groups, in_per_group * taps)
        result = np.empty((batch, out_channels, out_y, out_x), compute)
        # Output rows in blocks whose columns (C * taps * positions per item) stay within COLUMNS_LIMIT elements.
        rows_per_block = max(1, COLUMNS_LIMIT // max(1, channels * taps * out_x))
        with np.errstate(all="ignore"):
            for item in range(batch):
                for first in range(0, out_y, rows_per_block):
                    block = slice(first, min(first + rows_per_block, out_y))
                    here = pairs[item:item + 1, :, :, :, block]
                    # The reference adds in the data type: a position rounds to f16 as the offset does.
                    rows = round_float(base_y[:, block].astype(compute) + here[:, :, :, 0], dtype).astype(compute)
                    cols = round_float(base_x.astype(compute) + here[:, :, :, 1], dtype).astype(compute)
                    weights = self._sample_weights(rows, cols, height, width)
                    if scale is not None:
                        weights = [(index, (weight * scale[item:item + 1, :, :, block]).astype(compute), valid)
                                   for index, weight, valid in weights]
                    samples = self._gather(source[item:item + 1], weights, deformable)
                    # samples: (1, C, taps, rows, OX) -> columns (G, C/G * taps, rows * OX)
                    columns = samples.reshape(groups, in_per_group * taps, -1)
                    product = np.matmul(matrix, columns)
                    result[item, :, block] = product.reshape(out_channels, block.stop - block.start, out_x)
        return [round_float(result, dtype)]

    def term_magnitudes(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Per output, the sum of ``|sample * weight * mask|`` (``sum_eps`` of the tolerance): the op in f64 on
        the absolute data, filters and mask, the offsets as they are."""
        wide = [np.asarray(x, np.float64) for x in inputs]
        return self.evaluate([np.abs(x) if i != 1 else x for i, x in enumerate(wide)])

    def _sample_weights(self, rows: np.ndarray, cols: np.ndarray, height: int, width: int) -> list:
        """The four neighbours' flat indices and bilinear weights (zero where a neighbour is not read),
        as ``[(index, weight, valid) ...]``, each ``(N, DG, taps, OY, OX)`` (``valid`` None when every one is
        read); the reference's rules."""
        compute = rows.dtype.type
        if self.pads_outside:
            inside = (rows > -1) & (rows < height) & (cols > -1) & (cols < width)
            top, left = np.floor(rows), np.floor(cols)
            bottom, right = top + 1, left + 1
        else:
            inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
            top, left = np.maximum(np.floor(rows), 0), np.maximum(np.floor(cols), 0)
            bottom, right = np.minimum(np.ceil(rows), height - 1), np.minimum(np.ceil(cols), width - 1)
        rows = np.where(inside, rows, 0).astype(compute)
        cols = np.where(inside, cols, 0).astype(compute)
        top, left = np.where(inside, top, 0), np.where(inside, left, 0)
        bottom, right = np.where(inside, bottom, 0), np.where(inside, right, 0)
        down, across = (rows - top).astype(compute), (cols - left).astype(compute)
        up, back = (compute(1) - down).astype(compute), (compute(1) - across).astype(compute)
        neighbours = []
        for row, col, weight in ((top, left, back * up), (bottom, left, back * down),
                                 (top, right, across * up), (bottom, right, across * down)):
            valid = inside & (row >= 0) & (row < height) & (col >= 0) & (col < width)
            index = (np.clip(row, 0, height - 1) * width + np.clip(col, 0, width - 1)).astype(np.intp)
            # the validity too: an unread neighbour's clipped index may hold inf or NaN, which times 0 is NaN
            neighbours.append((index, np.where(valid, weight, compute(0)).astype(compute),
                               None if valid.all() else valid))
        return neighbours

    @staticmethod
    def _gather(data: np.ndarray, neighbours: list, deformable: int) -> np.ndarray:
        """Samples ``(N, C, taps, OY, OX)``: each channel's data at its deformable group's four neighbours,
        summed in the reference's order (top-left, bottom-left, top-right, bottom-right)."""
        batch, channels = data.shape[:2]
        flat = data.reshape(batch, deformable, channels // deformable, -1)
        total = None
        for index, weight, valid in neighbours:
            shape = index.shape  # (N, DG, taps, OY, OX)
            picked = np.take_along_axis(flat, index.reshape(batch, deformable, 1, -1), axis=3)
            if valid is not None:  # the reference reads nothing there (0), whatever the clipped index holds
                picked = np.where(valid.reshape(batch, deformable, 1, -1), picked, picked.dtype.type(0))
            term = picked.reshape(batch, deformable, channels // deformable, *shape[2:]) * weight[:, :, None]
            total = term if total is None else total + term
        assert total is not None
        return total.reshape(batch, channels, *total.shape[3:])


@register
@dataclass(frozen=True)
class DeformableConvolution(DeformableConvolutionBase):
    """The 2D convolution of data sampled at offsets: (N, C, H, W), (N, DG*KH*KW*2, OH, OW) -> (N, O, OH, OW).

    Filters (O, C/group, KH, KW); samples outside the data read nothing, those past its last row or column
    read that row or column. Spec: DeformableConvolution-1.
    """

    type_name = "DeformableConvolution"
    introduced = 1


@register
@dataclass(frozen=True)
class DeformableConvolution8(DeformableConvolutionBase):
    """DeformableConvolution-1 with an optional mask scaling each sample and ``bilinear_interpolation_pad``.

    The mask is (N, DG*KH*KW, OH, OW); with ``bilinear_interpolation_pad`` samples within one pixel of the data
    interpolate with zeros beyond its edge. Spec: DeformableConvolution-8.
    """

    type_name = "DeformableConvolution"
    introduced = 8
    inputs = Inputs.optional(3, InputSpec("data"), InputSpec("offsets"), InputSpec("filters"), InputSpec("mask"))
    attribute_order = ("bilinear_interpolation_pad", "strides", "dilations", "pads_begin", "pads_end", "auto_pad",
                       "group", "deformable_group")

    bilinear_interpolation_pad: bool = attribute(False)

    @property
    def pads_outside(self) -> bool:
        """``bilinear_interpolation_pad``."""
        return self.bilinear_interpolation_pad
