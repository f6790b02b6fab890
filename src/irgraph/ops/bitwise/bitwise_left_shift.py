"""BitwiseLeftShift-15: element-wise a << b on integers, with x86's shift semantics."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import BinaryElementwise, TypeRule
from irgraph.ops.registry import register

INTEGER = TypeRule(lambda t: t.is_integral, "The element type of the input tensor must be integer. Got: {type}.")


def shift(a: np.ndarray, b: np.ndarray, left: bool) -> np.ndarray:
    """``a << b`` or ``a >> b`` as OpenVINO's reference computes it in C++ on x86: narrow types are
    promoted to 32 bits first (so an i8 shifted by 8..31 loses every bit), and the count is taken
    modulo the promoted width (x86 masks it: ``x << 32`` on i32 is ``x``, ``x << -1`` is ``x << 31``)."""
    width = max(a.dtype.itemsize, 4) * 8
    count = b.astype(np.int64) & (width - 1)
    wide_type = np.int64 if a.dtype.kind == "i" else np.uint64
    wide = a.astype(wide_type)
    count = count.astype(wide_type)
    if left:
        result = np.left_shift(wide, count)
    else:
        result = np.right_shift(wide, count)  # arithmetic for signed, logical for unsigned: as C++ on x86
    return result.astype(a.dtype)


@register
class BitwiseLeftShift(BinaryElementwise):
    """a << b with auto_broadcast; integers only. Spec: BitwiseLeftShift-15."""

    type_name = "BitwiseLeftShift"
    introduced = 15
    type_rule = INTEGER

    def compute_values(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``a << b`` (see :func:`shift`)."""
        return shift(a, b, left=True)


