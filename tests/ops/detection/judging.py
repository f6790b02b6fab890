"""The judging shared by the detection ops openvino 2026.4.1 neither folds nor evaluates: a scalar port of its
reference kernel in the test judges every configuration, and the CPU plugin, where it runs one, judges again."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from irgraph.ops.op import Op
from tests.ops.differential import assert_values_close, check_op, cpu_default, ov_cpu, port, same_op


def judged_by_port(op: Op, inputs: Sequence[np.ndarray],
                   reference: Callable[[Op, Sequence[np.ndarray]], Sequence[np.ndarray]]) -> None:
    """``check_op`` with the scalar port ``reference(op, arrays)`` as the judge (nothing folds these ops)."""
    outcome = check_op(op, inputs, same_op(op), cpu=False,
                       independent=port(lambda op, arrays, types: list(reference(op, arrays))))
    assert not outcome.refused and outcome.judge == "port"


def cpu_outputs(op: Op, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The CPU plugin's outputs for ``op`` on ``inputs`` (it must run them)."""
    cpu = ov_cpu(same_op(op), inputs, ())
    assert cpu is not None
    return cpu


def assert_close_to_cpu(op: Op, inputs: Sequence[np.ndarray], ours: Sequence[np.ndarray]) -> None:
    """Every output of ours within the op's CPU tolerance of the CPU plugin's."""
    for mine, theirs in zip(ours, cpu_outputs(op, inputs), strict=True):
        assert_values_close(mine, theirs, cpu_default(op.tolerance), f"{op!r} vs the CPU plugin on "
                            f"{[x.tolist() for x in inputs]}")
