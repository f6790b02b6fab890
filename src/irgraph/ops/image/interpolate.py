"""Interpolate-1, Interpolate-4 and Interpolate-11: resize tensors along some axes.

Each op's shape rule is its ``infer``; ``output_shapes`` is that rule with the sizes, scales and axes
values known, and ``evaluate`` reads its output shape there. The resampling itself (OpenVINO's reference
arithmetic, f32 throughout, bit for bit) is ``irgraph.ops.families.resampling``.

- Padding (``pads_begin``/``pads_end``) adds zeros before the resize; scales computed from sizes
  are ``f32(size) / f32(padded length)``.
- Output lengths from scales are ``int64(f32(length) * (scale + 1e-6f))`` (never below 0); a
  scale of exactly 1 keeps the dim as it is.
- f16/bf16 compute in f32 and round once; i8/u8 truncate the f32 result (linear rounds first), as
  ``static_cast`` does. OpenVINO 2026.4.1 folds f32, f16, bf16, i8 and u8 only.
- bilinear_pillow and bicubic_pillow (Interpolate-11) are Pillow's two separable passes in f64
  (width, then height), each stored in the element type, as OpenVINO's copy of Pillow does (f16
  and bf16 store f32: constant folding runs them as f32 and rounds the result once).
- area (Interpolate-1) is kept and shape inferred, but does not run (OpenVINO's reference refuses it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.families.resampling import F32, PILLOW_MODES, resample
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check, integer_values, static_types
from irgraph.ops.registry import register

MODES = ("nearest", "linear", "linear_onnx", "cubic")
TRANSFORMS = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
SHAPE_MODES = ("sizes", "scales")
_SIZES_TYPES = "i32, i64, u32 or u64"
_EPSILON = F32(1e-6)


# ------------------------------------------------------------------------------------ shapes
def scaled_dim(dim: Dim, scale: float) -> Dim:
    """``int64(f32(bound) * (scale + 1e-6f))`` for each bound, never below 0; a scale of 1 keeps the dim."""
    if scale == 1.0:
        return dim
    multiplier = F32(scale) + _EPSILON

    def bound(value: int) -> int:
        with np.errstate(all="ignore"):
            product = F32(value) * multiplier
        check(bool(np.isfinite(product)), f"Interpolate scale {scale} makes dim {value} infinite")
        return max(0, int(product))

    return Dim(bound(dim.min), None if dim.max is None else bound(dim.max))


def padded_shape(shape: Shape, pads_begin: Sequence[int], pads_end: Sequence[int]) -> Shape:
    """Each dim plus its pads (pads resized to the rank with zeros, as OpenVINO does)."""
    dims = []
    for i, dim in enumerate(shape):
        extra = (pads_begin[i] if i < len(pads_begin) else 0) + (pads_end[i] if i < len(pads_end) else 0)
        dims.append(dim + extra)
    return Shape(tuple(dims))


def check_axes(axes: Sequence[int], rank: int) -> list[int]:
    """OpenVINO's rule: every axis in [0, rank) (negative axes are refused, as the size_t compare does)."""
    check(all(0 <= a < rank for a in axes), f"All axes values should less than input rank: {rank}. Got: {list(axes)}")
    check(len(set(axes)) == len(axes), f"Interpolate axes must be unique. Got: {list(axes)}")
    return list(axes)


def check_rank_1(tensor: TensorType, what: str, port: int) -> None:
    """Sizes, scales and axes inputs are 1-D."""
    check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 1, f"Input [{port}] is not rank 1. Got {what}: "
          f"{tensor.shape}")


def check_pads(pads_begin: Sequence[int], pads_end: Sequence[int]) -> None:
    """Pads are unsigned in OpenVINO; a negative one (read from the IR) would wrap to a huge length."""
    check(all(p >= 0 for p in (*pads_begin, *pads_end)),
          f"Interpolate pads must be non-negative. Got: pads_begin {list(pads_begin)}, pads_end {list(pads_end)}")


