"""HSigmoid-5: element-wise min(max(x + 3, 0), 6) / 6."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


def _h_sigmoid(x: np.ndarray) -> np.ndarray:
    t = x.dtype.type
    return np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6)


@register
class HSigmoid(UnaryMath):
    """min(max(x + 3, 0), 6) / 6. Spec: HSigmoid-5."""

    type_name = "HSigmoid"
    introduced = 5
    compute = staticmethod(_h_sigmoid)
    tolerance = Tolerance(ulp=1)
