"""Xor-1: opset1's other name for the xor of boolean tensors (opset1 has LogicalXor too; later opsets only that)."""

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
