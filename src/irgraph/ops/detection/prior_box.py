"""PriorBox-1 and PriorBox-8: SSD prior boxes for every feature-map cell (min/max sizes, aspect ratios, densities)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, PartialValue, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values
from irgraph.ops.registry import register

F32 = np.float32


@dataclass(frozen=True)
class _Prior:
    """One box of a cell: its size and, for density boxes, its offset from the cell centre."""

    half_width: np.float32
    half_height: np.float32
    clip: bool
    """Clipped to the image on its own (density and fixed-size boxes)."""
    shifted: tuple[int, np.float32, int, int] | None = None
    """``(fixed // 2, shift / 2, column * shift, row * shift)``: centre ((c - a) + b) + col."""


@dataclass(frozen=True)
class _PriorBoxBase(Op):
    """The rules of both versions (PriorBox-1 orders each min size's boxes as PriorBox-8 with
    ``min_max_aspect_ratios_order`` true)."""

    type_name = "PriorBox"
    inputs = Inputs.of(InputSpec("output_size"), InputSpec("image_size"))

    min_size: tuple[float, ...] = attribute(())
    max_size: tuple[float, ...] = attribute(())
    aspect_ratio: tuple[float, ...] = attribute(())
    density: tuple[float, ...] = attribute(())
    fixed_ratio: tuple[float, ...] = attribute(())
    fixed_size: tuple[float, ...] = attribute(())
    clip: bool = attribute(False)
    flip: bool = attribute(False)
    step: float = attribute(0.0)
    offset: float = attribute(0.0)
    variance: tuple[float, ...] = attribute(())
    scale_all_sizes: bool = attribute(True)

    @property
    def max_size_first(self) -> bool:
        """A min size's max-size box before its aspect-ratio boxes (PriorBox-8's option; PriorBox-1 does)."""
        return True

    def __post_init__(self) -> None:
        check(len(self.variance) in (0, 1, 4), f"Variances size must be 0, 1 or 4. Got: {len(self.variance)}")
        check(all(d > 0 for d in self.density), f"density values must be positive. Got: {list(self.density)}")
        check(not self.density or not self.fixed_size or len(self.density) >= len(self.fixed_size),
              "every fixed_size needs its density")

    def _ratios(self) -> list[np.float32]:
        """1, then each new aspect ratio (and its inverse with ``flip``), as OpenVINO's reference lists them."""
        ratios = [F32(1.0)]
        for ratio in self.aspect_ratio:
            ratio = F32(ratio)
            if not any(abs(ratio - known) < 1e-6 for known in ratios):
                ratios.append(ratio)
                if self.flip:
                    ratios.append(F32(1.0) / ratio)
        return ratios

    def count(self) -> int:
        """Boxes per cell (OpenVINO's ``number_of_priors``)."""
        unique = {F32(1.0)}
        for ratio in self.aspect_ratio:
            unique.add(F32(ratio))
            if self.flip:
                unique.add(F32(1.0) / F32(ratio))
        total = len(unique)
        count = total * len(self.min_size) + len(self.max_size) if self.scale_all_sizes else total + len(
            self.min_size) - 1
        if self.fixed_size:
            count = total * len(self.fixed_size)
        for density in self.density:
            square = int(density) ** 2 - 1
            count += (len(self.fixed_ratio) if self.fixed_ratio else total) * square
        return count

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[2, 4*H*W*priors]`` f32 when the output size is constant, ``[2, ?]`` otherwise."""
        size = inputs[0]
        check(size.element_type.is_dynamic or size.element_type.is_integral,
              f"output_size must be an integral number, but is: {size.element_type}")
        check(size.shape.rank_is_dynamic or size.shape.rank == 1, f"output_size must be a 1D tensor. Got: {size.shape}")
        self._check_count()
        columns = Dim.dynamic()
        if values[0] is not None and not isinstance(values[0], PartialValue):
            height, width = _pair(values[0], "output_size")
            columns = Dim.static(4 * height * width * self.count())
        return [TensorType(ElementType.F32, Shape((Dim.static(2), columns)))]

    def _check_count(self) -> None:
        """OpenVINO sizes the output by ``number_of_priors`` and its reference then writes the boxes it makes:
        where the two disagree (min sizes beside fixed sizes, more fixed ratios than aspect ratios) it writes
        past its buffer (openvino 2026.4.1 aborts); irgraph refuses such attributes."""
        made = len(self._cell_priors([F32(size) for size in self.min_size]))
        if made != self.count():
            raise OpError(f"these attributes make {made} boxes per cell but OpenVINO sizes the output for "
                          f"{self.count()} (min_size beside fixed_size, or fixed_ratio against aspect_ratio): "
                          "OpenVINO writes past its output, so irgraph refuses them")

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """``[2, 4*H*W*priors]``."""
        self._check_count()
        height, width = _pair(inputs[0], "output_size")
        return [(2, 4 * height * width * self.count())]

    def _cell_priors(self, min_sizes: list[np.float32]) -> list[_Prior]:
        """The boxes of one cell, in OpenVINO's reference's order."""
        priors: list[_Prior] = []
        ratios = self._ratios()

        def dense(index: int, half_width: np.float32, half_height: np.float32) -> None:
            fixed = self.fixed_size[index]
            density = int(self.density[index])
            shift = int(F32(fixed) / F32(density))
            for row in range(density):
                for column in range(density):
                    priors.append(_Prior(half_width, half_height, True,
                                         (int(fixed) // 2, F32(shift) / F32(2), column * shift, row * shift)))

        for index, fixed in enumerate(self.fixed_size):
            fixed32 = F32(fixed)
            if self.fixed_ratio:
                for fixed_ratio in self.fixed_ratio:
                    root = np.sqrt(F32(fixed_ratio))
                    dense(index, fixed32 * F32(0.5) * root, fixed32 * F32(0.5) / root)
                continue
            if self.density:
                half = F32(int(fixed)) * F32(0.5)
                dense(index, half, half)
            for ratio in ratios:
                if abs(ratio - F32(1.0)) < 1e-6:
                    continue
                root = np.sqrt(ratio)
                dense(index, fixed32 * F32(0.5) * root, fixed32 * F32(0.5) / root)
        for index, size in enumerate(min_sizes):
            half = size * F32(0.5)
            priors.append(_Prior(half, half, False))
            largest = []
            if len(self.max_size) > index:
                side = np.sqrt(size * F32(self.max_size[index])) * F32(0.5)
                largest = [_Prior(side, side, False)]
            shaped = []
            if self.scale_all_sizes or index == len(min_sizes) - 1:
                base = min_sizes[index if self.scale_all_sizes else 0]
                for ratio in ratios:
                    if abs(ratio - F32(1.0)) < 1e-6:
                        continue
                    root = np.sqrt(ratio)
                    shaped.append(_Prior(base * F32(0.5) * root, base * F32(0.5) / root, False))
            priors.extend(largest + shaped if self.max_size_first else shaped + largest)
        return priors

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Every cell's boxes, float32 in OpenVINO's reference's order of operations."""
        height, width = _pair(inputs[0], "output_size")
        image_h, image_w = _pair(inputs[1], "image_size")
        step = F32(self.step)
        min_sizes = [F32(size) for size in self.min_size]
        if not self.scale_all_sizes:  # mxnet-like: step and sizes relative to the image height
            step = F32(image_h) / F32(height) if step == -1 else step * F32(image_h)
            min_sizes = [size * F32(image_h) for size in min_sizes]
        inverse_w, inverse_h = F32(1.0) / F32(image_w), F32(1.0) / F32(image_h)
        with np.errstate(all="ignore"):
            if step == 0:
                centre_x = (np.arange(width, dtype=F32) + F32(0.5)) * (F32(image_w) / F32(width))
                centre_y = (np.arange(height, dtype=F32) + F32(0.5)) * (F32(image_h) / F32(height))
            else:
                centre_x = (F32(self.offset) + np.arange(width, dtype=F32)) * step
                centre_y = (F32(self.offset) + np.arange(height, dtype=F32)) * step
            boxes = []
            for prior in self._cell_priors(min_sizes):
                cx, cy = centre_x[None, :], centre_y[:, None]
                if prior.shifted is not None:
                    back, half_shift, column, row = prior.shifted
                    cx = ((cx - F32(back)) + half_shift) + F32(column)
                    cy = ((cy - F32(back)) + half_shift) + F32(row)
                corners = [(cx - prior.half_width) * inverse_w, (cy - prior.half_height) * inverse_h,
                           (cx + prior.half_width) * inverse_w, (cy + prior.half_height) * inverse_h]
                if prior.clip:
                    # clip_less / clip_great: x > 0 ? x : 0 for the minima, x < 1 ? x : 1 for the maxima
                    low, high = F32(0), F32(1)
                    corners = [np.where(corners[0] > low, corners[0], low), np.where(corners[1] > low, corners[1], low),
                               np.where(corners[2] < high, corners[2], high),
                               np.where(corners[3] < high, corners[3], high)]
                boxes.append(np.stack(np.broadcast_arrays(*corners), axis=-1))  # [H, W, 4]
        if not boxes:
            return [np.zeros((2, 0), F32)]
        flat = np.stack(boxes, axis=2).reshape(-1)  # [H, W, priors, 4]
        if self.clip:
            flat = np.minimum(np.maximum(flat, F32(0)), F32(1))
        variance = np.asarray(self.variance or (0.1,), F32)
        return [np.stack([flat, np.resize(variance, flat.size)]).astype(F32)]


def _pair(value: np.ndarray, what: str) -> tuple[int, int]:
    found = integer_values(value, what)
    if len(found) != 2:
        raise OpError(f"{what} must hold 2 values (height, width). Got: {found}")
    return found[0], found[1]


@register
@dataclass(frozen=True)
class PriorBox(_PriorBoxBase):
    """SSD's prior boxes (module docstring). Spec: PriorBox-1."""

    introduced = 1


@register
@dataclass(frozen=True)
class PriorBox8(_PriorBoxBase):
    """PriorBox-1 with ``min_max_aspect_ratios_order``: false puts a min size's aspect-ratio boxes before its
    max-size box (Caffe's order), true after. Spec: PriorBox-8."""

    introduced = 8

    min_max_aspect_ratios_order: bool = attribute(True)

    @property
    def max_size_first(self) -> bool:
        """As ``min_max_aspect_ratios_order`` says."""
        return self.min_max_aspect_ratios_order
