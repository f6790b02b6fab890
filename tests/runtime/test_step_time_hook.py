"""The interpreter's on_step_time hook: one call per step, each with the step's own duration (not a clock reading)."""

from __future__ import annotations

import time

import numpy as np

import irgraph as ir


def test_each_step_reports_a_duration_within_the_run() -> None:
    model = ir.Model()
    x = model.parameter("x", [4])
    model.result(model.concat([x, x], axis=0, name="twice"), name="y")
    interpreter = ir.Interpreter(model)
    seen: list[tuple[str, float]] = []
    interpreter.on_step_time = lambda node, seconds: seen.append((node.name, seconds))
    before = time.perf_counter()
    interpreter.run({"x": np.arange(4, dtype=np.float32)})
    elapsed = time.perf_counter() - before
    assert "twice" in [name for name, _ in seen]
    assert all(0.0 <= seconds <= elapsed for _, seconds in seen)  # a step inside the run, not time since boot
