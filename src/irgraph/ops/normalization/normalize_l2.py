"""NormalizeL2-0: x / sqrt(sum of squares over the axes, with eps added or as a floor)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.families.eps_mode import EpsModeNormalization
from irgraph.ops.op import Tolerance, check, integer_values, normalize_axis
from irgraph.ops.registry import register

EPS_MODES = ("add", "max")


@register
@dataclass(frozen=True)
class NormalizeL2(EpsModeNormalization):
    """Spec: NormalizeL2-1 (its header calls it NormalizeL2-0; opsets 1-16). Axes may be negative and
    repeat; no axes divides each element by itself (1, or 0 for 0), as OpenVINO's reference does.
    ``eps_mode="max"`` floors the sum at eps as the reference and the spec say (OpenVINO 2026.4.1's CPU
    plugin adds eps in both modes)."""

    type_name = "NormalizeL2"
    introduced = 1
    tolerance = Tolerance(ulp=8, eps=8)
    eps_modes = EPS_MODES

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data type; the axes are a scalar or 1-D, inside the data rank."""
        data, axes = inputs
        if not axes.shape.rank_is_dynamic:
            check(axes.shape.rank <= 1,
                  f"Input axes must be scalar or have rank equal to 1 (axes rank: {axes.shape.rank}).")
        if values[1] is not None and not data.shape.rank_is_dynamic:
            for axis in integer_values(values[1], "axes"):
                normalize_axis(axis, data.shape.rank)
        return [data]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Sum of squares in f64 over the axes, then the division, rounded once (eps in the element type:
        1e-10 is 0 in f16, and an all-zero slice is then 0 / 0, NaN, as on the CPU plugin)."""
        data, axes = inputs
        if data.dtype.kind not in "fV":
            raise OpError(f"NormalizeL2 on {data.dtype} is not implemented (OpenVINO's reference computes integers "
                          "in their own type)")
        found = tuple(sorted({normalize_axis(a, data.ndim) for a in integer_values(axes, "axes")}))
        wide = data.astype(np.float64)
        if not found:
            return [(wide != 0).astype(data.dtype)]
        eps = float(np.asarray(self.eps, dtype=data.dtype))  # the reference casts eps to the element type
        with np.errstate(all="ignore"):
            total = (wide * wide).sum(axis=found, keepdims=True)
            bounded = total + eps if self.mode == "add" else np.maximum(total, eps)
            result = wide / np.sqrt(bounded)
        return [result.astype(data.dtype)]
