"""MaxPool-1, -8 and -14: named cases, OpenVINO (reference and CPU) through the harness, shapes, refusals."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ov1
import openvino.opset8 as ov8
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim
from irgraph.ops.pooling.max_pool import MaxPool, MaxPool8, MaxPool14
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops
from tests.ops.helpers import infer, tt
from tests.ops.pooling.pool_cases import irgraph_attributes, partial_data_shape, pool_config

TYPES = (ElementType.F32, ElementType.F16, ElementType.BF16, ElementType.F64, ElementType.I32, ElementType.I64,
         ElementType.I8, ElementType.U8, ElementType.BOOLEAN)


def builder(version: int, a: dict, index_type: str = "i64", axis: int = 0):
    if version == 1:
        return lambda x: ov1.max_pool(x, a["strides"], a["pads_begin"], a["pads_end"], a["kernel"], a["rounding_type"],
                                      a["auto_pad"])
    module = ov8 if version == 8 else ov_ops
    return lambda x: module.max_pool(x, a["strides"], a["dilations"], a["pads_begin"], a["pads_end"], a["kernel"],
                                     a["rounding_type"], a["auto_pad"], index_type, axis)


# ------------------------------------------------------------------------------------ named cases
def test_2x2_windows_and_their_flat_indices():
    data = np.array([[1, 5, 2, 0], [3, 4, 9, 1], [0, 0, 1, 1], [7, 0, 1, 1]], np.float32).reshape(1, 1, 4, 4)
    op = MaxPool8(strides=(2, 2), pads_begin=(0, 0), pads_end=(0, 0), kernel=(2, 2), dilations=(1, 1))
    values, indices = op.evaluate([data])
    assert values.ravel().tolist() == [5, 9, 7, 1]
    assert indices.ravel().tolist() == [1, 6, 12, 10]  # the first of equal maxima (1, 1, 1, 1) wins


def test_axis_counts_indices_from_that_dim():
    data = np.arange(2 * 2 * 3, dtype=np.float32).reshape(2, 2, 3)
    kwargs = {"strides": (1,), "pads_begin": (0,), "pads_end": (0,), "kernel": (2,), "dilations": (1,)}
    assert MaxPool8(**kwargs, axis=0).evaluate([data])[1].ravel().tolist() == [1, 2, 4, 5, 7, 8, 10, 11]
    assert MaxPool8(**kwargs, axis=1).evaluate([data])[1].ravel().tolist() == [1, 2, 4, 5, 1, 2, 4, 5]
    assert MaxPool8(**kwargs, axis=-1).evaluate([data])[1].ravel().tolist() == [1, 2] * 4
    # axis defaults to 0 (the whole tensor), as in openvino 2026.4.1's opset8.max_pool
    assert MaxPool8(**kwargs).evaluate([data])[1].ravel().tolist() == [1, 2, 4, 5, 7, 8, 10, 11]


def test_nan_never_wins_and_empty_windows_hold_the_lowest_value():
    # openvino 2026.4.1's reference starts from the lowest finite value and takes only greater values.
    data = np.array([np.nan, np.nan, -np.inf, 2], np.float32).reshape(1, 1, 4)
    op = MaxPool8(strides=(1,), pads_begin=(0,), pads_end=(0,), kernel=(2,), dilations=(1,))
    values, indices = op.evaluate([data])
    lowest = np.finfo(np.float32).min
    assert values.ravel().tolist() == [lowest, lowest, 2] and indices.ravel().tolist() == [0, 0, 3]


def test_ceil_torch_drops_a_last_window_that_starts_in_the_padding():
    kwargs = {"strides": (2,), "pads_begin": (1,), "pads_end": (1,), "kernel": (2,), "dilations": (1,)}
    assert infer(MaxPool14(**kwargs, rounding_type="ceil"), [tt("1,1,5")], [None]) == ["[1,1,4]", "[1,1,4]"]
    assert infer(MaxPool14(**kwargs, rounding_type="ceil_torch"), [tt("1,1,5")], [None]) == ["[1,1,3]", "[1,1,3]"]


def test_ceil_torch_on_data_no_larger_than_the_begin_padding():
    """One element after one of padding: the second window (start 2) lies past the data and the padding before
    it (2 > 1 + 1 - 1), so only one window stays; openvino 2026.4.1 agrees."""
    a = {"strides": [2], "dilations": [1], "pads_begin": [1], "pads_end": [1], "kernel": [2],
         "rounding_type": "ceil_torch", "auto_pad": "explicit"}
    op = MaxPool14(**irgraph_attributes(a))
    check_types(op, [tt("1,1,1")], builder(14, a))
    assert infer(op, [tt("1,1,1")], [None]) == ["[1,1,1]", "[1,1,1]"]


# ------------------------------------------------------------------------------------ differential
@OP_EXAMPLES
@given(st.data())
def test_max_pool_1_matches_openvino(data):
    shape, attributes = data.draw(pool_config(dilations=False, rounding=("floor", "ceil")))
    element_type = data.draw(st.sampled_from(TYPES))
    x = S.values(element_type, shape, data.draw(S.seeds))
    check_op(MaxPool(**irgraph_attributes(attributes)), [x], builder(1, attributes))


@OP_EXAMPLES
@given(st.data())
def test_max_pool_8_and_14_match_openvino(data):
    version = data.draw(st.sampled_from([8, 14]))
    rounding = ("floor", "ceil", "ceil_torch") if version == 14 else ("floor", "ceil")
    shape, attributes = data.draw(pool_config(dilations=True, rounding=rounding))
    element_type = data.draw(st.sampled_from(TYPES))
    index_type = data.draw(st.sampled_from(["i32", "i64"]))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = S.values(element_type, shape, data.draw(S.seeds))
    op_class = MaxPool8 if version == 8 else MaxPool14
    op = op_class(**irgraph_attributes(attributes), index_element_type=ElementType.from_ir_name(index_type), axis=axis)
    check_op(op, [x], builder(version, attributes, index_type, axis))


@OP_EXAMPLES
@given(st.data())
def test_max_pool_partial_shapes_match_openvino(data):
    version = data.draw(st.sampled_from([1, 8, 14]))
    rounding = ("floor", "ceil", "ceil_torch") if version == 14 else ("floor", "ceil")
    shape, attributes = data.draw(pool_config(dilations=version != 1, rounding=rounding))
    op_class = {1: MaxPool, 8: MaxPool8, 14: MaxPool14}[version]
    data_shape = data.draw(partial_data_shape(len(shape) - 2))
    check_types(op_class(**irgraph_attributes(attributes)), [tt(data_shape)], builder(version, attributes))


# ------------------------------------------------------------------------------------ refusals
PLAIN = {"strides": (1,), "pads_begin": (0,), "pads_end": (0,), "kernel": (2,), "dilations": (1,)}


@pytest.mark.parametrize(
    ("changes", "data", "message"),
    [({"strides": (0,)}, "1,1,5", "Strides has zero dimension(s). Strides (0)"),
     ({"dilations": (0,)}, "1,1,5", "Kernel dilations has zero dimension(s)"),
     ({"kernel": (0,)}, "1,1,5", "Kernel after dilation has dimension less than 1 (dim: 0) at axis 0."),
     ({"kernel": (6,)}, "1,1,5", "Kernel after dilation has size (dim: 6) larger than the data shape after padding "
                                 "(dim: 5) at axis 0."),
     ({"strides": (1, 1)}, "1,1,5", "Expected strides size to be equal to input size - 2. Got: 2"),
     ({"pads_end": (0, 0)}, "1,1,5", "Expected pads_end size to be equal to input size - 2. Got: 2"),
     ({"dilations": (1, 1)}, "1,1,5", "Expected dilations size to be equal to kernel size. Got: 2"),
     ({}, "1,5", "Expected a 3D, 4D or 5D tensor for the input. Got: [1,5]"),
     ({}, "0,1,5", "Batch size is zero."),
     ({}, "1,0,5", "Channel count is zero."),
     ({"axis": 3}, "1,1,5", "Axis 3 out of the tensor rank range [-3, 2]."),
     ],
)
def test_refused_configurations_name_the_rule(changes, data, message):
    with pytest.raises(OpError) as refused:
        infer(MaxPool8(**{**PLAIN, **changes}), [tt(data)], [None])
    assert message in str(refused.value)


def test_negative_pads_are_refused():
    """OpenVINO keeps pads as size_t (its Python API refuses -1); irgraph names the rule instead of wrapping."""
    with pytest.raises(OpError, match=r"^Pads must not be negative \(OpenVINO reads them as unsigned\)\. "
                                      r"Got: pads_begin \[0\], pads_end \[-1\]$"):
        MaxPool8(**{**PLAIN, "pads_end": (-1,)})


def test_ceil_torch_needs_opset14():
    with pytest.raises(OpError, match="Rounding CEIL_TORCH is not supported."):
        MaxPool8(**PLAIN, rounding_type="ceil_torch")
    with pytest.raises(OpError, match="Index element type must be i32 or i64"):
        MaxPool14(**PLAIN, index_element_type=ElementType.F32)


def test_a_billion_tap_kernel_with_billion_strides_and_pads_runs_its_few_live_taps():
    big = 10**9
    op = MaxPool8(strides=(big,), pads_begin=(big,), pads_end=(big,), kernel=(big,), dilations=(1,))
    values, indices = op.evaluate([np.arange(5, dtype=np.float32).reshape(1, 1, 5)])
    assert values.ravel().tolist() == [np.finfo(np.float32).min, 4.0] and indices.ravel().tolist() == [0, 4]


def test_a_dilated_huge_kernel_finds_the_taps_of_each_window():
    """100 taps 2 apart, 10 of padding before 5 values and stride 1000 (two windows, the second wholly in the end
    padding): more taps than the windows can meet, so each window's own taps are listed. The first window's live
    taps are 5, 6, 7 (positions 0, 2, 4: max 4 at index 4); the second's none. openvino 2026.4.1 agrees."""
    a = {"strides": [1000], "dilations": [2], "pads_begin": [10], "pads_end": [1184], "kernel": [100],
         "rounding_type": "floor", "auto_pad": "explicit"}
    op = MaxPool8(**irgraph_attributes(a))
    data = np.arange(5, dtype=np.float32).reshape(1, 1, 5)
    values, indices = op.evaluate([data])
    assert values.ravel().tolist() == [4.0, np.finfo(np.float32).min] and indices.ravel().tolist() == [4, 0]
    check_op(op, [data], builder(8, a))


