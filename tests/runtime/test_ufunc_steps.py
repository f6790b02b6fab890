"""Steps worked out when the plan is built (irgraph.runtime._fast): element-wise layers of static types compiled
into straight-line ufunc calls (ufunc_steps), ops' bound_evaluate for static types, and plans of their own for
the feed shapes a model with dynamic inputs is run on again (specialize). Every one gives the arrays the general
path gives, bit for bit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import irgraph as ir
from irgraph.core.element_types import ElementType
from irgraph.core.errors import InputError
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.activation.exp import Exp
from irgraph.ops.activation.relu import Relu
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.divide import Divide
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.power import Power
from irgraph.ops.comparison.less import Less
from irgraph.ops.matrix.mat_mul import MatMul
from irgraph.ops.movement.transpose import Transpose
from irgraph.ops.reduction.reduce_mean import ReduceMean
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.shape.unsqueeze import Unsqueeze
from irgraph.runtime import _fast
from irgraph.runtime._fast import specialize
from irgraph.runtime._fast.ufunc_steps import compile_segment
from irgraph.runtime.plan import Step

SPECIALS = np.array([[np.nan, -0.0, 0.0, -1.5, 2.5, np.inf], [-np.inf, 1e-30, -1e-30, 3.0, -3.0, 0.5]], np.float32)


@pytest.fixture(autouse=True)
def fast_path_on(monkeypatch):
    """Whatever IRGRAPH_NO_FAST says: a test that wants the plain path turns the switch off itself."""
    monkeypatch.setattr(_fast, "ENABLED", True)


def tt(shape: str, element_type: str = "f32") -> TensorType:
    return TensorType(ElementType.from_ir_name(element_type), Shape.of(shape))


def _port(model, op, name, inputs):
    return ir.OutputPort(model.add_node(op, name, inputs).id, 0)


def _chain(shape) -> ir.Model:
    """x -> Add 1 -> ReLU -> Multiply 3 -> Exp -> Less 10 (and the Exp as a second output)."""
    model = ir.Model("chain")
    x = model.parameter("x", shape)
    added = _port(model, Add(), "add", [x, model.const(np.ones((1, 6), np.float32))])
    relu = _port(model, Relu(), "relu", [added])
    scaled = _port(model, Multiply(), "mul", [relu, model.const(np.float32(3))])
    grown = _port(model, Exp(), "exp", [scaled])
    model.result(_port(model, Less(), "less", [grown, model.const(np.float32(10))]), name="small")
    model.result(grown, name="grown")
    return model


def _bits(outputs):
    return {key: (value.dtype.str, value.shape, value.tobytes()) for key, value in outputs.items()}


def test_element_wise_steps_of_static_types_run_as_one_compiled_function(monkeypatch):
    fast = ir.Interpreter(_chain([2, 6]))
    assert [type(entry) is Step for entry in fast._program] == [False]  # five steps, one function
    monkeypatch.setattr(_fast, "ENABLED", False)
    plain = ir.Interpreter(_chain([2, 6]))
    assert all(type(entry) is Step for entry in plain._program) and plain.steps == 5
    feed = SPECIALS.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # exp(inf), NaN < 10: the ops' business, as their errstate says
        fast_outputs = fast.run({"x": feed})
    assert _bits(fast_outputs) == _bits(plain.run({"x": feed}))
    np.testing.assert_array_equal(feed, SPECIALS)  # the feed is never written over
    expected = np.exp(np.maximum(0, SPECIALS + 1) * 3)
    np.testing.assert_array_equal(fast_outputs["grown"], expected)
    np.testing.assert_array_equal(fast_outputs["small"], expected < 10)


def test_a_segment_of_no_steps_compiles_to_a_function_that_changes_nothing():
    values = [np.float32(1), None]
    compile_segment([], "empty")(values, set())
    assert values == [np.float32(1), None]


def test_step_hooks_see_every_layer_of_a_compiled_chain():
    interpreter = ir.Interpreter(_chain([2, 6]))
    seen: list[str] = []
    interpreter.on_step = lambda node: seen.append(node.name)
    hooked = interpreter.run({"x": SPECIALS})
    interpreter.on_step = None
    assert seen == ["add", "relu", "mul", "exp", "less"]
    assert _bits(hooked) == _bits(interpreter.run({"x": SPECIALS}))


@pytest.mark.parametrize(("op", "types", "expected"), [
    (Add(), [tt("2,3"), tt("3")], np.add),
    (Less(), [tt("2,3"), tt("")], np.less),
    (Add(), [tt("2,3", "i32"), tt("2,3", "i32")], np.add),  # integers wrap, as evaluate's
    (Add(), [tt("2,3", "f16"), tt("2,3", "f16")], None),  # computed in f32 and rounded once
    (Add(auto_broadcast="pdpd"), [tt("2,3"), tt("2")], None),
    (Add(), [tt("?,3"), tt("3")], None),  # a shape the run settles
    (Add(), [tt(""), tt("")], None),  # a ufunc of 0-d arrays returns a scalar
    (Divide(), [tt("2,3"), tt("2,3")], np.divide),  # floats divide as IEEE does: the ufunc as it is
    (Divide(), [tt("2,3", "i32"), tt("2,3", "i32")], None),  # integers: Divide's own rules (floor, zero divisor)
    (Power(), [tt("1,1,8"), tt("")], np.power),
    (Power(), [tt("2,3", "i32"), tt("2,3", "i32")], None),  # integers through f64, truncated
    (Power(), [tt("2,3", "f16"), tt("2,3", "f16")], None),  # computed in f32 and rounded once
    (Exp(), [tt("4")], np.exp),
    (Exp(), [tt("4", "i32")], None),  # integers truncate through f64
    (Exp(), [tt("")], None),  # a ufunc of a 0-d array returns a scalar
])
def test_which_ops_are_one_ufunc_call(op, types, expected):
    call = op.ufunc_call(types)
    assert (call.ufunc if call is not None else None) is expected


def test_relu_is_maximum_with_zero_first_keeping_nan_and_negative_zero():
    call = Relu().ufunc_call([tt("6")])
    assert call.ufunc is np.maximum and call.leading == (np.float32(0),)
    data = SPECIALS.reshape(-1)
    (expected,) = Relu().evaluate([data])
    np.testing.assert_array_equal(call.ufunc(*call.leading, data).view(np.uint32), expected.view(np.uint32))


@pytest.mark.parametrize(("op", "arrays", "constant"), [
    (MatMul(), [np.ones((2, 3, 4), np.float32), np.arange(20, dtype=np.float32).reshape(4, 5)], None),
    (MatMul(transpose_a=True, transpose_b=True), [np.arange(24.0).reshape(2, 4, 3), np.arange(20.0).reshape(5, 4)],
     None),
    (Transpose(), [np.arange(24, dtype=np.float32).reshape(2, 3, 4), np.array([2, 0, 1])], 1),
    (Reshape(special_zero=True), [np.arange(24, dtype=np.float32).reshape(2, 3, 4), np.array([0, -1])], 1),
    (Unsqueeze(), [np.arange(6, dtype=np.float32).reshape(2, 3), np.array([0, -1])], 1),
    (ReduceMean(keep_dims=True), [np.linspace(-3, 5, 24, dtype=np.float32).reshape(1, 2, 12), np.array([-1])], 1),
    (ReduceMean(), [np.arange(24, dtype=np.float16).reshape(2, 3, 4), np.array([0, 2])], 1),  # rounded to f16
    (ReduceMean(), [np.arange(-12, 12, dtype=np.int32).reshape(2, 3, 4), np.array([1])], 1),  # truncated
])
def test_a_bound_evaluate_gives_evaluate_s_arrays(op, arrays, constant):
    types = [TensorType(ElementType.from_numpy(a.dtype), Shape.of(list(a.shape))) for a in arrays]
    outputs = op.infer(types, [a if index == constant else None for index, a in enumerate(arrays)])
    bound = op.bound_evaluate(types, [a if index == constant else None for index, a in enumerate(arrays)], outputs)
    assert bound is not None
    (expected,) = op.evaluate(arrays)
    (got,) = bound(arrays)
    assert (got.dtype, got.shape, got.tobytes()) == (expected.dtype, expected.shape, expected.tobytes())
    assert np.shares_memory(got, arrays[0]) == np.shares_memory(expected, arrays[0])  # views stay views


def test_a_bound_evaluate_is_not_offered_for_what_the_run_must_check():
    assert Transpose().bound_evaluate([tt("2,3"), tt("2", "i64")], [None, None], [tt("3,2")]) is None  # order unknown
    assert Transpose().bound_evaluate([tt("2,3"), tt("2", "i64")], [None, np.array([0, 0])], [tt("3,2")]) is None
    assert MatMul().bound_evaluate([tt("2,3", "f16"), tt("3,2", "f16")], [None, None], [tt("2,2", "f16")]) is None
    assert Reshape(special_zero=False).bound_evaluate([tt("?,3"), tt("2", "i64")], [None, None], [tt("?,3")]) is None
    assert ReduceMean().bound_evaluate([tt("2,3"), tt("1", "i64")], [None, None], [tt("?")]) is None  # axes unknown
    assert ReduceMean().bound_evaluate([tt("?,3"), tt("1", "i64")], [None, np.array([1])], [tt("?")]) is None
    assert ReduceMean().bound_evaluate([tt("2,3"), tt("1", "i64")], [None, np.array([2])], [tt("2")]) is None  # refused


def _dynamic_model() -> ir.Model:
    model = ir.Model("dynamic")
    x = model.parameter("x", [-1, 6])
    y = model.parameter("y", [-1, 6])
    model.result(_port(model, Exp(), "exp", [_port(model, Add(), "add", [x, y])]), name="z")
    return model


def test_feeds_of_the_same_shapes_get_a_plan_of_their_own_from_their_second_run():
    interpreter = ir.Interpreter(_dynamic_model())
    small = {"x": SPECIALS, "y": np.ones((2, 6), np.float32)}
    first = interpreter.run(small)
    assert interpreter._specialiser.plans == {}  # seen once: the general plan ran
    second = interpreter.run(small)
    (key, specialised), = interpreter._specialiser.plans.items()
    assert key == ((0, (2, 6)), (1, (2, 6)))
    assert [type(entry) is Step for entry in specialised._program] == [False]  # Add and Exp compiled
    assert _bits(first) == _bits(second) == _bits(interpreter.run(small))
    large = {"x": np.ones((5, 6), np.float32), "y": np.zeros((5, 6), np.float32)}
    for _ in range(3):
        np.testing.assert_array_equal(interpreter.run(large)["z"], np.exp(np.ones((5, 6), np.float32)))
    assert len(interpreter._specialiser.plans) == 2
    with pytest.raises(InputError, match="input 'y' has shape"):  # the general path's message, not a copy's
        interpreter.run({"x": np.ones((2, 6), np.float32), "y": np.ones((2, 7), np.float32)})


def test_shapes_shape_inference_refuses_run_on_the_general_plan():
    interpreter = ir.Interpreter(_dynamic_model())
    mismatched = {"x": np.ones((2, 6), np.float32), "y": np.ones((3, 6), np.float32)}
    for _ in range(2):
        with pytest.raises(ir.IrError, match="numpy broadcast"):
            interpreter.run(mismatched)
    assert list(interpreter._specialiser.plans.values()) == [None]


def test_the_specialised_plan_shares_the_constants_folded_once():
    model = ir.Model("folded")
    x = model.parameter("x", [-1, 3])
    weights = model.const(np.arange(3, dtype=np.float16))
    from irgraph.ops.type.convert import Convert

    widened = _port(model, Convert(destination_type=ElementType.F32), "widen", [weights])
    model.result(_port(model, Add(), "add", [x, widened]), name="y")
    interpreter = ir.Interpreter(model)
    feeds = {"x": np.zeros((2, 3), np.float32)}
    for _ in range(2):
        interpreter.run(feeds)
    (specialised,) = interpreter._specialiser.plans.values()
    folded = [value for value in interpreter._template if isinstance(value, np.ndarray) and value.dtype == np.float32]
    assert any(value is folded[0] for value in specialised._template)


def test_the_specialised_plan_binds_a_compressed_weight_without_folding_its_chain_again(monkeypatch):
    # u8 -> Convert -> Subtract -> Multiply, as an int8 export writes a weight: the general plan keeps only the
    # chain's end (its intermediates are dropped once folded), so a plan for other shapes must bind that end and not
    # plan the chain at all; folding it again cost an int4 LLM's fourth decode step 2 s and a second copy of its
    # weights.
    from irgraph.ops.arithmetic.subtract import Subtract
    from irgraph.ops.type.convert import Convert
    from irgraph.runtime import plan

    model = ir.Model("compressed")
    x = model.parameter("x", [-1, 3])
    codes = model.const(np.array([[1, 2], [3, 4], [5, 250]], dtype=np.uint8))
    widened = _port(model, Convert(destination_type=ElementType.F32), "widen", [codes])
    centred = _port(model, Subtract(), "centre", [widened, model.const(np.float32(128))])
    scaled = _port(model, Multiply(), "scale", [centred, model.const(np.float32(0.5))])
    model.result(_port(model, MatMul(), "product", [x, scaled]), name="y")
    interpreter = ir.Interpreter(model)
    (general_weight,) = [value for value in interpreter._template if isinstance(value, np.ndarray)
                         and value.shape == (3, 2)]
    folds: list[str] = []
    folding = plan._Planner._fold
    monkeypatch.setattr(plan._Planner, "_fold", lambda self, node, *rest: folds.append(node.name) or folding(
        self, node, *rest))
    feeds = {"x": np.ones((2, 3), np.float32)}
    outputs = [interpreter.run(feeds)["y"] for _ in range(3)]
    (specialised,) = interpreter._specialiser.plans.values()
    assert specialised is not None and folds == []
    assert [value is general_weight for value in specialised._template].count(True) == 1
    expected = np.ones((2, 3), np.float32) @ ((np.array([[1, 2], [3, 4], [5, 250]], np.float32) - 128) * 0.5)
    for found in outputs:
        np.testing.assert_array_equal(found, expected)


def test_models_with_marks_or_without_dynamic_inputs_are_never_specialised():
    assert ir.Interpreter(_chain([2, 6]))._specialiser is None
    assert ir.Interpreter(_dynamic_model(), mark="add")._specialiser is None


def test_the_number_of_shapes_counted_and_plans_kept_is_bounded(monkeypatch):
    monkeypatch.setattr(specialize, "PLANS_LIMIT", 1)
    interpreter = ir.Interpreter(_dynamic_model())
    for rows in (1, 1, 2, 2):
        interpreter.run({"x": np.ones((rows, 6), np.float32), "y": np.ones((rows, 6), np.float32)})
    assert list(interpreter._specialiser.plans) == [((0, (1, 6)), (1, (1, 6)))]


def _shape_driven(shape) -> ir.Model:
    """y = reshape(x, shape_of(x)[::-1]) + 1: the pattern depends on x's shape alone."""
    from irgraph.ops.movement.gather import Gather8
    from irgraph.ops.shape.shape_of import ShapeOf3

    model = ir.Model("shape_driven")
    x = model.parameter("x", shape)
    dims = _port(model, ShapeOf3(), "shape", [x])
    reversed_dims = _port(model, Gather8(), "reverse", [dims, model.const(np.array([1, 0])), model.const(np.int64(0))])
    reshaped = _port(model, Reshape(special_zero=False), "reshape", [x, reversed_dims])
    model.result(_port(model, Add(), "add", [reshaped, model.const(np.float32(1))]), name="y")
    return model


