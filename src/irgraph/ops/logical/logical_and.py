"""LogicalAnd-1: element-wise a and b of boolean tensors."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import BinaryLogical
from irgraph.ops.registry import register


@register
class LogicalAnd(BinaryLogical):
    """a and b with auto_broadcast. Spec: LogicalAnd-1."""

    type_name = "LogicalAnd"
    introduced = 1
    compute = staticmethod(np.logical_and)
