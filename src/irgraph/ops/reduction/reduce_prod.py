"""ReduceProd-1: the product over the axes (sequential, as OpenVINO's reference)."""

from __future__ import annotations

from irgraph.ops.families.reduction import Reduction, product
from irgraph.ops.registry import register


@register
class ReduceProd(Reduction):
    """The product over the axes (sequential, as OpenVINO's reference). Spec: ReduceProd-1."""

    type_name = "ReduceProd"
    introduced = 1
    reduce = staticmethod(product)

