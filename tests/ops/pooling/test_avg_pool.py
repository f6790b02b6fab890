"""AvgPool-1 and -14: named cases, OpenVINO's CPU plugin through the harness, partial shapes, refusals.

openvino 2026.4.1 does not fold AvgPool (the CPU plugin is the oracle) and its CPU plugin crashes
(SIGSEGV) compiling any AvgPool-14: AvgPool-14 is checked for types against the node and for values
against the CPU plugin's AvgPool-1 with the same windows (``ceil_torch`` output is a prefix of the
``ceil`` output).
"""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ov1
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.pooling.avg_pool import AvgPool, AvgPool14
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, assert_values_close, check_op, check_types, ov_cpu, ov_ops
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
    module = ov1 if version == 1 else ov_ops
    return lambda x: module.avg_pool(x, a["strides"], a["pads_begin"], a["pads_end"], a["kernel"], exclude_pad,
                                     rounding or a["rounding_type"], a["auto_pad"])


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


@pytest.mark.values_judged_by_the_test  # compares with the CPU plugin itself (ov_cpu)
@OP_EXAMPLES
@given(st.data())
def test_avg_pool_14_matches_openvino(data):
    shape, attributes = data.draw(pool_config(dilations=False, rounding=("floor", "ceil", "ceil_torch")))
    exclude_pad = data.draw(st.booleans())
    x = S.values(ElementType.F32, shape, data.draw(S.seeds), specials=False)
    op = AvgPool14(**irgraph_attributes(attributes), exclude_pad=exclude_pad)
    assume(windows_hold_data(op, x))
    outcome = check_op(op, [x], builder(14, attributes, exclude_pad), cpu=False)
    if outcome.refused:
        return
    (mine,) = op.evaluate([x])
    rounding = "ceil" if attributes["rounding_type"] == "ceil_torch" else attributes["rounding_type"]
    (theirs,) = ov_cpu(builder(1, attributes, exclude_pad, rounding), [x], ())
    prefix = theirs[tuple(slice(0, n) for n in mine.shape)]
    magnitude = op.evaluate([np.abs(x.astype(np.float64))])[0]
    assert_values_close(mine, np.ascontiguousarray(prefix), op.tolerance, f"{op!r} vs CPU AvgPool-1", magnitude)


@OP_EXAMPLES
@given(st.data())
def test_avg_pool_partial_shapes_match_openvino(data):
    version = data.draw(st.sampled_from([1, 14]))
    rounding = ("floor", "ceil", "ceil_torch") if version == 14 else ("floor", "ceil")
    shape, attributes = data.draw(pool_config(dilations=False, rounding=rounding))
    op_class = AvgPool if version == 1 else AvgPool14
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
