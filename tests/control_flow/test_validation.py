"""validate() on sub-graph layers: one test per rule of port maps, back edges, bodies and Loop special ports.

Each model is a small TensorIterator, Loop or If built in code and then broken in one place; the
test asserts the exact ``sub-graph`` diagnostic. The last tests hand-edit a file openvino 2026.4.1
wrote and check that OpenVINO refuses it (its verdict is the oracle) while irgraph names the cause.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.control_flow.if_ import If
from irgraph.control_flow.loop import Loop
from irgraph.control_flow.tensor_iterator import TensorIterator
from irgraph.graph import BackEdge, Body, OutputPort, PortMapEntry

CORPUS = Path(__file__).resolve().parents[1] / "data" / "ov-subgraphs"


def sub_graph_messages(model: ir.Model) -> list[tuple[str, str]]:
    return [(d.severity.value, d.message) for d in ir.validate(model) if d.code == "sub-graph"]


def tensor_iterator(
    port_map: tuple[PortMapEntry, ...] | None = None, back_edges: tuple[BackEdge, ...] = ()
) -> ir.Model:
    """x f32[2,4,3] sliced on axis 1, h f32[2,1,3] merged; the body returns p (concatenated) and h + nothing."""
    body = ir.Model("body")
    p = body.parameter("p", [2, 1, 3])  # id 0
    h = body.parameter("h", [2, 1, 3])  # id 1
    body.result(body.concat([p], axis=1, name="step"), name="r")  # ids 2, 3
    body.result(h, name="h_out")  # id 4
    model = ir.Model("ti")
    x = model.parameter("x", [2, 4, 3])
    h0 = model.parameter("h0", [2, 1, 3])
    node = model.add_node(TensorIterator(), "ti", [x, h0], num_outputs=2)
    if port_map is None:
        port_map = (
            PortMapEntry(False, 0, 0, axis=1, start=0, end=-1, stride=1, part_size=1),
            PortMapEntry(False, 1, 1),
            PortMapEntry(True, 0, 3, axis=1, start=0, end=-1, stride=1, part_size=1),
            PortMapEntry(True, 1, 4),
        )
    node.bodies = (Body("body", body, port_map, back_edges or (BackEdge(3, 1),)),)
    model.result(OutputPort(node.id, 0), name="all")
    model.result(OutputPort(node.id, 1), name="last")
    return model


def replace_entry(index: int, **changes: object) -> tuple[PortMapEntry, ...]:
    entries = list(tensor_iterator().nodes[2].bodies[0].port_map or ())
    entries[index] = entries[index].replace(**changes)
    return tuple(entries)


def test_a_well_formed_tensor_iterator_is_valid_and_inferred() -> None:
    model = tensor_iterator()
    assert [d for d in ir.validate(model) if d.is_error] == []
    ti = model.nodes[2]
    assert [str(output.type.shape) for output in ti.outputs] == ["[2,4,3]", "[2,1,3]"]


def test_port_map_naming_a_missing_outer_port() -> None:
    model = tensor_iterator(replace_entry(1, external_port=2))
    assert ("error", "<port_map> port map input (external_port_id 2, internal_layer_id 1) names outer input 2; "
            "the layer has 2 inputs") in sub_graph_messages(model)
    assert [d.message for d in ir.validate(model) if d.code == "op"] == [
        "port map input (external_port_id 2, internal_layer_id 1) names outer input 2; the layer has 2"]


def test_a_sliced_entry_naming_a_missing_outer_port_is_reported_not_crashed_on() -> None:
    model = tensor_iterator(replace_entry(0, external_port=2))
    assert ("error", "<port_map> port map input (external_port_id 2, internal_layer_id 0) names outer input 2; "
            "the layer has 2 inputs") in sub_graph_messages(model)


def test_port_map_naming_a_missing_outer_output() -> None:
    model = tensor_iterator(replace_entry(3, external_port=2))
    assert ("error", "<port_map> port map output (external_port_id 2, internal_layer_id 4) names outer output 2; "
            "the layer has 2 outputs") in sub_graph_messages(model)


def test_port_map_naming_a_missing_body_parameter() -> None:
    model = tensor_iterator(replace_entry(0, internal_layer_id=42))
    assert ("error", "<port_map> port map input (external_port_id 0, internal_layer_id 42): <body> has no layer "
            "with id 42; it must name a body Parameter") in sub_graph_messages(model)


def test_port_map_input_naming_a_body_layer_that_is_not_a_parameter() -> None:
    model = tensor_iterator(replace_entry(1, internal_layer_id=2))
    assert ("error", "<port_map> port map input (external_port_id 1, internal_layer_id 2): body layer 2 ('step') is "
            "a Concat; it must be a body Parameter") in sub_graph_messages(model)


def test_port_map_naming_a_missing_body_result() -> None:
    model = tensor_iterator(replace_entry(3, internal_layer_id=9))
    assert ("error", "<port_map> port map output (external_port_id 1, internal_layer_id 9): <body> has no layer "
            "with id 9; it must name a body Result") in sub_graph_messages(model)


def test_sliced_axis_out_of_range() -> None:
    model = tensor_iterator(replace_entry(0, axis=3))
    assert ("error", "<port_map> port map input (external_port_id 0, internal_layer_id 0) axis 3 is out of the "
            "range [0, 2] of the rank-3 outer input") in sub_graph_messages(model)


def test_concatenated_axis_out_of_range() -> None:
    model = tensor_iterator(replace_entry(2, axis=-1))
    assert ("error", "<port_map> port map output (external_port_id 0, internal_layer_id 3) axis -1 is out of the "
            "range [0, 2] of the rank-3 body Result's value") in sub_graph_messages(model)
    assert [d.message for d in ir.validate(model) if d.code == "op"] == [
        "port map output (external_port_id 0, internal_layer_id 3) axis -1 is out of the range [0, 2] of a rank-3 "
        "value"]


def test_an_input_entry_mapping_no_outer_port_is_ignored_with_a_warning() -> None:
    entries = replace_entry(1, external_port=-1)
    model = tensor_iterator(entries)
    messages = sub_graph_messages(model)
    assert ("warning", "<port_map> port map input (external_port_id -1, internal_layer_id 1) maps no outer port; "
            "OpenVINO ignores it") in messages
    assert [d for d in ir.validate(model) if d.code == "op"] == []
    assert [str(output.type.shape) for output in model.nodes[2].outputs] == ["[2,4,3]", "[2,1,3]"]


def test_concatenated_output_without_start_and_end_takes_openvinos_defaults() -> None:
    """No sliced input: the iterations come from the first concatenated output's range (start 0, end -1 by default)."""
    entries = replace_entry(2, start=None, end=None, stride=None, part_size=None)
    model = tensor_iterator((PortMapEntry(False, 0, 0), entries[1], entries[2], entries[3]))
    model.nodes[0].op = ir.ops.Parameter(shape=ir.Shape.parse("2,1,3"), element_type=ir.ElementType.F32)
    ir.infer_shapes(model)
    assert [str(output.type.shape) for output in model.nodes[2].outputs] == ["[2,1,3]", "[2,1,3]"]  # |-1 - 0| // 1 = 1


