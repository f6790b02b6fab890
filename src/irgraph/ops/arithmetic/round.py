"""Round-5: element-wise rounding to an integer value, ties to even or away from zero."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.numeric import round_half_away
from irgraph.ops.op import attribute, check
from irgraph.ops.registry import register

MODES = ("half_to_even", "half_away_from_zero")


@register
@dataclass(frozen=True)
class Round(UnaryMath):
    """Round to the nearest integer value; ``mode`` breaks ties. Integers pass through. Spec: Round-5."""

    type_name = "Round"
    introduced = 5
    integers = "identity"

    mode: str = attribute("half_to_even")

    def __post_init__(self) -> None:
        check(self.mode in MODES, f"Attribute 'mode' must be one of {', '.join(MODES)}. Got: {self.mode!r}")

    def compute_values(self, data: np.ndarray) -> Any:
        """``np.rint`` (ties to even) or ties away from zero."""
        if data.dtype.kind in "iu":
            return data.copy()
        if self.mode == "half_to_even":
            return np.rint(data)
        return round_half_away(data)