def test_an_empty_dilations_attribute_means_ones():
    """The attribute defaults to empty, which window_dilations reads as ones: the same pooling as (1, 1)."""
    data = np.array([[1, 5, 2, 0], [3, 4, 9, 1], [0, 0, 1, 1], [7, 0, 1, 1]], np.float32).reshape(1, 1, 4, 4)
    bare = MaxPool8(strides=(2, 2), pads_begin=(0, 0), pads_end=(0, 0), kernel=(2, 2))
    ones = MaxPool8(strides=(2, 2), pads_begin=(0, 0), pads_end=(0, 0), kernel=(2, 2), dilations=(1, 1))
    assert bare.window_dilations == (1, 1)
    assert [x.tolist() for x in bare.evaluate([data])] == [x.tolist() for x in ones.evaluate([data])]


def test_ceil_torch_drops_a_window_starting_past_a_one_element_axis_as_openvino_does():
    """One element, no begin padding, stride 2 and one end pad: the second window would start at 2, past the data,
    so ceil_torch keeps one (openvino 2026.4.1's MaxPool-14 infers [1,1,1]; five elements keep three)."""
    op = MaxPool14(strides=(2,), dilations=(1,), pads_begin=(0,), pads_end=(1,), kernel=(1,),
                   rounding_type="ceil_torch")
    for size, expected in ((1, [1, 1, 1]), (5, [1, 1, 3])):
        node = ov_ops.max_pool(ov_ops.parameter([1, 1, size]), [2], [1], [0], [1], [1], "ceil_torch")
        assert list(node.get_output_partial_shape(0).to_shape()) == expected
        assert infer(op, [tt(f"1,1,{size}")], [None]) == [str(expected).replace(" ", "")] * 2
    values, indices = op.evaluate([np.array([[[7.0]]], np.float32)])
    assert (values.tolist(), indices.tolist()) == ([[[7.0]]], [[[0]]])


