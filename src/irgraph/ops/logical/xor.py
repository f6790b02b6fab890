"""Xor-1: opset1's name for the element-wise xor of boolean tensors (LogicalXor from opset 2 on)."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import BinaryLogical
from irgraph.ops.registry import register


@register
class Xor(BinaryLogical):
    """a xor b with auto_broadcast, as LogicalXor. Spec: LogicalXor-1 (OpenVINO's v0::Xor, opset1 only)."""

    type_name = "Xor"
    introduced = 1
    compute = staticmethod(np.logical_xor)
