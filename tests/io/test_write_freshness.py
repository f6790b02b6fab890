"""Writes and runs skip shape inference only while the last inference is still valid.

Each test writes (or runs) a model once, changes it through the public API, and checks that the
next write or run sees the change: new dims in the file, or the error the change causes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.analysis.shape_inference import ensure_shapes
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops import Concat, Parameter, Split


def split_concat() -> ir.Model:
    """x[1,4,6] -> Split(axis 2, 2) -> Concat(axis 1) of the halves -> y: y is [1,8,3]."""
    m = ir.Model("fresh")
    x = m.parameter("x", [1, 4, 6])
    left, right = m.split(x, axis=2, num_splits=2, name="split")
    m.result(m.concat([left, right], axis=1, name="cat"), name="y")
    return m


def node_named(model: ir.Model, name: str) -> ir.Node:
    return next(node for node in model if node.name == name)


def written_dims(path: Path, layer: str, output: int = 0) -> tuple[int, ...]:
    """The dims the written file declares for one output of the layer named ``layer``."""
    tensor = node_named(ir.read_model(path), layer).outputs[output].declared_type
    return tensor.shape.to_tuple()


def test_a_second_write_of_an_unchanged_model_is_identical_and_does_not_infer(tmp_path, monkeypatch):
    m = split_concat()
    ir.write_model(m, tmp_path / "a.xml")
    calls = []
    original = Concat.infer
    monkeypatch.setattr(Concat, "infer", lambda op, *args: calls.append(op) or original(op, *args))
    ir.write_model(m, tmp_path / "b.xml")
    assert calls == []
    assert (tmp_path / "a.xml").read_bytes() == (tmp_path / "b.xml").read_bytes()
    ir.infer_shapes(m)  # the public call always infers
    assert len(calls) == 1


def test_replacing_an_op_is_seen(tmp_path):
    m = split_concat()
    ir.write_model(m, tmp_path / "m.xml")
    assert written_dims(tmp_path / "m.xml", "cat") == (1, 8, 3)
    node_named(m, "cat").op = Concat(axis=2)
    ir.write_model(m, tmp_path / "m.xml")
    assert written_dims(tmp_path / "m.xml", "cat") == (1, 4, 6)


def test_replacing_an_op_with_one_that_does_not_fit_fails_the_write(tmp_path):
    m = split_concat()
    ir.write_model(m, tmp_path / "m.xml")
    x = node_named(m, "x")
    original = x.op
    x.op = Parameter(shape=Shape.of([1, 4, 5]), element_type=original.element_type)
    with pytest.raises(ir.ShapeInferenceError, match="evenly divisible"):
        ir.write_model(m, tmp_path / "m.xml")
    # The failed inference left nothing fresh: restoring the very same op infers again, cleanly.
    x.op = original
    ir.write_model(m, tmp_path / "m.xml")
    assert written_dims(tmp_path / "m.xml", "split", 1) == (1, 4, 3)


def test_adding_nodes_is_seen(tmp_path):
    m = split_concat()
    ir.write_model(m, tmp_path / "m.xml")
    cat = ir.OutputPort(node_named(m, "cat").id, 0)
    m.result(m.concat([cat, cat], axis=2, name="wide"), name="z")
    ir.write_model(m, tmp_path / "m.xml")
    assert written_dims(tmp_path / "m.xml", "wide") == (1, 8, 6)


def test_removing_a_node_is_seen(tmp_path):
    m = split_concat()
    ir.write_model(m, tmp_path / "m.xml")
    m.remove_node(node_named(m, "split").id)
    with pytest.raises(ir.GraphError, match=r"input 0 \(.*\) is not connected"):
        ir.write_model(m, tmp_path / "m.xml")


def test_reconnecting_a_consumer_is_seen(tmp_path):
    m = split_concat()
    ir.write_model(m, tmp_path / "m.xml")
    y = node_named(m, "y")
    m.remove_node(y.id)
    x = ir.OutputPort(node_named(m, "x").id, 0)
    result = m.add_node(ir.ops.Result(), "y", num_inputs=1, num_outputs=0)
    with pytest.raises(ir.GraphError, match="not connected"):
        ir.write_model(m, tmp_path / "m.xml")
    m.connect(x, ir.InputPort(result.id, 0))
    ir.write_model(m, tmp_path / "m.xml")
    model = ir.read_model(tmp_path / "m.xml")
    assert node_named(model, "y").inputs[0].declared_type.shape.to_tuple() == (1, 4, 6)


def test_overwritten_output_types_are_inferred_again(tmp_path):
    m = split_concat()
    ir.write_model(m, tmp_path / "m.xml")
    cat = node_named(m, "cat")
    cat.outputs[0].type = TensorType(cat.outputs[0].type.element_type, Shape.of([9, 9, 9]))
    ir.write_model(m, tmp_path / "m.xml")
    assert written_dims(tmp_path / "m.xml", "cat") == (1, 8, 3)


def test_a_validation_that_found_errors_leaves_nothing_fresh(tmp_path):
    m = split_concat()
    node_named(m, "split").op = Split(num_splits=4)  # 4 outputs on a 2-output layer
    assert ir.validate(m)
    with pytest.raises(ir.ShapeInferenceError, match="produces 4 outputs"):
        ensure_shapes(m)


def test_a_run_after_a_write_sees_a_replaced_op(tmp_path):
    m = split_concat()
    ir.write_model(m, tmp_path / "m.xml")
    feeds = {"x": np.arange(24, dtype=np.float32).reshape(1, 4, 6)}
    assert ir.run(m, feeds)["y"].shape == (1, 8, 3)
    node_named(m, "cat").op = Concat(axis=2)
    assert ir.run(m, feeds)["y"].shape == (1, 4, 6)
    node_named(m, "split").op = Split(num_splits=4)
    with pytest.raises(ir.ShapeInferenceError, match="produces 4 outputs"):
        ir.run(m, feeds)


def test_every_structural_change_moves_the_revision_freshness_starts_from():
    m = split_concat()
    seen = [m._revision]
    x = ir.OutputPort(node_named(m, "x").id, 0)
    result = m.add_node(ir.ops.Result(), "z", num_inputs=1, num_outputs=0)
    seen.append(m._revision)
    m.connect(x, ir.InputPort(result.id, 0))
    seen.append(m._revision)
    m.remove_node(result.id)
    seen.append(m._revision)
    assert seen == sorted(set(seen))
    with pytest.raises(ir.GraphError):
        m.connect(x, ir.InputPort(node_named(m, "split").id, 0))  # refused: changes nothing
    assert m._revision == seen[-1]
