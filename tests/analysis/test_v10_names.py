"""validate: an IR v10 input named as another input's tensor is refused as OpenVINO 2026.4.1's v10 reader refuses
it ("Model operation names have collisions with tensor names", tests/io/test_openvino_reads.py runs OpenVINO); the
same model as IR v11 is fine. Shape inference reuses its types while the model is unchanged."""

from __future__ import annotations

import irgraph as ir
from irgraph.analysis.shape_inference import ensure_shapes


def _model(version: int) -> ir.Model:
    m = ir.Model()
    x = m.parameter("x", [2])
    m.node(x.node_id).outputs[0].tensor_names = ["t1"]
    y = m.parameter("t1", [2])  # a layer named as x's tensor
    m.node(y.node_id).outputs[0].tensor_names = ["u"]
    m.result(m.concat([x, y], axis=0, name="c"), name="out")
    m.ir_version = version
    return m


def test_a_v10_input_named_as_another_inputs_tensor_is_a_collision_and_v11_is_not() -> None:
    assert [(d.code, d.message) for d in ir.validate(_model(10))] == [
        ("name-collision", "IR v10: input layer name 't1' is also the name of another input or output tensor, so "
                           "OpenVINO refuses the model (\"Model operation names have collisions with tensor names\"); "
                           "write it as IR v11")]
    assert ir.validate(_model(11)) == []


def test_ensure_shapes_keeps_the_types_of_an_unchanged_model() -> None:
    model = _model(11)
    ensure_shapes(model)
    before = [output.type for node in model for output in node.outputs]
    ensure_shapes(model)
    now = [output.type for node in model for output in node.outputs]
    assert all(type_now is type_then for type_now, type_then in zip(now, before, strict=True))


def test_v10_output_names_are_the_producers_names_port_suffixed_for_multi_output_layers() -> None:
    """A v10 output takes its producer's name, ``sp.1`` for port 1 of a two-output ``sp``: both collide here with an
    input's tensor name."""
    m = ir.Model()
    x = m.parameter("x", [4])
    m.node(x.node_id).outputs[0].tensor_names = ["sp.1"]
    first, second = m.split(x, 0, 2, name="sp")
    m.result(first, name="o0")
    m.result(second, name="o1")
    m.result(m.concat([first], axis=0, name="c"), name="o2")
    y = m.parameter("y", [4])
    m.node(y.node_id).outputs[0].tensor_names = ["c"]
    m.result(m.concat([y], axis=0, name="d"), name="o3")
    m.ir_version = 10
    found = [(d.code, d.message.split(" is also")[0], d.location.layer_name) for d in ir.validate(m)]
    assert found == [("name-collision", "IR v10: output name 'sp.1'", "o1"),
                     ("name-collision", "IR v10: output name 'c'", "o2")]


def test_a_variadic_split_declaring_fewer_ports_than_parts_is_a_warning_with_the_count() -> None:
    import numpy as np

    from irgraph.graph import OutputPort
    from irgraph.ops import VariadicSplit

    m = ir.Model()
    x = m.parameter("x", [6])
    lengths = m.const(np.array([1, 2, 3], np.int64))
    node = m.add_node(VariadicSplit(), "vs", [x, m.const(np.int64(0)), lengths], num_outputs=1)
    m.result(OutputPort(node.id, 0), name="a")
    assert [(d.code, d.message) for d in ir.validate(m)] == [
        ("undeclared-outputs", "VariadicSplit-1 produces 3 outputs here but the layer declares 1 output ports: the "
                               "other 2 are left unconnected (as OpenVINO does)")]


def test_a_v10_output_already_named_as_its_producer_port_does_not_collide() -> None:
    m = ir.Model()
    x = m.parameter("x", [4])
    first, second = m.split(x, 0, 2, name="sp")
    m.node(second.node_id).outputs[1].tensor_names = ["sp.1"]  # the name OpenVINO would add is the tensor's own
    m.result(first, name="o0")
    m.result(second, name="o1")
    m.ir_version = 10
    assert ir.validate(m) == []


def test_a_v10_input_named_as_an_output_tensor_collides() -> None:
    m = ir.Model()
    x = m.parameter("x", [2])
    m.node(x.node_id).outputs[0].tensor_names = ["x_t"]
    joined = m.concat([x], axis=0, name="c")
    m.node(joined.node_id).outputs[0].tensor_names = ["x"]  # the input layer's name, on an output tensor
    m.result(joined, name="out")
    m.ir_version = 10
    assert [(d.code, d.message.split(" is also")[0]) for d in ir.validate(m)] == [
        ("name-collision", "IR v10: input layer name 'x'")]
