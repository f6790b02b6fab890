"""Types inside bodies: what a port map input or a back edge gives a body Parameter must have the element type the
Parameter declares. irgraph gave a Loop's body Parameter the outer type and ran on (an i32 Parameter fed f32
validated clean and ran in f32); openvino 2026.4.1 refuses that file. Element types that differ are refused by
validation, by the run (one line at the layer) and, for what only the run shows, by the body runner; shapes that
contradict a declaration are a warning (OpenVINO takes the shape given)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run, ir_validate
from irgraph.control_flow.if_ import If
from irgraph.control_flow.loop import Loop
from irgraph.core.errors import ShapeInferenceError
from irgraph.graph import BackEdge, Body, OutputPort, PortMapEntry
from irgraph.graph.subgraph import EXECUTION_CONDITION
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.type.convert import Convert
from tests.helpers import line_of
from tests.hostile.conftest import EXIT_FAILURE, expect_cli_error, expect_error, save_npz

V0 = np.float32([1, 2])


def counting_loop() -> ir.Model:
    """Loop(3, true): v += 1.5 each iteration (then a Convert to f32, an edit point), v fed back: v0 + 4.5."""
    body = ir.Model("body")
    v = body.parameter("v", [2])
    added = OutputPort(body.add_node(Add(), "next", [v, body.const(np.float32(1.5))]).id, 0)
    same = OutputPort(body.add_node(Convert(destination_type=ir.ElementType.F32), "same", [added]).id, 0)
    v_out = body.result(same, name="v_out")
    keep = body.result(body.const(np.bool_(True)), name="keep")
    model = ir.Model("loop")
    v0 = model.parameter("v0", [2])
    node = model.add_node(Loop(), "loop", [model.const(np.int64(3)), model.const(np.bool_(True)), v0], num_outputs=1)
    node.bodies = (Body("body", body, (PortMapEntry(False, 2, v.node_id), PortMapEntry(True, 0, v_out.id),
                                       PortMapEntry(True, -1, keep.id, purpose=EXECUTION_CONDITION)),
                        (BackEdge(v_out.id, v.node_id),)),)
    model.result(OutputPort(node.id, 0), name="y")
    return model


def if_model() -> ir.Model:
    """If(c): then a + 1, else a + 2 (f32)."""
    model = ir.Model("if")
    c, a = model.parameter("c", [], "boolean"), model.parameter("a", [2])
    node = model.add_node(If(), "if", [c, a], num_outputs=1)
    bodies = []
    for tag, step in (("then_body", 1), ("else_body", 2)):
        body = ir.Model(tag)
        p = body.parameter("p", [2])
        r = body.result(OutputPort(body.add_node(Add(), None, [p, body.const(np.float32(step))]).id, 0), name="r")
        bodies.append(Body(tag, body, (PortMapEntry(False, 1, p.node_id), PortMapEntry(True, 0, r.id))))
    node.bodies = tuple(bodies)
    model.result(OutputPort(node.id, 0), name="y")
    return model


BODY_V = '<layer id="0" name="v" type="Parameter" version="opset1">'
V_DATA = '<data shape="2" element_type="f32" />'


def _body_parameter(text: str, new_data: str, parameter: str = BODY_V) -> str:
    """``text`` with the <data> of the first body Parameter ``parameter`` replaced (the outer input has the
    same <data>, earlier)."""
    start = text.index(V_DATA, text.index(parameter))
    return text[:start] + new_data + text[start + len(V_DATA):]


# name -> (the model, its edit, the message); openvino 2026.4.1 on each file is in the comment.
REFUSED = {
    # openvino: read_model refuses "Arguments do not have the same element type (arg0 element type: i32, arg1
    # element type: f32)" (the body's Add); irgraph gave v the outer f32 and ran.
    "loop-port-map-feeds-f32-to-i32": (
        counting_loop, lambda text: _body_parameter(text, '<data shape="2" element_type="i32" />'),
        "<port_map> port map input (external_port_id 2, internal_layer_id 0) feeds f32 to body Parameter 0 ('v'), "
        "which declares i32; element types must match"),
    # openvino: runs and returns i32 [4, 5], never computing in the f32 the body declares.
    "loop-back-edge-feeds-i32-to-f32": (
        counting_loop, lambda text: text.replace('<data destination_type="f32" />', '<data destination_type="i32" />'),
        "<back_edges> edge from body layer 5 to body layer 0 feeds i32 to body Parameter 0 ('v'), which declares f32; "
        "element types must match"),
    "if-port-map-feeds-f32-to-i32": (
        if_model, lambda text: _body_parameter(text, '<data shape="2" element_type="i32" />', 'name="p"'),
        "<then_port_map> port map input (external_port_id 1, internal_layer_id 0) feeds f32 to body Parameter 0 "
        "('p'), which declares i32; element types must match"),
}


def _write(directory: Path, model: ir.Model, edit) -> tuple[Path, str]:  # noqa: ANN001 - a text edit
    xml = directory / "model.xml"
    ir.write_model(model, xml)
    text = xml.read_text("utf-8")
    edited = edit(text)
    assert edited != text
    xml.write_text(edited, "utf-8")
    return xml, edited


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_body_parameter_given_another_element_type_is_refused(case, tmp_path, capsys):
    make, edit, message = REFUSED[case]
    xml, text = _write(tmp_path, make(), edit)
    layer_line = line_of(text, 'type="Loop"' if case.startswith("loop") else 'type="If"')
    model = ir.read_model(xml)
    assert message in [d.message for d in ir.validate(model) if d.is_error]
    feeds = {"v0": V0} if case.startswith("loop") else {"c": np.bool_(True), "a": V0}
    expect_error(lambda: ir.run(model, feeds), ShapeInferenceError, message, file=xml, line=layer_line)
    outcome = expect_cli_error(ir_validate.main, [xml], capsys, EXIT_FAILURE, message)
    assert f"{xml}:{layer_line}: error: [op] " in outcome.out
    inputs = save_npz(tmp_path / "inputs.npz", **feeds)
    outcome = expect_cli_error(ir_run.main, [xml, "--inputs", inputs, "--output", tmp_path / "out.npz"], capsys,
                               EXIT_FAILURE, message)
    assert outcome.error_lines[0].startswith(f"error: {xml}:{layer_line}: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs.npz", "model.bin", "model.xml"]


def test_the_unedited_models_run(tmp_path):
    np.testing.assert_array_equal(ir.run(counting_loop(), {"v0": V0})["y"], np.float32([5.5, 6.5]))
    np.testing.assert_array_equal(ir.run(if_model(), {"c": np.bool_(False), "a": V0})["y"], np.float32([3, 4]))


def test_a_contradicted_body_shape_is_a_warning_and_the_given_shape_runs(tmp_path, capsys):
    """openvino 2026.4.1 runs this file with the shape given: [5.5, 6.5] for v0 = [1, 2]."""
    xml, _ = _write(tmp_path, counting_loop(),
                    lambda text: _body_parameter(text, '<data shape="3" element_type="f32" />'))
    warnings = sorted(d.message for d in ir.validate_file(xml) if d.code == "sub-graph")
    assert warnings == [
        "<port_map> port map input (external_port_id 2, internal_layer_id 0) gives shape [2] to body Parameter 0 "
        "('v'), which declares [3]; OpenVINO takes the shape given",
        "back edge from body layer 5 to body layer 0 gives shape [2] to body Parameter 0 ('v'), which declares [3]; "
        "OpenVINO takes the shape given",
    ]
    assert ir_validate.main([str(xml)]) == 0
    assert ir_validate.main(["--strict", str(xml)]) == EXIT_FAILURE
    np.testing.assert_array_equal(ir.run(ir.read_model(xml), {"v0": V0})["y"], np.float32([5.5, 6.5]))


def test_the_body_runner_refuses_what_only_the_run_shows():
    """Values inference could not type (here: handed to the runner directly) are checked as they are bound."""
    model = counting_loop()
    ir.infer_shapes(model)
    node = next(node for node in model if isinstance(node.op, Loop))
    runner = node.op.runner(node, ir.Interpreter)
    trip, go = np.int64(3), np.bool_(True)
    np.testing.assert_array_equal(runner.evaluate([trip, go, V0])[0], np.float32([5.5, 6.5]))
    with pytest.raises(ir.IrError) as caught:
        runner.evaluate([trip, go, V0.astype(np.float64)])
    assert caught.value.message == ("<port_map> port map input (external_port_id 2, internal_layer_id 0) gives "
                                    "float64 to body Parameter 0 ('v'), which declares f32; element types must match")
    body = node.bodies[0].model
    same = next(n for n in body if n.name == "same")
    same.op = Convert(destination_type=ir.ElementType.F64)  # after inference: the run alone sees it
    runner = node.op.runner(node, ir.Interpreter)
    with pytest.raises(ir.IrError) as caught:
        runner.evaluate([trip, go, V0])
    assert caught.value.message == ("<back_edges> edge from body layer 4 to body layer 0 gives float64 after "
                                    "iteration 0 to body Parameter 0 ('v'), which declares f32; element types must "
                                    "match")