def test_a_sliced_input_without_start_and_end_slices_the_whole_axis() -> None:
    """openvino 2026.4.1 reads this file (``<input axis="1" .../>``, nothing else) as [2,4,3], [2,1,3]: the slicing
    starts at 0 and ends at -1 (the last part), four iterations of one part."""
    model = tensor_iterator(replace_entry(0, start=None, end=None, stride=None, part_size=None))
    ir.infer_shapes(model)
    assert [str(output.type.shape) for output in model.nodes[2].outputs] == ["[2,4,3]", "[2,1,3]"]


def test_part_size_and_stride_must_be_usable() -> None:
    model = tensor_iterator(replace_entry(0, part_size=0, stride=0))
    messages = sub_graph_messages(model)
    assert ("error", "<port_map> port map input (external_port_id 0, internal_layer_id 0) part_size must be "
            "positive. Got: 0") in messages
    assert ("error", "<port_map> port map input (external_port_id 0, internal_layer_id 0) stride must not be 0") \
        in messages


def test_back_edge_from_a_layer_that_is_not_a_result() -> None:
    model = tensor_iterator(back_edges=(BackEdge(0, 1),))
    assert sub_graph_messages(model) == [
        ("error", "back edge from body layer 0: body layer 0 ('p') is a Parameter; it must be a body Result")]