def test_shape_of_a_static_shape_is_computed_with_the_plan_and_what_follows_it_too():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    static = ir.Interpreter(_shape_driven([2, 3]))
    assert [node.name for node in static.planned_layers] == ["reshape", "add"]  # ShapeOf and Gather folded
    np.testing.assert_array_equal(static.run({"x": data})["y"], data.reshape(3, 2) + 1)
    dynamic = ir.Interpreter(_shape_driven([-1, 3]))
    assert [node.name for node in dynamic.planned_layers] == ["shape", "reverse", "reshape", "add"]
    for _ in range(2):
        np.testing.assert_array_equal(dynamic.run({"x": data})["y"], data.reshape(3, 2) + 1)
    (specialised,) = dynamic._specialiser.plans.values()
    assert specialised.steps == 2


@pytest.mark.parametrize("case", ["plain", "bool mask", "float mask", "causal", "scale", "one query row", "zero mask"])
def test_attention_s_bound_evaluate_gives_evaluate_s_arrays(case):
    from irgraph.ops.sequence.scaled_dot_product_attention import ScaledDotProductAttention

    rng = np.random.default_rng(3)
    rows = 1 if case == "one query row" else 5
    arrays = [rng.standard_normal(shape).astype(np.float32) for shape in [(2, 3, rows, 4), (2, 3, 6, 4), (1, 3, 6, 7)]]
    if case in ("bool mask", "float mask", "one query row"):
        mask = rng.standard_normal((5, 6))
        arrays.append(mask > -0.5 if case == "bool mask" else mask.astype(np.float32))
    if case == "scale":
        arrays += [np.zeros((1, 1), np.float32), np.array([0.3], np.float32)]
    if case == "zero mask":  # a constant 0-d mask of 0, as torch's export of Whisper writes: skipped, same bits
        arrays[0][0, 0, 0, :] = -0.0
        arrays += [np.array(0.0, np.float32), np.array(0.25, np.float32)]
    op = ScaledDotProductAttention(causal=case == "causal")
    types = [TensorType(ElementType.from_numpy(a.dtype), Shape.of(list(a.shape))) for a in arrays]
    constants = [a if index == 4 or case == "zero mask" and index == 3 else None for index, a in enumerate(arrays)]
    bound = op.bound_evaluate(types, constants, op.infer(types, constants))
    (expected,) = op.evaluate(arrays)
    (got,) = bound(arrays)
    assert (got.dtype, got.shape, got.tobytes()) == (expected.dtype, expected.shape, expected.tobytes())


