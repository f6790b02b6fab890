"""Model: ports, edges, one producer per input, deterministic non-recursive topological order."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import irgraph as ir
from irgraph.core.errors import GraphError
from irgraph.core.shapes import Shape
from irgraph.graph import InputPort, OutputPort
from irgraph.graph.names import TensorNames
from irgraph.ops import Concat, Parameter, Result


def test_parallel_edges_are_kept():
    model = ir.Model()
    x = model.parameter("x", [2])
    y = model.concat([x, x], axis=0)
    model.result(y, name="y")
    assert model.consumers(x) == [InputPort(y.node_id, 0), InputPort(y.node_id, 1)]
    assert ir.run(model, {"x": np.array([1, 2], np.float32)})["y"].tolist() == [1, 2, 1, 2]


def test_an_input_port_has_one_producer():
    model = ir.Model()
    a = model.parameter("a", [2])
    b = model.parameter("b", [2])
    node = model.add_node(Result(), "r", [a])
    with pytest.raises(GraphError, match="input 0 of layer 2 has two producers: node 0 output 0 and node 1 output 0"):
        model.connect(b, InputPort(node.id, 0))


def test_connect_checks_port_ranges():
    model = ir.Model()
    a = model.parameter("a", [2])
    node = model.add_node(Result(), "r", [], num_inputs=1)
    with pytest.raises(GraphError, match="layer 0 has no output port 3"):
        model.connect(OutputPort(a.node_id, 3), InputPort(node.id, 0))
    with pytest.raises(GraphError, match="layer 1 has no input port 1"):
        model.connect(a, InputPort(node.id, 1))


def test_duplicate_ids_are_refused():
    model = ir.Model()
    model.add_node(Parameter(shape=Shape.parse("1")), "a", node_id=5)
    with pytest.raises(GraphError, match="layer id 5 is used twice"):
        model.add_node(Parameter(shape=Shape.parse("1")), "b", node_id=5)


def test_topological_order_keeps_insertion_order_on_ties_and_finds_cycles():
    model = ir.Model()
    concat = model.add_node(Concat(axis=0), "late", [], node_id=10, num_inputs=1)
    model.add_node(Parameter(shape=Shape.parse("1")), "p1", node_id=3)
    second = model.add_node(Parameter(shape=Shape.parse("1")), "p0", node_id=1)
    model.connect(OutputPort(second.id, 0), InputPort(concat.id, 0))
    assert [n.name for n in model.topological_order()] == ["p1", "p0", "late"]
    assert [n.name for n in model.parameters] == ["p1", "p0"]
    loop = ir.Model()
    a = loop.add_node(Concat(axis=0), "a", [], num_inputs=1)
    b = loop.add_node(Concat(axis=0), "b", [OutputPort(a.id, 0)])
    loop.connect(OutputPort(b.id, 0), InputPort(a.id, 0))
    with pytest.raises(GraphError, match="the graph has a cycle through layers"):
        loop.topological_order()


def test_graph_is_a_frozen_networkx_view_that_follows_changes():
    import networkx as nx

    model = ir.Model()
    x = model.parameter("x", [4])
    left, right = model.split(x, 0, 2)
    joined = model.concat([right, left, right], axis=0)
    model.result(joined, name="y")
    graph = model.graph
    assert isinstance(graph, nx.MultiDiGraph) and nx.is_frozen(graph)
    assert sorted(graph.nodes) == [node.id for node in model] and graph.nodes[x.node_id]["node"] is model.node(0)
    split_id = left.node_id
    assert sorted(graph.get_edge_data(split_id, joined.node_id)) == [(0, 1), (1, 0), (1, 2)]
    assert model.graph is graph  # built once while the model is unchanged
    with pytest.raises(nx.NetworkXError):
        graph.add_node(99)
    extra = model.result(left, name="z")
    assert model.graph is not graph and model.graph.has_edge(split_id, extra.id)
    model.remove_node(extra.id)
    assert extra.id not in model.graph


def test_topological_order_handles_200000_layers_without_recursion():
    model = ir.Model("long")
    gc.disable()  # the cyclic collector rescans every live node while we build; the reader does the same
    try:
        port = model.parameter("x", [1])
        for _ in range(199_998):
            port = OutputPort(model.add_node(Concat(axis=0), None, [port]).id, 0)
        model.result(port, name="y")
        order = model.topological_order()
    finally:
        gc.enable()
    assert len(order) == 200_000 and order[0].name == "x" and order[-1].name == "y"


def test_builder_names_and_output_keys():
    model = ir.Model()
    x = model.parameter("x", [2])
    direct = model.result(x, name="copy")
    assert model.output_key(direct) == "copy" and direct.result_names == ["copy"]
    y = model.concat([x], axis=0)
    assert model.output_key(model.result(y, name="y")) == "y"
    assert model.node(y.node_id).outputs[0].tensor_names == ["y"]
    unnamed = model.result(model.concat([x], axis=0))
    assert model.output_key(unnamed) == unnamed.name


def test_remove_node_drops_its_edges():
    model = ir.Model()
    x = model.parameter("x", [2])
    y = model.concat([x, x], axis=0)
    model.remove_node(y.node_id)
    assert model.consumers(x) == [] and len(model) == 1


def test_result_name_is_the_output_key_even_when_the_port_has_other_names_first():
    model = ir.Model()
    x = model.parameter("x", [2])
    y = model.concat([x], axis=0)
    model.node(y.node_id).outputs[0].tensor_names = ["first", "wanted"]
    assert model.output_key(model.result(y, name="wanted")) == "wanted"


def test_a_nodes_ports_are_records_that_are_the_ports_themselves():
    model = ir.Model()
    x = model.parameter("x", [2, 6])
    halves = model.split(x, axis=1, num_splits=2)
    node = model.node(halves[0].node_id)
    first, second = node.outputs
    # Each record is the port: equal to (and hashed as) the plain handle, wherever a port is wanted.
    assert (first, second) == (OutputPort(node.id, 0), OutputPort(node.id, 1)) == halves
    assert {OutputPort(node.id, 1): "found"}[second] == "found"
    assert node.inputs == [InputPort(node.id, 0), InputPort(node.id, 1)]
    assert model.producer(node.inputs[0]) == x
    # ... carrying what the model knows of the port: names, inferred and declared types, rt_info.
    assert (first.tensor_names, first.type, first.declared_type, first.rt_info) == ([], None, None, ())
    ir.infer_shapes(model)
    assert [str(output.type) for output in node.outputs] == ["f32[2,3]", "f32[2,3]"]
    assert model.output_type(halves[1]) is second.type
    second.tensor_names.append("right")
    assert model.consumers(second) == [] and TensorNames(model).resolve("right") == second
    # A record passed as a source is stored as the plain handle: the model's edges hold no record.
    result = model.add_node(Result(), "r", [second])
    assert model.producer(result.inputs[0]) == second
    assert [type(source) for source, _ in model.edges()] == [OutputPort] * 3


def test_an_output_type_set_since_inference_is_seen_as_stale():
    """Freshness compares each output's type by identity: a type set on a record makes the next run infer again."""
    from irgraph.analysis.shape_inference import _is_fresh, ensure_shapes

    model = ir.Model()
    x = model.parameter("x", [2])
    model.result(model.concat([x, x], axis=0), name="y")
    ensure_shapes(model)
    assert _is_fresh(model)
    concat = model.node(model.producer(model.results[0].inputs[0]).node_id)
    concat.outputs[0].type = ir.TensorType(ir.ElementType.F32, Shape.of([9]))
    assert not _is_fresh(model)
    ensure_shapes(model)
    assert str(concat.outputs[0].type) == "f32[4]"


