"""AvgPool-1, -14 and -16: named cases, OpenVINO's CPU plugin through the harness, partial shapes, refusals.

openvino 2026.4.1 does not fold AvgPool, nor evaluate it (the CPU plugin is the oracle), and its CPU
plugin crashes (SIGSEGV) compiling an AvgPool-16 whose ``dilations`` is empty, which is what
``openvino.opset16.avg_pool`` builds without dilations and what OpenVINO writes for it (``dilations=""``):
AvgPool-16 goes to the plugin with explicit dilations, AvgPool-14 through ``openvino.opset14``.
AvgPool-16's dilations are also judged by ONNX's own node tests, converted by OpenVINO's ONNX frontend.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as ov1
import openvino.opset14 as ov14
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.pooling.avg_pool import AvgPool, AvgPool14, AvgPool16
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops
from tests.ops.helpers import infer, tt
from tests.ops.pooling.pool_cases import irgraph_attributes, partial_data_shape, pool_config

TYPES = (ElementType.F32, ElementType.F16, ElementType.BF16, ElementType.F64)


def windows_hold_data(op: AvgPool, x: np.ndarray) -> bool:
    """False when some window holds no data element: the 2026.4.1 CPU plugin gives NaN or -0.0 there
    (depending on the stride), irgraph 0 as OpenVINO's reference kernel does."""
    try:
        return bool(op.geometry(x).window_counts(include_padding=False).min(initial=1) > 0)
    except OpError:
        return True  # refused: the harness checks that both refuse


def builder(version: int, a: dict, exclude_pad: bool, rounding: str | None = None):
    module = {1: ov1, 14: ov14, 16: ov_ops}[version]
    dilations = {"dilations": a.get("dilations") or [1] * len(a["kernel"])} if version == 16 else {}
    return lambda x: module.avg_pool(x, a["strides"], a["pads_begin"], a["pads_end"], a["kernel"], exclude_pad,
                                     rounding or a["rounding_type"], a["auto_pad"], **dilations)


def test_exclude_pad_divides_by_the_taps_inside_the_data():
    data = np.array([2, 4, 6], np.float32).reshape(1, 1, 3)
    kwargs = {"strides": (2,), "pads_begin": (1,), "pads_end": (1,), "kernel": (2,)}
    (excluded,) = AvgPool(**kwargs, exclude_pad=True).evaluate([data])
    (included,) = AvgPool(**kwargs, exclude_pad=False).evaluate([data])
    assert excluded.ravel().tolist() == [2, 5] and included.ravel().tolist() == [1, 5]


def test_a_window_past_unpadded_data_gives_zero():
    data = np.array([3, 5], np.float32).reshape(1, 1, 2)
    (mean,) = AvgPool(strides=(2,), pads_begin=(0,), pads_end=(0,), kernel=(1,), rounding_type="ceil").evaluate([data])
    assert mean.ravel().tolist() == [3, 0]


def test_f16_sums_in_f32():
    data = np.array([2048, 1, 1, 0], np.float16).reshape(1, 1, 4)
    (mean,) = AvgPool(strides=(4,), pads_begin=(0,), pads_end=(0,), kernel=(4,)).evaluate([data])
    assert mean.item() == np.float16(2050 / 4)


@OP_EXAMPLES
@given(st.data())
def test_avg_pool_1_matches_openvino(data):
    shape, attributes = data.draw(pool_config(dilations=False, rounding=("floor", "ceil")))
    element_type = data.draw(st.sampled_from(TYPES))
    exclude_pad = data.draw(st.booleans())
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False)
    op = AvgPool(**irgraph_attributes(attributes), exclude_pad=exclude_pad)
    assume(windows_hold_data(op, x))
    check_op(op, [x], builder(1, attributes, exclude_pad))


@OP_EXAMPLES
@given(st.data())
def test_avg_pool_14_matches_openvino(data):
    # check_op's oracle is the formulation (the plugin has no AvgPool-14); the plugin's AvgPool-1 with ceil rounding
    # computes the windows ceil_torch keeps: its prefix is compared too
    shape, attributes = data.draw(pool_config(dilations=False, rounding=("floor", "ceil", "ceil_torch")))
    exclude_pad = data.draw(st.booleans())
    x = S.values(ElementType.F32, shape, data.draw(S.seeds), specials=False)
    op = AvgPool14(**irgraph_attributes(attributes), exclude_pad=exclude_pad)
    assume(windows_hold_data(op, x))
    check_op(op, [x], builder(14, attributes, exclude_pad))