def test_past_the_limit_of_shapes_seen_a_new_shape_is_not_counted_but_one_seen_before_gets_its_plan(monkeypatch):
    monkeypatch.setattr(specialize, "SEEN_LIMIT", 2)
    specialiser = specialize.Specialiser()
    built: list[specialize.ShapeKey] = []

    def build(key):
        built.append(key)
        return f"plan of {key}"

    keys = [((0, (rows, 6)),) for rows in (1, 2, 3)]
    assert [specialiser.interpreter_for(key, build) for key in keys] == [None, None, None]
    assert list(specialiser.seen) == keys[:2]  # the third shape came past the limit
    assert specialiser.interpreter_for(keys[2], build) is None
    assert specialiser.interpreter_for(keys[0], build) == f"plan of {keys[0]}"
    assert built == [keys[0]]


def test_a_compiled_segment_runs_its_steps_in_order_and_keeps_the_run_s_private_slots():
    """Slots: 0 and 1 fed; 2 = 0 + 1 written over slot 0 (which dies there), 3 = exp(2), read next by an in-place
    step decided at run time, so slot 3 joins the private slots; the freed slots are emptied."""
    from irgraph.runtime._fast.ufunc_steps import UfuncStep, compile_segment

    segment = compile_segment([(UfuncStep(np.add, (), True, False), (0, 1), 2, (1,)),
                               (UfuncStep(np.exp, (), False, True), (2,), 3, (0, 2))])
    first = np.array([0.0, 1.0], np.float32)
    values: list = [first, np.array([1.0, -1.0], np.float32), None, None]
    private: set[int] = set()
    segment(values, private)
    assert values[:3] == [None, None, None]
    np.testing.assert_array_equal(values[3], np.exp(np.array([1.0, 0.0], np.float32)))
    np.testing.assert_array_equal(first, [1.0, 0.0])  # the sum was written over input 0
    assert private == {3}
