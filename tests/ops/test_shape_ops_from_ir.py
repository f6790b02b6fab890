"""Every shape and movement op of this package read from IR that openvino 2026.4.1 serialized, run by
irgraph, equal to OpenVINO's CPU plugin: the attribute names and texts the reader sees are OpenVINO's."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as ov1
import openvino.opset8 as ov8
import openvino.opset13 as ov13

import irgraph as ir


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
    expected = ov.Core().compile_model(m, "CPU").create_infer_request().infer([data])
    model = ir.read_model(str(path))
    got = ir.run(model, {"x": data})
    assert len(got) == 4
    for index, value in enumerate(got.values()):
        np.testing.assert_array_equal(value, expected[index])
    inferred = [str(model.output_type(model.input_sources(result)[0]).shape) for result in model.results]
    assert inferred == [str(output.get_partial_shape()) for output in m.outputs]  # [?,6..20,3], [3], [2,3], [1,20,3]
