"""Broadcast-1 and Broadcast-3: replicate a tensor to a target shape."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, PartialValue, Shape, TensorType
from irgraph.ops.families.elementwise import broadcast_shapes
from irgraph.ops.memo import remembered, value_key
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values, shape_text
from irgraph.ops.registry import register


def target_dims(value: np.ndarray | PartialValue) -> list[Dim]:
    """A target shape's entries as dims (exact values, or intervals from bounds)."""
    if isinstance(value, PartialValue):
        try:
            return value.shape_dims()
        except ValueError as err:
            raise OpError(str(err)) from None
    entries = integer_values(value, "target_shape")
    if any(entry < 0 for entry in entries):  # the message built only on failure (a decode step plans ~30)
        raise OpError(f"Broadcast target shape must hold non-negative dims. Got: {shape_text(entries)}")
    return [Dim.static(v) for v in entries]


@dataclass(frozen=True)
class _Broadcast(Op):
    """Both versions; ``mode`` is numpy (input dims, right-aligned, are 1 or the target's), explicit
    (``axes_mapping`` names the target axis of each input axis, increasing), pdpd (aligned from axis
    0) and, from Broadcast-3, bidirectional (NumPy's broadcasting of the two shapes). The output is
    written (a copy); its size is checked before it is allocated."""

    type_name = "Broadcast"
    inputs = Inputs.optional(
        2, InputSpec("data"), InputSpec("target_shape", bounds=True),
        InputSpec("axes_mapping"),
    )
    bound_inputs = (0,)
    modes: ClassVar[tuple[str, ...]] = ("numpy", "explicit", "pdpd")

    mode: str = attribute("numpy")

    def __post_init__(self) -> None:
        check(self.mode.lower() in self.modes,
              f"Broadcast mode must be one of {', '.join(self.modes)}. Got: {self.mode!r}")

    def infer(
        self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | PartialValue | None]
    ) -> list[TensorType]:
        """The target dims, checked against the input's."""
        data, target = inputs[0], inputs[1]
        check(target.element_type.is_integral or target.element_type.is_dynamic,
              f"Broadcast shape must be an integral number, but is: {target.element_type}")
        check(target.shape.rank_is_dynamic or target.shape.rank == 1,
              f"Broadcast shape rank must be 1, but has {target.shape}")
        mode = self.mode.lower()
        if mode == "explicit":
            check(len(inputs) == 3, "axes_mapping input should be provided if explicit mode is used")
        if values[1] is None:
            length = None if target.shape.rank_is_dynamic or target.shape[0].is_dynamic else target.shape[0].value
            if mode == "bidirectional":
                if length is None or data.shape.rank_is_dynamic:
                    return [TensorType(data.element_type, DYNAMIC_RANK)]
                # OpenVINO: a data dim that cannot be 1 survives any target dim; the others are unknown
                rank = max(length, data.shape.rank)
                known = [Dim.dynamic() if d.contains(1) else d for d in data.shape]
                return [TensorType(data.element_type, Shape((Dim.dynamic(),) * (rank - len(known)) + tuple(known)))]
            return [TensorType(data.element_type, DYNAMIC_RANK if length is None else Shape.dynamic(length))]
        dims = target_dims(values[1])
        mapping = values[2] if mode == "explicit" else None  # not a bounds input: never a PartialValue
        axes = None if mapping is None or isinstance(mapping, PartialValue) else integer_values(mapping, "axes_mapping")
        if mode == "explicit" and axes is None:
            return [TensorType(data.element_type, Shape.dynamic(len(dims)))]
        return [TensorType(data.element_type, self._shape(data.shape, dims, axes))]

    def _shape(self, source: Shape, dims: list[Dim], axes: list[int] | None) -> Shape:
        mode = self.mode.lower()
        target = Shape(tuple(dims))
        if source.rank_is_dynamic:
            return DYNAMIC_RANK if mode == "bidirectional" else target
        if mode == "bidirectional":
            try:
                return broadcast_shapes(source, target, "numpy")
            except OpError:
                raise OpError(f"Broadcast incorrect target shape. Input shape {source} cannot be broadcast to "
                              f"{target} (bidirectional)") from None
        if mode == "explicit":
            return self._explicit(source, dims, axes or [])
        check(len(dims) >= source.rank,
              f"Broadcast target_shape has smaller rank {len(dims)} than arg shape {source.rank}")
        # openvino 2026.4.1 fails pdpd with a longer target ("Accessing out-of-range dimension"): refused here.
        check(mode != "pdpd" or len(dims) == source.rank,
              f"Broadcast pdpd needs a target of the input's rank {source.rank}. Got: {target}")
        offset = 0 if mode == "pdpd" else len(dims) - source.rank
        out = list(dims)
        for i, dim in enumerate(source):
            wanted = out[offset + i]
            if dim == Dim.static(1):
                continue
            merged = wanted.merge(dim)
            if merged is None or (dim.is_static and wanted.is_static and wanted.value != dim.value):
                raise OpError(f"Input shape dimension equal {dim} cannot be broadcasted ({mode} mode) to {wanted}. "
                              f"Allowed input dimension value would be 1 or {wanted}")
            out[offset + i] = wanted if wanted.is_static else merged
        return Shape(tuple(out))

    @staticmethod
    def _explicit(source: Shape, dims: list[Dim], axes: list[int]) -> Shape:
        check(len(axes) == source.rank,
              f"Broadcast axes_mapping shape {shape_text([len(axes)])} doesn't match rank of input tensor "
              f"{source.rank}")
        check(all(b > a for a, b in zip(axes, axes[1:], strict=False)),
              f"Broadcast doesn't permit transposes. axes_mapping {shape_text(axes)} not in sorted order")
        for i, axis in enumerate(axes):
            check(0 <= axis < len(dims),
                  f"Broadcast axes_mapping[{i}]: {axis} exceeds target rank {len(dims)}")
            dim, wanted = source[i], dims[axis]
            if dim != Dim.static(1) and wanted.merge(dim) is None:
                raise OpError(f"Broadcast target[axes_mapping[{i}]] Expected {dim}. Got {wanted}")
        return Shape(tuple(dims))

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The target shape, computed without allocating."""
        return [self._plan(inputs)[1]]

    def _plan(self, inputs: Sequence[np.ndarray]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(the input reshaped so NumPy broadcasts it, the output shape), remembered per the input's shape and
        the target's (and axes') values: ``output_shapes`` and ``evaluate`` both ask, at every run."""
        keys = [value_key(value) for value in inputs[1:]]
        if None in keys:
            return self._planned(inputs)
        return remembered(self, (np.shape(inputs[0]), *keys), lambda: self._planned(inputs))

    def _planned(self, inputs: Sequence[np.ndarray]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        data = inputs[0]
        if np.ndim(inputs[1]) != 1:
            raise OpError(f"Broadcast shape rank must be 1, but has {shape_text(np.shape(inputs[1]))}")
        mode = self.mode.lower()
        dims = target_dims(inputs[1])
        axes = None
        if mode == "explicit":
            check(len(inputs) == 3, "axes_mapping input should be provided if explicit mode is used")
            axes = integer_values(inputs[2], "axes_mapping")
        source = Shape.static(np.shape(data))
        shape = self._shape(source, dims, axes).to_tuple()
        if mode == "explicit":
            aligned = [1] * len(shape)
            for size, axis in zip(np.shape(data), axes or [], strict=True):
                aligned[axis] = size
            return tuple(aligned), shape
        if mode == "pdpd":
            return tuple(np.shape(data)) + (1,) * (len(shape) - np.ndim(data)), shape
        return tuple(np.shape(data)), shape

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``np.broadcast_to`` of the aligned input, written once."""
        aligned, shape = self._plan(inputs)
        data = np.reshape(inputs[0], aligned)
        result = np.empty(shape, data.dtype)
        if math.prod(shape):
            np.copyto(result, np.broadcast_to(data, shape))
        return [result]


@register
@dataclass(frozen=True)
class Broadcast(_Broadcast):
    """Broadcast-1: modes numpy, explicit, pdpd."""

    introduced = 1


@register
@dataclass(frozen=True)
class Broadcast3(_Broadcast):
    """Broadcast-3: Broadcast-1 plus bidirectional."""

    introduced = 3
    modes = ("numpy", "explicit", "pdpd", "bidirectional")