def test_a_refused_builder_call_adds_nothing():
    model, other = ir.Model(), ir.Model()
    x, foreign = model.parameter("x", [2, 6]), other.parameter("y", [2, 6])
    refusals = [
        (lambda: model.split(x, 1, 0), "num_splits"),  # the axis Const would be made before the Split refuses
        (lambda: model.split(foreign, 1, 2), "belongs to another model"),  # would connect to node 0 of `model`
        (lambda: model.variadic_split(foreign, 1, [2, 4]), "belongs to another model"),
        (lambda: model.variadic_split(x, 1, "ab"), "a constant of i64 must hold numbers"),
        (lambda: model.concat([x, foreign], 1), "belongs to another model"),
    ]
    for call, message in refusals:
        with pytest.raises(ir.IrError, match=message):
            call()
        assert [node.type_name for node in model] == ["Parameter"] and not model.edges()
    assert len(model.split(x, 1, 2)) == 2 and [node.type_name for node in model] == ["Parameter", "Const", "Split"]


def test_connect_placed_connects_at_once_and_says_which_input_has_two_producers():
    model = ir.Model()
    a = model.parameter("a", [2])
    b = model.parameter("b", [2])
    node = model.add_node(Concat(axis=0), "c", [], num_inputs=2)
    model.connect_placed([OutputPort(a.node_id, 0), OutputPort(b.node_id, 0)],
                         [InputPort(node.id, 0), InputPort(node.id, 1)])
    assert model.consumers(a) == [InputPort(node.id, 0)] and model.producer(InputPort(node.id, 1)) == b
    with pytest.raises(GraphError, match="input 1 of layer 2 has two producers"):
        model.connect_placed([OutputPort(a.node_id, 0)], [InputPort(node.id, 1)])
    other = model.add_node(Concat(axis=0), "d", [], num_inputs=1)
    with pytest.raises(GraphError, match="input 0 of layer 3 has two producers"):  # twice in one call
        model.connect_placed([OutputPort(a.node_id, 0), OutputPort(b.node_id, 0)],
                             [InputPort(other.id, 0), InputPort(other.id, 0)])


