"""Squeeze-1, Squeeze-15 and Unsqueeze-1 against OpenVINO."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ov1
import openvino.opset15 as ov15
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.shape.squeeze import Squeeze, Squeeze15
from irgraph.ops.shape.unsqueeze import Unsqueeze
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types
from tests.ops.helpers import tt

ones_shapes = st.lists(st.sampled_from([1, 1, 2, 3, 0]), max_size=5).map(tuple)


@OP_EXAMPLES
@given(ones_shapes, st.lists(st.integers(-5, 4), max_size=3), st.booleans(), st.booleans())
def test_squeeze_matches_openvino(shape, axes, v15, skip):
    data = S.values(S.ALL[3], shape, 1)
    if v15:
        check_op(Squeeze15(allow_axis_skip=skip), [data, np.array(axes, np.int64)],
                 lambda x, a: ov15.squeeze(x, a, skip), constant={1})
    else:
        check_op(Squeeze(), [data, np.array(axes, np.int64)], ov1.squeeze, constant={1})


@OP_EXAMPLES
@given(S.shapes(max_rank=3), st.lists(st.integers(-5, 4), max_size=3))
def test_unsqueeze_matches_openvino(shape, axes):
    data = S.values(S.ALL[4], shape, 1)
    check_op(Unsqueeze(), [data, np.array(axes, np.int32)], ov1.unsqueeze, constant={1})


@pytest.mark.parametrize(
    ("shape", "axes", "version", "skip"),
    [("1,?,3,1", [1], 1, False), ("1,0..5,3,1", [1], 1, False), ("1,2..5,3,1", [1], 1, False),
     ("1,2,3,1", [1], 1, False), ("1,?,3,1", [1], 15, True), ("1,?,3,1", [1], 15, False),
     ("1,?,3,1", [0], 15, True), ("...", [0], 1, False)],
)
def test_squeeze_partial_shapes(shape, axes, version, skip):
    op, build = (Squeeze(), ov1.squeeze) if version == 1 else (Squeeze15(allow_axis_skip=skip),
                                                                  lambda x, a: ov15.squeeze(x, a, skip))
    check_types(op, [tt(shape), tt(str(len(axes)), "i64")], build, [None, np.array(axes, np.int64)])


def test_squeeze_without_axes_removes_every_static_one():
    (out,) = Squeeze().evaluate([np.zeros((1, 2, 1, 3))])
    assert out.shape == (2, 3)
    assert [str(t.shape) for t in Squeeze().infer([tt("1,?,3")], [None])] == ["[...]"]
    assert [str(t.shape) for t in Squeeze().infer([tt("1,2..5,3,1")], [None])] == ["[2..5,3]"]


def test_unsqueeze_needs_axes_and_is_a_view():
    with pytest.raises(OpError, match="'axes' input is mandatory"):
        Unsqueeze().evaluate([np.zeros(2), np.array([], np.int64)])
    data = np.arange(3)
    (out,) = Unsqueeze().evaluate([data, np.array([0, -1])])
    assert out.shape == (1, 3, 1) and np.shares_memory(out, data)


@pytest.mark.parametrize("shape", ["1,1,1", "2,1,3", "2,3,4", "?,3,4", "1,2", "..."])
@pytest.mark.parametrize("axes", ["1", "", "2", "?"])
def test_squeeze_with_axes_of_unknown_value(shape, axes):
    check_types(Squeeze(), [tt(shape), tt(axes, "i64")], ov1.squeeze)
    check_types(Squeeze15(), [tt(shape), tt(axes, "i64")], lambda x, a: ov15.squeeze(x, a, False))
    check_types(Unsqueeze(), [tt(shape), tt(axes, "i64")], ov1.unsqueeze)


def test_unsqueeze_refuses_axes_of_rank_two_as_openvino_does():
    """OpenVINO 2026.4.1 refuses a [1,1] axes constant; irgraph's evaluate says the same for an array given directly."""
    axes = np.array([[0]], np.int64)
    with pytest.raises(RuntimeError, match=r"Second input \(axes\) should not be of rank higher than 1"):
        ov1.unsqueeze(ov1.constant(np.zeros(2, np.float32)), ov1.constant(axes))
    with pytest.raises(OpError, match=r"^Second input \(axes\) should not be of rank higher than 1\. Got: \[1,1\]$"):
        Unsqueeze().evaluate([np.zeros(2), axes])