def test_back_edge_to_a_layer_that_is_not_a_parameter() -> None:
    model = tensor_iterator(back_edges=(BackEdge(3, 2),))
    assert sub_graph_messages(model) == [
        ("error", "back edge to body layer 2: body layer 2 ('step') is a Concat; it must be a body Parameter")]


def test_back_edge_naming_a_missing_layer() -> None:
    model = tensor_iterator(back_edges=(BackEdge(30, 1),))
    assert sub_graph_messages(model) == [
        ("error", "back edge from body layer 30: <body> has no layer with id 30; it must name a body Result")]


def test_outer_ports_missing_from_the_port_map() -> None:
    entries = replace_entry(0)
    model = tensor_iterator((entries[0], entries[2]))
    assert sub_graph_messages(model) == [
        ("error", "output 1 of the layer is not in <port_map>: no body Result gives it"),
        ("error", "input 1 of the layer is not in the port map: it feeds no body Parameter (OpenVINO: 'Number of "
         "inputs must be the same as number of input descriptions')"),
    ]


def test_a_body_without_results() -> None:
    model = tensor_iterator()
    empty = ir.Model("body")
    empty.parameter("p", [2, 1, 3])
    node = model.nodes[2]
    node.bodies = (Body("body", empty, ()),)
    messages = sub_graph_messages(model)
    assert messages[0] == ("error", "<body> has no Result layers (OpenVINO: 'No results found in body Model.')")


def test_special_body_ports_only_on_loop() -> None:
    entries = (*replace_entry(0), PortMapEntry(False, -1, 1, purpose="current_iteration"))
    model = tensor_iterator(entries)
    assert ("error", "<port_map> port map input (external_port_id -1, internal_layer_id 1) has purpose "
            "'current_iteration'; only Loop has special body ports") in sub_graph_messages(model)


# ------------------------------------------------------------------------------------ Loop
def loop(special: tuple[PortMapEntry, ...]) -> ir.Model:
    """Loop(trip 3, true) over a body (i i64 scalar, v f32[2]) -> (cond bool, v) with the given special ports."""
    body = ir.Model("body")
    body.parameter("i", [], "i64")  # id 0
    v = body.parameter("v", [2])  # id 1
    flag = body.const(np.bool_(True), name="flag")  # id 2
    body.result(flag, name="cond")  # id 3
    body.result(body.concat([v], axis=0), name="v_out")  # ids 4, 5
    model = ir.Model("loop")
    x = model.parameter("x", [2])
    node = model.add_node(Loop(), "loop", [model.const(np.int64(3)), model.const(np.bool_(True)), x], num_outputs=1)
    ports = (PortMapEntry(False, 2, 1), PortMapEntry(True, 0, 5, axis=0, start=0, end=-1, stride=1, part_size=1),
             *special)
    node.bodies = (Body("body", body, ports, (BackEdge(5, 1),)),)
    model.result(OutputPort(node.id, 0), name="y")
    return model


ITERATION = PortMapEntry(False, -1, 0, purpose="current_iteration")
CONDITION = PortMapEntry(True, -1, 3, purpose="execution_condition")


def test_a_loop_with_both_special_ports_is_valid_and_its_trip_count_makes_the_output_static() -> None:
    model = loop((ITERATION, CONDITION))
    assert [d for d in ir.validate(model) if d.is_error or d.code == "sub-graph"] == []
    assert str(model.nodes[3].outputs[0].type.shape) == "[6]"