def test_place_all_places_in_order_and_refuses_a_repeated_id():
    source = ir.Model()
    x = source.parameter("x", [2])
    source.result(x, name="y")
    nodes = list(source)
    model = ir.Model()
    model.place_all(nodes)
    assert [node.id for node in model] == [node.id for node in nodes]
    assert model.add_node(Result(), "r", [OutputPort(x.node_id, 0)]).id == max(node.id for node in nodes) + 1
    with pytest.raises(GraphError, match=f"layer id {nodes[0].id} is used twice"):
        ir.Model().place_all([nodes[0], nodes[1], nodes[0]])


def test_placing_a_node_at_the_next_free_id_moves_the_next_id_past_it():
    source = ir.Model()
    x = source.parameter("x", [2])
    model = ir.Model()
    model.place(source.node(x.node_id))  # id 0, the id add_node would have given
    assert model.add_node(Result(), "r", [OutputPort(x.node_id, 0)]).id == 1
    assert [node.id for node in model] == [0, 1]


def test_every_structural_change_moves_the_revision_forward():
    """ensure_shapes trusts a model whose revision is the one it inferred (with the same ops and types): a
    revision that went back could meet an old one again after other edits."""
    source = ir.Model()
    x = source.parameter("x", [2])
    y = source.parameter("y", [2])
    model = ir.Model()
    seen = [model._revision]

    def changed() -> None:
        seen.append(model._revision)

    model.place(source.node(x.node_id))
    changed()
    model.place_all([source.node(y.node_id)])
    changed()
    concat = model.add_node(Concat(axis=0), "c", [], num_inputs=2)
    changed()
    model.connect_all([(OutputPort(x.node_id, 0), InputPort(concat.id, 0))])
    changed()
    result = model.add_node(Result(), "r", [], num_inputs=1)
    changed()
    model.connect_placed([OutputPort(y.node_id, 0), OutputPort(concat.id, 0)],
                         [InputPort(concat.id, 1), InputPort(result.id, 0)])
    changed()
    model.remove_node(result.id)
    changed()
    assert seen == sorted(set(seen)), seen
