"""IsNaN-10: which elements of a float tensor are NaN."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irgraph.ops.comparison.is_finite import FloatClassification
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class IsNaN(FloatClassification):
    """True where the element is NaN. Spec: IsNaN-10."""

    type_name = "IsNaN"
    introduced = 10

    def classify(self, data: np.ndarray) -> np.ndarray:
        return np.isnan(data)
