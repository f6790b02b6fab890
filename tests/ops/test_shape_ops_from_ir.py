"""Every shape and movement op of this package read from IR that openvino 2026.4.1 serialized, run by
irgraph, equal to OpenVINO's CPU plugin: the attribute names and texts the reader sees are OpenVINO's."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as ov1
import openvino.opset8 as ov8
import openvino.opset13 as ov13

import irgraph as ir

F32_HINT = {"INFERENCE_PRECISION_HINT": "f32"}
"""OpenVINO's CPU plugin computes in bf16 by default on CPUs with bf16 (this one, not an AVX2-only CI machine)."""


def test_shape_sub_graph_and_movement_ops_round_trip_through_openvino_ir(tmp_path):
    x = ov13.parameter(ov.PartialShape([-1, 8, 4]), ov.Type.f32, name="x")
    shape = ov13.shape_of(x, "i32")
    head = ov13.gather(shape, ov13.constant(np.array([0], np.int32)), ov13.constant(np.array(0, np.int32)), 0)
    target = ov13.concat([head, ov13.constant(np.array([2, -1], np.int32))], 0)
    y = ov13.reshape(x, target, False)                                   # [?, 2, 16]
    y = ov13.transpose(y, ov13.constant(np.array([0, 2, 1], np.int64)))  # [?, 16, 2]
    y = ov13.unsqueeze(y, ov13.constant(np.array([1], np.int64)))        # [?, 1, 16, 2]
    y = ov13.depth_to_space(ov13.space_to_depth(y, "depth_first", 2), "depth_first", 2)
    y = ov13.squeeze(y, ov13.constant(np.array([1], np.int64)))          # [?, 16, 2]
    y = ov13.strided_slice(y, ov13.constant(np.array([0, 1], np.int64)), ov13.constant(np.array([0, 15], np.int64)),
                           ov13.constant(np.array([1, 2], np.int64)), [1, 0], [1, 0], [0, 0], [0, 0], [0, 0])
    y = ov8.slice(y, ov13.constant(np.array([-1], np.int64)), ov13.constant(np.array([-100], np.int64)),
                  ov13.constant(np.array([-1], np.int64)), ov13.constant(np.array([2], np.int64)))
    y = ov13.shuffle_channels(y, 1, 7)
    y = ov13.pad(y, ov13.constant(np.array([0, 1, -1], np.int64)), ov13.constant(np.array([0, 2, 0], np.int64)),
                 "reflect")
    y = ov13.tile(y, ov13.constant(np.array([1, 2, 1], np.int64)))
    y = ov13.roll(y, ov13.constant(np.array([3], np.int64)), ov13.constant(np.array([1], np.int64)))
    z = ov13.broadcast(y, ov13.constant(np.array([1, 1, 3], np.int64)), broadcast_spec="bidirectional")  # [?,20,3]
    e = ov13.gather_elements(z, ov13.constant(np.ones((1, 20, 3), np.int64)), 0)
    r = ov13.range(ov13.constant(np.array(0, np.int64)), ov13.constant(np.array(5, np.int64)),
                   ov13.constant(np.array(2, np.int64)), "i64")
    g = ov8.gather_nd(z, ov13.constant(np.array([[0, 1], [0, 2]], np.int64)), 0)
    m = ov.Model([ov1.result(z), ov1.result(r), ov1.result(g), ov1.result(e)], [x], "shape_ops")
    path = tmp_path / "model.xml"
    ov.save_model(m, str(path), compress_to_fp16=False)

    data = np.random.default_rng(0).standard_normal((3, 8, 4)).astype(np.float32)
    expected = ov.Core().compile_model(m, "CPU", F32_HINT).create_infer_request().infer([data])
    model = ir.read_model(str(path))
    got = ir.run(model, {"x": data})
    assert len(got) == 4
    for index, value in enumerate(got.values()):
        np.testing.assert_array_equal(value, expected[index])
    inferred = [str(model.output_type(model.input_sources(result)[0]).shape) for result in model.results]
    assert inferred == [str(output.get_partial_shape()) for output in m.outputs]  # [?,6..20,3], [3], [2,3], [1,20,3]


