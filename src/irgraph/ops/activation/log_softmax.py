"""LogSoftmax-5: x - max - log(sum(exp(x - max))) along an axis."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irgraph.ops.families.softmax import AlongAxis
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


def log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """(x - max) - log(sum(exp(x - max))) along ``axis``."""
    if x.size == 0:
        return x.copy()
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


@register
@dataclass(frozen=True)
class LogSoftmax(AlongAxis):
    """Log of softmax along ``axis`` in [-rank, rank). Spec: LogSoftmax-5."""

    type_name = "LogSoftmax"
    introduced = 5
    tolerance = Tolerance(ulp=4, eps=2)

    def along(self, x: np.ndarray, axis: int) -> np.ndarray:
        """Log-softmax."""
        return log_softmax(x, axis)
