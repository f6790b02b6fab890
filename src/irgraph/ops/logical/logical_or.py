"""LogicalOr-1: element-wise a or b of boolean tensors."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import BinaryLogical
from irgraph.ops.registry import register


@register
class LogicalOr(BinaryLogical):
    """a or b with auto_broadcast. Spec: LogicalOr-1."""

    type_name = "LogicalOr"
    introduced = 1
    compute = staticmethod(np.logical_or)
