"""The reduction family (ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
ReduceLogicalAnd, ReduceLogicalOr) against OpenVINO 2026.4.1, plus named cases of its reference's corners."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import IrError, OpError
from irgraph.graph import Model
from irgraph.ops.reduction.reduce_l1 import ReduceL1
from irgraph.ops.reduction.reduce_l2 import ReduceL2
from irgraph.ops.reduction.reduce_logical_and import ReduceLogicalAnd
from irgraph.ops.reduction.reduce_logical_or import ReduceLogicalOr
from irgraph.ops.reduction.reduce_max import ReduceMax
from irgraph.ops.reduction.reduce_mean import ReduceMean
from irgraph.ops.reduction.reduce_min import ReduceMin
from irgraph.ops.reduction.reduce_prod import ReduceProd
from irgraph.ops.reduction.reduce_sum import ReduceSum
from irgraph.ops.registry import lookup
from irgraph.runtime.interpreter import Interpreter
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops
from tests.ops.helpers import infer, tt

ARITHMETIC = {
    ReduceSum: ov_ops.reduce_sum, ReduceMean: ov_ops.reduce_mean, ReduceMax: ov_ops.reduce_max,
    ReduceMin: ov_ops.reduce_min, ReduceProd: ov_ops.reduce_prod, ReduceL1: ov_ops.reduce_l1,
    ReduceL2: ov_ops.reduce_l2,
}
LOGICAL = {ReduceLogicalAnd: ov_ops.reduce_logical_and, ReduceLogicalOr: ov_ops.reduce_logical_or}
ALL = {**ARITHMETIC, **LOGICAL}


def run(op, data, axes):
    """irgraph's value of ``op`` on ``data`` with constant ``axes``."""
    return op.evaluate([np.asarray(data), np.asarray(axes, dtype=np.int64)])[0]


@st.composite
def axes_for(draw, rank: int) -> list[int]:
    """Axes for a rank: a subset in any order, some negative, now and then a duplicate or one out of range."""
    span = max(rank, 1)
    chosen = draw(st.lists(st.integers(0, span - 1), max_size=span, unique=True)) if rank else \
        draw(st.lists(st.just(0), max_size=1))
    axes = [a - span if draw(st.booleans()) else a for a in chosen]
    if axes and draw(st.integers(0, 5)) == 0:
        axes.append(axes[0])
    if draw(st.integers(0, 9)) == 0:
        axes.append(draw(st.sampled_from([span, -span - 1])))
    return axes


def _differential(data, op_class, build, element_types, **value_bounds):
    element_type = data.draw(st.sampled_from(element_types))
    shape = data.draw(S.shapes(max_rank=4, max_side=4))
    axes = np.array(data.draw(axes_for(len(shape))), dtype=data.draw(st.sampled_from([np.int64, np.int32])))
    keep_dims = data.draw(st.booleans())
    values = S.values(element_type, shape, data.draw(S.seeds), **value_bounds)
    check_op(op_class(keep_dims=keep_dims), [values, axes], lambda x, a: build(x, a, keep_dims), constant=[1])


FLOAT_TYPES = [t for t in S.NUMERIC if t.is_real]
FOLDED_INTEGERS = [t for t in S.INTEGERS if t.ir_name in ("i32", "i64", "u32", "u64")]
"""openvino 2026.4.1 folds reductions of f16, bf16, f32 and these integers (not f64, i8, u8, i16, u16)."""


@pytest.mark.parametrize("op_class", list(ARITHMETIC), ids=lambda c: c.type_name)
@OP_EXAMPLES
@given(data=st.data())
def test_arithmetic_reduction_matches_openvino(op_class, data):
    # openvino 2026.4.1 folds no integer ReduceL2 (its CPU plugin squares in f32; the reference template
    # squares in the integer type): irgraph follows the template, untested against OpenVINO.
    integers = FOLDED_INTEGERS if op_class is not ReduceL2 else []
    _differential(data, op_class, ARITHMETIC[op_class], FLOAT_TYPES + integers)


@pytest.mark.parametrize("op_class", list(LOGICAL), ids=lambda c: c.type_name)
@OP_EXAMPLES
@given(data=st.data())
def test_logical_reduction_matches_openvino(op_class, data):
    _differential(data, op_class, LOGICAL[op_class], [S.ALL[0]])


@pytest.mark.parametrize("op_class", list(ALL), ids=lambda c: c.type_name)
@pytest.mark.parametrize(
    ("data", "axes", "axes_type"),
    [("2,?,3", None, "2"), ("2,?,3", None, "1"), ("2,?,3", None, ""), ("2,?,3", None, "?"), ("...", None, "1"),
     ("1..5,2..,4", [1], "1"), ("1..5,2..,4", [1, -2], "2"), ("...", [0], "1"), ("", [0], "1"), ("", [-1], "1"),
     ("2,3", [2], "1"), ("2,3", [0], "1,1")],
)
def test_partial_shapes_match_openvino(op_class, data, axes, axes_type):
    element_type = "boolean" if op_class in LOGICAL else "f32"
    values = [None, None if axes is None else np.array(axes, np.int64).reshape(tt(axes_type).shape.to_tuple())]
    check_types(op_class(keep_dims=False), [tt(data, element_type), tt(axes_type, "i64")], ALL[op_class], values)
    build = ALL[op_class]
    check_types(op_class(keep_dims=True), [tt(data, element_type), tt(axes_type, "i64")],
                lambda x, a: build(x, a, True), values)