def test_an_onnx_export_with_dynamic_axes_infers_every_layer_as_openvino(tmp_path):
    """ONNX (Shape, Gather, Concat, Reshape, Slice to a Shape-derived end, Expand, Tile, Range of a
    Shape-derived limit) converted by openvino 2026.4.1 to IR: irgraph's type of every layer equals
    OpenVINO's, and the outputs equal its CPU plugin's."""
    import onnx
    from onnx import TensorProto
    from onnx import helper as h

    from tests.ops.differential import ov_output_types

    def const(name, value):
        return h.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(np.array(value, np.int64), name))

    nodes = [
        const("i0", [0]), const("i1", [1]), const("m1", [-1]), const("one", [1]), const("zero", 0), const("one_s", 1),
        h.make_node("Shape", ["x"], ["s"]),
        h.make_node("Gather", ["s", "i0"], ["n"], axis=0),
        h.make_node("Gather", ["s", "i1"], ["ch"], axis=0),
        h.make_node("Concat", ["n", "m1"], ["target"], axis=0),
        h.make_node("Reshape", ["x", "target"], ["flat"]),
        h.make_node("Transpose", ["x"], ["xt"], perm=[0, 2, 3, 1]),
        h.make_node("Slice", ["y", "i0", "ch", "i1"], ["ys"]),
        h.make_node("Concat", ["n", "one"], ["eshape"], axis=0),
        h.make_node("Expand", ["b", "eshape"], ["be"]),
        h.make_node("Add", ["ch", "one"], ["ch1"]),
        h.make_node("Squeeze", ["ch1", "i0"], ["ch1s"]),
        h.make_node("Range", ["zero", "ch1s", "one_s"], ["r"]),
        h.make_node("Unsqueeze", ["flat", "i0"], ["fu"]),
        h.make_node("Tile", ["b", "eshape"], ["bt"]),
    ]
    outputs = ["flat", "xt", "ys", "be", "fu", "bt", "r"]
    graph = h.make_graph(
        nodes, "dynamic",
        [h.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", 4]),
         h.make_tensor_value_info("y", TensorProto.FLOAT, [5, 10]),
         h.make_tensor_value_info("b", TensorProto.FLOAT, [1, 1])],
        [onnx.ValueInfoProto(name=name) for name in outputs])
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]), str(tmp_path / "m.onnx"))
    converted = ov.convert_model(str(tmp_path / "m.onnx"))
    ov.save_model(converted, str(tmp_path / "m.xml"), compress_to_fp16=False)

    theirs = ov.Core().read_model(str(tmp_path / "m.xml"))
    expected_types = {op.get_friendly_name(): [str(t) for t in ov_output_types(op)] for op in theirs.get_ops()}
    model = ir.read_model(str(tmp_path / "m.xml"))
    ir.infer_shapes(model)
    layers = [node for node in model if node.op.type_name != "Result"]
    assert {n.op.type_name for n in layers} >= {"ShapeOf", "Gather", "Reshape", "Slice", "Broadcast", "Tile", "Range"}
    inferred = {n.name: [str(output.type) for output in n.outputs] for n in layers}
    assert inferred == {n.name: expected_types[n.name] for n in layers}

    feeds = {"x": np.random.default_rng(1).standard_normal((2, 3, 5, 4)).astype(np.float32),
             "y": np.arange(50, dtype=np.float32).reshape(5, 10), "b": np.ones((1, 1), np.float32)}
    expected = ov.Core().compile_model(theirs, "CPU", F32_HINT).create_infer_request().infer(feeds)
    got = ir.run(model, feeds)
    for name in outputs:
        np.testing.assert_array_equal(got[name], expected[name])
