"""ReduceMean-1: the mean over the axes (integers truncate toward zero)."""

from __future__ import annotations

from irgraph.ops.families.reduction import SUM_TOLERANCE, Reduction, mean
from irgraph.ops.registry import register


@register
class ReduceMean(Reduction):
    """The mean over the axes (integers truncate toward zero). Spec: ReduceMean-1."""

    type_name = "ReduceMean"
    introduced = 1
    reduce = staticmethod(mean)
    tolerance = SUM_TOLERANCE
