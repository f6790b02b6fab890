"""Clamp-1: element-wise clip to [min, max]."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import attribute, check
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Clamp(UnaryMath):
    """min(max(x, min), max); integer inputs clip to ceil(min) and floor(max). Spec: Clamp-1."""

    type_name = "Clamp"
    introduced = 1

    min: float = attribute()
    max: float = attribute()

    def __post_init__(self) -> None:
        check(self.min <= self.max, f"Attribute 'min' must be less or equal than 'max'. Got: {self.min} and {self.max}")

    def compute_values(self, data: np.ndarray) -> Any:
        """The clipped values."""
        if data.dtype.kind in "iu":
            info = np.iinfo(data.dtype)
            low = min(max(math.ceil(self.min), info.min), info.max)
            high = min(max(math.floor(self.max), info.min), info.max)
            return np.minimum(np.maximum(data, data.dtype.type(low)), data.dtype.type(high))
        low, high = data.dtype.type(self.min), data.dtype.type(self.max)
        # std::min(std::max(x, min), max): NaN and -0.0 (against min 0.0) pass through.
        return np.where(data < low, low, np.where(high < data, high, data))
