"""LogicalXor-1: element-wise a xor b of boolean tensors."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import BinaryLogical
from irgraph.ops.registry import register


@register
class LogicalXor(BinaryLogical):
    """a xor b with auto_broadcast. Spec: LogicalXor-1."""

    type_name = "LogicalXor"
    compute = staticmethod(np.logical_xor)
