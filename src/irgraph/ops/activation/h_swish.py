"""HSwish-4: element-wise x * min(max(x + 3, 0), 6) / 6."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.numeric import in_chunks
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


def _h_swish(x: np.ndarray) -> np.ndarray:
    return _h_swish_into(x if x.flags.c_contiguous else np.ascontiguousarray(x), np.empty(x.shape, x.dtype))


def _h_swish_into(x: np.ndarray, target: np.ndarray) -> np.ndarray:
    # x * min(max(x + 3, 0), 6) / 6, the same calls in the same order, a chunk at a time through one scratch array
    # (irgraph.ops.numeric.in_chunks): on MobileNet-v3's large maps the temporaries' allocation and page
    # faults cost more than the arithmetic
    t = x.dtype.type
    three, zero, six = t(3), t(0), t(6)

    def h_swish(part: np.ndarray, scratch: np.ndarray, out: np.ndarray) -> None:
        np.add(part, three, out=scratch)
        # np.clip is minimum(maximum(v, 0), 6) in one pass, NaN (its payload too) kept: probed on NumPy 2.4.6 for
        # f32 and f64, and x + 3 is never -0.0 (a sum that cancels exactly is +0.0): no zero's sign depends on it
        np.clip(scratch, zero, six, out=scratch)
        np.multiply(part, scratch, out=scratch)
        np.divide(scratch, six, out=out)

    return in_chunks(h_swish, x, target)


@register
class HSwish(UnaryMath):
    """x * min(max(x + 3, 0), 6) / 6. Spec: HSwish-4."""

    type_name = "HSwish"
    introduced = 4
    compute = staticmethod(_h_swish)
    tolerance = Tolerance(ulp=1)

    @classmethod
    def in_place_function(cls, dtype: np.dtype) -> Callable[[np.ndarray, np.ndarray], Any] | None:
        """Written over a donated input of f32 or f64 in C order (f16 and bf16 are computed in f32, apart)."""
        if dtype not in (np.float32, np.float64):
            return None

        def into(data: np.ndarray, target: np.ndarray) -> Any:
            if data.flags.c_contiguous and target.flags.c_contiguous:
                return _h_swish_into(data, target)
            np.copyto(target, _h_swish(data))
            return target

        return into
