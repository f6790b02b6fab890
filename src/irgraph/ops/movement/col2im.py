"""Col2Im-15: sum sliding-window columns back into an image (the inverse layout of Im2Col / torch.nn.Fold)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check, integer_values
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Col2Im(Op):
    """``data`` ``[N, C*kh*kw, L]`` (or without N) whose columns are the sliding blocks of an image of
    ``output_size`` padded by ``pads_begin``/``pads_end``; overlapping blocks add up. L must be the
    number of blocks. Floats sum in the input type (a tolerance row covers the summation order).
    Spec: Col2Im-15."""

    type_name = "Col2Im"
    introduced = 15
    inputs = Inputs.of(InputSpec("data"), InputSpec("output_size"),
                       InputSpec("kernel_size"))
    tolerance = Tolerance(ulp=4, eps=16)

    strides: tuple[int, ...] = attribute((1, 1))
    dilations: tuple[int, ...] = attribute((1, 1))
    pads_begin: tuple[int, ...] = attribute((0, 0))
    pads_end: tuple[int, ...] = attribute((0, 0))

    def __post_init__(self) -> None:
        for name in ("strides", "dilations", "pads_begin", "pads_end"):
            value = getattr(self, name)
            check(len(value) == 2, f"Col2Im attribute '{name}' must hold 2 values. Got: {list(value)}")
            low = 0 if name.startswith("pads") else 1
            check(all(v >= low for v in value), f"Col2Im attribute '{name}' values must be >= {low}. Got: "
                  f"{list(value)}")

    @staticmethod
    def _pair(value: np.ndarray, name: str) -> tuple[int, int]:
        values = integer_values(value, name)
        check(len(values) == 2, f"'{name}' must be a 1D input of 2 elements. Got: {values}")
        check(all(v > 0 for v in values) if name == "kernel_size" else all(v >= 0 for v in values),
              f"'{name}' values must be {'positive' if name == 'kernel_size' else 'non-negative'}. Got: {values}")
        return values[0], values[1]

    def _blocks(self, size: tuple[int, int], kernel: tuple[int, int]) -> tuple[int, int]:
        counts = []
        for axis in range(2):
            padded = size[axis] + self.pads_begin[axis] + self.pads_end[axis]
            span = padded - self.dilations[axis] * (kernel[axis] - 1) - 1
            counts.append(span // self.strides[axis] + 1 if span >= 0 else 0)
        return counts[0], counts[1]

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[N, C, H, W]`` (``[C, H, W]`` unbatched); C = data channels / (kh*kw)."""
        data = inputs[0]
        for name, tensor in (("output_size", inputs[1]), ("kernel_size", inputs[2])):
            check(tensor.element_type.is_dynamic or tensor.element_type.is_integral,
                  f"The element type of '{name}' must be i32 or i64. Got: {tensor.element_type}")
        check(data.shape.rank_is_dynamic or data.shape.rank in (2, 3),
              f"data must be an unbatched 2D or a batched 3D input. Got: {data.shape}")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, Shape(None))]
        batched = data.shape.rank == 3
        size = self._pair(values[1], "output_size") if values[1] is not None else None
        kernel = self._pair(values[2], "kernel_size") if values[2] is not None else None
        channels_dim = data.shape[-2]
        channels = Dim.dynamic()
        if kernel is not None and channels_dim.is_static:
            product = kernel[0] * kernel[1]
            check(channels_dim.value % product == 0, f"First non-batch dimension of 'data' must be divisible by the "
                  f"product of kernel_size. Got: {channels_dim.value} and {list(kernel)}")
            channels = Dim.static(channels_dim.value // product)
        if size is not None and kernel is not None and data.shape[-1].is_static:
            blocks = self._blocks(size, kernel)
            check(data.shape[-1].value == blocks[0] * blocks[1], f"For given inputs and parameters the total number "
                  f"of data blocks must be equal to {blocks[0] * blocks[1]}. Got: {data.shape[-1].value}")
        spatial = (Dim.static(size[0]), Dim.static(size[1])) if size is not None else (Dim.dynamic(), Dim.dynamic())
        dims = ((data.shape[0],) if batched else ()) + (channels, *spatial)
        return [TensorType(data.element_type, Shape(dims))]

    def _geometry(self, inputs: Sequence[np.ndarray]) -> tuple[tuple[int, int], tuple[int, int], int, tuple[int, int]]:
        data = inputs[0]
        check(data.ndim in (2, 3), f"data must be an unbatched 2D or a batched 3D input. Got shape {list(data.shape)}")
        size, kernel = self._pair(inputs[1], "output_size"), self._pair(inputs[2], "kernel_size")
        product = kernel[0] * kernel[1]
        check(data.shape[-2] % product == 0, f"First non-batch dimension of 'data' must be divisible by the product "
              f"of kernel_size. Got: {data.shape[-2]} and {list(kernel)}")
        blocks = self._blocks(size, kernel)
        check(data.shape[-1] == blocks[0] * blocks[1], f"For given inputs and parameters the total number of data "
              f"blocks must be equal to {blocks[0] * blocks[1]}. Got: {data.shape[-1]}")
        return size, kernel, data.shape[-2] // product, blocks

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """``[N, C, H, W]`` or ``[C, H, W]``."""
        size, _, channels, _ = self._geometry(inputs)
        return [(*inputs[0].shape[:-2], channels, *size)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """np.add.at of every block element into a padded image, then the padding cropped."""
        data = inputs[0]
        size, kernel, channels, blocks = self._geometry(inputs)
        batch = data.reshape((-1,) + data.shape[-2:]) if data.ndim == 3 else data[None]
        n = batch.shape[0]
        values = batch.reshape(n, channels, kernel[0], kernel[1], blocks[0], blocks[1])
        padded_h = size[0] + self.pads_begin[0] + self.pads_end[0]
        padded_w = size[1] + self.pads_begin[1] + self.pads_end[1]
        padded = np.zeros((n, channels, padded_h, padded_w), data.dtype)
        rows = (np.arange(kernel[0]) * self.dilations[0])[:, None, None, None] + \
            (np.arange(blocks[0]) * self.strides[0])[None, None, :, None]
        cols = (np.arange(kernel[1]) * self.dilations[1])[None, :, None, None] + \
            (np.arange(blocks[1]) * self.strides[1])[None, None, None, :]
        rows, cols = np.broadcast_arrays(rows, cols)
        image = np.moveaxis(padded, (2, 3), (0, 1))  # [H, W, n, C]: the scattered axes first
        np.add.at(image, (rows, cols), np.moveaxis(values, (0, 1), (-2, -1)))
        result = padded[:, :, self.pads_begin[0]:self.pads_begin[0] + size[0],
                        self.pads_begin[1]:self.pads_begin[1] + size[1]]
        shape = (*data.shape[:-2], channels, *size)
        return [np.ascontiguousarray(result).reshape(shape)]