def test_special_body_port_naming_a_missing_body_layer() -> None:
    model = loop((ITERATION.replace(internal_layer_id=8), CONDITION))
    assert sub_graph_messages(model) == [
        ("error", "<port_map> port map input (external_port_id -1, internal_layer_id 8): <body> has no layer with id "
         "8; it must name a body Parameter")]


def test_execution_condition_naming_a_parameter() -> None:
    model = loop((ITERATION, CONDITION.replace(internal_layer_id=0)))
    assert sub_graph_messages(model) == [
        ("error", "<port_map> port map output (external_port_id -1, internal_layer_id 0): body layer 0 ('i') is a "
         "Parameter; it must be a body Result")]


def test_special_port_purpose_on_the_wrong_side() -> None:
    model = loop((ITERATION.replace(purpose="execution_condition"), CONDITION))
    assert sub_graph_messages(model) == [
        ("error", "<port_map> port map input (external_port_id -1, internal_layer_id 0) has purpose "
         "'execution_condition'; a Loop input special body port is 'current_iteration'")]


def test_special_port_given_twice() -> None:
    model = loop((ITERATION, CONDITION, CONDITION))
    assert sub_graph_messages(model) == [
        ("error", "<port_map> port map output (external_port_id -1, internal_layer_id 3): a second entry with "
         "purpose 'execution_condition'")]


def test_current_iteration_must_have_rank_0_or_1() -> None:
    model = loop((ITERATION, CONDITION))
    body = model.nodes[3].bodies[0].model
    body.node(0).op = ir.ops.Parameter(shape=ir.Shape.parse("2,2"), element_type=ir.ElementType.I64)
    assert sub_graph_messages(model) == [
        ("error", "the current_iteration body Parameter 'i' has rank 2; it must be 0 or 1 (OpenVINO: 'Rank of "
         "CurrentIteration input must be equal to 0 or 1')")]


def test_loop_concatenation_on_a_negative_axis_counts_from_the_end() -> None:
    model = loop((ITERATION, CONDITION))
    node = model.nodes[3]
    body = node.bodies[0]
    entries = tuple(e.replace(axis=-1) if e.sliced else e for e in body.port_map or ())
    node.bodies = (body.replace(port_map=entries),)
    assert sub_graph_messages(model) == []  # -1 is -rank here: in range for Loop
    ir.infer_shapes(model)
    assert str(node.outputs[0].type.shape) == "[6]"


def test_an_output_entry_mapping_no_outer_port_is_ignored_with_a_warning() -> None:
    model = loop((ITERATION, CONDITION, PortMapEntry(True, -1, 5)))
    assert sub_graph_messages(model) == [
        ("warning", "<port_map> port map output (external_port_id -1, internal_layer_id 5) maps no outer port; "
         "OpenVINO ignores it")]
    assert [d for d in ir.validate(model) if d.is_error] == []


def test_a_loop_without_execution_condition_is_a_warning_and_its_output_dynamic() -> None:
    model = loop((ITERATION,))
    assert sub_graph_messages(model) == [
        ("warning", "Loop has no execution_condition special body port (special_body_ports): OpenVINO cannot infer "
         "its outputs")]
    assert str(model.nodes[3].outputs[0].type.shape) == "[?]"


# ------------------------------------------------------------------------------------ If
def test_if_needs_both_bodies() -> None:
    then_body = ir.Model("then")
    then_body.result(then_body.concat([then_body.parameter("a", [2])], axis=0), name="r")
    model = ir.Model("if")
    condition, x = model.parameter("c", [], "boolean"), model.parameter("x", [2])
    node = model.add_node(If(), "if", [condition, x], num_outputs=1)
    node.bodies = (Body("then_body", then_body, (PortMapEntry(False, 1, 0), PortMapEntry(True, 0, 2))),)
    model.result(OutputPort(node.id, 0), name="y")
    assert sub_graph_messages(model) == [
        ("error", "If-8 needs a <else_body>; the layer has none (OpenVINO: 'Missing body part.')")]


