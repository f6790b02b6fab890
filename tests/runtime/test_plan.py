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


def test_a_folded_chain_keeps_only_the_tensors_steps_read_results_return_or_marks_keep(monkeypatch):
    """A decompression chain (u8 -> f16, times a scale, -> f32) folds once; its intermediates are dropped as soon
    as their last reader is folded (an LLM's weights: 11 bytes per weight while planning, not 4), the tensors a
    Result returns, a mark keeps or a step reads stay."""
    import weakref

    from irgraph.ops.arithmetic.multiply import Multiply
    from irgraph.ops.matrix.mat_mul import MatMul
    from irgraph.ops.type.convert import Convert
    from irgraph.runtime import plan

    produced: dict[str, weakref.ref] = {}
    alive_at_the_last_step: set[str] = set()
    fold, add = plan._Planner._fold, plan._Planner.add

    def recording(self, node, op, inputs, outputs):
        folded = fold(self, node, op, inputs, outputs)
        if folded:
            produced[node.name] = weakref.ref(self.constants[outputs[0]])
        return folded

    def planning(self, node, sources):  # while the plan is still being made (after it, all but its needs go)
        add(self, node, sources)
        if node.name == "y":
            alive_at_the_last_step.update(name for name, ref in produced.items() if ref() is not None)

    monkeypatch.setattr(plan._Planner, "_fold", recording)
    monkeypatch.setattr(plan._Planner, "add", planning)
    model = ir.Model("chain")
    x = model.parameter("x", [1, 3])
    codes = model.const(np.array([[1, 2, 3], [4, 5, 6]], np.uint8), name="codes")
    widened = _port(model, Convert(destination_type=ElementType.F16), "to_f16", [codes])
    scaled = _port(model, Multiply(), "scaled", [widened, model.const(np.float16(0.5), name="scale")])
    returned = _port(model, Convert(destination_type=ElementType.F16), "returned", [scaled])
    weight = _port(model, Convert(destination_type=ElementType.F32), "to_f32", [scaled])
    model.result(_port(model, MatMul(transpose_b=True), "y", [x, weight]), name="y")
    model.result(returned, name="scaled_copy")
    interpreter = ir.Interpreter(model, mark=["to_f16"])
    assert set(produced) == {"to_f16", "scaled", "returned", "to_f32"}
    # "scaled" is read by folded layers only: dropped once both are folded; the others are marked, returned, read
    assert alive_at_the_last_step == {"to_f16", "returned", "to_f32"}
    outputs = interpreter.run({"x": np.ones((1, 3), np.float32)})
    assert outputs["y"].tolist() == [[3.0, 7.5]] and outputs["scaled_copy"].tolist() == [[0.5, 1, 1.5], [2, 2.5, 3]]
    assert outputs["to_f16:0"].tolist() == [[1, 2, 3], [4, 5, 6]]


def _matmul_plus_bias(rows: int) -> ir.Model:
    """y = x @ eye(3) + 1, x f32[rows, 3] (rows -1: dynamic)."""
    from irgraph.ops.matrix.mat_mul import MatMul

    model = ir.Model("affine")
    x = model.parameter("x", [rows, 3])
    product = _port(model, MatMul(), "mm", [x, model.const(np.eye(3, dtype=np.float32))])
    model.result(_port(model, Add(), "add", [product, model.const(np.ones(3, np.float32))]), name="y")
    return model


def test_an_element_wise_step_after_another_kind_of_step_runs_as_its_one_ufunc_call(monkeypatch):
    """The Add after a MatMul writes in place (its input 0 dies there) but only a run can tell whether the
    MatMul's array may be written over: the plan keeps it an in-place step calling np.add directly (no
    evaluate), and the values are those of the plain path."""
    monkeypatch.setattr(_fast, "ENABLED", True)
    interpreter = ir.Interpreter(_matmul_plus_bias(2))
    assert [(step.node.name, step.kind, step.ufunc, step.direct and step.direct.ufunc) for step in interpreter._plan] \
        == [("mm", StepKind.GENERIC, None, None), ("add", StepKind.IN_PLACE, None, np.add)]
    x = np.array([[1.5, -2, 0], [4, 5, -6.25]], np.float32)
    np.testing.assert_array_equal(interpreter.run({"x": x})["y"], x + 1)


def test_steps_of_settled_shapes_within_the_limit_check_no_shape_per_run():
    """Static shapes within the element limit are checked once, when the plan is built; a dynamic one at every
    run, before its step allocates."""
    assert [step.checks_shapes for step in ir.Interpreter(_matmul_plus_bias(2))._plan] == [False, False]
    assert [step.checks_shapes for step in ir.Interpreter(_matmul_plus_bias(-1))._plan] == [True, True]


def _constants_while_planning(monkeypatch, model: ir.Model, last: str) -> dict[str, bool]:
    """For each Const of ``model``: whether the planner still holds its value when it plans layer ``last``."""
    from irgraph.runtime import plan

    held: dict[str, bool] = {}
    add = plan._Planner.add

    def planning(self, node, sources):
        add(self, node, sources)
        if node.name == last:
            held.update((const.name, self.slots.get((const.id, 0)) in self.constants) for const in model
                        if const.type_name == "Const")

    monkeypatch.setattr(plan._Planner, "add", planning)
    ir.Interpreter(model)
    return held


def test_a_constant_read_only_by_a_folded_shape_of_is_dropped_while_planning(monkeypatch):
    """ShapeOf of a static constant is computed from its shape; nothing else reads the constant, so the planner
    lets it go (a weight's shape read by a Reshape keeps no copy of the weight)."""
    from irgraph.ops.shape.reshape import Reshape
    from irgraph.ops.shape.shape_of import ShapeOf3

    model = ir.Model("shape_of_weights")
    x = model.parameter("x", [6])
    weights = model.const(np.zeros((2, 3), np.float32), name="weights")
    pattern = _port(model, ShapeOf3(), "shape", [weights])
    model.result(_port(model, Reshape(special_zero=False), "reshape", [x, pattern]), name="y")
    assert _constants_while_planning(monkeypatch, model, "reshape")["weights"] is False


def test_a_folded_layer_drops_each_constant_it_alone_read_whatever_its_other_inputs_are(monkeypatch):
    """a + b folds once; ``a`` is also returned by a Result (kept), ``b`` is read by the Add alone (dropped)."""
    model = ir.Model("folded_sum")
    x = model.parameter("x", [3])
    a = model.const(np.arange(3, dtype=np.float32), name="a")
    b = model.const(np.ones(3, np.float32), name="b")
    folded = _port(model, Add(), "sum", [a, b])
    model.result(_port(model, Add(), "plus", [x, folded]), name="y")
    model.result(a, name="a_out")
    held = _constants_while_planning(monkeypatch, model, "plus")
    assert (held["a"], held["b"]) == (True, False)
