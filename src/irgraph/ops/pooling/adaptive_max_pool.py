"""AdaptiveMaxPool-8: max pooling to a requested spatial size, with the flat index of each maximum."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.families.adaptive_pooling import AdaptivePooling, windows
from irgraph.ops.op import attribute, check
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class AdaptiveMaxPool(AdaptivePooling):
    """The maximum of each adaptive window and its index in the flattened spatial plane of its channel.

    Ties go to the first maximum in row-major order, as OpenVINO's reference scans the window (its
    ``std::max_element`` per row, a strictly greater value to move to a later row). NaN is not ordered
    here (OpenVINO's answer for it depends on where in the window it is). Spec: AdaptiveMaxPool-8.
    """

    type_name = "AdaptiveMaxPool"
    introduced = 8

    index_element_type: str = attribute("i64")

    def __post_init__(self) -> None:
        check(self.index_element_type in ("i32", "i64"),
              f"Index element type must be i32 or i64. Got: {self.index_element_type}")

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Values and indices."""
        return 2

    def extra_outputs(self, shape: Shape) -> list[TensorType]:
        """The indices, of ``index_element_type``."""
        return [TensorType(ElementType.from_ir_name(self.index_element_type), shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Innermost spatial dim first: the max of each window and where it is; each outer dim then keeps the
        earliest position holding the maximum."""
        data, sizes = inputs
        found = self.sizes(data, sizes)
        values = data
        strides = np.cumprod((1, *data.shape[:2:-1]))[::-1]  # row-major strides of the spatial plane
        positions = [np.arange(size).reshape((-1,) + (1,) * (data.ndim - 3 - i)) * strides[i]
                     for i, size in enumerate(data.shape[2:])]
        # the flat spatial index of the element each value came from
        flat = np.broadcast_to(sum(positions, np.zeros((), np.int64)), data.shape)
        for axis in range(data.ndim - 1, 1, -1):
            spans = windows(values.shape[axis], found[axis - 2])
            best_values, best_flat = [], []
            for start, end in spans:
                window = values.take(range(start, end), axis=axis)
                chosen = window.argmax(axis=axis)[(slice(None),) * axis + (None,)]  # first maximum
                best_values.append(np.take_along_axis(window, chosen, axis=axis))
                best_flat.append(np.take_along_axis(flat.take(range(start, end), axis=axis), chosen, axis=axis))
            empty = values.shape[:axis] + (0,) + values.shape[axis + 1:]
            values = np.concatenate(best_values, axis=axis) if spans else np.zeros(empty, data.dtype)
            flat = np.concatenate(best_flat, axis=axis) if spans else np.zeros(empty, np.int64)
        index_type = ElementType.from_ir_name(self.index_element_type).numpy_dtype
        return [np.ascontiguousarray(values), flat.astype(index_type)]
