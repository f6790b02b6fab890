"""AdaptiveAvgPool-8: average pooling to a requested spatial size."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.ops.families.adaptive_pooling import AdaptivePooling, windows
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class AdaptiveAvgPool(AdaptivePooling):
    """The mean of each adaptive window. Floats sum in f64 and round once (OpenVINO's reference sums in the
    element type, row by row); integers sum in int64 and divide truncating, i8/u8 round to nearest even
    (``std::nearbyint``), as the reference. Spec: AdaptiveAvgPool-8."""

    type_name = "AdaptiveAvgPool"
    introduced = 8
    tolerance = Tolerance(ulp=4, sum_eps=4)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Window sums one spatial dim at a time, then one division by the window volumes."""
        data, sizes = inputs
        found = self.sizes(data, sizes)
        integral = data.dtype.kind in "iu"
        total = data.astype(np.int64 if integral else np.float64)
        counts = np.ones((), np.int64)  # the window volumes, dim by dim
        for axis, out_size in enumerate(found, start=2):
            spans = windows(data.shape[axis], out_size)
            parts = [total.take(range(start, end), axis=axis).sum(axis=axis, keepdims=True) for start, end in spans]
            total = np.concatenate(parts, axis=axis) if parts else np.zeros(
                total.shape[:axis] + (0,) + total.shape[axis + 1:], total.dtype)
            counts = np.multiply.outer(counts, np.array([end - start for start, end in spans], np.int64))
        counts = counts.reshape((1, 1, *found))
        if not integral:
            with np.errstate(all="ignore"):
                return [(total / counts).astype(data.dtype)]
        wrapped = total.astype(data.dtype).astype(np.int64)  # the reference sums in the element type: wraps
        if data.dtype.itemsize == 1:
            return [np.rint(wrapped.astype(np.float32) / counts.astype(np.float32)).astype(data.dtype)]
        quotient = np.abs(wrapped) // counts
        return [np.where(wrapped < 0, -quotient, quotient).astype(data.dtype)]