@OP_EXAMPLES
@given(st.data())
def test_avg_pool_16_matches_openvino(data):
    shape, attributes = data.draw(pool_config(dilations=True, rounding=("floor", "ceil", "ceil_torch")))
    exclude_pad = data.draw(st.booleans())
    x = S.values(ElementType.F32, shape, data.draw(S.seeds), specials=False)
    op = AvgPool16(**irgraph_attributes(attributes), exclude_pad=exclude_pad)
    assume(windows_hold_data(op, x))
    check_op(op, [x], builder(16, attributes, exclude_pad))


ONNX_GRID = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)


def test_avg_pool_16_dilations_read_every_other_element():
    """onnx 1.23.2's test_averagepool_2d_dilations (kernel 2x2, dilations 2x2, ceil_mode=1, which OpenVINO's ONNX
    frontend writes as ceil_torch): [1,1,2,2], not the [1,1,3,3] of an undilated window."""
    op = AvgPool16(strides=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), kernel=(2, 2), dilations=(2, 2),
                   rounding_type="ceil_torch", exclude_pad=True)
    assert infer(op, [tt("1,1,4,4")], [None]) == ["[1,1,2,2]"]
    assert op.evaluate([ONNX_GRID])[0].tolist() == [[[[6, 7], [10, 11]]]]


def test_avg_pool_16_counting_the_padding_divides_by_the_kernel_taps():
    """Padding 1 around the 4x4 grid, a 2x2 kernel dilated by 2 (a 3x3 span): corner windows hold one data
    element. Excluding the padding divides by the taps in the data; counting it, by the 4 kernel taps (not the 9
    the dilated span covers), as openvino 2026.4.1's CPU plugin does."""
    kwargs = {"strides": (1, 1), "pads_begin": (1, 1), "pads_end": (1, 1), "kernel": (2, 2), "dilations": (2, 2)}
    data = ONNX_GRID - 1
    (excluded,) = AvgPool16(**kwargs, exclude_pad=True).evaluate([data])
    (included,) = AvgPool16(**kwargs, exclude_pad=False).evaluate([data])
    assert excluded.tolist() == [[[[5, 5, 6, 6], [5, 5, 6, 6], [9, 9, 10, 10], [9, 9, 10, 10]]]]
    assert included.tolist() == [[[[1.25, 2.5, 3, 1.5], [2.5, 5, 6, 3], [4.5, 9, 10, 5], [2.25, 4.5, 5, 2.5]]]]


def test_avg_pool_16_without_dilations_is_avg_pool_14_and_writes_them_empty_as_openvino_does():
    kwargs = {"strides": (2, 1), "pads_begin": (1, 0), "pads_end": (0, 1), "kernel": (2, 3), "exclude_pad": True,
              "rounding_type": "ceil_torch"}
    op = AvgPool16(**kwargs)
    assert op.evaluate([ONNX_GRID])[0].tolist() == AvgPool14(**kwargs).evaluate([ONNX_GRID])[0].tolist()
    node = ov_ops.avg_pool(ov_ops.parameter([1, 1, 4, 4]), [2, 1], [1, 0], [0, 1], [2, 3], True, "ceil_torch")
    assert node.get_attributes()["dilations"] == [] and op.to_attributes()["dilations"] == ""
    assert (op.title(), op.version) == ("AvgPool-16", "opset16")


ONNX_DILATION_CASES = (
    "test_averagepool_2d_dilations", "test_averagepool_3d_dilations_small",
    "test_averagepool_3d_dilations_large_count_include_pad_is_0_ceil_mode_is_False",
    "test_averagepool_3d_dilations_large_count_include_pad_is_0_ceil_mode_is_True",
    "test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_False",
    "test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True", "test_lppool_2d_dilations",
)


