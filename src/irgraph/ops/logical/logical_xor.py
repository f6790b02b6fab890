"""LogicalXor-2: element-wise a xor b of booleans (OpenVINO's v1::LogicalXor: version id opset2, in opsets 1-16)."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import BinaryLogical
from irgraph.ops.registry import register


@register
class LogicalXor(BinaryLogical):
    """a xor b with auto_broadcast. Spec: LogicalXor-1 (OpenVINO writes it version="opset2", its version id)."""

    type_name = "LogicalXor"
    introduced = 2
    compute = staticmethod(np.logical_xor)
