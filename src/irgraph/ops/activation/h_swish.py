"""HSwish-4: element-wise x * min(max(x + 3, 0), 6) / 6."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


def _h_swish(x: np.ndarray) -> np.ndarray:
    t = x.dtype.type
    return x * np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6)


@register
class HSwish(UnaryMath):
    """x * min(max(x + 3, 0), 6) / 6. Spec: HSwish-4."""

    type_name = "HSwish"
    introduced = 4
    compute = staticmethod(_h_swish)
    tolerance = Tolerance(ulp=1)
