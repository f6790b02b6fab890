"""ReduceMax and ReduceMin pass value bounds through a shape sub-graph as OpenVINO 2026.4.1's evaluate_lower/upper
do: a Broadcast to max(ShapeOf(x)) of x[2..4,3] is [3..4] in both."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as ov1
import openvino.opset3 as ov3
import pytest

import irgraph as ir
from irgraph.graph import OutputPort
from irgraph.ops.movement.broadcast import Broadcast3
from irgraph.ops.reduction.reduce_max import ReduceMax
from irgraph.ops.reduction.reduce_min import ReduceMin
from irgraph.ops.shape.shape_of import ShapeOf3


@pytest.mark.parametrize(("op", "build", "expected"), [(ReduceMax, ov1.reduce_max, "[3..4]"),
                                                       (ReduceMin, ov1.reduce_min, "[2..3]")])
def test_a_broadcast_to_a_reduced_shape_keeps_the_bounds(op, build, expected: str) -> None:
    m = ir.Model()
    x = m.parameter("x", "2..4,3")
    shape = OutputPort(m.add_node(ShapeOf3(), "shape", [x]).id, 0)
    reduced = OutputPort(m.add_node(op(keep_dims=True), "reduced", [shape, m.const(np.array([0], np.int64))]).id, 0)
    broadcast = m.add_node(Broadcast3(), "b", [m.const(np.float32(1)), reduced])
    m.result(OutputPort(broadcast.id, 0), name="y")
    ir.infer_shapes(m)
    assert str(broadcast.outputs[0].type.shape) == expected
    p = ov1.parameter(ov.PartialShape("2..4,3"), np.float32)
    target = build(ov3.shape_of(p), ov1.constant(np.array([0], np.int64)), True)
    assert str(ov3.broadcast(ov1.constant(np.float32(1)), target).get_output_partial_shape(0)) == expected
