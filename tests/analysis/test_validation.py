"""validate(model): every problem collected with a code, severity and location."""

from __future__ import annotations

import pytest

import irgraph as ir
from irgraph.core.shapes import Shape, TensorType
from irgraph.graph import InputPort
from irgraph.ops import OpaqueOp, Result


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
    node.outputs[0].declared_type = TensorType(ir.ElementType.F16, Shape.parse("2,4"))
    node.outputs[1].declared_type = None
    model.result(a, name="a")
    model.result(b, name="b")
    messages = [d.message for d in ir.validate(model)]
    assert messages == ["output 0 declares precision FP16 but the op produces f32",
                        "output 0 declares dims [2,4] but inference gives [2,3]"]


def test_unimplemented_ops_are_one_note_and_unknown_attributes_warnings():
    model = ir.Model()
    x = model.parameter("x", [2])
    op = OpaqueOp(op_type="Relu", op_version="opset1", declared_outputs=(TensorType(ir.ElementType.F32,
                                                                                    Shape.parse("2")),))
    relu = model.add_node(op, "relu", [x])
    model.result(ir.OutputPort(relu.id, 0), name="y")
    model.node(x.node_id).extra_attributes["color"] = "red"
    assert codes(model) == [("unknown-attribute", "warning"), ("unchecked-op", "note")]
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


STATEFUL = """<?xml version="1.0"?>
<net name="stateful" version="11">
<layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="2" element_type="f32"/>
<output><port id="0" precision="FP32"><dim>2</dim></port></output></layer>
<layer id="1" name="state" type="ReadValue" version="opset6">
<data variable_id="v" variable_type="f32" variable_shape="2"/>
<input><port id="0" precision="FP32"><dim>2</dim></port></input>
<output><port id="1" precision="FP32"><dim>2</dim></port></output></layer>
<layer id="2" name="sum" type="Add" version="opset1"><data auto_broadcast="numpy"/>
<input><port id="0" precision="FP32"><dim>2</dim></port><port id="1" precision="FP32"><dim>2</dim></port></input>
<output><port id="2" precision="FP32"><dim>2</dim></port></output></layer>
<layer id="3" name="save" type="Assign" version="opset6"><data variable_id="v"/>
<input><port id="0" precision="FP32"><dim>2</dim></port></input>
<output><port id="1" precision="FP32"><dim>2</dim></port></output></layer>
<layer id="4" name="y" type="Result" version="opset1"><input><port id="0" precision="FP32"><dim>2</dim></port></input>
</layer>
</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="4" to-port="0"/>
</edges>
</net>
"""


def test_assign_is_a_root_like_a_result_so_its_inputs_are_not_unreachable(tmp_path):
    """OpenVINO 2026.4.1 reads this model (Assign is a sink of the ov::Model); nothing in it is unreachable."""
    path = tmp_path / "model.xml"
    path.write_text(STATEFUL)
    model = ir.read_model(path)
    assert model.reachable_from_results() == {0, 1, 2, 3, 4}
    assert ir.validate(model) == []


@pytest.mark.parametrize(
    ("op_type", "version", "expected"),
    [
        ("FooBarOp", "opset1", ("invalid-op", "error", "Opset opset1 doesn't contain the operation with type: FooBarOp "
                                "(no OpenVINO opset 1-16 has this type); OpenVINO refuses the model")),
        ("Gelu", "opset1", ("invalid-op", "error", "Opset opset1 doesn't contain the operation with type: Gelu "
                            "(Gelu-2 in opsets 2-6, Gelu-7 in opsets 7-16); OpenVINO refuses the model")),
        ("GRN", "opset9", ("unchecked-op", "note", "1 layer of 1 op type not checked yet (kept as declared; they "
                           "cannot run): GRN×1")),
        ("MyGelu", "my_ops", ("custom-op", "note", "1 layer of 1 op type outside OpenVINO's opsets (OpenVINO reads "
                              "them only with their extension; irgraph keeps them as declared): MyGelu (my_ops)×1")),
        ("Gelu", "my_ops", ("invalid-op", "error", "Cannot create Gelu layer from unsupported opset: my_ops (Gelu-2 "
                            "in opsets 2-6, Gelu-7 in opsets 7-16); OpenVINO refuses the model")),
    ],
)
def test_a_layer_irgraph_has_no_class_for_is_invalid_unchecked_or_custom(op_type, version, expected):
    model = ir.Model()
    x = model.parameter("x", [2])
    op = OpaqueOp(op_type=op_type, op_version=version,
                  declared_outputs=(TensorType(ir.ElementType.F32, Shape.parse("2")),))
    node = model.add_node(op, "gelu", [x])
    model.result(ir.OutputPort(node.id, 0), name="y")
    assert [(d.code, d.severity.value, d.message) for d in ir.validate(model)] == [expected]


def test_every_code_irgraph_emits_is_listed_for_select_and_ignore():
    """A new diagnostic code must join diagnostics.CODES (ir-validate --select/--ignore warn on unknown codes)."""
    import re
    from pathlib import Path

    from irgraph.core.diagnostics import CODES

    call = re.compile(
        r'(?:\bnote|\berror|\bwarning|Diagnostic|_summary)\(\s*"([a-z][a-z-]*)"|\(\w+Error, "([a-z][a-z-]*)"\)'
    )
    emitted = {code for path in Path(ir.__file__).parent.rglob("*.py")
               for match in call.findall(path.read_text()) for code in match if code}
    assert {"ignored", "invalid-op", "unchecked-op", "custom-op", "schema", "io", "read"} <= emitted
    assert emitted <= set(CODES), sorted(emitted - set(CODES))
