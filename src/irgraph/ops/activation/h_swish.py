"""HSwish-4: element-wise x * min(max(x + 3, 0), 6) / 6."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


def _h_swish(x: np.ndarray) -> np.ndarray:
    # x * min(max(x + 3, 0), 6) / 6, the same calls in the same order, in one array instead of four: on
    # MobileNet-v3's large maps the temporaries' allocation and page faults cost more than the arithmetic.
    t = x.dtype.type
    result = np.add(x, t(3), out=np.empty_like(x))  # an array even for 0-d data
    # np.clip is minimum(maximum(v, 0), 6) in one pass, NaN (its payload too) kept: probed on NumPy 2.4.6 for f32 and
    # f64, and x + 3 is never -0.0 (a sum that cancels exactly is +0.0), so no zero's sign depends on the order
    np.clip(result, t(0), t(6), out=result)
    np.multiply(x, result, out=result)
    np.divide(result, t(6), out=result)
    return result


@register
class HSwish(UnaryMath):
    """x * min(max(x + 3, 0), 6) / 6. Spec: HSwish-4."""

    type_name = "HSwish"
    introduced = 4
    compute = staticmethod(_h_swish)
    tolerance = Tolerance(ulp=1)
