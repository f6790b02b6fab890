"""BitwiseNot-13: element-wise ~x of an integer or boolean tensor."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import INTEGER_OR_BOOLEAN, UnaryElementwise
from irgraph.ops.registry import register


@register
class BitwiseNot(UnaryElementwise):
    """~x (logical not for booleans). Spec: BitwiseNot-13."""

    type_name = "BitwiseNot"
    introduced = 13
    type_rule = INTEGER_OR_BOOLEAN
    compute = staticmethod(np.invert)
