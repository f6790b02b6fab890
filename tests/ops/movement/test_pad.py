"""Pad-1 and Pad-12 against OpenVINO: every mode, negative pads, pad values, budgets."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ov1
import openvino.opset12 as ov12
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.movement.pad import Pad, Pad12
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types
from tests.ops.helpers import tt


@st.composite
def pad_case(draw):
    shape = draw(S.shapes(min_rank=1, max_rank=3, max_side=4))
    rank = len(shape)
    low = draw(st.lists(st.integers(-3, 4), min_size=rank, max_size=rank))
    high = draw(st.lists(st.integers(-3, 4), min_size=rank, max_size=rank))
    return shape, low, high


@OP_EXAMPLES
@given(pad_case(), st.sampled_from(["constant", "edge", "reflect", "symmetric"]), st.sampled_from(S.ALL),
       st.booleans(), st.booleans())
def test_pad_matches_openvino(case, mode, element_type, version_12, with_value):
    shape, low, high = case
    data = S.values(element_type, shape, 10)
    arrays = [data, np.array(low, np.int64), np.array(high, np.int64)]
    module, op = (ov12, Pad12(pad_mode=mode)) if version_12 else (ov1, Pad(pad_mode=mode))
    if with_value and mode == "constant":
        arrays.append(S.values(element_type, (), 11))

    def build(*xs):
        return module.pad(xs[0], xs[1], xs[2], mode, *xs[3:])

    if any(s + a + b < 0 for s, a, b in zip(shape, low, high, strict=True)):
        # A negative output dim: openvino 2026.4.1 infers ? and its reference fails to allocate 2**64 - 1
        # elements (or, when another dim is 0, returns an empty tensor of a wrapped shape); irgraph refuses.
        with pytest.raises(OpError, match="gives a negative dimension|padding mode requires"):
            op.evaluate(arrays)
        return
    check_op(op, arrays, build, constant={1, 2})


@pytest.mark.parametrize(("data", "low", "high"), [("2..5,4", [1, 0], [2, 0]), ("?,3", [-1, 1], [0, 1]),
                                                   ("3,4", [-2, 0], [-2, 0]), ("...", [1], [1]),
                                                   ("2..3,4", [-1, 0], [-2, 0]), ("2..3,4", [-2, 0], [-2, 0])])
def test_pad_partial_shapes(data, low, high):
    check_types(Pad12(), [tt(data), tt(str(len(low)), "i64"), tt(str(len(high)), "i64")],
                lambda d, b, e: ov12.pad(d, b, e, "constant"),
                [None, np.array(low, np.int64), np.array(high, np.int64)])


def test_pad_spec_example_reflect_and_symmetric():
    data = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], np.int32)
    (reflect,) = Pad(pad_mode="reflect").evaluate([data, np.array([0, 2]), np.array([1, 1])])
    assert reflect.tolist() == [[3, 2, 1, 2, 3, 4, 3], [7, 6, 5, 6, 7, 8, 7], [11, 10, 9, 10, 11, 12, 11],
                                [7, 6, 5, 6, 7, 8, 7]]
    (symmetric,) = Pad(pad_mode="symmetric").evaluate([data, np.array([0, 2]), np.array([1, 1])])
    assert symmetric.tolist()[0] == [2, 1, 1, 2, 3, 4, 4]


def test_pad_refuses_a_reflection_wider_than_the_axis():
    with pytest.raises(OpError, match="REFLECT padding mode requires"):
        Pad(pad_mode="reflect").evaluate([np.zeros((3, 4)), np.array([3, 0]), np.array([0, 0])])


def test_pad_to_a_huge_shape_is_refused_before_allocating():
    from irgraph.core.errors import ResourceLimitError
    from irgraph.graph import Model
    from irgraph.runtime.interpreter import Interpreter

    model = Model("huge")
    x = model.parameter("x", [1], "f32")
    node = model.add_node(Pad12(), "p", [x, model.const(np.array([10**15], np.int64)),
                                         model.const(np.array([0], np.int64))])
    model.result(type(x)(node.id, 0), name="y")
    with pytest.raises(ResourceLimitError, match="1000000000000001 elements, above the limit"):
        Interpreter(model).run({"x": np.ones(1, np.float32)})


def test_edge_padding_of_an_empty_axis_by_nothing_is_allowed_as_openvino_allows_it():
    check_types(Pad12(pad_mode="edge"), [tt("0,2"), tt("2", "i64"), tt("2", "i64")],
                lambda d, b, e: ov12.pad(d, b, e, "edge"),
                [None, np.array([0, 1], np.int64), np.array([0, 1], np.int64)])
