"""The Op base: attribute codecs at their limits, input specs, class defaults and shared checks."""

from __future__ import annotations

import re

import numpy as np
import pytest

from irgraph.analysis.shape_inference import infer_shapes
from irgraph.core.element_types import ElementType
from irgraph.core.errors import EvaluationError, OpError
from irgraph.core.shapes import Shape, TensorType
from irgraph.graph import Model, OutputPort
from irgraph.ops import Concat, Const, Op, OpaqueOp, Parameter, Result, Split, VariadicSplit
from irgraph.ops.op import CODECS, Inputs, InputSpec, integer_values, shape_text
from irgraph.ops.registry import load_all, registered_classes
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.shape.shape_of import ShapeOf3
from irgraph.ops.traits import OpTraits

INT64_RANGE = "attribute 'axis' must be an integer in the int64 range. Got: {!r}"


@pytest.mark.parametrize(
    ("text", "value"),
    [("9223372036854775807", 2**63 - 1), ("-9223372036854775808", -(2**63)), (" 0000000000000000000000012 ", 12),
     ("-0", 0)],
)
def test_int_attributes_take_the_whole_int64_range(text, value):
    assert Concat.from_attributes({"axis": text}).axis == value


@pytest.mark.parametrize(
    "text", ["9223372036854775808", "-9223372036854775809", "12345678901234567890", "9" * 5000],
    ids=["max-plus-1", "min-minus-1", "20-digits", "5000-digits"],  # int() itself refuses 5000 digits
)
def test_int_attributes_beyond_int64_are_refused_by_name(text):
    with pytest.raises(OpError) as caught:
        Concat.from_attributes({"axis": text})
    assert caught.value.message.startswith(INT64_RANGE.format(text)[:80])
    assert len(text) > 100 or caught.value.message == INT64_RANGE.format(text)


def test_bool_and_float_codecs():
    read_bool, write_bool = CODECS[bool].read, CODECS[bool].write
    assert [read_bool(t) for t in ("true", " TRUE ", "1", "false", "False", "0")] == [True] * 3 + [False] * 3
    with pytest.raises(ValueError, match="^true or false$"):
        read_bool("yes")
    assert (write_bool(True), write_bool(False)) == ("true", "false")
    read_float, write_float = CODECS[float].read, CODECS[float].write
    assert (read_float(" 1.5"), read_float("-2e3"), write_float(0.1)) == (1.5, -2000.0, "0.10000000000000001")
    with pytest.raises(ValueError, match="^a number$"):
        read_float("1,5")


def test_a_missing_required_attribute_is_named():
    with pytest.raises(OpError, match=re.escape("Const-1 needs the attribute 'element_type'; it is missing")):
        Const.from_attributes({"shape": "2"})
    assert [f.required for f in Const.attribute_fields()] == [True, True]
    assert [f.required for f in Split.attribute_fields()] == [False]


def test_input_specs_describe_themselves():
    fixed = Inputs.of(InputSpec("data"), InputSpec("shape", bounds=True))
    assert (fixed.spec(0), fixed.spec(1).bounds, fixed.describe()) == (InputSpec("data"), True, "2 (data, shape)")
    with pytest.raises(IndexError, match="^2$"):
        fixed.spec(2)
    assert fixed.accepts(2) and not fixed.accepts(1) and not fixed.accepts(3)
    repeated = Inputs.repeated("data", minimum=1)
    assert (repeated.spec(7).name, repeated.describe(), repeated.accepts(1), repeated.accepts(0)) == (
        "data", "at least 1", True, False)
    assert Inputs().describe() == "0" and Inputs().accepts(0) and not Inputs().accepts(1)
    assert InputSpec("data").bounds is False
    assert OpaqueOp.inputs.accepts(0) and Result.inputs.describe() == "1 (data)"


def test_a_spec_taking_bounds_gets_them_from_shape_inference():
    """Reshape's shape input takes bounds: a shape computed from a [2..5] dim reaches it as an interval, so the
    output keeps it (OpenVINO's rule); an input spec without ``bounds`` would get no value and a dynamic dim."""
    assert [(s.name, s.bounds) for s in Reshape.inputs.fixed] == [("data", False), ("shape", True)]
    model = Model("bounded")
    x = model.parameter("x", Shape.parse("2..5,3"), ElementType.F32)
    shape_of = model.add_node(ShapeOf3(output_type=ElementType.I64), "shape", [x])
    node = model.add_node(Reshape(special_zero=False), "reshape", [x, OutputPort(shape_of.id, 0)])
    model.result(OutputPort(node.id, 0), name="y")
    infer_shapes(model)
    assert str(node.outputs[0].type.shape) == "[2..5,3]"


def test_what_each_op_tells_the_interpreter_and_the_writer():
    traits = {cls.__name__: cls.traits for cls in (Op, Split, VariadicSplit, Concat, Const, Parameter, Result)}
    assert traits == {
        "Op": OpTraits(), "Split": OpTraits(slices_data=True),
        "VariadicSplit": OpTraits(slices_data=True, unconnected_extra_outputs=True),
        "Concat": OpTraits(joins_inputs=True), "Const": OpTraits(carries_tensor=True, exact_type_name=True),
        "Parameter": OpTraits(), "Result": OpTraits(),
    }
    assert OpaqueOp(op_type="X").traits == OpTraits() and OpaqueOp(op_type="Assign").traits == OpTraits(is_sink=True)


