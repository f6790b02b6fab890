"""Independent formulations: the oracles of configurations OpenVINO 2026.4.1 does not evaluate.

Each formulation computes an op from its specification, in higher precision than the output type (NumPy's
longdouble, 64-bit mantissa on x86, or f64; then rounded once by the harness), without irgraph's code:
differential.check_op uses it when OpenVINO's reference gives no values (the f64 kernels its wheels do not
compile, ops constant folding skips) and compares within ``higher_precision_tolerance``. With
``IRGRAPH_CHECK_FORMULATIONS=1`` every formulation is also compared with OpenVINO wherever OpenVINO answers, so
a formulation is itself checked against the oracle it stands in for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from irgraph.ops import Op
from irgraph.shapes import TensorType
from tests.ops.differential import Independent

WIDE = np.longdouble
"""The precision of the formulations: 64 mantissa bits on x86 (f64 where the platform has no wider type)."""

Compute = Callable[[Op, list[np.ndarray], list[TensorType]], list[np.ndarray] | None]
FORMULATIONS: dict[str, Independent] = {}
"""By op type name."""


def formulation_of(op: Op) -> Independent | None:
    """The independent formulation of ``op``'s type, if the tests have one."""
    return FORMULATIONS.get(op.type_name)


def formulation(*type_names: str, oracle: str = "higher-precision") -> Callable[[Compute], Compute]:
    """Register ``compute`` as the formulation of ``type_names``."""
    def register(compute: Compute) -> Compute:
        for name in type_names:
            FORMULATIONS[name] = Independent(oracle, compute)
        return compute

    return register


def _floats(arrays: Sequence[np.ndarray]) -> bool:
    return all(x.dtype.kind == "f" or x.dtype.name == "bfloat16" for x in arrays)
