"""ReadValue-3/6 and Assign-3/6 as ops: attributes, shape rules and OpenVINO's messages (read_value.cpp)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops import catalogue, lookup
from irgraph.ops.infrastructure.assign import Assign3, Assign6
from irgraph.ops.infrastructure.read_value import ReadValue3, ReadValue6, relaxes
from tests.ops.helpers import tt


def test_versions_resolve_by_opset():
    assert [lookup("ReadValue", f"opset{n}") for n in (3, 5, 6, 16)] == [ReadValue3, ReadValue3, ReadValue6, ReadValue6]
    assert [lookup("Assign", f"opset{n}") for n in (3, 5, 6, 16)] == [Assign3, Assign3, Assign6, Assign6]
    assert lookup("ReadValue", "opset2") is None
    for op_class in (ReadValue3, ReadValue6, Assign3, Assign6):
        assert tuple(op_class.opsets) == catalogue.find(op_class.type_name, f"opset{op_class.opsets[0]}").opsets
    assert ReadValue6.inputs.accepts(0) and ReadValue6.inputs.accepts(1) and not ReadValue6.inputs.accepts(2)
    assert not ReadValue3.inputs.accepts(0) and ReadValue3.inputs.accepts(1)
    assert Assign3.traits.is_sink and Assign6.traits.is_sink and not ReadValue6.traits.is_sink


def test_attributes_in_openvinos_order_and_text():
    op = ReadValue6.from_attributes(
        {"variable_id": "kv, \"0\"", "variable_type": "f32", "variable_shape": "1,?,2..5,4.."})
    assert op == ReadValue6(variable_id='kv, "0"', variable_type=ElementType.F32,
                            variable_shape=Shape.parse("1,?,2..5,4.."))
    assert list(op.to_attributes().items()) == [
        ("variable_id", 'kv, "0"'), ("variable_type", "f32"), ("variable_shape", "1,?,2..5,4..")]
    scalar = {"variable_id": "s", "variable_type": "i64", "variable_shape": ""}
    assert ReadValue6.from_attributes(scalar).to_attributes() == scalar
    # OpenVINO's reader leaves what is missing dynamic; its writer writes "dynamic" and "..."
    assert ReadValue6.from_attributes({"variable_id": "v"}).to_attributes() == {
        "variable_id": "v", "variable_type": "dynamic", "variable_shape": "..."}
    assert ReadValue3.from_attributes({"variable_id": "v"}).to_attributes() == {"variable_id": "v"}
    assert Assign6.from_attributes({"variable_id": "v"}).to_attributes() == {"variable_id": "v"}
    with pytest.raises(OpError, match="ReadValue-6 needs the attribute 'variable_id'; it is missing"):
        ReadValue6.from_attributes({})
    with pytest.raises(OpError, match="Assign-3 needs the attribute 'variable_id'; it is missing"):
        Assign3.from_attributes({})


def test_relaxes_is_openvinos_partial_shape_relaxes():
    def check(wide: str, narrow: str) -> bool:
        return relaxes(Shape.parse(wide), Shape.parse(narrow))

    assert check("1,?,4", "1,0,4") and check("...", "2,3") and check("...", "...") and check("", "")
    assert check("1..8", "2..3") and check("1..", "3..") and check("?", "..7")
    refused = [("1,?,5", "1,0,4"), ("2,3", "..."), ("2", "2,1"), ("1..8", "2.."), ("2..8", "1..3"), ("2", "?")]
    assert [check(wide, narrow) for wide, narrow in refused] == [False] * len(refused)


def test_read_value_6_declares_the_variable_type():
    op = ReadValue6(variable_id="kv", variable_type=ElementType.F32, variable_shape=Shape.parse("1,?,4"))
    assert op.infer([tt("1,0,4")], [None]) == [tt("1,?,4")]
    assert op.infer([], []) == [tt("1,?,4")]  # no initial value input
    dynamic = ReadValue6(variable_id="kv")
    assert dynamic.infer([tt("1,0,4", "i8")], [None]) == [tt("1,0,4", "i8")]  # OpenVINO's workaround for old IR
    assert dynamic.infer([], []) == [TensorType(ElementType.DYNAMIC, Shape(None))]
    only_rank = ReadValue6(variable_id="kv", variable_type=ElementType.F32)
    assert only_rank.infer([tt("2")], [None]) == [tt("...")]
    assert ReadValue6(variable_id="v", variable_shape=Shape.parse("2")).infer([tt("2", "u8")], [None]) == [
        TensorType(ElementType.DYNAMIC, Shape.parse("2"))]


def test_read_value_6_initial_value_must_fit_the_variable_with_openvinos_messages():
    op = ReadValue6(variable_id="kv", variable_type=ElementType.F32, variable_shape=Shape.parse("1,?,5"))
    with pytest.raises(OpError, match=re.escape(
        "The shape specified in the Variable has to extend (relax) the shape inferred from the initializing "
        "subgraph. Variable shape: [1,?,5] Initialization shape: [1,0,4]"
    )):
        op.infer([tt("1,0,4")], [None])
    f16 = ReadValue6(variable_id="kv", variable_type=ElementType.F16, variable_shape=Shape.parse("1,?,4"))
    with pytest.raises(OpError, match=re.escape(
        "The type specified in the Variable has to extend (relax) the type inferred from the initializing "
        "subgraph. Variable type: f16 Initialization type: f32"
    )):
        f16.infer([tt("1,0,4")], [None])


def test_read_value_3_and_assign_pass_their_input_type_through():
    assert ReadValue3(variable_id="v").infer([tt("2,?", "bf16")], [None]) == [tt("2,?", "bf16")]
    assert Assign3(variable_id="v").infer([tt("2")], [None]) == [tt("2")]
    assert Assign6(variable_id="v").infer([tt("...", "i4")], [None]) == [tt("...", "i4")]


def test_evaluate_refuses_outside_an_interpreter_so_nothing_folds_them():
    for op in (ReadValue3(variable_id="v"), ReadValue6(variable_id="v"), Assign3(variable_id="v"),
               Assign6(variable_id="v")):
        message = f"{op.title()} reads or writes variable 'v', which only an Interpreter keeps"
        with pytest.raises(OpError, match=message):
            op.evaluate([np.zeros(2, np.float32)])
        assert op.can_run


def test_zeros_of_the_declared_type_need_a_type_and_a_rank():
    """Dynamic dims start at their lower bound (``?`` at 0: OpenVINO 2026.4.1's CPU plugin starts an empty KV
    cache); a dynamic rank or element type has no zeros to start from."""
    op = ReadValue6(variable_id="s", variable_type=ElementType.I32, variable_shape=Shape.parse("2,3"))
    zeros = op.initial_value(tt("2,3", "i32"))
    assert zeros.dtype == np.int32 and zeros.shape == (2, 3) and not zeros.any()
    assert op.initial_value(tt("", "bf16")).dtype.name == "bfloat16"
    assert op.initial_value(tt("2", "string")).tolist() == ["", ""]
    assert op.initial_value(tt("?,3", "i32")).shape == (0, 3)
    assert op.initial_value(tt("2..5,3", "i32")).shape == (2, 3)
    with pytest.raises(OpError, match=re.escape(
        "ReadValue-6 has no initial value input, so variable 's' starts as zeros of its declared type, which needs "
        "an element type and a rank; it is i32[...]: set the variable's value before the first run "
        "(Interpreter.set_state)"
    )):
        op.initial_value(tt("...", "i32"))
    with pytest.raises(OpError, match=r"it is dynamic\[2\]"):
        op.initial_value(TensorType(ElementType.DYNAMIC, Shape.parse("2")))