def test_same_padding_leaves_a_dynamic_axis_unpadded():
    """auto_pad same_* pads the static axes by the kernel; a dynamic one gets no padding until its size is known."""
    op = MaxPool14(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), kernel=(3, 3),
                   auto_pad="same_upper")
    assert op.pads_for((Dim.dynamic(), Dim.static(5))) == ([0, 1], [0, 1])
    assert op.pads_for((Dim.static(5), Dim.dynamic())) == ([1, 0], [1, 0])


@pytest.mark.parametrize(("width", "end_to_end"), [(13, True), (30, False)])
def test_short_rows_are_pooled_laid_end_to_end(monkeypatch, width, end_to_end):
    """The last axis of a unit stride runs over the rows laid end to end when a padded row is at most SHORT_ROW
    (24) long (a 13x13 map with a 3x3 kernel: 15), row by row beyond; the same values either way."""
    from irgraph.ops.families import pooling as family

    calls: list[int] = []
    original = family._last_axis_unit_stride

    def spy(reduced, *arguments):
        calls.append(reduced.shape[-1])
        return original(reduced, *arguments)

    monkeypatch.setattr(family, "_last_axis_unit_stride", spy)
    data = np.arange(2 * width * width, dtype=np.float32).reshape(1, 2, width, width) % 17
    op = MaxPool(strides=(1, 1), pads_begin=(1, 1), pads_end=(1, 1), kernel=(3, 3))  # no indices: separable
    (values,) = op.evaluate([data])
    padded = np.pad(data, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    expected = np.max([padded[:, :, r:r + width, c:c + width] for r in range(3) for c in range(3)], axis=0)
    np.testing.assert_array_equal(values, expected)
    assert calls == ([width] if end_to_end else [])
