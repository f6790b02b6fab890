"""The interpreter's in-place element-wise steps (irgraph.runtime._fast.in_place): an Add or ReLU whose first input
dies at that step writes over it, and never over memory anything else can still see: feeds, Consts, Results, views
(Reshape, Split), arrays an op passed through, arrays a deferred Concat holds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pytest

import irgraph as ir
import irgraph.runtime.interpreter as interpreter_module
from irgraph.core.shapes import TensorType
from irgraph.ops import Op
from irgraph.ops.activation.h_swish import HSwish
from irgraph.ops.activation.relu import Relu
from irgraph.ops.activation.swish import Swish
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.op import Inputs, InputSpec
from irgraph.ops.shape.reshape import Reshape
from irgraph.runtime._fast import in_place, ufunc_steps


@dataclass(frozen=True)
class PassThrough(Op):
    """Returns its input object itself (as some ops do when there is nothing to change)."""

    type_name = "PassThrough"
    inputs = Inputs.of(InputSpec("data"))

    def infer(self, inputs: Sequence[TensorType], values) -> list[TensorType]:
        return [inputs[0]]

    def evaluate(self, inputs):
        return [inputs[0]]


X = np.array([[-2.0, -1.0, 0.5], [1.0, -0.0, 3.0]], np.float32)


@pytest.fixture
def donations(monkeypatch) -> list[bool]:
    """Whether each in-place step got its input 0 to write over, in the order asked: a ufunc step's answer once,
    when its Interpreter is built (ufunc_steps.plan_writes_over), any other step's at each run (in_place.donor)."""
    seen: list[bool] = []
    original = in_place.donor
    planned = ufunc_steps.plan_writes_over

    def spy(dense, inputs, private, *references):
        given = original(dense, inputs, private, *references)
        seen.append(bool(given))
        return given

    def plan_spy(*arguments):
        given = planned(*arguments)
        seen.append(given)
        return given

    monkeypatch.setattr(in_place, "donor", spy)
    monkeypatch.setattr(ufunc_steps, "plan_writes_over", plan_spy)
    return seen


def _add(model, a, b, name):
    return ir.OutputPort(model.add_node(Add(), name, [a, b]).id, 0)


def _relu(model, a, name):
    return ir.OutputPort(model.add_node(Relu(), name, [a]).id, 0)


def test_a_chain_of_element_wise_steps_writes_over_its_own_intermediates(donations):
    model = ir.Model("chain")
    x = model.parameter("x", [2, 3])
    first = _add(model, x, model.const(np.float32(1)), "a")  # input 0 is the feed: allocates
    second = _relu(model, first, "r")  # writes over a's output
    third = ir.OutputPort(model.add_node(Multiply(), "m", [second, model.const(np.float32(2))]).id, 0)
    model.result(_add(model, third, model.const(np.float32(-1)), "b"), name="y")
    feed = X.copy()
    (y,) = ir.run(model, {"x": feed}).values()
    np.testing.assert_array_equal(y, np.maximum(X + 1, 0) * 2 - 1)
    np.testing.assert_array_equal(feed, X)  # the feed is never written
    assert donations == [False, True, True, True]


def test_a_view_taken_before_the_last_use_keeps_the_array_private_to_nobody(donations):
    model = ir.Model("view")
    x = model.parameter("x", [2, 3])
    r = _relu(model, _add(model, x, model.const(np.float32(0)), "a"), "r")
    view = ir.OutputPort(model.add_node(Reshape(special_zero=False), "v", [r, model.const(np.array([3, 2]))]).id, 0)
    summed = _add(model, r, model.const(np.float32(100)), "b")  # r's last use; v still lives
    model.result(summed, name="sum")
    model.result(view, name="view")
    outputs = ir.run(model, {"x": X})
    np.testing.assert_array_equal(outputs["view"], np.maximum(X, 0).reshape(3, 2))
    np.testing.assert_array_equal(outputs["sum"], np.maximum(X, 0) + 100)
    assert donations[-1] is False


def test_split_parts_and_deferred_concats_keep_their_inputs(donations):
    model = ir.Model("split")
    x = model.parameter("x", [2, 4])
    r = _relu(model, _add(model, x, model.const(np.float32(0)), "a"), "r")
    left, right = model.split(r, axis=1, num_splits=2)
    joined = model.concat([right, left], axis=1)
    bumped = _add(model, r, model.const(np.float32(10)), "b")  # r's last use; the parts still live
    model.result(joined, name="joined")
    model.result(bumped, name="bumped")
    data = np.arange(-4, 4, dtype=np.float32).reshape(2, 4)
    outputs = ir.run(model, {"x": data})
    relu = np.maximum(data, 0)
    np.testing.assert_array_equal(outputs["joined"], np.concatenate([relu[:, 2:], relu[:, :2]], axis=1))
    np.testing.assert_array_equal(outputs["bumped"], relu + 10)
    assert donations[-1] is False


def test_an_array_passed_through_is_not_written_while_another_slot_holds_it(donations):
    model = ir.Model("pass")
    x = model.parameter("x", [2, 3])
    a = _add(model, x, model.const(np.float32(0)), "a")
    same = ir.OutputPort(model.add_node(PassThrough(), "p", [a]).id, 0)
    b = _add(model, same, model.const(np.float32(5)), "b")  # same's last use; a is a Result too
    model.result(a, name="a")
    model.result(b, name="b")
    outputs = ir.run(model, {"x": X})
    np.testing.assert_array_equal(outputs["a"], X)
    np.testing.assert_array_equal(outputs["b"], X + 5)
    assert donations == [False, False]