@pytest.mark.parametrize("name", ONNX_DILATION_CASES)
def test_onnx_dilated_pooling_cases_through_openvinos_frontend(name, tmp_path):
    """onnx 1.23.2's node tests of dilated AveragePool and LpPool, converted by openvino 2026.4.1's ONNX frontend
    (AvgPool-16 with dilations): irgraph gives ONNX's expected outputs, as OpenVINO's CPU plugin does (the sums of
    the 32^3 random cases within f32 rounding of ONNX's NumPy sums)."""
    import onnx.backend.test.case.node.averagepool
    import onnx.backend.test.case.node.lppool  # noqa: F401 - importing runs their expect() calls
    from onnx.backend.test.case.node import _NodeTestCases

    import irgraph as ir

    case = next(c for c in _NodeTestCases if c.name == name)
    converted = ov.Core().read_model(case.model.SerializeToString(), ov.Tensor(np.zeros(0, np.uint8)))
    ov.save_model(converted, tmp_path / "model.xml", compress_to_fp16=False)
    model = ir.read_model(tmp_path / "model.xml")
    assert {node.op.title() for node in model.nodes if node.op.type_name == "AvgPool"} == {"AvgPool-16"}
    (inputs, (expected,)) = case.data_sets[0]
    feeds = dict(zip((i.name for i in case.model.graph.input), inputs, strict=True))
    (mine,) = ir.run(model, feeds).values()
    assert mine.shape == expected.shape
    if expected.size <= 8:
        assert mine.tolist() == expected.tolist()
    else:
        np.testing.assert_allclose(mine, expected, rtol=1e-5, atol=1e-6)


@OP_EXAMPLES
@given(st.data())
def test_avg_pool_partial_shapes_match_openvino(data):
    version = data.draw(st.sampled_from([1, 14, 16]))
    rounding = ("floor", "ceil", "ceil_torch") if version > 1 else ("floor", "ceil")
    shape, attributes = data.draw(pool_config(dilations=version == 16, rounding=rounding))
    op_class = {1: AvgPool, 14: AvgPool14, 16: AvgPool16}[version]
    data_shape = data.draw(partial_data_shape(len(shape) - 2))
    check_types(op_class(**irgraph_attributes(attributes)), [tt(data_shape)], builder(version, attributes, False))


def test_a_window_wholly_in_the_padding_is_refused_with_exclude_pad():
    op = AvgPool(strides=(1,), pads_begin=(0,), pads_end=(2,), kernel=(2,), exclude_pad=True)
    assert infer(AvgPool(strides=(1,), pads_begin=(0,), pads_end=(2,), kernel=(2,)), [tt("1,1,5")], [None]) == [
        "[1,1,6]"]  # counting the padding, such a window has a mean (0)
    with pytest.raises(OpError, match=r"Kernel after dilation is sometimes entirely in the padding area for axis 0 "
                                      r"\(dilated kernel dimension: 2, padding below dimension: 0, padding above "
                                      r"dimension: 2\) and this is not allowed."):
        infer(op, [tt("1,1,5")], [None])


def test_a_window_exactly_as_wide_as_the_begin_padding_is_refused_with_exclude_pad():
    """Kernel 2 after 2 padding elements: the first window is all padding. openvino 2026.4.1 refuses it too, with
    this message."""
    op = AvgPool(strides=(1,), pads_begin=(2,), pads_end=(0,), kernel=(2,), exclude_pad=True)
    with pytest.raises(OpError, match=r"Kernel after dilation is sometimes entirely in the padding area for axis 0 "
                                      r"\(dilated kernel dimension: 2, padding below dimension: 2, padding above "
                                      r"dimension: 0\) and this is not allowed."):
        infer(op, [tt("1,1,5")], [None])


def test_strings_are_refused():
    op = AvgPool(strides=(1,), pads_begin=(0,), pads_end=(0,), kernel=(2,))
    with pytest.raises(OpError, match="^AvgPool cannot take strings$"):
        infer(op, [tt("1,1,5", "string")], [None])


def test_integer_means_round_to_nearest_even():
    """Means 1.5 and 4.5 round to 2 and 4, as openvino 2026.4.1's CPU plugin gives for i32 (exact in any ISA)."""
    op = AvgPool(strides=(2,), pads_begin=(0,), pads_end=(0,), kernel=(2,), exclude_pad=True)
    (mean,) = op.evaluate([np.array([[[1, 2, 3, 6]]], np.int32)])
    assert mean.dtype == np.int32 and mean.ravel().tolist() == [2, 4]


def test_boolean_means_are_true_where_the_window_holds_a_true():
    op = AvgPool(strides=(2,), pads_begin=(0,), pads_end=(0,), kernel=(2,))
    (mean,) = op.evaluate([np.array([[[True, True, False, False]]])])
    assert mean.dtype == np.bool_ and mean.ravel().tolist() == [True, False]
