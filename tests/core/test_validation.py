"""validate(model): every problem collected with a code, severity and location."""

from __future__ import annotations

import irgraph as ir
from irgraph.graph import InputPort
from irgraph.ops import OpaqueOp, Result
from irgraph.shapes import Shape, TensorType


def codes(model):
    return [(d.code, d.severity.value) for d in ir.validate(model)]


def test_a_valid_model_has_no_diagnostics():
    model = ir.Model()
    x = model.parameter("x", [2, 6])
    model.result(model.concat(list(model.split(x, axis=1, num_splits=2)), axis=1), name="y")
    assert ir.validate(model) == []


def test_validation_collects_every_problem():
    model = ir.Model()
    x = model.parameter("x", [2, 6])
    model.result(model.split(x, axis=1, num_splits=4, name="bad4")[0], name="a")
    model.result(model.split(x, axis=1, num_splits=5, name="bad5")[0], name="b")
    diagnostics = ir.validate(model)
    assert [(d.code, d.location.layer_name) for d in diagnostics] == [("op", "bad4"), ("op", "bad5")]
    assert "evenly divisible by 'num_splits' attribute value: 4" in diagnostics[0].message
    assert str(diagnostics[0]).startswith("<model>: error: [op] layer 2 'bad4' (Split): Dimension")


def test_missing_results_unreachable_layers_duplicate_names_and_unconnected_inputs():
    model = ir.Model()
    x = model.parameter("x", [2])
    model.concat([x], axis=0, name="same")
    model.concat([x], axis=0, name="same")
    model.add_node(Result(), "dangling", [], num_inputs=1)
    found = codes(model)
    assert ("no-results", "error") not in found  # a Result exists, even if unconnected
    assert ("graph", "error") in found
    assert found.count(("unreachable", "warning")) == 2
    assert found.count(("duplicate-name", "warning")) == 2
    empty = ir.Model()
    empty.parameter("x", [1])
    assert codes(empty) == [("no-results", "error")]


def test_declared_types_that_contradict_inference_are_warnings():
    model = ir.Model()
    x = model.parameter("x", [2, 6])
    a, b = model.split(x, axis=1, num_splits=2)
    node = model.node(a.node_id)
    node.declared_output_types = [TensorType(ir.ElementType.F16, Shape.parse("2,4")), None]
    model.result(a, name="a")
    model.result(b, name="b")
    messages = [d.message for d in ir.validate(model)]
    assert messages == ["output 0 declares precision FP16 but the op produces f32",
                        "output 0 declares dims [2,4] but inference gives [2,3]"]


def test_unknown_ops_and_attributes_are_warnings():
    model = ir.Model()
    x = model.parameter("x", [2])
    op = OpaqueOp(op_type="Relu", op_version="opset1", declared_outputs=(TensorType(ir.ElementType.F32,
                                                                                    Shape.parse("2")),))
    relu = model.add_node(op, "relu", [x])
    model.result(ir.OutputPort(relu.id, 0), name="y")
    model.node(x.node_id).extra_attributes["color"] = "red"
    assert codes(model) == [("unknown-attribute", "warning"), ("unknown-op", "warning")]
    assert model.producer(InputPort(relu.id, 0)) == x


def test_a_result_named_like_its_producer_is_not_a_duplicate():
    model = ir.Model()
    x = model.parameter("x", [2])
    model.result(model.concat([x], axis=0, name="y"), name="y")
    assert ir.validate(model) == []


def test_findings_quoting_huge_or_multi_line_names_stay_one_bounded_line():
    model = ir.Model()
    x = model.parameter("x", [2])
    huge = "line\n" + "n" * 100_000
    model.add_node(Result(), huge, [x])
    model.add_node(Result(), huge, [x])
    found = ir.validate(model)
    assert found
    for diagnostic in found:
        assert "\n" not in str(diagnostic) and len(str(diagnostic)) < 3000