AXES_OF_RANK_TWO = r"^Second input \(axes\) should not be of rank higher than 1\. Got: \[1,1\]$"


def test_axes_of_rank_two_are_refused_by_infer_as_openvino_does():
    """openvino 2026.4.1 refuses a [1,1] axes input (a Parameter too) in Squeeze and Unsqueeze; so does infer."""
    for op, build in ((Squeeze(), ov1.squeeze), (Unsqueeze(), ov1.unsqueeze)):
        assert check_types(op, [tt("1,2"), tt("1,1", "i64")], build).refused
        with pytest.raises(OpError, match=AXES_OF_RANK_TWO):
            op.infer([tt("1,2"), tt("1,1", "i64")], [None, None])


def test_squeeze_evaluate_takes_axes_of_rank_one_on_data_of_any_rank():
    """evaluate checks the axes' rank, not the data's: [1,3,1] squeezed at axis 0 is [3,1]; [[0]] is refused."""
    data = np.zeros((1, 3, 1), np.float32)
    assert Squeeze().evaluate([data, np.array([0], np.int64)])[0].shape == (3, 1)
    with pytest.raises(OpError, match=AXES_OF_RANK_TWO):
        Squeeze().evaluate([data, np.array([[0]], np.int64)])


@pytest.mark.parametrize("shape", ["1..3,4", "0..3,4", "?,4", "2..3,4"])
def test_squeeze_of_an_interval_dim_as_openvino(shape):
    """Squeeze at axis 0 of an interval dim, as in openvino 2026.4.1: Squeeze-1 drops one that can be 1."""
    check_types(Squeeze(), [tt(shape), tt("1", "i64")], ov1.squeeze, [None, np.array([0], np.int64)])
    # allow_axis_skip: a dim that may be 1 or not (1..3, 0..3, ?) makes the rank unknown; 2..3 is kept
    check_types(Squeeze15(allow_axis_skip=True), [tt(shape), tt("1", "i64")], lambda x, a: ov15.squeeze(x, a, True),
                [None, np.array([0], np.int64)])


def test_unsqueeze_keeps_the_bounds_of_a_dim_it_carries():
    """ShapeOf -> Gather -> Unsqueeze -> Broadcast's target: the dim 2..5 reaches Broadcast, as in openvino 2026.4.1."""
    import openvino as ov
    import openvino.opset3 as ov3
    import openvino.opset8 as ov8

    import irgraph as ir
    from irgraph.core.element_types import ElementType
    from irgraph.core.shapes import Shape
    from irgraph.graph import OutputPort
    from irgraph.ops.movement.broadcast import Broadcast3
    from irgraph.ops.movement.gather import Gather8
    from irgraph.ops.shape.shape_of import ShapeOf3

    m = ir.Model("u")
    x = m.parameter("x", Shape.parse("2..5,3"))
    dims = m.add_node(ShapeOf3(output_type=ElementType.I64), "s", [x])
    first = m.add_node(Gather8(batch_dims=0), "g", [OutputPort(dims.id, 0), m.const(np.int64(0)), m.const(np.int64(0))])
    one = m.add_node(Unsqueeze(), "u", [OutputPort(first.id, 0), m.const(np.array([0], np.int64))])
    target = m.add_node(Broadcast3(), "b", [m.const(np.float32(1)), OutputPort(one.id, 0)])
    ir.infer_shapes(m)
    p = ov1.parameter(ov.PartialShape("[2..5,3]"), ov.Type.f32)
    zero = ov1.constant(np.int64(0))
    theirs = ov3.broadcast(ov1.constant(np.float32(1)), ov1.unsqueeze(
        ov8.gather(ov3.shape_of(p, "i64"), zero, zero), ov1.constant(np.array([0], np.int64))))
    assert str(m.output_type(OutputPort(target.id, 0)).shape) == str(theirs.get_output_partial_shape(0)) == "[2..5]"
