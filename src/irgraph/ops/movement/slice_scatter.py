"""SliceScatter-15: the data with one Slice-8 region replaced by ``updates`` (torch.slice_scatter)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.movement.slice import Slice, python_slice
from irgraph.ops.op import Inputs, InputSpec, Op, check
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class SliceScatter(Op):
    """``data`` where ``Slice(data, start, stop, step, axes)`` selects, ``updates`` there: the region follows
    Slice-8's rules exactly (negative steps, clamping, optional axes) and ``updates`` must have its shape.
    Exact: values are copied. Spec: SliceScatter-15."""

    type_name = "SliceScatter"
    introduced = 15
    inputs = Inputs.optional(5, InputSpec("data"), InputSpec("updates"), InputSpec("start"), InputSpec("stop"),
                             InputSpec("step"), InputSpec("axes"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data's type, once ``updates`` fits the sliced region's shape."""
        data, updates, *rest = inputs
        (region,) = Slice().infer([data, *rest], [values[0], *values[2:]])
        if data.element_type.merge(updates.element_type) is None:
            raise OpError(f"SliceScatter updates element type {updates.element_type} must be the data's, "
                          f"{data.element_type}")
        check(region.shape.merge(updates.shape) is not None,
              f"SliceScatter updates at index 1 are not compatible with expected slice shape {region.shape}")
        return [data]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """A copy of the data with the region assigned."""
        data, updates, *rest = inputs
        for value, name in zip(rest, ("start", "stop", "step", "axes"), strict=False):
            check(np.ndim(value) == 1, f"Slice `{name}` input must be a 1D tensor. Got rank: {np.ndim(value)}")
        plan = Slice().plan(np.ndim(data), [data, *rest])
        shape = np.shape(data)
        key = tuple(python_slice(shape[i], *plan[i]) if i in plan else slice(None) for i in range(len(shape)))
        result = np.array(data, copy=True)
        region = result[key]
        if np.shape(updates) != region.shape or np.asarray(updates).dtype != result.dtype:
            raise OpError(f"SliceScatter updates {np.asarray(updates).dtype}{list(np.shape(updates))} must fill the "
                          f"sliced region {result.dtype}{list(region.shape)}")
        result[key] = updates
        return [result]