def test_exactly_the_ops_that_write_in_place_have_evaluate_into():
    load_all()
    classes = registered_classes()
    in_place = {cls.__name__ for cls in classes if cls.traits.writes_in_place}
    assert {"Add", "Relu", "Equal"} <= in_place
    assert in_place == {cls.__name__ for cls in classes if hasattr(cls, "evaluate_into")}
    assert (Split(num_splits=2).version, OpaqueOp(op_type="X", op_version="ext").version) == ("opset1", "ext")
    assert OpaqueOp(op_type="X", attributes={"a": "1"}).to_attributes() == {"a": "1"}


def test_the_base_op_has_no_rules():
    with pytest.raises(NotImplementedError):
        Op().infer([], [])
    with pytest.raises(NotImplementedError):
        Op().evaluate([])
    with pytest.raises(NotImplementedError, match="^Parameter values come from the feeds$"):
        Parameter(shape=Shape.parse("1")).evaluate([])
    assert Result().evaluate([np.zeros(2)]) == []


def test_shared_checks():
    assert shape_text(Shape.parse("2,?")) == "[2,?]" and shape_text((2, 3)) == "[2,3]"
    with pytest.raises(OpError, match=re.escape("'axis' input must be numeric. Got dtype <U1")):
        integer_values(np.array(["a"]), "axis")
    assert integer_values(np.array([[1.9, -1.9]]), "lengths") == [1, -1]


def test_a_type_name_cannot_be_registered_twice():
    from dataclasses import dataclass

    from irgraph.ops import lookup, register
    from irgraph.ops.registry import RegistrationError

    @dataclass(frozen=True)
    class OtherSplit(Op):
        type_name = "split"
        introduced = 1

    OtherSplit.__module__ = Split.__module__  # past the module check, to reach the duplicate check
    with pytest.raises(RegistrationError, match=re.escape("Split-1 registered twice (Split, OtherSplit)")):
        register(OtherSplit)
    assert lookup("Split", "opset1") is Split


def test_opaque_ops_cannot_run_and_say_why():
    op = OpaqueOp(op_type="Fancy", op_version="opset99")
    with pytest.raises(EvaluationError, match=r"^op Fancy \(version opset99\) has no NumPy implementation: a custom op "
                                              r"\(an extension's: no OpenVINO opset 1-16 has this version\)$"):
        op.evaluate([])
    assert not op.can_run and Split(num_splits=1).can_run


def test_an_op_without_bodies_infers_and_runs_as_itself():
    """The questions shape inference and the interpreter ask every op (TensorIterator, Loop and If answer them
    through their bodies, in irgraph.control_flow): a plain op's answer is its infer and itself."""
    op = Concat(axis=0)
    inputs = [TensorType(ElementType.F32, Shape.static([2])), TensorType(ElementType.F32, Shape.static([3]))]

    def no_body(model, types):
        raise AssertionError("a plain op has no body to infer")

    assert op.infer_layer(None, inputs, [None, None], no_body) == [TensorType(ElementType.F32, Shape.static([5]))]
    assert op.plan_step(None, no_body) is op


def test_an_opaque_layer_has_the_outputs_its_file_declares_and_names_a_standard_type_as_such():
    declared = (TensorType(ElementType.F32, Shape.static([2])), TensorType(ElementType.I64, Shape.parse("?")))
    op = OpaqueOp(op_type="Fancy", op_version="extension", declared_outputs=declared)
    assert op.output_count([]) == 2 and op.infer([], []) == list(declared)
    # a catalogued type (what an op module that failed to load leaves): named by its catalogue title
    assert OpaqueOp(op_type="Relu", op_version="opset1").cannot_run_reason == (
        "op Relu (version opset1) has no NumPy implementation: ReLU-1 is a standard OpenVINO op irgraph does not "
        "implement yet")


def test_a_plain_step_computing_every_output_runs_as_itself_whichever_outputs_are_read():
    """Ops and the interpreter's own steps (a Variable's read, a Loop's runner) run as they are by default."""
    from irgraph.ops.plan_step import PlanStep

    class Twice(PlanStep):
        def evaluate(self, inputs):
            return [inputs[0], inputs[0]]

    step, op = Twice(), Split(num_splits=2)
    assert step.for_outputs([True, False]) is step and op.for_outputs([False, True]) is op


def test_a_category_package_that_does_not_exist_has_no_op_module():
    from irgraph.ops.registry import _module_exists

    assert _module_exists("irgraph.ops.no_such_category.no_such_op") is False
    assert _module_exists("irgraph.ops.shape.no_such_op") is False
    assert _module_exists("irgraph.ops.shape.reshape") is True


def test_bounds_are_computed_for_outputs_of_at_most_4096_elements():
    """Shape inference's bounds are for shape vectors: an output above BOUNDS_LIMIT (4096) elements gets none."""
    from irgraph.core.shapes import PartialValue

    def bounds_of_joined(first: int, second: int):
        values = [PartialValue(np.zeros(n, np.int64), np.arange(n, dtype=np.int64)) for n in (first, second)]
        types = [TensorType(ElementType.I64, Shape.static([n])) for n in (first, second)]
        return Concat(axis=0).bounds(types, values)

    (joined,) = bounds_of_joined(2048, 2048)
    assert joined.lower.shape == (4096,) and joined.upper[-1] == 2047
    assert bounds_of_joined(2048, 2049) is None


def test_loaded_says_whether_a_type_s_op_module_is_imported():
    from irgraph.ops.registry import loaded, lookup

    assert lookup("Relu", "opset1") is not None and loaded("Relu") is True
