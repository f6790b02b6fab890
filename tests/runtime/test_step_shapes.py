"""The output shapes a planned step checks before its op allocates: settled by shape inference, or the op's
default output_shapes (its infer) remembered per input shapes in the plan, never in a module global."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import irgraph as ir
from irgraph.core.errors import ResourceLimitError
from irgraph.ops.arithmetic.add import Add
from irgraph.runtime.step_shapes import MEMO_LIMIT


def outer_sum(a_shape: list[int], b_shape: list[int]) -> ir.Model:
    model = ir.Model("outer")
    a = model.parameter("a", a_shape)
    b = model.parameter("b", b_shape)
    model.result(ir.OutputPort(model.add_node(Add(), "outer", [a, b]).id, 0), name="y")
    return model


def only_step(interpreter: ir.Interpreter) -> Any:
    (step,) = interpreter._plan
    return step


def test_static_shapes_are_settled_when_the_plan_is_made():
    interpreter = ir.Interpreter(outer_sum([3, 1], [1, 4]))
    assert only_step(interpreter).output_shapes([]) == [(3, 4)]  # no arrays needed: known before any run


def test_dynamic_shapes_are_remembered_per_input_shapes_by_each_plan():
    model = outer_sum([-1, 1], [1, -1])
    first, second = ir.Interpreter(model), ir.Interpreter(model)
    feeds = {"a": np.ones((2, 1), np.float32), "b": np.ones((1, 5), np.float32)}
    for _ in range(3):
        assert first.run(feeds)["y"].shape == (2, 5)
    assert list(only_step(first).output_shapes.known.values()) == [[(2, 5)]]
    first.run({"a": np.ones((4, 1), np.float32), "b": np.ones((1, 3), np.float32)})
    assert list(only_step(first).output_shapes.known.values()) == [[(2, 5)], [(4, 3)]]
    assert only_step(second).output_shapes.known == {}  # the memo is the plan's, not shared


def test_the_memo_stops_growing_and_stays_right():
    interpreter = ir.Interpreter(outer_sum([-1, 1], [1, -1]))
    for rows in range(1, MEMO_LIMIT + 5):
        out = interpreter.run({"a": np.ones((rows, 1), np.float32), "b": np.ones((1, 2), np.float32)})["y"]
        assert out.shape == (rows, 2)
    assert len(only_step(interpreter).output_shapes.known) == MEMO_LIMIT


def test_a_remembered_shape_is_still_checked_against_the_limit():
    interpreter = ir.Interpreter(outer_sum([-1, 1], [1, -1]), element_limit=100)
    feeds = {"a": np.ones((10, 1), np.float32), "b": np.ones((1, 20), np.float32)}
    for _ in range(2):  # computed, then remembered: refused both times before Add allocates
        with pytest.raises(ResourceLimitError, match="output 0 has 200 elements, above the limit of 100"):
            interpreter.run(feeds)


def test_an_unknown_output_that_passed_once_is_still_refused_outside_its_type():
    """UnknownOutputs remembers the last shape each output passed with: a different one is checked again."""
    from irgraph.core.element_types import ElementType
    from irgraph.core.errors import EvaluationError
    from irgraph.core.shapes import Dim, Shape, TensorType
    from irgraph.runtime.step_shapes import UnknownOutputs

    unknown = UnknownOutputs(((0, TensorType(ElementType.F32, Shape((Dim(2, 6), Dim.dynamic())))),))
    for _ in range(2):
        unknown.check([np.zeros((3, 9), np.float32)])
    with pytest.raises(EvaluationError, match=r"output 0 has shape \[7, 9\] at run time, outside its inferred shape"):
        unknown.check([np.zeros((7, 9), np.float32)])
    with pytest.raises(EvaluationError, match=r"output 0 has shape \[3\] at run time"):
        unknown.check([np.zeros(3, np.float32)])
    with pytest.raises(EvaluationError, match=r"output 0 has element type float64 at run time"):
        unknown.check([np.zeros((3, 9), np.float64)])  # the shape passed before; the dtype is checked each time


def test_a_value_reading_step_that_never_settles_stops_inferring_and_stays_right(monkeypatch):
    """A Broadcast of a constant to a computed target (a KV cache's initial value, in openvino 2026.4.1's opset3):
    inference never settles its shape from the constants, so after UNSETTLED_LIMIT input shapes the step asks
    only the op's output_shapes, which still answers each run."""
    import tempfile
    from pathlib import Path

    import openvino as ov
    import openvino.opset3 as ov3

    from irgraph.ops.movement.broadcast import Broadcast3
    from irgraph.runtime.step_shapes import UNSETTLED_LIMIT

    x = ov3.parameter([-1, 1], np.float32, name="x")
    target = ov3.concat([ov3.shape_of(x), ov3.constant(np.array([3], np.int64))], 0)
    wide = ov3.broadcast(ov3.constant(np.float32(2.5)), target)
    model = ov.Model([wide], [x], "b")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "b.xml"
        ov.save_model(model, str(path), compress_to_fp16=False)
        interpreter = ir.Interpreter(ir.read_model(str(path)))
    inferred = []
    real = Broadcast3.infer
    monkeypatch.setattr(Broadcast3, "infer", lambda self, *a: inferred.append(1) or real(self, *a))
    for rows in range(1, UNSETTLED_LIMIT + 6):
        x_value = np.arange(rows, dtype=np.float32).reshape(rows, 1)
        out = next(iter(interpreter.run({"x": x_value}).values()))
        np.testing.assert_array_equal(out, np.full((rows, 1, 3), 2.5, np.float32))
    assert len(inferred) == UNSETTLED_LIMIT
