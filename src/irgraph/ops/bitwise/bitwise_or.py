"""BitwiseOr-13: element-wise a | b of integer or boolean tensors."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import INTEGER_OR_BOOLEAN, BinaryElementwise
from irgraph.ops.registry import register


@register
class BitwiseOr(BinaryElementwise):
    """a | b with auto_broadcast (logical for booleans). Spec: BitwiseOr-13."""

    type_name = "BitwiseOr"
    introduced = 13
    type_rule = INTEGER_OR_BOOLEAN
    compute = staticmethod(np.bitwise_or)
