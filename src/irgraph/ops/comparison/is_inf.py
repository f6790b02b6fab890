"""IsInf-10: which elements of a float tensor are infinite (either sign, as the attributes say)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irgraph.ops.comparison.is_finite import FloatClassification
from irgraph.ops.op import attribute
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class IsInf(FloatClassification):
    """True where the element is +inf (``detect_positive``) or -inf (``detect_negative``). Spec: IsInf-10."""

    type_name = "IsInf"
    introduced = 10

    detect_negative: bool = attribute(True)
    detect_positive: bool = attribute(True)

    def classify(self, data: np.ndarray) -> np.ndarray:
        found = np.zeros(data.shape, bool)
        if self.detect_positive:
            found |= data == np.inf
        if self.detect_negative:
            found |= data == -np.inf
        return found