@pytest.mark.parametrize(
    ("op", "data", "axes", "expected"),
    [
        # Spec examples (ReduceSum-1 .. ReduceL2-4): [6, 12, 10, 24] reduced over [2, 3].
        (ReduceSum(keep_dims=True), np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2), [2, 3],
         [[[[6.0]], [[22.0]], [[38.0]]], [[[54.0]], [[70.0]], [[86.0]]]]),
        (ReduceMean(), np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2), [-1, -2],
         [[1.5, 5.5, 9.5], [13.5, 17.5, 21.5]]),
        # Integers wrap and ReduceMean truncates toward zero (openvino 2026.4.1 folds these).
        (ReduceSum(), np.array([2**31 - 1, 1], np.int32), [0], -(2**31)),
        (ReduceMean(), np.array([[1, 2], [-3, -4], [2**31 - 1, 2**31 - 1]], np.int32), [1], [1, -3, -1]),
        (ReduceMean(), np.array([[2**32 - 1, 2**32 - 1]], np.uint32), [1], [2**31 - 1]),
        (ReduceL1(), np.array([-(2**31), 1], np.int32), [0], -(2**31) + 1),
        # Empty groups: the start values of OpenVINO's loops (ReduceMean gives 0, not NaN).
        (ReduceMax(), np.zeros((2, 0), np.float32), [1], [np.finfo(np.float32).min] * 2),
        (ReduceMax(), np.zeros((2, 0), np.float16), [1], [-np.inf] * 2),
        (ReduceMin(), np.zeros((2, 0), np.float32), [1], [np.inf] * 2),
        (ReduceMax(), np.zeros((2, 0), np.int32), [1], [-(2**31)] * 2),
        (ReduceMin(), np.zeros((2, 0), np.uint8), [1], [255] * 2),
        (ReduceMean(), np.zeros((2, 0), np.float32), [1], [0.0] * 2),
        (ReduceMean(), np.zeros((0, 3), np.int32), [0], [0] * 3),
        (ReduceProd(), np.zeros((2, 0), np.float32), [1], [1.0] * 2),
        (ReduceLogicalAnd(), np.zeros((2, 0), bool), [1], [True] * 2),
        (ReduceLogicalOr(), np.zeros((2, 0), bool), [1], [False] * 2),
        # NaNs never win std::max/std::min; an all-NaN group keeps the start value.
        (ReduceMax(), np.array([[np.nan, 1, 2], [np.nan, np.nan, np.nan]], np.float32), [1],
         [2.0, np.finfo(np.float32).min]),
        (ReduceMin(), np.array([1, 2, np.nan], np.float32), [0], 1.0),
        # Of equal zeros the first wins; a sum never ends at -0.
        (ReduceMax(), np.array([[-0.0, 0.0], [0.0, -0.0]], np.float32), [1], [-0.0, 0.0]),
        (ReduceSum(), np.array([-0.0, -0.0], np.float32), [0], 0.0),
        # Empty axes reduce nothing, but every value goes through the loop once.
        (ReduceL1(), np.array([-1.5, 2.0], np.float32), [], [1.5, 2.0]),
        (ReduceMax(), np.array([np.nan, -1.0], np.float32), [], [np.finfo(np.float32).min, -1.0]),
        (ReduceSum(), np.array([-0.0, 1.0], np.float32), [], [0.0, 1.0]),
        # Duplicate axes count once (openvino 2026.4.1 accepts [1, 1] and [1, -1]).
        (ReduceSum(), np.array([[-1.5, 2, -3], [4, -5, 6]], np.float32), [1, -1], [-2.5, 5.0]),
        # A scalar takes axis 0 or -1.
        (ReduceSum(), np.array(3.0, np.float32), [-1], 3.0),
        # The running f32 total overflows and stays infinite (Kahan's loop adds plainly from then on).
        (ReduceSum(), np.array([3e38, 3e38, -3e38], np.float32), [0], np.inf),
        (ReduceSum(), np.array([3e38, 3e38, -3e38, -np.inf], np.float32), [0], np.nan),
        # The f32 overflow threshold is exact: a total at the largest float stays finite; one of 2^128 - 2^103
        # (halfway to 2^128, rounding to even gives inf) overflows, and a later term does not bring it back.
        (ReduceSum(), np.array([np.finfo(np.float32).max, 0], np.float32), [0], np.finfo(np.float32).max),
        (ReduceSum(), np.array([2.0**127, 2.0**127 - 2.0**103, -(2.0**127)], np.float32), [0], np.inf),
        (ReduceSum(), np.array([60000, 60000, -60000], np.float16), [0], 60000.0),  # f16 sums in f32
        (ReduceL2(), np.array([1e20], np.float32), [0], np.inf),  # x * x overflows in f32
        (ReduceL2(), np.array([300.0], np.float16), [0], 300.0),  # ... not in f16 (computed in f32)
        (ReduceProd(), np.array([1e30, 1e30, 1e-30], np.float32), [0], np.inf),  # sequential
        (ReduceL1(), np.array([2048, 1, 1, 1, 1], np.float16), [0], 2052.0),
        (ReduceMean(), np.array([1e8, 1, 1, 1, 1, 1, 1], np.float32), [0], np.float32(1.4285715e7)),
    ],
    ids=lambda v: None if isinstance(v, np.ndarray | list | float | int) else repr(v),
)
def test_named_cases(op, data, axes, expected):
    result = run(op, data, axes)
    expected = np.asarray(expected, dtype=data.dtype)
    assert result.dtype == data.dtype
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)
    if result.dtype.kind == "f":  # -0.0 and 0.0 apart
        assert np.array_equal(np.signbit(result) & ~np.isnan(result), np.signbit(expected) & ~np.isnan(expected))


