"""BitwiseAnd-13: element-wise a & b of integer or boolean tensors."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import INTEGER_OR_BOOLEAN, BinaryElementwise
from irgraph.ops.registry import register


@register
class BitwiseAnd(BinaryElementwise):
    """a & b with auto_broadcast (logical for booleans). Spec: BitwiseAnd-13."""

    type_name = "BitwiseAnd"
    introduced = 13
    type_rule = INTEGER_OR_BOOLEAN
    compute = staticmethod(np.bitwise_and)
