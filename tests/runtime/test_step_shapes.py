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