def test_bf16_reduces_in_f32():
    data = np.array([256, 1, 1, 1, 1], ml_dtypes.bfloat16)
    assert float(run(ReduceSum(), data, [0])) == 260.0
    assert float(run(ReduceMax(), np.zeros(0, ml_dtypes.bfloat16), [0])) == -np.inf


def test_bf16_results_round_as_openvino_rounds():
    """The f32 total 1 + 3 * 2^-9 rounds to bf16 by ``ov::bfloat16::round_to_nearest_even``, which truncates
    when the kept last bit is 0: 1.0 in OpenVINO 2026.4.1's folding, where IEEE round-to-nearest gives 1.0078125."""
    data = np.array([1, 2.0**-8, 2.0**-9], ml_dtypes.bfloat16)
    assert float(run(ReduceSum(), data, [0])) == 1.0


@pytest.mark.parametrize(
    ("op", "inputs", "values", "message"),
    [
        (ReduceSum(), [tt("2", "boolean"), tt("1", "i64")], [None, [0]],
         "Element type of data input must be numeric. Got: boolean"),
        (ReduceLogicalAnd(), [tt("2"), tt("1", "i64")], [None, [0]], "Element type of data input must be boolean."),
        (ReduceSum(), [tt("2,3"), tt("1")], [None, None], "Element type of axes input must be integer. Got: f32"),
        (ReduceSum(), [tt("2,3"), tt("1,1", "i64")], [None, None],
         "Axes input must be a scalar or 1D input. Got: [1,1]"),
        (ReduceSum(), [tt("2,3"), tt("1", "i64")], [None, [5]], "Axis 5 out of the tensor rank range [-2, 1]."),
        (ReduceSum(), [tt("2,3"), tt("1", "i64")], [None, [-3]], "Axis -3 out of the tensor rank range [-2, 1]."),
        (ReduceSum(keep_dims=True), [tt(""), tt("1", "i64")], [None, [0]], "keep_dims needs data of rank >= 1"),
    ],
)
def test_refused(op, inputs, values, message):
    with pytest.raises(OpError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        infer(op, inputs, values)


def test_refused_at_run_time_with_the_same_message():
    with pytest.raises(OpError, match=r"Axis 2 out of the tensor rank range \[-2, 1\]\."):
        run(ReduceMax(), np.zeros((2, 3), np.float32), [2])


def test_an_empty_axis_cannot_make_a_huge_output():
    """[100000, 100000, 0] has no elements, yet reducing its last axis makes 10^10: refused before allocating."""
    model = Model("huge")
    data = model.parameter("data", [100000, 100000, 0], "f32")
    axes = model.const(np.array([2], np.int64), "i64")
    node = model.add_node(ReduceMax(), "max", [data, axes])
    model.result(type(data)(node.id, 0), name="out")
    with pytest.raises(IrError, match="above the limit"):
        Interpreter(model).run({"data": np.zeros((100000, 100000, 0), np.float32)})


def test_dynamic_axes_give_rank_only_shapes():
    assert infer(ReduceSum(), [tt("2,?,3"), tt("1", "i64")], [None, None]) == ["[?,?]"]
    assert infer(ReduceSum(keep_dims=True), [tt("2,?,3"), tt("2", "i64")], [None, None]) == ["[?,?,?]"]


def test_versions():
    assert lookup("ReduceL2", "opset3") is None
    assert lookup("ReduceL2", "opset4") is ReduceL2
    assert lookup("ReduceSum", "opset16") is ReduceSum
    assert lookup("ReduceLogicalOr", "opset1") is ReduceLogicalOr


def test_keep_dims_reads_from_the_ir():
    assert ReduceMean.from_attributes({"keep_dims": "true"}) == ReduceMean(keep_dims=True)
    assert ReduceMean.from_attributes({}).to_attributes() == {"keep_dims": "false"}
