"""Reshape-1 against OpenVINO: -1, special_zero, refused patterns, partial shapes; views."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.shape.reshape import Reshape
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops
from tests.ops.helpers import tt


@st.composite
def reshape_case(draw):
    shape = draw(S.shapes(max_rank=4, max_side=4))
    size = math.prod(shape)
    # a factorisation of the element count, mostly; now and then any pattern (OpenVINO may refuse it)
    target = []
    remaining = size
    for _ in range(draw(st.integers(0, 3))):
        divisors = [d for d in range(1, 5) if remaining and remaining % d == 0] or [0]
        d = draw(st.sampled_from(divisors))
        target.append(d)
        remaining = remaining // d if d else 0
    target.append(remaining)
    special_zero = draw(st.booleans())
    if target and draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = -1
    if special_zero and draw(st.booleans()):
        i = draw(st.integers(0, len(target) - 1))
        target[i] = 0
    if draw(st.integers(0, 5)) == 0:
        target = draw(st.lists(st.integers(-2, 5), max_size=4))
    return shape, target, special_zero


def reads_out_of_bounds(shape, pattern, special_zero) -> bool:
    """OpenVINO 2026.4.1 accepts a copied 0 that changes the element count ([1,0] -> [0] gives [1])."""
    try:
        node = ov_ops.reshape(ov_ops.constant(np.zeros(shape, np.int8)), ov_ops.constant(pattern), special_zero)
    except RuntimeError:
        return False
    return math.prod(node.get_output_shape(0)) != math.prod(shape)


@OP_EXAMPLES
@given(reshape_case(), st.sampled_from(S.ALL), st.sampled_from([np.int64, np.int32]))
def test_reshape_matches_openvino(case, element_type, pattern_dtype):
    shape, target, special_zero = case
    data = S.values(element_type, shape, 3)
    pattern = np.array(target, pattern_dtype)
    if reads_out_of_bounds(shape, pattern, special_zero):
        with pytest.raises(OpError, match="is incompatible with input shape"):
            Reshape(special_zero=special_zero).evaluate([data, pattern])
        return
    check_op(Reshape(special_zero=special_zero), [data, pattern],
             lambda x, p: ov_ops.reshape(x, p, special_zero), constant={1})


@pytest.mark.parametrize(
    ("shape", "pattern", "special_zero"),
    [("2,3..8,4", [-1, 2], True), ("2,3..8,4", [4, -1], True), ("2,3..8,4", [3, -1], True),
     ("?,3..8,4", [0, -1], True), ("?,3..8,4", [-1, 2], True), ("...", [0, -1], True), ("2,3", [6], False),
     ("1..4,3", [-1], False), ("2,?", [0, 0], True), ("2,3..4", [2, 2, 2], False),
     ("2..3,4", [5, -1], False), ("1..3", [2, -1], False)],
)
def test_reshape_partial_shapes(shape, pattern, special_zero):
    check_types(Reshape(special_zero=special_zero), [tt(shape), tt(str(len(pattern)), "i64")],
                lambda x, p: ov_ops.reshape(x, p, special_zero), [None, np.array(pattern, np.int64)])


@pytest.mark.parametrize(
    ("pattern", "message"),
    [([-1, -1], "More than one dimension has size of -1"),
     ([-2, 3], "Output pattern dim[0] has invalid bounds: -2,-2"),
     ([5, 5], "Requested output shape [5,5] is incompatible with input shape [2,3]"),
     ([-1, 0], "Cannot infer '-1' dimension with zero-size output dimension")],
)
def test_reshape_refuses(pattern, message):
    with pytest.raises(OpError) as caught:
        Reshape(special_zero=False).evaluate([np.zeros((2, 3)), np.array(pattern)])
    assert message in str(caught.value)


def test_reshape_is_a_view():
    data = np.arange(6)
    (out,) = Reshape(special_zero=False).evaluate([data, np.array([2, -1])])
    assert out.tolist() == [[0, 1, 2], [3, 4, 5]] and np.shares_memory(out, data)


def test_reshape_refuses_a_copied_zero_that_changes_the_element_count():
    """OpenVINO 2026.4.1 gives [1,0] -> pattern [0] (special_zero) the shape [1] and reads past the input."""
    with pytest.raises(OpError, match=r"Requested output shape \[1\] is incompatible with input shape \[1,0\]"):
        Reshape(special_zero=True).evaluate([np.zeros((1, 0)), np.array([0])])


def test_reshape_refuses_a_minus_one_dim_whose_interval_is_empty():
    """[1..2] -> [5,-1]: the -1 dim would be ceil(1/5)..floor(2/5) = 1..0. OpenVINO 2026.4.1 keeps that empty
    interval ([5,1..0]); irgraph refuses it, as no element count of the input fits."""
    shape = ov_ops.reshape(ov_ops.parameter([(1, 2)], np.float32), ov_ops.constant(np.array([5, -1])), False)
    assert str(shape.get_output_partial_shape(0)) == "[5,1..0]"
    with pytest.raises(OpError, match=r"^Requested output shape is incompatible with input shape \[1\.\.2\]$"):
        Reshape(special_zero=False).infer([tt("1..2"), tt("2", "i64")], [None, np.array([5, -1])])


def test_a_bounded_dim_beside_minus_one_gives_an_interval_not_a_quotient_of_its_minimum():
    """Reshape(y[12], Concat(ShapeOf(x[2..3]), [-1])): -1 is 12 over 2..3, i.e. [4..6], as openvino 2026.4.1 says
    (not 12 // 2 = 6: the other dim is an interval, though the input is static)."""
    import openvino as ov
    import openvino.opset1 as ov1
    import openvino.opset3 as ov3

    import irgraph as ir
    from irgraph.graph import OutputPort
    from irgraph.ops.movement.concat import Concat
    from irgraph.ops.shape.shape_of import ShapeOf3

    m = ir.Model()
    x, y = m.parameter("x", "2..3"), m.parameter("y", [12])
    shape = OutputPort(m.add_node(ShapeOf3(), "shape", [x]).id, 0)
    pattern = OutputPort(m.add_node(Concat(axis=0), "pattern", [shape, m.const(np.array([-1]))]).id, 0)
    reshaped = m.add_node(Reshape(special_zero=False), "reshaped", [y, pattern])
    m.result(OutputPort(reshaped.id, 0), name="out")
    ir.infer_shapes(m)
    assert str(m.output_type(OutputPort(reshaped.id, 0)).shape) == "[2..3,4..6]"
    ov_x, ov_y = ov1.parameter(ov.PartialShape("2..3"), np.float32), ov1.parameter([12], np.float32)
    ov_pattern = ov1.concat([ov3.shape_of(ov_x), ov1.constant(np.array([-1], np.int64))], 0)
    assert str(ov1.reshape(ov_y, ov_pattern, False).get_output_partial_shape(0)) == "[2..3,4..6]"


def test_a_pattern_of_rank_two_is_refused_as_openvino_does():
    """openvino 2026.4.1 refuses a [1,2] pattern input (a Parameter too); so does infer, with its words."""
    op = Reshape(special_zero=False)
    assert check_types(op, [tt("2,3"), tt("1,2", "i64")], lambda x, p: ov_ops.reshape(x, p, False)).refused
    with pytest.raises(OpError, match=r"^Pattern shape must have rank 1 or be empty\. Got: \[1,2\]$"):
        op.infer([tt("2,3"), tt("1,2", "i64")], [None, None])
    with pytest.raises(OpError, match=r"^Pattern shape must have rank 1 or be empty\. Got: \[1,2\]$"):
        op.evaluate([np.zeros((2, 3)), np.array([[3, 2]], np.int64)])  # evaluate, called without infer


@pytest.mark.parametrize("pattern", ["2", "?"])
def test_a_pattern_of_unknown_values_gives_its_length_in_unknown_dims(pattern):
    """[2,3] reshaped by an i64[2] pattern of unknown values is [?,?]; by i64[?] of unknown rank, as in openvino
    2026.4.1."""
    check_types(Reshape(special_zero=False), [tt("2,3"), tt(pattern, "i64")], lambda x, p: ov_ops.reshape(x, p, False))


def test_a_scalar_pattern_of_unknown_value_is_one_unknown_dim():
    """irgraph's own answer: infer crashed with an IndexError here (openvino 2026.4.1 refuses any rank-0 pattern,
    "Pattern shape must have rank 1"; irgraph accepts one, see the report of the mutation work)."""
    assert [str(t) for t in Reshape(special_zero=False).infer([tt("2,3"), tt("", "i64")], [None, None])] == ["f32[?]"]


def test_minus_one_that_does_not_divide_the_element_count_is_refused():
    """[2,3] as [4,-1]: openvino 2026.4.1 refuses it at shape inference, and irgraph with its words."""
    op = Reshape(special_zero=False)
    types, values = [tt("2,3"), tt("2", "i64")], [None, np.array([4, -1], np.int64)]
    assert check_types(op, types, lambda x, p: ov_ops.reshape(x, p, False), values).refused
    with pytest.raises(OpError, match=r"^Requested output shape \[4,-1\] is incompatible with input shape \[2,3\]$"):
        op.infer(types, values)
