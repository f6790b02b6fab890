"""ReduceMin-1: the minimum over the axes (NaNs ignored)."""

from __future__ import annotations

from irgraph.ops.families.reduction import Reduction, minimum
from irgraph.ops.registry import register


@register
class ReduceMin(Reduction):
    """The minimum over the axes (NaNs ignored). Spec: ReduceMin-1."""

    type_name = "ReduceMin"
    introduced = 1
    bound_inputs = (0,)  # monotonic: the minimum of the bounds bounds the minimum (OpenVINO's evaluate_lower/upper)
    reduce = staticmethod(minimum)