# ------------------------------------------------------------------------------------ the base
@dataclass(frozen=True)
class InterpolateBase(Op):
    """Shared evaluation of Interpolate-4 and -11 (Interpolate-1 maps its attributes onto them)."""

    tolerance: ClassVar[Tolerance] = Tolerance()
    """Exact: every mode that runs computes in f32 in the reference's order (500-example runs agree bit
    for bit with openvino 2026.4.1's folding)."""

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """``infer`` with the sizes, scales and axes known: their values decide the output shape."""
        (shape,) = self.infer(static_types(inputs), [None, *inputs[1:]])
        return [shape.shape.to_tuple()]


def size_scales(shape: Sequence[int], axes: Sequence[int], out_shape: Sequence[int], pads_begin: Sequence[int],
                pads_end: Sequence[int]) -> list[np.float32]:
    """The f32 scale of each resized axis from its output length: ``f32(size) / f32(padded length)``."""
    padded = [shape[axis] + _pad_at(pads_begin, axis) + _pad_at(pads_end, axis) for axis in axes]
    with np.errstate(all="ignore"):
        return [F32(out_shape[axis]) / F32(length) for axis, length in zip(axes, padded, strict=True)]


def float_values(array: np.ndarray, what: str) -> list[np.float32]:
    """A scales tensor as f32 values."""
    return [F32(v) for v in np.asarray(array).reshape(-1).astype(F32).tolist()]


def _choice(value: str, allowed: Sequence[str], name: str) -> None:
    check(value in allowed, f"Attribute '{name}' must be one of {', '.join(allowed)}. Got: {value!r}")


@dataclass(frozen=True)
class InterpolateV4Like(InterpolateBase):
    """Attributes and shape rules of Interpolate-4 and -11 (inputs differ)."""

    mode: str = attribute()
    shape_calculation_mode: str = attribute("sizes")
    coordinate_transformation_mode: str = attribute("half_pixel")
    nearest_mode: str = attribute("round_prefer_floor")
    antialias: bool = attribute(False)
    pads_begin: tuple[int, ...] = attribute((0,))
    pads_end: tuple[int, ...] = attribute((0,))
    cube_coeff: float = attribute(-0.75)

    modes: ClassVar[tuple[str, ...]] = MODES

    def __post_init__(self) -> None:
        _choice(self.mode, self.modes, "mode")
        _choice(self.shape_calculation_mode, SHAPE_MODES, "shape_calculation_mode")
        _choice(self.coordinate_transformation_mode, TRANSFORMS, "coordinate_transformation_mode")
        _choice(self.nearest_mode, NEAREST_MODES, "nearest_mode")
        check_pads(self.pads_begin, self.pads_end)

    @property
    def uses_scales(self) -> bool:
        """True when output lengths come from scales."""
        return self.shape_calculation_mode == "scales"

    def shape_rule(self, data: TensorType, axes_value: np.ndarray | None, has_axes: bool,
                   values_value: np.ndarray | None) -> Shape:
        """Padded data shape with the axes' dims replaced by sizes or scaled by scales."""
        if data.shape.rank_is_dynamic:
            return DYNAMIC_RANK
        rank = data.shape.rank
        if has_axes:
            if axes_value is None:
                return Shape.dynamic(rank)
            axes = check_axes(integer_values(axes_value, "axes"), rank)
        else:
            axes = list(range(rank))
        shape = padded_shape(data.shape, self.pads_begin, self.pads_end)
        if values_value is None:
            for axis in axes:
                shape = shape.replace(axis, Dim.dynamic())
            return shape
        what = "scales" if self.uses_scales else "sizes"
        count = np.size(values_value)
        check(count >= len(axes), f"The number of elements in the '{what}' input does not match the number of axes "
              f"{len(axes)}. Got: {count}")
        if self.uses_scales:
            for axis, scale in zip(axes, float_values(values_value, "scales"), strict=False):
                shape = shape.replace(axis, scaled_dim(shape[axis], float(scale)))
        else:
            sizes = integer_values(values_value, "sizes")
            check(all(s >= 0 for s in sizes), f"Interpolate sizes must be non-negative. Got: {sizes}")
            for axis, size in zip(axes, sizes, strict=False):
                shape = shape.replace(axis, Dim.static(size))
        return shape

    def resize(self, inputs: Sequence[np.ndarray], values: np.ndarray, axes_value: np.ndarray | None) -> np.ndarray:
        """Evaluate on concrete inputs: ``values`` are the sizes or scales ``shape_calculation_mode`` names."""
        data = inputs[0]
        (out_shape,) = self.output_shapes(inputs)
        axes = list(range(data.ndim)) if axes_value is None else integer_values(axes_value, "axes")
        scales = float_values(values, "scales")[:len(axes)] if self.uses_scales else \
            size_scales(data.shape, axes, out_shape, self.pads_begin, self.pads_end)
        if self.mode != "nearest":  # nearest clamps; the kernels would read an empty axis
            for axis in axes:
                padded_len = data.shape[axis] + _pad_at(self.pads_begin, axis) + _pad_at(self.pads_end, axis)
                check(padded_len > 0 or out_shape[axis] == 0,
                      f"Interpolate cannot resize axis {axis} of length 0 to {out_shape[axis]}")
        elif math.prod(out_shape):
            for axis in axes:
                padded_len = data.shape[axis] + _pad_at(self.pads_begin, axis) + _pad_at(self.pads_end, axis)
                check(padded_len > 0, f"Interpolate cannot resize axis {axis} of length 0 to {out_shape[axis]}")
        return resample(data, axes, scales, out_shape, self.pads_begin, self.pads_end, self.mode,
                        self.coordinate_transformation_mode, self.nearest_mode, self.antialias, self.cube_coeff)


