"""The plan an Interpreter builds (runtime.plan): one Step per layer that runs, each of the kind its op's traits
and the slots' lifetimes call for."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import irgraph as ir
from irgraph.core.element_types import ElementType
from irgraph.ops.activation.relu import Relu
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.generation.random_uniform import RandomUniform
from irgraph.ops.plan_step import PlanStep
from irgraph.runtime import _fast
from irgraph.runtime.plan import Step, StepKind


def _port(model: ir.Model, op, name: str, inputs) -> ir.OutputPort:
    return ir.OutputPort(model.add_node(op, name, inputs).id, 0)


def test_each_step_has_the_kind_its_op_and_its_inputs_lifetimes_call_for(monkeypatch):
    monkeypatch.setattr(_fast, "ENABLED", True)  # whatever IRGRAPH_NO_FAST says
    model = ir.Model("kinds")
    x = model.parameter("x", [4, 2])
    a, b = model.split(x, axis=0, num_splits=2, name="split")
    joined = model.concat([b, a], axis=0, name="join")
    relu = _port(model, Relu(), "relu", [joined])  # the join dies here: written over
    shifted = _port(model, Add(), "shifted", [relu, model.const(np.float32(1))])  # relu dies here too
    model.result(relu, name="kept")
    model.result(shifted, name="y")
    interpreter = ir.Interpreter(model)
    kinds = {step.node.name: step.kind for step in interpreter._plan}
    assert kinds == {"split": StepKind.SPLIT, "join": StepKind.JOIN, "relu": StepKind.IN_PLACE,
                     "shifted": StepKind.GENERIC}  # relu's output is a Result: never written over
    assert all(isinstance(step, Step) and isinstance(step.op, PlanStep) for step in interpreter._plan)
    with pytest.raises(dataclasses.FrozenInstanceError):
        interpreter._plan[0].kind = StepKind.GENERIC
    outputs = interpreter.run({"x": np.arange(8, dtype=np.float32).reshape(4, 2) - 4})
    assert outputs["kept"].tolist() == [[0, 1], [2, 3], [0, 0], [0, 0]]
    assert outputs["y"].tolist() == [[1, 2], [3, 4], [1, 1], [1, 1]]


def test_a_chain_writes_in_place_with_the_fast_path_switch_on(monkeypatch):
    model = ir.Model("chain")
    port = model.parameter("x", [3])
    for index in range(3):
        port = _port(model, Relu(), f"r{index}", [port])
    model.result(port, name="y")
    monkeypatch.setattr(_fast, "ENABLED", True)
    kinds = [step.kind for step in ir.Interpreter(model)._plan]
    assert kinds == [StepKind.IN_PLACE] * 3  # planned so; a run's first step finds the feed not private
    monkeypatch.setattr(_fast, "ENABLED", False)
    assert [step.kind for step in ir.Interpreter(model)._plan] == [StepKind.GENERIC] * 3


def test_an_op_that_keeps_a_run_state_is_a_stateful_step_never_folded():
    model = ir.Model("random")
    shape = model.const(np.array([2], np.int64))
    low, high = model.const(np.float32(0)), model.const(np.float32(1))
    node = model.add_node(RandomUniform(output_type=ElementType.F32, global_seed=150, op_seed=10), "random",
                          [shape, low, high])
    model.result(ir.OutputPort(node.id, 0), name="y")
    interpreter = ir.Interpreter(model)
    assert [step.kind for step in interpreter._plan] == [StepKind.STATEFUL]
    first, second = (interpreter.run({})["y"] for _ in range(2))
    assert first.tolist() != second.tolist()
