"""Slice-8 against OpenVINO: clamping, negative steps, axes, interval dims."""

from __future__ import annotations

import numpy as np
import openvino.opset8 as ov8
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.movement.slice import Slice
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types
from tests.ops.helpers import tt

bound = st.one_of(st.integers(-6, 6), st.sampled_from([2**63 - 1, -(2**63), 2**31 - 1, -(2**31)]))


@st.composite
def slice_case(draw):
    shape = draw(S.shapes(min_rank=1, max_rank=4, max_side=5))
    count = draw(st.integers(1, len(shape)))
    axes = draw(st.permutations(range(len(shape))))[:count]
    axes = [a - len(shape) if draw(st.booleans()) else a for a in axes]
    start = draw(st.lists(bound, min_size=count, max_size=count))
    stop = draw(st.lists(bound, min_size=count, max_size=count))
    step = draw(st.lists(st.sampled_from([1, 1, 2, 3, -1, -2, 2**63 - 1, -(2**63)]), min_size=count, max_size=count))
    return shape, start, stop, step, axes


@OP_EXAMPLES
@given(slice_case(), st.booleans(), st.sampled_from(S.ALL))
def test_slice_matches_openvino(case, with_axes, element_type):
    shape, start, stop, step, axes = case
    data = S.values(element_type, shape, 4)
    arrays = [data, np.array(start, np.int64), np.array(stop, np.int64), np.array(step, np.int64)]
    if with_axes:
        check_op(Slice(), [*arrays, np.array(axes, np.int64)], ov8.slice, constant={1, 2, 3, 4})
    else:
        check_op(Slice(), arrays, lambda d, a, b, c: ov8.slice(d, a, b, c), constant={1, 2, 3})


@pytest.mark.parametrize(
    ("shape", "start", "stop", "step"),
    [("?", 0, 2, 1), ("?", 1, 2**63 - 1, 1), ("?", -2, 2**63 - 1, 1), ("3..8", 1, -1, 1),
     ("3..8", 2**63 - 1, 0, -2), ("..5", -1, -(2**63), -1), ("2..", 5, 1, -1)],
)
def test_slice_interval_dims(shape, start, stop, step):
    arrays = [np.array([v], np.int64) for v in (start, stop, step)]
    check_types(Slice(), [tt(shape), tt("1", "i64"), tt("1", "i64"), tt("1", "i64")],
                lambda d, a, b, c: ov8.slice(d, a, b, c), [None, *arrays])


def test_slice_refuses_a_zero_step_and_returns_views():
    with pytest.raises(OpError, match="Step must be non-zero"):
        Slice().evaluate([np.zeros(3), np.array([0]), np.array([3]), np.array([0])])
    data = np.arange(10)
    (out,) = Slice().evaluate([data, np.array([8]), np.array([1]), np.array([-3])])
    assert out.tolist() == [8, 5, 2] and np.shares_memory(out, data)


def test_slice_interval_dim_where_openvino_makes_an_invalid_dim():
    """openvino 2026.4.1 gives 3..8 sliced [-2:3] the dim ``?`` with a lower bound of -1 (not a valid
    Dimension); irgraph gives the lengths sizes 3..8 allow: 2, 1, 0, 0, ..."""
    op = Slice()
    (out,) = op.infer([tt("3..8"), tt("1", "i64"), tt("1", "i64"), tt("1", "i64")],
                      [None, np.array([-2]), np.array([3]), np.array([1])])
    assert str(out.shape) == "[..2]"


def test_slice_negative_step_from_before_the_start_takes_element_0_as_openvino():
    """openvino 2026.4.1 clamps a start below -size to 0 for a negative step (NumPy's slicing gives nothing)."""
    (out,) = Slice().evaluate([np.arange(3), np.array([-5]), np.array([-10]), np.array([-1])])
    assert out.tolist() == [0]


def test_a_stop_bounded_by_a_shape_sub_graph_gives_openvinos_interval():
    """Slice(y[10], 0, ShapeOf(x[2..4,3])[:1], 1): the stop's bounds 2..4 give [2..4], as OpenVINO 2026.4.1 says."""
    import openvino as ov
    import openvino.opset1 as ov1
    import openvino.opset3 as ov3
    import openvino.opset8 as ov8

    import irgraph as ir
    from irgraph.graph import OutputPort
    from irgraph.ops.shape.shape_of import ShapeOf3

    m = ir.Model()
    x, y = m.parameter("x", "2..4,3"), m.parameter("y", [10])
    shape = OutputPort(m.add_node(ShapeOf3(), "shape", [x]).id, 0)
    first = OutputPort(m.add_node(Slice(), "first", [shape, m.const(np.array([0])), m.const(np.array([1])),
                                                     m.const(np.array([1]))]).id, 0)
    sliced = m.add_node(Slice(), "sliced", [y, m.const(np.array([0])), first, m.const(np.array([1]))])
    m.result(OutputPort(sliced.id, 0), name="out")
    ir.infer_shapes(m)
    assert str(sliced.outputs[0].type.shape) == "[2..4]"
    ov_x, ov_y = ov1.parameter(ov.PartialShape("2..4,3"), np.float32), ov1.parameter([10], np.float32)
    ones = [ov1.constant(np.array([v])) for v in (0, 1, 1)]
    stop = ov8.slice(ov3.shape_of(ov_x), *ones)
    assert str(ov8.slice(ov_y, ones[0], stop, ones[2]).get_output_partial_shape(0)) == "[2..4]"
