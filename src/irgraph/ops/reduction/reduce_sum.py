"""ReduceSum-1: the sum over the axes (Kahan summation in OpenVINO's reference)."""

from __future__ import annotations

from irgraph.ops.families.reduction import SUM_TOLERANCE, Reduction, total
from irgraph.ops.registry import register


@register
class ReduceSum(Reduction):
    """The sum over the axes (Kahan summation in OpenVINO's reference). Spec: ReduceSum-1."""

    type_name = "ReduceSum"
    introduced = 1
    reduce = staticmethod(total)
    tolerance = SUM_TOLERANCE
