"""ExtractImagePatches-3: every (dilated) ``sizes`` patch of an NCHW image as channels (tf.image.extract_patches)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import UNSETTLED, Inputs, InputSpec, Op, attribute, check, checked
from irgraph.ops.registry import register

PADS = ("valid", "same_lower", "same_upper")


@register
@dataclass(frozen=True)
class ExtractImagePatches(Op):
    """``[N, C, H, W]`` -> ``[N, C*KH*KW, OH, OW]``: output channel ``(kh*KW + kw)*C + c`` at ``(oh, ow)`` is input
    ``(c, oh*SH - top + kh*RH, ow*SW - left + kw*RW)``, 0 outside the image. Output sizes and padding follow
    OpenVINO's shape rule and reference exactly (``valid``: only patches that fit; ``same_*``: ceil(size /
    stride) patches, padded as its reference pads). Exact. Spec: ExtractImagePatches-3."""

    type_name = "ExtractImagePatches"
    introduced = 3
    inputs = Inputs.of(InputSpec("data"))

    sizes: tuple[int, ...] = attribute()
    strides: tuple[int, ...] = attribute()
    rates: tuple[int, ...] = attribute()
    auto_pad: str = attribute()

    def __post_init__(self) -> None:
        check(len(self.sizes) == 2, "Attribute sizes should be in [size_rows, size_cols] format.")
        check(len(self.strides) == 2, "Attribute strides should be in [stride_rows, stride_cols] format.")
        check(all(s > 0 for s in self.strides), "Attribute strides should be strictly greater than zeros in values.")
        check(len(self.rates) == 2, "Attribute rates should be in [rate_rows, rate_cols] format.")
        check(all(r > 0 for r in self.rates), "Attribute rates should be strictly greater than zeros in values.")
        check(self.auto_pad.lower() in PADS, "Attribute padding should be in either valid or same_lower or same_upper.")
        check(all(s > 0 for s in self.sizes), f"Attribute sizes should be positive. Got: {list(self.sizes)}")

    def _out(self, size: int, axis: int) -> int:
        if self.auto_pad.lower() == "valid":
            out = (size - self.rates[axis] * (self.sizes[axis] - 1) - 1) // self.strides[axis] + 1
        else:
            out = 1 + (size - 1) // self.strides[axis]
        return max(out, 0)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[N, C*KH*KW, OH, OW]`` (an empty image keeps its shape, as OpenVINO's rule says)."""
        (data,) = inputs
        check(data.shape.rank_is_dynamic or data.shape.rank == 4, "input tensor must be 4D tensor.")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, Shape.dynamic(4))]
        n, c, h, w = data.shape
        if h.is_static and w.is_static and 0 in (h.value, w.value):
            return [data]
        area = self.sizes[0] * self.sizes[1]
        channels = c * area
        rows = Dim.static(self._out(h.value, 0)) if h.is_static and w.is_static else Dim.dynamic()
        cols = Dim.static(self._out(w.value, 1)) if h.is_static and w.is_static else Dim.dynamic()
        return [TensorType(data.element_type, Shape((n, channels, rows, cols)))]

    @staticmethod
    def _checked(data: np.ndarray) -> tuple[int, int, int, int]:
        if np.ndim(data) != 4:
            raise OpError("input tensor must be 4D tensor.")
        return np.shape(data)

    def _padding(self, size: int, axis: int) -> int:
        """OpenVINO's reference's leading padding of one spatial axis."""
        if self.auto_pad.lower() == "valid":
            return 0
        step = self.sizes[axis] + (self.rates[axis] - 1) * (self.sizes[axis] - 1)
        total = (math.ceil(np.float32(size) / np.float32(self.strides[axis])) - 1) * self.strides[axis] + step - size
        if not 0 < total < step:
            return 0
        if total % 2 == 0:
            return total // 2
        return (total + 1) // 2 if self.auto_pad.lower() == "same_lower" else (total - 1) // 2

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Gather the patch positions (zeros outside the image) with one fancy index per spatial axis."""
        (data,) = inputs
        n, c, h, w = self._checked(data)
        (shape,) = checked(self.output_shapes(inputs), UNSETTLED)
        if 0 in (h, w):
            return [np.array(data, copy=True)]
        _, _, rows, cols = shape
        kh, kw = self.sizes
        row_index = (np.arange(rows)[:, None] * self.strides[0] - self._padding(h, 0)
                     + np.arange(kh)[None, :] * self.rates[0])  # [OH, KH]
        col_index = (np.arange(cols)[:, None] * self.strides[1] - self._padding(w, 1)
                     + np.arange(kw)[None, :] * self.rates[1])  # [OW, KW]
        padded = np.zeros((n, c, h + 1, w + 1), data.dtype)  # row/column h, w: the zeros outside the image
        padded[:, :, :h, :w] = data
        row_index = np.where((row_index >= 0) & (row_index < h), row_index, h)
        col_index = np.where((col_index >= 0) & (col_index < w), col_index, w)
        patches = padded[:, :, row_index[:, :, None, None], col_index[None, None, :, :]]  # [N, C, OH, KH, OW, KW]
        ordered = patches.transpose(0, 3, 5, 1, 2, 4)  # [N, KH, KW, C, OH, OW]
        return [np.ascontiguousarray(ordered).reshape(shape)]