def _pad_at(pads: Sequence[int], axis: int) -> int:
    return pads[axis] if axis < len(pads) else 0


def _check_type(tensor: TensorType, allowed: Sequence[ElementType], message: str) -> None:
    check(tensor.element_type.is_dynamic or tensor.element_type in allowed, f"{message}. Got: {tensor.element_type}")


SIZES_TYPES = (ElementType.I32, ElementType.I64, ElementType.U32, ElementType.U64)
SCALES_TYPES = (ElementType.F32, ElementType.F16, ElementType.BF16)


@register
@dataclass(frozen=True)
class Interpolate4(InterpolateV4Like):
    """Inputs data, sizes, scales and optional axes; ``shape_calculation_mode`` picks sizes or scales.
    Spec: Interpolate-4."""

    type_name = "Interpolate"
    introduced = 4
    inputs = Inputs(fixed=(InputSpec("data"), InputSpec("sizes"),
                           InputSpec("scales"), InputSpec("axes")), minimum=3)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """OpenVINO's v4 shape_infer."""
        data, sizes, scales, *rest = inputs
        _check_type(sizes, SIZES_TYPES, f"Sizes element type must be {_SIZES_TYPES}")
        _check_type(scales, SCALES_TYPES, "Scales element type must be f32, f16 or bf16")
        check_rank_1(scales if self.uses_scales else sizes, "scales" if self.uses_scales else "sizes",
                     2 if self.uses_scales else 1)
        if rest:
            _check_type(rest[0], SIZES_TYPES, f"Axes element type must be {_SIZES_TYPES}")
            check_rank_1(rest[0], "axes", 3)
        padded = list(values) + [None] * (4 - len(values))
        used = padded[2] if self.uses_scales else padded[1]
        return [TensorType(data.element_type, self.shape_rule(data, padded[3], bool(rest), used))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The resized data."""
        _, sizes, scales, *rest = inputs
        return [self.resize(inputs, scales if self.uses_scales else sizes, rest[0] if rest else None)]


@register
@dataclass(frozen=True)
class Interpolate11(InterpolateV4Like):
    """Inputs data, scales_or_sizes and optional axes; adds the Pillow modes. Spec: Interpolate-11."""

    type_name = "Interpolate"
    introduced = 11
    inputs = Inputs(fixed=(InputSpec("data"), InputSpec("scales_or_sizes"),
                           InputSpec("axes")), minimum=2)
    modes = MODES + PILLOW_MODES

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """OpenVINO's v11 shape_infer."""
        data, scales_or_sizes, *rest = inputs
        if self.uses_scales:
            _check_type(scales_or_sizes, SCALES_TYPES, "Scales element type must be f32, f16 or bf16")
        else:
            _check_type(scales_or_sizes, SIZES_TYPES, f"Sizes element type must be {_SIZES_TYPES}")
        check_rank_1(scales_or_sizes, "scales_or_sizes", 1)
        if rest:
            _check_type(rest[0], SIZES_TYPES, f"Axes element type must be {_SIZES_TYPES}")
            check_rank_1(rest[0], "axes", 2)
        padded = list(values) + [None] * (3 - len(values))
        return [TensorType(data.element_type, self.shape_rule(data, padded[2], bool(rest), padded[1]))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The resized data."""
        _, values, *rest = inputs
        return [self.resize(inputs, values, rest[0] if rest else None)]


@register
@dataclass(frozen=True)
class Interpolate1(InterpolateBase):
    """Inputs data and the target lengths of ``axes`` (an attribute). Spec: Interpolate-1.

    Runs as OpenVINO's reference runs it (``transform_v0_to_v4``): nearest_mode simple; linear is
    linear_onnx below rank 5; coordinates asymmetric, align_corners when set, half_pixel for linear
    modes without pads unless a rank-4 input resizes axes {2, 3}.
    """

    type_name = "Interpolate"
    attribute_order = ("align_corners", "antialias", "axes", "mode", "pads_begin", "pads_end")  # as OpenVINO writes it
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("output_shape"))

    axes: tuple[int, ...] = attribute()
    mode: str = attribute()
    align_corners: bool = attribute(False)
    antialias: bool = attribute(False)
    pads_begin: tuple[int, ...] = attribute((0,))
    pads_end: tuple[int, ...] = attribute((0,))

    def __post_init__(self) -> None:
        _choice(self.mode, ("nearest", "linear", "cubic", "area"), "mode")
        check_pads(self.pads_begin, self.pads_end)

    @property
    def cannot_run_reason(self) -> str | None:
        """Area mode is not implemented (OpenVINO's reference refuses it too)."""
        return "Interpolate-1 mode area is not implemented in irgraph" if self.mode == "area" else None

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data shape with the axes' dims set to the target lengths."""
        data, target = inputs
        check(target.element_type.is_integral or target.element_type.is_dynamic,
              "output shape must be an integral number.")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        axes = check_axes(sorted(set(self.axes)), data.shape.rank)
        shape = data.shape
        value = values[1] if len(values) > 1 else None
        if value is None:
            for axis in axes:
                shape = shape.replace(axis, Dim.dynamic())
        else:
            sizes = integer_values(value, "output_shape")
            check(len(sizes) >= len(axes), f"output_shape needs one length per axis {axes}. Got: {sizes}")
            check(all(s >= 0 for s in sizes), f"Interpolate sizes must be non-negative. Got: {sizes}")
            for axis, size in zip(axes, sizes, strict=False):
                shape = shape.replace(axis, Dim.static(size))
        return [TensorType(data.element_type, shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The v4 evaluation with the attributes OpenVINO's ``transform_v0_to_v4`` gives."""
        data = inputs[0]
        if self.cannot_run_reason:
            raise OpError(self.cannot_run_reason)
        (out_shape,) = self.output_shapes(inputs)
        axes = sorted(set(self.axes))
        scales = size_scales(data.shape, axes, out_shape, self.pads_begin, self.pads_end)
        for axis in axes:
            padded_len = data.shape[axis] + _pad_at(self.pads_begin, axis) + _pad_at(self.pads_end, axis)
            check(padded_len > 0 or out_shape[axis] == 0,
                  f"Interpolate cannot resize axis {axis} of length 0 to {out_shape[axis]}")
        mode = self.mode
        if mode == "linear":
            check(data.ndim <= 5, f"Interpolate-1 linear needs rank <= 5. Got rank {data.ndim}")
            mode = "linear_onnx" if data.ndim < 5 else "linear"
        transform = "asymmetric"
        no_pads = not any(self.pads_begin) and not any(self.pads_end)
        if self.align_corners:
            transform = "align_corners"
        elif mode in ("linear_onnx", "linear") and no_pads and not (data.ndim == 4 and axes == [2, 3]):
            transform = "half_pixel"
        return [resample(data, axes, scales, out_shape, self.pads_begin, self.pads_end, mode, transform, "simple",
                         self.antialias, -0.75)]