def test_results_and_consts_are_never_written(donations):
    model = ir.Model("results")
    x = model.parameter("x", [2, 3])
    weights = np.full((2, 3), 7, np.float32)
    a = _add(model, model.const(weights), x, "a")  # input 0 is a Const
    r = _relu(model, a, "r")
    model.result(a, name="a")  # a is read by r and is a Result: never freed, never written
    model.result(r, name="r")
    interpreter = interpreter_module.Interpreter(model)
    outputs = interpreter.run({"x": X})
    np.testing.assert_array_equal(outputs["a"], X + 7)
    np.testing.assert_array_equal(outputs["r"], np.maximum(X + 7, 0))
    np.testing.assert_array_equal(weights, 7)
    assert donations == []  # neither step frees its input 0 (a Const; a Result)


def test_in_place_relu_keeps_nan_and_negative_zero_as_the_allocating_path():
    data = np.array([np.nan, -0.0, -1.0, 2.0, -np.inf], np.float32)
    (allocated,) = Relu().evaluate([data.copy()])
    target = data.copy()
    (written,) = Relu().evaluate_into([target], target)
    assert written is target
    np.testing.assert_array_equal(written, allocated)
    assert np.signbit(written).tolist() == np.signbit(allocated).tolist() == [False, True, False, False, False]


@pytest.mark.parametrize("chunk", [65536, 3])  # one chunk; many, the last one short
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_in_place_swish_and_h_swish_are_the_allocating_paths_bit_for_bit(monkeypatch, chunk, dtype):
    """Swish and HSwish write a chunk at a time (irgraph.ops.numeric.in_chunks) into the donated input or a new
    array: the values, NaN payloads and signed zeros of the allocating whole-array formulas."""
    from irgraph.ops import numeric

    monkeypatch.setattr(numeric, "CHUNK", chunk)
    payloads = np.array([0x7FC00005, 0xFFC00009], np.uint32).view(np.float32).astype(dtype)
    data = np.concatenate([payloads, np.array([np.inf, -np.inf, -0.0, 0.0, -3.0, 3.0, -1e30, 88.0, -88.0], dtype),
                           np.random.default_rng(0).standard_normal(20).astype(dtype) * 4]).reshape(31)
    one, three, six = dtype(1), dtype(3), dtype(6)
    with np.errstate(all="ignore"):
        for beta in (np.ones((), dtype), np.array(-0.75, dtype)):
            expected = data / (one + np.exp(-beta * data))
            target = data.copy()
            (written,) = Swish().evaluate_into([target, beta], target)
            assert written is target
            np.testing.assert_array_equal(written.view(np.uint8), expected.view(np.uint8))
            (allocated,) = Swish().evaluate([data, beta])
            np.testing.assert_array_equal(allocated.view(np.uint8), expected.view(np.uint8))
        expected = data * np.minimum(np.maximum(data + three, 0), six) / six
        target = data.copy()
        (written,) = HSwish().evaluate_into([target], target)
        assert written is target
        np.testing.assert_array_equal(written.view(np.uint8), expected.view(np.uint8))
        (allocated,) = HSwish().evaluate([data[::2]])  # a strided view: computed from a contiguous copy
        np.testing.assert_array_equal(allocated.view(np.uint8), expected[::2].copy().view(np.uint8))


def test_other_shapes_or_dtypes_are_not_written_into():
    a, b = np.ones((1, 3), np.float32), np.ones((2, 3), np.float32)
    (result,) = Add().evaluate_into([a, b], a)  # broadcasting grows the output: a new array
    assert result is not a and result.shape == (2, 3)
    half = np.ones(3, np.float16)
    (result,) = Add().evaluate_into([half, half], half)  # f16 computes in f32 and rounds: allocates
    assert result is not half and result.tolist() == [2, 2, 2]


STORED = np.arange(6, dtype=np.float32).reshape(2, 3).copy()  # owns its memory (base None)


@dataclass(frozen=True)
class Stored(Op):
    """Returns an array it keeps (state, a cache): an array of its own (base None) that something else holds."""

    type_name = "Stored"
    inputs = Inputs.of(InputSpec("data"))

    def infer(self, inputs: Sequence[TensorType], values) -> list[TensorType]:
        return [inputs[0]]

    def evaluate(self, inputs):
        return [STORED]


def test_an_array_held_elsewhere_is_not_written(donations):
    model = ir.Model("stored")
    x = model.parameter("x", [2, 3])
    kept = ir.OutputPort(model.add_node(Stored(), "s", [x]).id, 0)
    model.result(_add(model, kept, model.const(np.float32(1)), "a"), name="y")  # kept's last use
    interpreter = interpreter_module.Interpreter(model)
    for _ in range(2):
        assert interpreter.run({"x": X})["y"].tolist() == (np.arange(6).reshape(2, 3) + 1).tolist()
    np.testing.assert_array_equal(STORED, np.arange(6).reshape(2, 3))
    assert donations == [False, False]  # private by its look, but its reference count gives it away


def test_a_chain_of_dynamic_shapes_writes_over_the_fresh_arrays_its_generic_steps_made(donations):
    """Shapes unknown when the plan is built: no ufunc step, each step's fresh output is tracked at run time."""
    model = ir.Model("dynamic_chain")
    x = model.parameter("x", [-1, 3])
    first = _add(model, x, model.const(np.float32(1)), "a")  # input 0 is the feed: allocates
    second = _relu(model, first, "r")  # writes over a's fresh output
    model.result(_add(model, second, model.const(np.float32(-1)), "b"), name="y")
    feed = X.copy()
    (y,) = ir.Interpreter(model).run({"x": feed}).values()
    np.testing.assert_array_equal(y, np.maximum(X + 1, 0) - 1)
    np.testing.assert_array_equal(feed, X)
    assert donations == [False, True, True]