# ------------------------------------------------------------------------------------ files OpenVINO refuses
EDITS = {
    "missing-body-parameter": (
        '<input axis="1" external_port_id="0" internal_layer_id="0"',
        '<input axis="1" external_port_id="0" internal_layer_id="42"',
        "<port_map> port map input (external_port_id 0, internal_layer_id 42): <body> has no layer with id 42; "
        "it must name a body Parameter",
    ),
    "missing-outer-port": (
        '<input external_port_id="1" internal_layer_id="1"',
        '<input external_port_id="7" internal_layer_id="1"',
        "<port_map> port map input (external_port_id 7, internal_layer_id 1) names outer input 7; the layer has 2 "
        "inputs",
    ),
    "back-edge-from-parameter": (
        '<edge from-layer="9" to-layer="1" />',
        '<edge from-layer="0" to-layer="1" />',
        "back edge from body layer 0: body layer 0 ('bx') is a Parameter; it must be a body Result",
    ),
    "axis-out-of-range": (
        '<input axis="1" external_port_id="0"',
        '<input axis="5" external_port_id="0"',
        "<port_map> port map input (external_port_id 0, internal_layer_id 0) axis 5 is out of the range [0, 2] of "
        "the rank-3 outer input",
    ),
}


OPENVINO_REFUSALS = {
    "missing-body-parameter": "Converting input model\nunordered_map::at",
    "missing-outer-port": r"Converting input model\nvector::_M_range_check: __n \(which is 7\) >= this->size\(\) "
                          r"\(which is 2\)",
    "back-edge-from-parameter": "Converting input model\nunordered_map::at",
    "axis-out-of-range": "Accessing out-of-range dimension",
}
"""openvino 2026.4.1's RuntimeError for each edited file: a C++ container's complaint, naming no cause."""


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_openvino_refuses_what_irgraph_reports(edit: str, tmp_path: Path) -> None:
    """openvino 2026.4.1 refuses each edited file (with messages like 'unordered_map::at'); irgraph names the cause."""
    ov = pytest.importorskip("openvino")
    old, new, message = EDITS[edit]
    text = (CORPUS / "ti" / "model.xml").read_text("utf-8")
    assert old in text
    xml = tmp_path / "model.xml"
    xml.write_text(text.replace(old, new, 1), "utf-8")
    xml.with_suffix(".bin").write_bytes((CORPUS / "ti" / "model.bin").read_bytes())
    with pytest.raises(RuntimeError, match=OPENVINO_REFUSALS[edit]):
        ov.Core().read_model(str(xml))
    errors = [d.message for d in ir.validate_file(xml) if d.code == "sub-graph" and d.is_error]
    assert message in errors


# ------------------------------------------------------------------------------------ If output types
def _either(then_shape: str, else_shape: str, then_type: str = "f32", else_type: str = "f32") -> str:
    from irgraph.control_flow.if_ import _either as either

    result = either(ir.TensorType(ir.ElementType.from_ir_name(then_type), ir.Shape.parse(then_shape)),
                    ir.TensorType(ir.ElementType.from_ir_name(else_type), ir.Shape.parse(else_shape)), 0)
    return f"{result.element_type.ir_name}{result.shape}"


def test_if_output_types_follow_openvinos_resolve_shape() -> None:
    assert _either("2,4", "2,4") == "f32[2,4]"
    assert _either("4,2", "2,4") == "f32[2..4,2..4]"
    assert _either("2,1..3", "2,2") == "f32[2,?]"
    assert _either("", "3") == "f32[?]"  # a scalar and a 1-D value: 1-D
    assert _either("3", "3,1") == "f32[...]"
    assert _either("...", "3") == "f32[...]"
    assert _either("2", "2", "dynamic", "i32") == "i32[2]"
    assert _either("2", "2", "i64", "dynamic") == "i64[2]"
    with pytest.raises(ir.OpError, match="output 0: then_body gives f32 but else_body gives i32"):
        _either("2", "2", "f32", "i32")
