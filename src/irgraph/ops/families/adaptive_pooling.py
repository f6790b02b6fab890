"""AdaptiveAvgPool-8 and AdaptiveMaxPool-8: pooling to a requested spatial size (PyTorch's adaptive pools).

Output position ``i`` of a spatial dim of size ``D`` pooled to ``O`` covers ``[floor(i*D/O), ceil((i+1)*D/O))``:
windows of unequal sizes that overlap when ``O`` does not divide ``D``. The pooling is separable, so it
runs one spatial dim at a time, a vectorised reduction per output position of that dim (a loop over
the ``O`` positions, never over elements).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, check, integer_values


def windows(size: int, out: int) -> list[tuple[int, int]]:
    """The ``[start, end)`` of each output position (OpenVINO's ``window_start``/``window_end``)."""
    return [(i * size // out, math.ceil((i + 1) * size / out)) for i in range(out)]


@dataclass(frozen=True)
class AdaptivePooling(Op):
    """Data ``[N, C, spatial...]`` (3D to 5D) and the 1D ``output_shape`` of its spatial dims."""

    inputs = Inputs.of(InputSpec("data"), InputSpec("output_shape"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[N, C, *output_shape]`` (spatial dims dynamic while output_shape is not constant)."""
        data, sizes = inputs
        if not data.shape.rank_is_dynamic:
            check(3 <= data.shape.rank <= 5, f"Expected a 3D, 4D or 5D tensor for the input. Got: {data.shape}")
        if not sizes.shape.rank_is_dynamic:
            check(sizes.shape.rank == 1, f"Output shape for spatial dimension must be rank 1 (got {sizes.shape}).")
            length = sizes.shape[0]
            check(data.shape.rank_is_dynamic or not length.is_static or length.value == data.shape.rank - 2,
                  f"Output shape for spatial dimension not compatible with data shape. Got: {sizes.shape}")
        check(sizes.element_type.is_dynamic or sizes.element_type.is_integral,
              f"Output shape must be an integer tensor. Got: {sizes.element_type}")
        if data.shape.rank_is_dynamic:
            shape = DYNAMIC_RANK
        elif values[1] is not None:
            found = integer_values(values[1], "output_shape")
            check(all(v >= 0 for v in found), f"Output shape must not have negative values. Got: {found}")
            shape = Shape((data.shape[0], data.shape[1], *(Dim.static(v) for v in found)))
        else:
            shape = Shape((data.shape[0], data.shape[1], *(Dim.dynamic() for _ in range(data.shape.rank - 2))))
        return [TensorType(data.element_type, shape), *self.extra_outputs(shape)]

    def extra_outputs(self, shape: Shape) -> list[TensorType]:
        """Outputs after the pooled data (AdaptiveMaxPool's indices)."""
        return []

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """``[N, C, *output_shape]``, for every output."""
        data, sizes = inputs
        shape = (*data.shape[:2], *self.sizes(data, sizes))
        return [shape] * (1 + len(self.extra_outputs(Shape.static(shape))))

    def sizes(self, data: np.ndarray, sizes: np.ndarray) -> list[int]:
        """The output spatial sizes, checked: each window holds at least one element."""
        if not 3 <= data.ndim <= 5:
            raise OpError(f"Expected a 3D, 4D or 5D tensor for the input. Got: {list(data.shape)}")
        found = integer_values(sizes, "output_shape")
        if np.ndim(sizes) != 1 or len(found) != data.ndim - 2 or any(v < 0 for v in found):
            raise OpError(f"output_shape {found} must give one non-negative size per spatial dim of "
                          f"{list(data.shape)}")
        if any(size == 0 and out > 0 for size, out in zip(data.shape[2:], found, strict=True)):
            raise OpError(f"{self.type_name} elements == 0, must be non-zero (input {list(data.shape)}, output "
                          f"{found})")
        return found
