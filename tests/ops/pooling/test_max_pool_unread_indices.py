"""MaxPool-8/14 in the interpreter: when nothing reads the indices they are not computed (a placeholder of
their shape and type takes their slot); when something does, they are."""

from __future__ import annotations

import numpy as np

import irgraph as ir
from irgraph.ops.pooling.max_pool import MaxPool8, MaxPool14
from irgraph.runtime.interpreter import Interpreter

DATA = np.array([[[[1, 5, 2], [7, 0, 3], [4, 8, 6]]]], np.float32)


def _model(op, read_indices: bool) -> ir.Model:
    model = ir.Model("pool")
    x = model.parameter("x", [1, 1, 3, 3])
    node = model.add_node(op, "pool", [x])
    model.result(ir.OutputPort(node.id, 0), name="values")
    if read_indices:
        model.result(ir.OutputPort(node.id, 1), name="indices")
    return model


def _op(kind=MaxPool8):
    return kind(strides=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), kernel=(2, 2), rounding_type="floor")


def test_unread_indices_are_skipped_and_the_values_are_the_same():
    interpreter = Interpreter(_model(_op(), read_indices=False))
    (step,) = interpreter._plan
    assert step.op.indices_read is False and step.node.op.indices_read is True  # the model's op is untouched
    assert step.op == step.node.op  # same attributes: the flag is not one
    assert interpreter.run({"x": DATA})["values"].tolist() == [[[[7, 5], [8, 8]]]]


def test_read_indices_are_computed():
    interpreter = Interpreter(_model(_op(MaxPool14), read_indices=True))
    (step,) = interpreter._plan
    assert step.op.indices_read is True
    outputs = interpreter.run({"x": DATA})
    assert outputs["values"].tolist() == [[[[7, 5], [8, 8]]]]
    assert outputs["indices"].tolist() == [[[[3, 1], [7, 7]]]]
    assert outputs["indices"].dtype == np.int64


def test_the_placeholder_has_the_indices_shape_and_type_without_memory():
    values, indices = _op().for_outputs([True, False]).evaluate([DATA])
    assert values.tolist() == [[[[7, 5], [8, 8]]]]
    assert indices.shape == (1, 1, 2, 2) and indices.dtype == np.int64 and indices.strides == (0, 0, 0, 0)


def test_indices_read_alone_are_computed():
    """Only the indices feed a Result (the values are read by nothing): they are computed all the same."""
    model = ir.Model("pool")
    x = model.parameter("x", [1, 1, 3, 3])
    node = model.add_node(_op(), "pool", [x])
    model.result(ir.OutputPort(node.id, 1), name="indices")
    assert Interpreter(model).run({"x": DATA})["indices"].tolist() == [[[[3, 1], [7, 7]]]]
