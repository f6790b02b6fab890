"""TopK-1/3/11 against OpenVINO: modes, sorts, ties (lower index first), index types, k types, partial
shapes; k beyond the axis, k = 0 and negative k refused or documented."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.sort.top_k import TopK1, TopK3, TopK11
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_constant, ov_reference, same_op
from tests.ops.helpers import infer, tt

VERSIONS = [TopK1, TopK3, TopK11]
TYPES = (ElementType.F32, ElementType.F16, ElementType.F64, ElementType.I32, ElementType.I64, ElementType.U8,
         ElementType.I8, ElementType.U64)


def make(op_class, draw, rank, sorts=("value", "index", "none")):
    attrs = dict(axis=draw(st.integers(-rank, rank - 1)), mode=draw(st.sampled_from(["max", "min"])),
                 sort=draw(st.sampled_from(sorts)),
                 index_element_type=draw(st.sampled_from([ElementType.I32, ElementType.I64])))
    if op_class is TopK11:
        attrs["stable"] = attrs["sort"] != "none" and draw(st.booleans())
    return op_class(**attrs)


@pytest.mark.parametrize("op_class", VERSIONS, ids=lambda c: c.title())
@OP_EXAMPLES
@given(data=st.data())
def test_top_k_matches_openvino(op_class, data):
    element_type = data.draw(st.sampled_from(TYPES))
    shape = data.draw(S.shapes(min_rank=1, max_rank=3, max_side=5, zero=False))
    op = make(op_class, data.draw, len(shape), sorts=("value", "index"))
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False)
    if element_type.is_real:  # many ties: the tie rule is what this checks (NaN has no order in the reference)
        x = np.round(x / 4).astype(x.dtype)
    dim = shape[op.axis]
    k = data.draw(st.integers(1, dim))  # k = 0 and k > dim: see the named tests
    k_type = np.int64 if op_class is TopK1 else data.draw(st.sampled_from([np.int64, np.int32, np.uint8]))
    check_op(op, [x, np.array(k, k_type)], same_op(op), constant=(1,))


@OP_EXAMPLES
@given(data=st.data())
def test_sort_none_selects_what_openvino_selects(data):
    """openvino 2026.4.1 leaves the order of sort="none" to std::nth_element (index order on some inputs,
    value order on others); irgraph gives index order. The selected elements are the same."""
    shape = data.draw(S.shapes(min_rank=1, max_rank=3, max_side=5, zero=False))
    op = make(data.draw(st.sampled_from(VERSIONS[:2])), data.draw, len(shape), sorts=("none",))
    x = np.round(S.values(ElementType.F32, shape, data.draw(S.seeds), specials=False) / 4)
    k = np.array(data.draw(st.integers(1, shape[op.axis])), np.int64)
    reference = ov_reference(same_op(op)(ov_constant(x), ov_constant(k)))
    order = np.argsort(reference[1], axis=op.axis)
    values, indices = op.evaluate([x, k])
    assert np.array_equal(values, np.take_along_axis(reference[0], order, axis=op.axis))
    assert np.array_equal(indices, np.take_along_axis(reference[1], order, axis=op.axis))


@pytest.mark.parametrize("op_class", VERSIONS, ids=lambda c: c.title())
@OP_EXAMPLES
@given(data=st.data(), shape=st.sampled_from(["2,5", "2,2..7", "?,3", "..."]), k_known=st.booleans())
def test_partial_shapes_infer_as_openvino(op_class, data, shape, k_known):
    op = make(op_class, data.draw, 2)
    k = np.array(2, np.int64) if k_known else None
    check_types(op, [tt(shape), tt("", "i64")], same_op(op), [None, k])


def test_spec_example_ties_go_to_the_lower_index():
    x = np.array([[3, 1, 3, 2, 5, 1]], np.float32)
    values, indices = TopK3(axis=1, mode="max", sort="value").evaluate([x, np.array(6)])
    assert values.tolist() == [[5, 3, 3, 2, 1, 1]] and indices.tolist() == [[4, 0, 2, 3, 1, 5]]
    values, indices = TopK3(axis=1, mode="min", sort="none").evaluate([x, np.array(3)])
    assert values.tolist() == [[1, 2, 1]] and indices.tolist() == [[1, 3, 5]]


def test_integer_extremes_order_exactly():
    x = np.array([0, -2**63, 2**63 - 1, -1], np.int64)
    values, _ = TopK11(axis=0, mode="max", sort="value").evaluate([x, np.array(4)])
    assert values.tolist() == [2**63 - 1, 0, -1, -2**63]


def test_k_beyond_the_axis_is_refused_at_run_time():
    """openvino 2026.4.1 infers [1,8] for k=8 on [1,6] and its reference then reads past the data (garbage,
    then a heap corruption abort); irgraph infers the same shape and refuses to run it."""
    op = TopK3(axis=1, mode="max", sort="value")
    assert infer(op, [tt("1,6"), tt("", "i64")], [None, 8]) == ["[1,8]", "[1,8]"]
    with pytest.raises(OpError, match="'k' must not exceed the size of the data along axis 1. Got k=8 and the dim 6"):
        op.evaluate([np.zeros((1, 6), np.float32), np.array(8)])


def test_k_zero_gives_an_empty_output():
    """openvino 2026.4.1 infers [1,0] for k=0 but its reference folds all six values (k=0 read as 'all');
    irgraph keeps to the inferred shape."""
    values, indices = TopK3(axis=1, mode="max", sort="value").evaluate([np.ones((1, 6), np.float32), np.array(0)])
    assert values.shape == (1, 0) and indices.shape == (1, 0)


@pytest.mark.parametrize("op_class", VERSIONS, ids=lambda c: c.title())
def test_negative_k_is_refused_as_openvino_does(op_class):
    op = op_class(axis=0, mode="max", sort="value")
    assert check_op(op, [np.ones(3, np.float32), np.array(-1, np.int64)], same_op(op), constant=(1,)).refused
    with pytest.raises(OpError, match=r"The value of 'K' must be greater or equal to zero. \(got -1\)."):
        op.infer([tt("3"), tt("", "i64")], [None, np.array(-1)])


def test_refused_configurations():
    with pytest.raises(OpError, match="K input element type must be i8, i32 or i64 \\(got u8\\)"):
        TopK1(axis=0, mode="max", sort="value").infer([tt("3"), tt("", "u8")], [None, None])
    with pytest.raises(OpError, match="Index element type attribute should be either 'i32' or 'i64'. Got: u8"):
        TopK11(axis=0, mode="max", sort="value", index_element_type=ElementType.U8)
    with pytest.raises(OpError, match="Stable sort can only be used when TopK's sorting mode is set to 'VALUE' or"):
        TopK11(axis=0, mode="max", sort="none", stable=True)
    with pytest.raises(OpError, match="Attribute 'mode' must be one of max, min. Got: 'largest'"):
        TopK3(axis=0, mode="largest", sort="value")
    with pytest.raises(OpError, match=r"Axis 2 out of the tensor rank range \[-2, 1\]"):
        TopK3(axis=2, mode="max", sort="value").infer([tt("2,3"), tt("", "i64")], [None, None])
