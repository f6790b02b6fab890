"""ReduceMax-1: the maximum over the axes (NaNs ignored)."""

from __future__ import annotations

from irgraph.ops.families.reduction import Reduction, maximum
from irgraph.ops.registry import register


@register
class ReduceMax(Reduction):
    """The maximum over the axes (NaNs ignored). Spec: ReduceMax-1."""

    type_name = "ReduceMax"
    introduced = 1
    bound_inputs = (0,)  # monotonic: the maximum of the bounds bounds the maximum (OpenVINO's evaluate_lower/upper)
    reduce = staticmethod(maximum)

