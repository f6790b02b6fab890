"""NV12toRGB/BGR-8 and I420toRGB/BGR-8: YUV 4:2:0 images (one plane, or Y and chroma planes) to RGB or BGR.

Layouts, NHWC with one channel per plane: NV12 is Y ``[N, H, W, 1]`` and interleaved UV ``[N, H/2, W/2, 2]``,
I420 is Y, U ``[N, H/2, W/2, 1]`` and V; either may come as one plane ``[N, 3H/2, W, 1]`` (Y rows, then the
chroma). Each output pixel is OpenVINO's reference conversion (BT.601, video range) of its Y and its 2x2
block's U and V, in float32: ``r = 1.164(y-16) + 1.596(v-128)``, ``g = 1.164(y-16) - 0.391(u-128) -
0.813(v-128)``, ``b = 1.164(y-16) + 2.018(u-128)``, clipped to [0, 255] (rounded half away from zero first
for u8).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, check, checked


@dataclass(frozen=True)
class ColorConvert(Op):
    """The shared rules; a member says its chroma layout (``planes``: 2 for NV12, 3 for I420) and its order."""

    planes: ClassVar[int]
    """Inputs when the chroma comes apart from Y (NV12: Y and UV; I420: Y, U and V)."""
    bgr: ClassVar[bool]

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[N, H, W, 3]`` of the input's element type, after OpenVINO's checks of the planes."""
        check(len(inputs) in (1, self.planes), f"{self.type_name} takes 1 or {self.planes} inputs")
        element_type = inputs[0].element_type
        for other in inputs[1:]:
            check(other.element_type.merge(element_type) is not None,
                  f"Y, U and V inputs shall have the same element type. Got: {element_type} and {other.element_type}")
        check(element_type.is_dynamic or element_type.is_real or element_type.ir_name == "u8",
              f"Input type shall have u8 or floating-point precision, got {element_type}")
        y = inputs[0].shape
        if y.rank_is_dynamic:
            return [TensorType(element_type, DYNAMIC_RANK)]
        check(y.rank == 4, "Y(UV) input shall have 4 dimensions (N, H, W,C)")
        check(y[3].contains(1), "YUV input number of channels should be equal to 1")
        dims = list(y)
        if len(inputs) == 1:
            height = dims[1]
            if height.is_static:
                check(height.value % 3 == 0, "Image height shall be divisible by 3")
                dims[1] = Dim.static(height.value * 2 // 3)
            else:
                dims[1] = (height * 2).divided(3)
        else:
            chroma_channels = 2 if self.planes == 2 else 1
            chroma_names = "UV" if self.planes == 2 else "U and V"
            for other in inputs[1:]:
                if other.shape.rank_is_dynamic:
                    continue
                check(other.shape.rank == 4 and other.shape[3].contains(chroma_channels),
                      f"UV input number of channels should be equal to {chroma_channels}")
                for axis, factor in ((0, 1), (1, 2), (2, 2)):
                    dims[axis] = checked(dims[axis].merge(other.shape[axis] * factor),
                                         f"Y shape is inconsistent with {chroma_names}")
        for axis, what in ((1, "height"), (2, "width")):
            check(not dims[axis].is_static or dims[axis].value % 2 == 0, f"Image {what} must be even")
        dims[3] = Dim.static(3)
        return [TensorType(element_type, Shape(tuple(dims)))]

    def planes_of(self, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Y ``[N, H, W]`` and U, V ``[N, H/2, W/2]``."""
        raise NotImplementedError

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each pixel from its Y and its block's U and V, as OpenVINO's reference computes it."""
        y0 = np.asarray(inputs[0])
        if y0.ndim != 4 or y0.shape[3] != 1 or any(np.ndim(x) != 4 for x in inputs):
            shapes = [list(np.shape(x)) for x in inputs]
            raise OpError(f"{self.type_name} takes NHWC planes of one channel; got {shapes}")
        if len({np.asarray(x).dtype for x in inputs}) != 1:
            raise OpError("Y, U and V inputs shall have the same element type")
        y, u, v = self.planes_of(inputs)
        if y.shape[1] % 2 or y.shape[2] % 2 or u.shape != v.shape or u.shape != (y.shape[0], y.shape[1] // 2,
                                                                                   y.shape[2] // 2):
            raise OpError(f"the Y plane {list(y.shape)} and the chroma planes {list(u.shape)} do not fit a 4:2:0 "
                          "image of even height and width")
        c = y.astype(np.float32) - np.float32(16)
        d = np.repeat(np.repeat(u.astype(np.float32) - np.float32(128), 2, axis=1), 2, axis=2)
        e = np.repeat(np.repeat(v.astype(np.float32) - np.float32(128), 2, axis=1), 2, axis=2)
        luma = np.float32(1.164) * c
        red = luma + np.float32(1.596) * e
        green = luma - np.float32(0.391) * d - np.float32(0.813) * e
        blue = luma + np.float32(2.018) * d
        channels = (blue, green, red) if self.bgr else (red, green, blue)
        pixels = np.stack(channels, axis=-1)
        if y0.dtype.kind in "iu":
            pixels = np.trunc(pixels + np.copysign(np.float32(0.5), pixels))  # std::round: half away from zero
        return [np.minimum(np.maximum(pixels, np.float32(0)), np.float32(255)).astype(y0.dtype)]


@dataclass(frozen=True)
class NV12(ColorConvert):
    """Y and interleaved UV."""

    inputs = Inputs.optional(1, InputSpec("y"), InputSpec("uv"))
    planes = 2

    def planes_of(self, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Y, U and V from one plane or two."""
        if len(inputs) == 1:
            whole = np.asarray(inputs[0])[..., 0]
            height = whole.shape[1] * 2 // 3
            y, chroma = whole[:, :height], whole[:, height:height * 3 // 2]
            uv = chroma.reshape(whole.shape[0], height // 2, whole.shape[2] // 2, 2)
        else:
            y, uv = np.asarray(inputs[0])[..., 0], np.asarray(inputs[1])
            if uv.shape[3] != 2:
                raise OpError("UV input number of channels should be equal to 2")
        return y, uv[..., 0], uv[..., 1]


@dataclass(frozen=True)
class I420(ColorConvert):
    """Y, U and V planes."""

    inputs = Inputs.optional(1, InputSpec("y"), InputSpec("u"), InputSpec("v"))
    planes = 3

    def planes_of(self, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Y, U and V from one plane or three."""
        if len(inputs) == 1:
            whole = np.asarray(inputs[0])[..., 0]
            batch, rows, width = whole.shape
            height = rows * 2 // 3
            chroma = whole[:, height:height * 3 // 2].reshape(batch, -1)
            quarter = height * width // 4
            u = chroma[:, :quarter].reshape(batch, height // 2, width // 2)
            v = chroma[:, quarter:2 * quarter].reshape(batch, height // 2, width // 2)
            return whole[:, :height], u, v
        y, u, v = (np.asarray(x)[..., 0] for x in inputs[:3])
        return y, u, v
