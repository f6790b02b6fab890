"""PriorBoxClustered-1: SSD prior boxes of given widths and heights centred on every feature-map cell."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, PartialValue, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class PriorBoxClustered(Op):
    """``[2, 4*H*W*P]`` f32: row 0 the normalized ``(xmin, ymin, xmax, ymax)`` of each of the ``P`` boxes
    (``width[i]`` x ``height[i]``) at each cell ``(h, w)`` of the ``H`` x ``W`` feature map (its centre at
    ``((w + offset) * step_w, (h + offset) * step_h)`` in image pixels), row 1 the variances. Computed in
    float32 in OpenVINO's reference's order: exact. Spec: PriorBoxClustered-1."""

    type_name = "PriorBoxClustered"
    introduced = 1
    inputs = Inputs.of(InputSpec("output_size"), InputSpec("image_size"))

    step: float = attribute(0.0)
    step_w: float = attribute(0.0)
    step_h: float = attribute(0.0)
    width: tuple[float, ...] = attribute(())
    height: tuple[float, ...] = attribute(())
    clip: bool = attribute(True)
    offset: float = attribute(0.0)
    variance: tuple[float, ...] = attribute(())

    def __post_init__(self) -> None:
        check(len(self.width) == len(self.height),
              f"Size of heights vector: {len(self.height)} doesn't match size of widths vector: {len(self.width)}")
        check(len(self.variance) in (0, 1, 4),
              f"Variances size must be 0, 1 or 4. Got: {len(self.variance)}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[2, 4*H*W*P]`` when the output size is constant, ``[2, ?]`` otherwise."""
        size = inputs[0]
        check(size.element_type.is_dynamic or size.element_type.is_integral,
              f"output_size must be an integral number, but is: {size.element_type}")
        check(size.shape.rank_is_dynamic or size.shape.rank == 1,
              f"output_size must be a 1D tensor. Got: {size.shape}")
        value = values[0]
        columns = Dim.dynamic()
        if value is not None and not isinstance(value, PartialValue):
            height, width = self._layer(value)
            columns = Dim.static(4 * height * width * len(self.width))
        return [TensorType(ElementType.F32, Shape((Dim.static(2), columns)))]

    @staticmethod
    def _layer(value: np.ndarray) -> tuple[int, int]:
        found = integer_values(value, "output_size")
        if len(found) != 2:
            raise OpError(f"output_size must hold 2 values (height, width). Got: {found}")
        return found[0], found[1]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """``[2, 4*H*W*P]``."""
        height, width = self._layer(inputs[0])
        return [(2, 4 * height * width * len(self.width))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Every box of every cell at once, float32 as OpenVINO's reference computes it."""
        height, width = self._layer(inputs[0])
        image = integer_values(inputs[1], "image_size")
        if len(image) != 2:
            raise OpError(f"image_size must hold 2 values (height, width). Got: {image}")
        f32 = np.float32
        image_h, image_w = f32(image[0]), f32(image[1])
        step_w = f32(self.step_w if self.step_w != 0 else self.step)
        step_h = f32(self.step_h if self.step_h != 0 else self.step)
        if step_w == 0 and step_h == 0:
            step_w, step_h = image_w / f32(width), image_h / f32(height)
        with np.errstate(all="ignore"):
            centre_x = (np.arange(width, dtype=f32) + f32(self.offset)) * step_w  # [W]
            centre_y = (np.arange(height, dtype=f32) + f32(self.offset)) * step_h  # [H]
            half_w = np.asarray(self.width, f32) / f32(2)  # [P]
            half_h = np.asarray(self.height, f32) / f32(2)
            cx, cy = centre_x[None, :, None], centre_y[:, None, None]
            boxes = np.stack(np.broadcast_arrays((cx - half_w) / image_w, (cy - half_h) / image_h,
                                                 (cx + half_w) / image_w, (cy + half_h) / image_h), axis=-1)
        if self.clip:
            boxes = np.minimum(np.maximum(boxes, f32(0)), f32(1))
        variance = np.asarray(self.variance or (0.1,), f32)
        variances = np.broadcast_to(np.resize(variance, 4), boxes.shape)
        return [np.stack([boxes.reshape(-1), variances.reshape(-1)]).astype(f32)]
