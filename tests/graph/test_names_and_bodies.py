"""Naming tensors by layer names (Parameter, Result, LAYER:PORT), edge checks at the port bounds, body port maps."""

from __future__ import annotations

import pytest

import irgraph as ir
from irgraph.core.errors import ExtractError, GraphError
from irgraph.graph import InputPort, OutputPort
from irgraph.graph.names import resolve_tensor
from irgraph.graph.subgraph import Body, PortMapEntry
from irgraph.ops import Result


def _renamed_model() -> tuple[ir.Model, OutputPort, OutputPort]:
    """x -> Concat -> Result "out", where neither the Parameter's nor the Concat's tensor carries a layer's name."""
    model = ir.Model()
    x = model.parameter("x", [2])
    model.node(x.node_id).outputs[0].tensor_names = ["x_tensor"]
    y = model.concat([x, x], axis=0, name="join")
    model.node(y.node_id).outputs[0].tensor_names = ["y_tensor"]
    model.result(y, name="out")
    return model, x, y


def test_a_parameter_name_names_its_output_and_a_result_name_the_tensor_it_receives():
    model, x, y = _renamed_model()
    assert resolve_tensor(model, "x") == OutputPort(x.node_id, 0)
    assert resolve_tensor(model, "out") == y
    assert resolve_tensor(model, "x_tensor") == x  # a tensor name first
    assert resolve_tensor(model, "join:0") == y


def test_a_result_without_an_input_names_no_tensor():
    model = ir.Model()
    model.parameter("x", [2])
    model.add_node(Result(), "dangling", [], num_inputs=1)
    with pytest.raises(ExtractError, match="Result 'dangling' has no input to take as the tensor"):
        resolve_tensor(model, "dangling")


def test_a_layer_port_past_the_last_output_is_refused_with_the_count():
    model, _, _ = _renamed_model()
    with pytest.raises(ExtractError, match=r"'join:1': the layer has 1 output \(port 0\)"):
        resolve_tensor(model, "join:1")
    split = model.split(model.const([1.0, 2.0, 3.0, 4.0]), 0, 2, name="halves")
    assert resolve_tensor(model, "halves:1") == split[1]
    with pytest.raises(ExtractError, match=r"the layer has 2 outputs \(ports 0\.\.1\)"):
        resolve_tensor(model, "halves:2")
    with pytest.raises(ExtractError, match="'out:0': the layer has no outputs; ports count the layer's outputs from 0"):
        resolve_tensor(model, "out:0")  # a Result


def test_connect_refuses_the_port_one_past_the_last():
    model = ir.Model()
    a = model.parameter("a", [2])
    node = model.add_node(Result(), "r", [], num_inputs=1)
    with pytest.raises(GraphError, match=r"layer 0 has no output port 1 \(it has 1\)"):
        model.connect(OutputPort(a.node_id, 1), InputPort(node.id, 0))


def test_connect_all_checks_each_edge_as_connect_does():
    model = ir.Model()
    a = model.parameter("a", [2])
    node = model.add_node(Result(), "r", [], num_inputs=1)
    with pytest.raises(GraphError, match=r"layer 1 has no input port 1 \(it has 1\)"):
        model.connect_all([(a, InputPort(node.id, 1))])
    with pytest.raises(GraphError, match=r"layer 0 has no output port 1 \(it has 1\)"):
        model.connect_all([(OutputPort(a.node_id, 1), InputPort(node.id, 0))])
    model.connect_all([(a, InputPort(node.id, 0))])
    assert model.producer(InputPort(node.id, 0)) == a and model.consumers(a) == [InputPort(node.id, 0)]


def test_a_body_names_its_port_map_tag_and_splits_inputs_from_outputs():
    entries = (PortMapEntry(False, 0, 1), PortMapEntry(True, 0, 3), PortMapEntry(False, 1, 2, axis=0))
    then_body = Body("then_body", ir.Model(), entries)
    assert then_body.port_map_tag == "then_port_map"
    assert Body("body", ir.Model()).port_map_tag == "port_map"
    assert then_body.inputs == [entries[0], entries[2]]
    assert then_body.outputs == [entries[1]]
    assert Body("body", ir.Model(), None).inputs == []


def test_connect_all_refuses_an_edge_from_a_missing_layer_and_keeps_plain_handles():
    model = ir.Model()
    a = model.parameter("a", [2])
    node = model.add_node(Result(), "r", [], num_inputs=1)
    with pytest.raises(GraphError, match=r"^there is no layer with id 99$"):
        model.connect_all([(OutputPort(99, 0), InputPort(node.id, 0))])
    assert a.model is model  # a builder's port remembers its model; the graph keeps a plain handle
    model.connect_all([(a, InputPort(node.id, 0))])
    kept = model.producer(InputPort(node.id, 0))
    assert type(kept) is OutputPort and kept.model is None and kept == a


def test_results_sharing_one_name_get_numbered_keys_in_order():
    model = ir.Model()
    x = model.parameter("x", [2])
    results = [model.result(x, name="y") for _ in range(3)]
    assert [model.output_keys()[result.id] for result in results] == ["y", "y#2", "y#3"]


def test_an_unknown_name_lists_at_most_five_close_matches():
    model = ir.Model()
    for index in range(7):
        model.parameter(f"input_{index}", [2])
    with pytest.raises(ExtractError, match=r"^no tensor is called 'input_'; close matches: 'input_6', 'input_5', "
                                           r"'input_4', 'input_3', 'input_2'$"):  # difflib's closest first
        resolve_tensor(model, "input_")


def test_connect_all_refuses_a_negative_port_index_as_connect_does():
    model = ir.Model()
    a = model.parameter("a", [2])
    node = model.add_node(Result(), "r", [], num_inputs=1)
    with pytest.raises(GraphError, match=r"^layer 1 'r' \(Result\): layer 0 has no output port -1 \(it has 1\)$"):
        model.connect_all([(OutputPort(a.node_id, -1), InputPort(node.id, 0))])
    with pytest.raises(GraphError, match=r"^layer 1 'r' \(Result\): layer 1 has no input port -1 \(it has 1\)$"):
        model.connect_all([(a, InputPort(node.id, -1))])
    assert model.edges() == []
