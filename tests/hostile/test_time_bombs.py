"""Time bombs: a Loop that never stops, Loops nested so their counts multiply, a huge --steps. One run (and one
ir-run command, all its steps together) executes at most --iteration-limit sub-graph bodies, at any nesting
depth; the refusal is one line naming the layer. The tests use small limits; the defaults are checked by value."""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.errors import ResourceLimitError
from irgraph.core.limits import DEFAULT_ITERATION_LIMIT
from tests.control_flow.test_runners import counting_loop, nested_loops
from tests.hostile.conftest import EXIT_FAILURE, EXIT_USAGE, expect_cli_error, run_tool, save_npz


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count every body execution (each runs through Interpreter._run_slots)."""
    count = [0]
    original = ir.Interpreter._run_slots

    def counting(self: ir.Interpreter, *args: object) -> list[np.ndarray]:
        count[0] += 1
        return original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(ir.Interpreter, "_run_slots", counting)
    return count


def test_the_defaults_are_what_the_help_says(capsys):
    assert DEFAULT_ITERATION_LIMIT == 100_000
    assert ir_run.MAX_STEPS == 100_000
    assert ir_run.main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "If branches, nested ones and all --steps included (default: 100000; real exports run thousands)" in text
    assert "(default: the steps the inputs give, else 1; at most 100000)" in text


def test_an_endless_loop_is_refused_at_the_limit_with_its_layer(tmp_path, monkeypatch, capsys):
    xml = tmp_path / "model.xml"
    ir.write_model(counting_loop(None), xml)  # the body condition is always true
    inputs = save_npz(tmp_path / "in.npz", trip=np.int64(-1), v0=np.zeros(4, np.float32))
    count = _counted(monkeypatch)
    outcome = expect_cli_error(ir_run.main, [xml, "--inputs", inputs, "--iteration-limit", "2000", "--output",
                                             tmp_path / "out.npz"], capsys, EXIT_FAILURE, "Loop-5 would run more than")
    assert outcome.error_lines[0].endswith(
        "layer 3 'loop' (Loop): Loop-5 would run more than 2000 iterations, above the iteration limit of 2000 "
        "(sub-graph body executions per run, nested ones included; raise it with Interpreter(..., iteration_limit=N) "
        "or ir-run --iteration-limit N)")
    assert count[0] == 2000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.npz", "model.bin", "model.xml"]


def test_nested_loops_share_one_budget(monkeypatch):
    """Three Loops of 1,000 iterations, nested: 10**9 bodies; each Loop alone is far below the limit."""
    model = nested_loops(3, trip=1000)
    count = _counted(monkeypatch)
    with pytest.raises(ResourceLimitError) as caught:
        ir.Interpreter(model, iteration_limit=5000).run({"x2": np.zeros(2, np.float32)})
    assert count[0] <= 5000
    assert str(caught.value) == (  # refused up front: 1 + 5 + 4 * 1000 bodies ran, 1000 more would not fit
        "layer 3 'loop0' (Loop): in <body> of layer 3 'loop2' (Loop), iteration 0: in <body> of layer 3 'loop1' "
        "(Loop), iteration 4: Loop-5 would run 1000 iterations after 4006 other body executions in this run, above "
        "the iteration limit of 5000 (sub-graph body executions per run, nested ones included; raise it with "
        "Interpreter(..., iteration_limit=N) or ir-run --iteration-limit N)")


def test_nested_loops_within_the_budget_run(monkeypatch):
    count = _counted(monkeypatch)
    outputs = ir.Interpreter(nested_loops(3, trip=10), iteration_limit=1110).run({"x2": np.zeros(2, np.float32)})
    np.testing.assert_array_equal(outputs["y2"], np.float32([1000, 1000]))
    assert count[0] == 1110  # 10 + 100 + 1000
    with pytest.raises(ResourceLimitError):
        ir.Interpreter(nested_loops(3, trip=10), iteration_limit=1109).run({"x2": np.zeros(2, np.float32)})


def test_every_run_has_its_own_budget():
    runner = ir.Interpreter(counting_loop(6), iteration_limit=6)
    for _ in range(3):
        np.testing.assert_array_equal(runner.run({"v0": np.zeros(4, np.float32)})["v"], np.full(4, 6, np.float32))


def test_the_steps_of_one_command_share_the_budget(tmp_path, capsys):
    xml = tmp_path / "model.xml"
    ir.write_model(counting_loop(6), xml)
    inputs = save_npz(tmp_path / "in.npz", v0=np.zeros(4, np.float32))
    outcome = run_tool(ir_run.main, [xml, "--inputs", inputs, "--steps", "5", "--iteration-limit", "30"], capsys)
    assert outcome.code == 0, outcome.err
    outcome = expect_cli_error(ir_run.main, [xml, "--inputs", inputs, "--steps", "6", "--iteration-limit", "30"],
                               capsys, EXIT_FAILURE, "Loop-5 would run 6 iterations after 30 other body executions")


@pytest.mark.parametrize("steps", ["100001", "100000000000000"])
def test_a_step_count_past_the_maximum_is_a_usage_error(steps, tmp_path, capsys):
    xml = tmp_path / "model.xml"
    ir.write_model(counting_loop(6), xml)
    expect_cli_error(ir_run.main, [xml, "--steps", steps], capsys, EXIT_USAGE,
                     f"argument --steps: expected at most 100000 steps, got {steps}")
