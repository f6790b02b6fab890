"""LogicalNot-1: element-wise not."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import ANY_TYPE, UnaryElementwise
from irgraph.ops.registry import register


def _logical_not(x: np.ndarray) -> np.ndarray:
    # OpenVINO 2026.4.1 also takes numbers: 1 where x == 0, else 0, in x's own type.
    return np.logical_not(x) if x.dtype == np.bool_ else (x == 0).astype(x.dtype)


@register
class LogicalNot(UnaryElementwise):
    """not x (for numbers: x == 0, in their type, as OpenVINO's reference). Spec: LogicalNot-1."""

    type_name = "LogicalNot"
    introduced = 1
    type_rule = ANY_TYPE
    compute = staticmethod(_logical_not)
