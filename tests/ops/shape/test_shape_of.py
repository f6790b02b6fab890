"""ShapeOf-1 and ShapeOf-3 against OpenVINO: values, output types, partial shapes."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ov1
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.shape.shape_of import ShapeOf1, ShapeOf3
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops
from tests.ops.helpers import tt


@OP_EXAMPLES
@given(S.shapes(max_rank=5), st.sampled_from(["i64", "i32"]), st.sampled_from(S.ALL))
def test_shape_of_matches_openvino(shape, output_type, element_type):
    data = S.values(element_type, shape, 1)
    check_op(ShapeOf3(output_type=ElementType.from_ir_name(output_type)), [data],
             lambda x: ov_ops.shape_of(x, output_type))


def test_shape_of_1_is_i64():
    check_op(ShapeOf1(), [np.zeros((2, 0, 3), np.float32)], ov1.shape_of)
    assert ShapeOf1().to_attributes() == {}


@pytest.mark.parametrize("shape", ["?,3..8,4", "...", "", "0"])
def test_shape_of_partial_shapes(shape):
    check_types(ShapeOf3(), [tt(shape)], ov_ops.shape_of)


def test_shape_of_refuses_other_output_types():
    with pytest.raises(OpError, match="Output type must be i64 or i32. Got: f32"):
        ShapeOf3(output_type=ElementType.F32)


@pytest.mark.parametrize("output_type", ["i64", "i32"])
def test_bounds_of_each_dim_reach_a_broadcast_as_in_openvino(output_type):
    """ShapeOf's bounds: each dim's interval, an unbounded one up to the output type's maximum (unknown), so a
    Broadcast to the shape gets the dims openvino 2026.4.1 infers."""
    import openvino as ov
    import openvino.opset3 as ov3

    import irgraph as ir
    from irgraph.core.shapes import Shape
    from irgraph.graph import OutputPort
    from irgraph.ops.movement.broadcast import Broadcast3

    model = ir.Model("bounds")
    x = model.parameter("x", Shape.parse("2..5,?,3"))
    shape_of = model.add_node(ShapeOf3(output_type=ElementType.from_ir_name(output_type)), "s", [x])
    broadcast = model.add_node(Broadcast3(), "b", [model.const(np.float32(1)), OutputPort(shape_of.id, 0)])
    ir.infer_shapes(model)
    theirs = ov3.broadcast(ov3.constant(np.float32(1)),
                           ov3.shape_of(ov3.parameter(ov.PartialShape("[2..5,?,3]"), ov.Type.f32), output_type))
    assert str(model.output_type(OutputPort(broadcast.id, 0)).shape) == str(theirs.get_output_partial_shape(0)) \
        == "[2..5,?,3]"
