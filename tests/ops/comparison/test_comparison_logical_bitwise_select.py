"""Comparisons, logical and bitwise ops and Select against OpenVINO: exact, every mode and element type."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.core.shapes import Shape
from irgraph.ops.bitwise.bitwise_and import BitwiseAnd
from irgraph.ops.bitwise.bitwise_not import BitwiseNot
from irgraph.ops.bitwise.bitwise_or import BitwiseOr
from irgraph.ops.bitwise.bitwise_xor import BitwiseXor
from irgraph.ops.comparison.equal import Equal
from irgraph.ops.comparison.greater import Greater
from irgraph.ops.comparison.greater_equal import GreaterEqual
from irgraph.ops.comparison.less import Less
from irgraph.ops.comparison.less_equal import LessEqual
from irgraph.ops.comparison.not_equal import NotEqual
from irgraph.ops.condition.select import Select
from irgraph.ops.logical.logical_and import LogicalAnd
from irgraph.ops.logical.logical_not import LogicalNot
from irgraph.ops.logical.logical_or import LogicalOr
from irgraph.ops.logical.logical_xor import LogicalXor
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, ov_constant, ov_reference, same_op
from tests.ops.helpers import tt
from tests.ops.unary import check_unary

MODES = ["numpy", "pdpd", "none"]
BINARY = [
    (Equal, S.ALL), (NotEqual, S.ALL), (Less, S.ALL), (LessEqual, S.ALL), (Greater, S.ALL), (GreaterEqual, S.ALL),
    (LogicalAnd, S.ALL), (LogicalOr, S.ALL), (LogicalXor, S.ALL),
    (BitwiseAnd, S.ALL), (BitwiseOr, S.ALL), (BitwiseXor, S.ALL),
]


def pdpd_overruns(a, b):
    """OpenVINO 2026.4.1 accepts pdpd [1] op [0] but its reference then corrupts the heap; irgraph refuses."""
    return len(b) <= len(a) and any(x == 1 and y == 0 for x, y in zip(a, b, strict=False))


@pytest.mark.parametrize(("op_class", "types"), BINARY, ids=lambda v: getattr(v, "type_name", ""))
@OP_EXAMPLES
@given(data=st.data())
def test_binary_ops_match_openvino(op_class, types, data):
    # Not pdpd: openvino 2026.4.1's reference evaluates comparisons under pdpd wrongly (f32 [1,2,3,4] > 10
    # gives [False,True,True,True]) and its CPU plugin bitwise ops too; test_pdpd_follows_the_broadcast_rule
    # pins irgraph's pdpd, the rule its arithmetic ops (which OpenVINO evaluates right) share.
    mode = data.draw(st.sampled_from(["numpy", "none"]))
    element_type = data.draw(st.sampled_from(types))
    a_shape, b_shape = data.draw(S.any_pair(mode))
    assume(mode != "pdpd" or not pdpd_overruns(a_shape, b_shape))
    a = S.values(element_type, a_shape, data.draw(S.seeds))
    b = S.values(element_type, b_shape, data.draw(S.seeds)) if data.draw(st.booleans()) else \
        S.values(element_type, b_shape, data.draw(S.seeds), specials=False)
    op = op_class(auto_broadcast=mode)
    check_op(op, [a, b], same_op(op))


@pytest.mark.parametrize("op", [LogicalNot(), BitwiseNot()], ids=repr)
@OP_EXAMPLES
@given(data=st.data())
def test_unary_logical_and_bitwise_match_openvino(op, data):
    check_unary(op, data, types=S.ALL)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32])
def test_logical_not_of_numbers_keeps_their_type(dtype):
    """openvino 2026.4.1 folds LogicalNot of numbers to 1 where x == 0, else 0, in x's own type (not boolean):
    ``evaluate`` gives that array itself, before any interpreter cast."""
    x = np.array([0, 2, 1, 0], dtype)
    (got,) = LogicalNot().evaluate([x])
    (folded,) = ov_reference(same_op(LogicalNot())(ov_constant(x)))
    assert got.dtype == folded.dtype == dtype
    assert got.tolist() == folded.tolist() == [1, 0, 0, 1]


@OP_EXAMPLES
@given(data=st.data())
def test_select_matches_openvino(data):
    mode = data.draw(st.sampled_from(["numpy", "none"]))
    element_type = data.draw(st.sampled_from(S.ALL))
    then_shape, else_shape = data.draw(S.any_pair(mode))
    out = np.broadcast_shapes(then_shape, else_shape) if mode == "numpy" and _fits(then_shape, else_shape) \
        else then_shape
    cond_shape = data.draw(st.sampled_from([out, out[1:], (), (1,) * len(out)])) if mode == "numpy" else out
    if data.draw(st.integers(0, 5)) == 0:
        cond_shape = data.draw(S.shapes(max_rank=3))
    cond = S.values(S.ALL[0], cond_shape, data.draw(S.seeds))
    then = S.values(element_type, then_shape, data.draw(S.seeds))
    other = S.values(element_type, else_shape, data.draw(S.seeds))
    op = Select(auto_broadcast=mode)
    check_op(op, [cond, then, other], same_op(op))


def _fits(a, b):
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def test_pdpd_follows_the_broadcast_rule():
    a, b = np.array([[1, 2], [3, 40]], np.float32), np.array([2, 30], np.float32)
    (got,) = Greater(auto_broadcast="pdpd").evaluate([a, b])
    assert got.tolist() == [[False, False], [False, True]]  # b aligned from axis 0: rows compare to 2, then 30


def test_select_spec_example():
    """Select-1 spec example: cond [3,2] numpy-broadcast with then [3,2] and else [2]."""
    cond = np.array([[False, False], [True, False], [True, True]])
    then = np.array([[-1, 0], [1, 2], [3, 4]], np.int32)
    other = np.array([11, 10], np.int32)
    (got,) = Select().evaluate([cond, then, other])
    assert got.tolist() == [[11, 10], [1, 10], [3, 4]]
    (inferred,) = Select().infer([tt("3,2", "boolean"), tt("3,2", "i32"), tt("2", "i32")], [None, None, None])
    assert inferred.shape == Shape.parse("3,2")


def test_select_pdpd_broadcasts_the_condition_into_the_branches():
    """openvino 2026.4.1 folds Select pdpd: then [2,3] and else [2] (aligned from axis 0) make [2,3], and the
    condition [2] is broadcast into that, row by row; a condition larger than the branches is refused."""
    cond, then, other = np.array([True, False]), np.arange(6, dtype=np.float32).reshape(2, 3), \
        np.array([-1, -2], np.float32)
    op = Select(auto_broadcast="pdpd")
    assert check_op(op, [cond, then, other], same_op(op)).reference
    assert op.evaluate([cond, then, other])[0].tolist() == [[0, 1, 2], [-2, -2, -2]]
    assert op.infer([tt("2", "boolean"), tt("2,3"), tt("2")], [None, None, None])[0].shape == Shape.parse("2,3")
    big = np.array([[True, False, True], [False, False, True]])
    assert check_op(op, [big, other, other], same_op(op)).refused
    with pytest.raises(OpError, match=r"^Argument shapes are inconsistent. pdpd broadcast needs rank\(b\) <= "):
        op.evaluate([big, other, other])


def test_select_refuses_an_unknown_broadcast_mode():
    with pytest.raises(OpError, match="^Attribute 'auto_broadcast' must be one of none, numpy, pdpd. Got: 'bogus'$"):
        Select(auto_broadcast="bogus")


def test_comparisons_follow_ieee_for_nan():
    a = np.array([np.nan, 1.0, -0.0], np.float32)
    b = np.array([np.nan, np.nan, 0.0], np.float32)
    assert Equal().evaluate([a, b])[0].tolist() == [False, False, True]
    assert NotEqual().evaluate([a, b])[0].tolist() == [True, True, False]
    assert LessEqual().evaluate([a, b])[0].tolist() == [False, False, True]


def test_rules_name_themselves():
    with pytest.raises(OpError, match="Operands for logical operators must have boolean element type but have "
                                      "element type f32"):
        LogicalAnd().infer([tt("2", "f32"), tt("2", "f32")], [None, None])
    with pytest.raises(OpError, match=r"Argument 0 must have boolean element type \(element type: i32\)"):
        Select().infer([tt("2", "i32"), tt("2"), tt("2")], [None, None, None])
    with pytest.raises(OpError, match="Argument 1 and 2 element types must match. Got: f32 and i32"):
        Select().infer([tt("2", "boolean"), tt("2", "f32"), tt("2", "i32")], [None, None, None])
    with pytest.raises(OpError, match="The element type of the input tensor must be integer or boolean. Got: f32"):
        BitwiseNot().infer([tt("2", "f32")], [None])
    assert Greater().infer([tt("2", "f32"), tt("1", "f32")], [None, None])[0].element_type.ir_name == "boolean"


@pytest.mark.parametrize("name", ["test_equal_string", "test_equal_string_broadcast"])
def test_equal_compares_strings_by_value(name, tmp_path):
    """onnx 1.23.2's string Equal cases, converted by openvino 2026.4.1's ONNX frontend (Equal-1 on two string
    Parameters): irgraph gives ONNX's expected values. OpenVINO reads the model but computes it nowhere: Equal's
    own evaluate has no string kernel (it returns False) and its CPU plugin refuses string inputs."""
    import onnx.backend.test.case.node.equal  # noqa: F401 - importing runs its expect() calls
    import openvino as ov
    from onnx.backend.test.case.node import _NodeTestCases

    import irgraph as ir

    case = next(c for c in _NodeTestCases if c.name == name)
    converted = ov.Core().read_model(case.model.SerializeToString(), ov.Tensor(np.zeros(0, np.uint8)))
    ov.save_model(converted, tmp_path / "model.xml")
    (inputs, (expected,)) = case.data_sets[0]
    feeds = dict(zip((i.name for i in case.model.graph.input), inputs, strict=True))
    (got,) = ir.run(ir.read_model(tmp_path / "model.xml"), feeds).values()
    assert got.dtype == np.bool_ and got.tolist() == expected.tolist() == [True, False]
    equal = next(node for node in converted.get_ordered_ops() if node.get_type_name() == "Equal")
    outputs = [ov.Tensor(ov.Type.boolean, ov.Shape([2]))]
    assert equal.evaluate(outputs, [ov.Tensor(np.asarray(x, str)) for x in inputs]) is False
    with pytest.raises(RuntimeError, match="unsupported src_prc: string"):  # its x64 kernels' words
        ov.Core().compile_model(converted, "CPU")


def test_ordered_comparisons_of_strings_infer_as_openvino_and_refuse_to_evaluate():
    """openvino 2026.4.1 infers boolean for Less on strings (and every comparison), then computes it nowhere."""
    import openvino as ov
    import openvino.opset16 as ov_ops

    strings = ov_ops.parameter([2], ov.Type.string)
    assert ov_ops.less(strings, strings).get_output_element_type(0) == ov.Type.boolean
    assert Less().infer([tt("2", "string"), tt("1", "string")], [None, None])[0].element_type.ir_name == "boolean"
    words = np.array(["b", "a"], object)
    assert NotEqual().evaluate([words, np.array(["b"], object)])[0].tolist() == [False, True]
    with pytest.raises(OpError, match="^Less on strings: OpenVINO 2026.4.1 computes it nowhere"):
        Less().evaluate([words, words])
