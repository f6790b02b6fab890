"""BitwiseRightShift-15: element-wise a >> b on integers, with x86's shift semantics."""

from __future__ import annotations

import numpy as np

from irgraph.ops.bitwise.bitwise_left_shift import INTEGER, shift
from irgraph.ops.families.elementwise import BinaryElementwise
from irgraph.ops.registry import register


@register
class BitwiseRightShift(BinaryElementwise):
    """a >> b with auto_broadcast (arithmetic for signed types); integers only. Spec: BitwiseRightShift-15."""

    type_name = "BitwiseRightShift"
    introduced = 15
    type_rule = INTEGER

    def compute_values(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``a >> b`` (see :func:`irgraph.ops.bitwise.bitwise_left_shift.shift`)."""
        return shift(a, b, left=False)
