"""Stateful models: the variables an Interpreter keeps across runs (irgraph.runtime.state), their checks and errors.

Models are built in code here; tests/runtime/test_state_openvino.py runs the same patterns in OpenVINO.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import irgraph as ir
from irgraph.analysis.variables import variable_problems
from irgraph.core.element_types import ElementType
from irgraph.core.errors import EvaluationError, InputError, ResourceLimitError
from irgraph.core.shapes import Shape
from irgraph.graph import Model, OutputPort
from irgraph.ops import Concat
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.infrastructure.assign import Assign3, Assign6
from irgraph.ops.infrastructure.read_value import ReadValue3, ReadValue6
from irgraph.runtime import _fast
from irgraph.runtime.state import Variables, run_steps, step_key

F32 = ElementType.F32


def read_value(model: Model, variable_id: str, init: OutputPort | None, shape: str, element_type=F32,
               name: str | None = None) -> OutputPort:
    op = ReadValue6(variable_id=variable_id, variable_type=element_type, variable_shape=Shape.parse(shape))
    return OutputPort(model.add_node(op, name, [] if init is None else [init]).id, 0)


def assign(model: Model, variable_id: str, value: OutputPort, version: int = 6, name: str | None = None) -> None:
    op = (Assign6 if version == 6 else Assign3)(variable_id=variable_id)
    model.add_node(op, name, [value])


def kv_model(shape: str = "1,?,4") -> Model:
    """The KV-cache pattern: ReadValue (initially [1,0,4]) -> Concat with the new input -> Assign, and an output."""
    model = Model("kv")
    x = model.parameter("x", [1, 2, 4])
    cache = read_value(model, "kv", model.const(np.zeros((1, 0, 4), np.float32)), shape, name="past")
    joined = model.concat([cache, x], axis=1)
    assign(model, "kv", joined, name="save")
    model.result(joined, name="present")
    return model


def step(value: float) -> dict[str, np.ndarray]:
    return {"x": np.full((1, 2, 4), value, np.float32)}


def test_the_kv_cache_grows_run_after_run_and_reset_starts_again():
    runner = ir.Interpreter(kv_model())
    assert runner.get_state("kv").shape == (1, 0, 4)  # the constant initial value, known before a run
    for count in (1, 2, 3):
        present = runner.run(step(count))["present"]
        assert present[0, :, 0].tolist() == [v for v in range(1, count + 1) for _ in range(2)]
        np.testing.assert_array_equal(runner.get_state("kv"), present)
    runner.reset_state()
    assert runner.get_state("kv").shape == (1, 0, 4)
    assert runner.run(step(9))["present"][0, :, 0].tolist() == [9, 9]
    runner.reset_state("kv")
    assert runner.run(step(7))["present"].shape == (1, 2, 4)


def test_set_state_then_run_reads_the_value_set():
    runner = ir.Interpreter(kv_model())
    start = np.arange(12, dtype=np.float32).reshape(1, 3, 4)
    runner.set_state("kv", start)
    start[...] = -1  # the variable holds a copy
    present = runner.run(step(5))["present"]
    assert present[0, :, 0].tolist() == [0, 4, 8, 5, 5]


def test_every_read_value_of_a_run_reads_the_previous_runs_value():
    """OpenVINO 2026.4.1's CPU plugin: the ReadValue -> Result gives the initial value, then what the
    previous run assigned, although this Assign runs (in document order) before the ReadValue."""
    model = Model("same-run")
    x = model.parameter("x", [2])
    assign(model, "s", x)  # written first
    state = read_value(model, "s", model.const(np.array([5, 6], np.float32)), "2")
    model.result(state, name="y")
    runner = ir.Interpreter(model)
    assert runner.run({"x": np.array([1, 2], np.float32)})["y"].tolist() == [5, 6]
    assert runner.run({"x": np.array([3, 4], np.float32)})["y"].tolist() == [1, 2]
    assert runner.run({"x": np.array([0, 0], np.float32)})["y"].tolist() == [3, 4]


def test_no_initial_value_input_starts_from_zeros_of_the_declared_type():
    model = Model("counter")
    z = model.parameter("z", [2, 3], "i32")
    total = OutputPort(model.add_node(Add(), "sum", [read_value(model, "n", None, "2,3", ElementType.I32), z]).id, 0)
    assign(model, "n", total)
    model.result(total, name="y")
    runner = ir.Interpreter(model)
    assert runner.get_state("n").tolist() == [[0, 0, 0], [0, 0, 0]]
    for count in (1, 2, 3):
        assert runner.run({"z": np.ones((2, 3), np.int32)})["y"].tolist() == [[count] * 3] * 2


def test_no_initial_value_and_dynamic_dims_start_empty():
    """A dynamic dim starts at 0, as OpenVINO 2026.4.1's CPU plugin starts make_stateful's KV-cache variables
    ([1, heads, 0, size] before the first inference, tests/test_models.py runs one)."""
    model = Model("cache")
    z = model.parameter("z", [1, 3], "i32")
    cache = read_value(model, "n", None, "?,3", ElementType.I32)
    joined = OutputPort(model.add_node(Concat(axis=0), "append", [cache, z]).id, 0)
    assign(model, "n", joined)
    model.result(joined, name="y")
    runner = ir.Interpreter(model)
    assert runner.get_state("n").shape == (0, 3)
    for rows in (1, 2, 3):
        assert runner.run({"z": np.ones((1, 3), np.int32)})["y"].shape == (rows, 3)


def test_no_initial_value_and_a_dynamic_rank_needs_set_state():
    model = Model("counter")
    z = model.parameter("z", [2, 3], "i32")
    total = OutputPort(model.add_node(Add(), "sum", [read_value(model, "n", None, "...", ElementType.I32), z]).id, 0)
    assign(model, "n", total)
    model.result(total, name="y")
    runner = ir.Interpreter(model)
    message = ("ReadValue-6 has no initial value input, so variable 'n' starts as zeros of its declared type, "
               "which needs an element type and a rank; it is i32[...]: set the variable's value before the first run")
    with pytest.raises(EvaluationError, match=re.escape(message)):
        runner.run({"z": np.ones((2, 3), np.int32)})
    with pytest.raises(InputError, match=re.escape(message)):
        runner.get_state("n")
    runner.set_state("n", np.full((2, 3), 10, np.int32))
    assert runner.run({"z": np.ones((2, 3), np.int32)})["y"].tolist() == [[11] * 3] * 2


def test_an_initial_value_computed_from_the_inputs_is_known_only_in_a_run():
    model = Model("from-input")
    x = model.parameter("x", [-1])
    state = read_value(model, "s", OutputPort(model.add_node(Add(), "twice", [x, x]).id, 0), "?")
    total = OutputPort(model.add_node(Add(), "sum", [state, x]).id, 0)
    assign(model, "s", total)
    model.result(total, name="y")
    runner = ir.Interpreter(model)
    with pytest.raises(InputError, match=re.escape(
        "variable 's' has no value yet and its initial value is computed in a run (it depends on the inputs): "
        "run the model or set_state first"
    )):
        runner.get_state("s")
    assert runner.run({"x": np.array([1, 2], np.float32)})["y"].tolist() == [3, 6]  # 2x + x
    assert runner.run({"x": np.array([1, 2], np.float32)})["y"].tolist() == [4, 8]


def test_set_state_checks_the_declared_type_and_shape():
    runner = ir.Interpreter(kv_model())
    with pytest.raises(InputError, match=re.escape(
        "the value given has shape [2,3,4], which does not fit variable 'kv': its ReadValue declares [1,?,4]"
    )) as caught:
        runner.set_state("kv", np.zeros((2, 3, 4), np.float32))
    assert caught.value.location.layer_name == "past"
    with pytest.raises(InputError, match=re.escape(
        "the value given has dtype int32, but variable 'kv' holds f32 (NumPy float32)"
    )):
        runner.set_state("kv", np.zeros((1, 3, 4), np.int32))
    with pytest.raises(InputError, match="the model has no variable 'nope'; variables: 'kv'"):
        runner.set_state("nope", np.zeros((1, 3, 4), np.float32))
    with pytest.raises(InputError, match="the model has no variable 'nope'; variables: 'kv'"):
        runner.get_state("nope")
    with pytest.raises(InputError, match="the model has no variable 'nope'"):
        runner.reset_state("nope")
    small = ir.Interpreter(kv_model(), element_limit=100)
    with pytest.raises(ResourceLimitError, match="the value given has 104 elements, above the limit of 100"):
        small.set_state("kv", np.zeros((1, 26, 4), np.float32))
    assert runner.get_state("kv").shape == (1, 0, 4)  # nothing was set


def test_an_assigned_value_outside_the_declaration_fails_the_run_and_changes_no_variable():
    runner = ir.Interpreter(kv_model("1,..4,4"))
    runner.run(step(1))
    runner.run(step(2))
    with pytest.raises(EvaluationError, match=re.escape(
        "the value Assign 'save' writes has shape [1,6,4], which does not fit variable 'kv': its ReadValue "
        "declares [1,..4,4]"
    )) as caught:
        runner.run(step(3))
    assert caught.value.location.layer_name == "save"
    assert runner.get_state("kv")[0, :, 0].tolist() == [1, 1, 2, 2]


def test_a_failed_run_changes_no_variable():
    model = kv_model()
    runner = ir.Interpreter(model)
    runner.run(step(1))
    with pytest.raises(InputError):
        runner.run({"x": np.zeros((1, 2, 4), np.float64)})
    assert runner.get_state("kv").shape == (1, 2, 4)


def test_values_are_copied_in_and_out():
    runner = ir.Interpreter(kv_model(), reuse_outputs=True)
    feeds = step(1)
    first = runner.run(feeds)["present"]
    feeds["x"][...] = 100
    first[...] = -5  # an output the caller owns
    kept = runner.get_state("kv")
    assert kept[0, :, 0].tolist() == [1, 1]
    kept[...] = 0
    assert runner.get_state("kv")[0, :, 0].tolist() == [1, 1]
    assert runner.run(step(2))["present"][0, :, 0].tolist() == [1, 1, 2, 2]


def test_a_read_value_output_is_read_only():
    model = Model("direct")
    x = model.parameter("x", [2])
    state = read_value(model, "s", model.const(np.array([5, 6], np.float32)), "2")
    assign(model, "s", x)
    model.result(state, name="y")
    runner = ir.Interpreter(model)
    runner.run({"x": np.array([1, 2], np.float32)})
    y = runner.run({"x": np.array([1, 2], np.float32)})["y"]
    with pytest.raises(ValueError, match="read-only"):
        y[0] = 0


def test_an_assign_of_a_constant_still_runs():
    """Constant sub-graphs are folded once per Interpreter; an Assign is a sink and never folded away."""
    model = Model("constant")
    x = model.parameter("x", [2])
    state = read_value(model, "s", model.const(np.array([1, 1], np.float32)), "2")
    assign(model, "s", model.const(np.array([7, 8], np.float32)))
    model.result(OutputPort(model.add_node(Add(), "sum", [state, x]).id, 0), name="y")
    runner = ir.Interpreter(model)
    zeros = {"x": np.zeros(2, np.float32)}
    assert runner.run(zeros)["y"].tolist() == [1, 1]
    assert runner.run(zeros)["y"].tolist() == [7, 8]


def test_a_read_value_3_variable_has_its_initial_values_type():
    model = Model("v3")
    y = model.parameter("y", [2])
    state = OutputPort(model.add_node(ReadValue3(variable_id="v"), "rv", [model.const(np.zeros(2, np.float32))]).id, 0)
    total = OutputPort(model.add_node(Add(), "sum", [state, y]).id, 0)
    assign(model, "v", total, version=3)
    model.result(total, name="out")
    runner = ir.Interpreter(model)
    assert [runner.run({"y": np.ones(2, np.float32)})["out"].tolist() for _ in range(3)] == [[1, 1], [2, 2], [3, 3]]
    assert str(runner.state.declared["v"].type) == "f32[2]"


# ------------------------------------------------------------------------------------ model checks
def problems(model: Model) -> list[tuple[bool, str, str]]:
    ir.infer_shapes(model)
    return [(p.is_error, p.node.name, p.message) for p in variable_problems(model)]


def test_an_assign_needs_a_read_value_of_its_variable():
    model = Model("orphan")
    x = model.parameter("x", [2])
    assign(model, "s", x, name="save")
    model.result(x, name="y")
    message = "Assign-6 writes variable 's', which no ReadValue in the model declares (OpenVINO 2026.4.1 refuses " \
              "to read the model)"
    assert problems(model) == [(True, "save", message)]
    with pytest.raises(EvaluationError, match=re.escape(message)):
        ir.Interpreter(model)
    assert [(d.code, d.severity.value) for d in ir.validate(model)] == [("variable", "error")]


def test_an_assign_3_needs_a_read_value_3_upstream():
    model = Model("v3")
    x = model.parameter("x", [2])
    state = OutputPort(model.add_node(ReadValue3(variable_id="v"), "rv", [x]).id, 0)
    model.result(state, name="y")
    assign(model, "v", x, version=3, name="save")  # the ReadValue is not upstream of it
    assert problems(model) == [(True, "save", (
        "Assign-3 writes variable 'v', but no ReadValue-3 of that variable_id is upstream of it (OpenVINO 2026.4.1 "
        "refuses the model: Can't find variable with id = v)"))]


def test_an_assign_must_fit_its_variable():
    model = Model("types")
    x = model.parameter("x", [3], "i32")
    model.result(read_value(model, "s", None, "2", name="rv"), name="y")
    assign(model, "s", x, name="save")
    assert problems(model) == [(True, "save", "Assign-6 writes i32[3] to variable 's', which its ReadValue (layer 1) "
                                              "declares f32[2]")]
    model3 = Model("grows")
    initial = model3.const(np.zeros(2, np.float32))
    state = OutputPort(model3.add_node(ReadValue3(variable_id="v"), "rv", [initial]).id, 0)
    doubled = model3.concat([state, state], axis=0)  # Assign-3: static shapes must be equal
    assign(model3, "v", doubled, version=3, name="save")
    model3.result(state, name="y")
    assert problems(model3) == [(True, "save", "Assign-3 writes f32[4] to variable 'v', which its ReadValue (layer 1) "
                                               "declares f32[2]")]


def test_one_read_value_and_one_assign_per_variable():
    model = Model("twice")
    x = model.parameter("x", [2])
    first = read_value(model, "s", None, "2", name="rv1")
    read_value(model, "s", None, "2", name="rv2")
    assign(model, "s", first, name="a1")
    assign(model, "s", x, name="a2")
    model.result(first, name="y")
    found = problems(model)
    assert found == [
        (True, "rv2", "variable 's' is read by two ReadValue layers (also layer 1); a variable has one ReadValue"),
        (True, "a2", "variable 's' is written by two Assign layers (also layer 3); a variable has one Assign"),
    ]


def test_a_variable_nothing_writes_is_a_warning_and_reads_its_initial_value():
    model = Model("read-only")
    x = model.parameter("x", [2])
    state = read_value(model, "s", model.const(np.array([5, 6], np.float32)), "2", name="rv")
    model.result(OutputPort(model.add_node(Add(), "sum", [state, x]).id, 0), name="y")
    assert problems(model) == [(False, "rv", "no Assign writes variable 's': the ReadValue reads its initial value "
                                             "on every run (OpenVINO 2026.4.1's CPU plugin refuses to run it)")]
    runner = ir.Interpreter(model)
    assert [runner.run({"x": np.ones(2, np.float32)})["y"].tolist() for _ in range(2)] == [[6, 7], [6, 7]]


def test_a_model_without_variables_has_an_empty_state():
    model = Model("plain")
    model.result(model.parameter("x", [2]), name="y")
    runner = ir.Interpreter(model)
    assert runner.state.declared == {}
    runner.reset_state()
    with pytest.raises(InputError, match="the model has no variable 'v'; variables: none"):
        runner.get_state("v")
    assert isinstance(runner.state, Variables)


# ------------------------------------------------------------------------------------ steps
def test_run_steps_keys_every_step_and_counts_all_outputs_against_the_limit():
    runner = ir.Interpreter(kv_model())
    assert list(run_steps(runner, step(1), 1)) == ["present"]
    runner.reset_state()
    outputs = run_steps(runner, step(1), 3)
    assert list(outputs) == [step_key(1, "present"), "step2/present", "step3/present"]
    assert [outputs[f"step{k}/present"].shape for k in (1, 2, 3)] == [(1, 2, 4), (1, 4, 4), (1, 6, 4)]
    small = ir.Interpreter(kv_model(), element_limit=40)
    with pytest.raises(ResourceLimitError, match="the outputs of steps 1 to 3 have 48 elements together, above the "
                                                 "limit of 40"):
        run_steps(small, step(1), 3)
    with pytest.raises(InputError, match="the number of steps must be at least 1; got 0"):
        run_steps(runner, step(1), 0)


def test_run_steps_copies_outputs_an_interpreter_reuses():
    runner = ir.Interpreter(kv_model(), reuse_outputs=True)
    outputs = run_steps(runner, step(1), 2)
    assert outputs["step1/present"].shape == (1, 2, 4) and outputs["step2/present"].shape == (1, 4, 4)


def test_validation_of_broken_read_value_and_assign_layers_reports_without_crashing(tmp_path):
    from tests.analysis.test_validation import STATEFUL

    no_input = STATEFUL.replace('<layer id="3" name="save" type="Assign" version="opset6"><data variable_id="v"/>\n'
                                '<input><port id="0" precision="FP32"><dim>2</dim></port></input>',
                                '<layer id="3" name="save" type="Assign" version="opset6"><data variable_id="v"/>')
    no_input = no_input.replace('<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>\n', "")
    no_output = STATEFUL.replace('<output><port id="1" precision="FP32"><dim>2</dim></port></output></layer>\n'
                                 '<layer id="2"', '</layer>\n<layer id="2"')
    no_output = re.sub(r'<edge from-layer="1" from-port="1"[^>]*>\n', "", no_output)
    for text, expected in [(no_input, "Assign-6 takes 1 (new_value) inputs; the layer has 0"),
                           (no_output, "ReadValue-6 produces 1 outputs here but the layer declares 0")]:
        # (the Add and the Result the ReadValue fed have an input left unconnected: errors of their own)
        assert text != STATEFUL
        path = tmp_path / "model.xml"
        path.write_text(text)
        found = [d for d in ir.validate_file(path) if d.is_error]
        assert found[0].message == expected and all("not connected" in d.message for d in found[1:])


def test_problems_come_in_document_order():
    model = Model("mixed")
    x = model.parameter("x", [2])
    model.result(read_value(model, "read-only", None, "2", name="rv"), name="y")  # a warning, first in the file
    assign(model, "orphan", x, name="save")  # an error, after it
    assert [(is_error, name) for is_error, name, _ in problems(model)] == [(False, "rv"), (True, "save")]


def test_assign_3_compares_static_shapes_only_and_assign_6_checks_compatibility():
    """As OpenVINO's assign_shape_inference.hpp (v3: equal element types, equal shapes when both are static)
    and Assign::validate_and_infer_types (v6: compatible types and shapes)."""
    def assign_6(declared: str, written: str) -> list:
        model = Model("v6")
        model.result(read_value(model, "v", model.parameter("init", declared), declared, name="rv"), name="y")
        assign(model, "v", model.parameter("new", written), name="save")
        return problems(model)

    def assign_3(declared: str, written: str) -> list:
        model = Model("v3")
        initial = model.parameter("init", declared)
        state = OutputPort(model.add_node(ReadValue3(variable_id="v"), "rv", [initial]).id, 0)
        model.result(state, name="y")
        nothing = model.variadic_split(state, axis=0, lengths=[0, -1])[0]  # puts the ReadValue upstream
        assign(model, "v", model.concat([nothing, model.parameter("new", written)], axis=0), version=3, name="save")
        return problems(model)

    assert assign_3("-1", "2") == []  # one side dynamic: not compared
    assert assign_3("2", "3")[0][2] == "Assign-3 writes f32[3] to variable 'v', which its ReadValue (layer 1) " \
                                       "declares f32[2]"
    assert assign_3("2..5", "6..8") == []  # intervals that do not meet: not static, not compared
    assert assign_6("2..5", "6..8") == [(True, "save", "Assign-6 writes f32[6..8] to variable 'v', which its "
                                                       "ReadValue (layer 1) declares f32[2..5]")]
    assert assign_6("-1", "2") == [] and assign_6("?", "?,?")[0][0]


def test_limits_are_inclusive():
    runner = ir.Interpreter(kv_model(), element_limit=104)
    runner.set_state("kv", np.zeros((1, 26, 4), np.float32))  # exactly the limit
    assert list(run_steps(ir.Interpreter(kv_model(), element_limit=48), step(1), 3)) == [
        "step1/present", "step2/present", "step3/present"]  # 8 + 16 + 24 elements: exactly the limit


def test_run_steps_keeps_each_steps_outputs_when_the_interpreter_reuses_its_arrays():
    model = Model("same-shape")
    x = model.parameter("x", [2])
    state = read_value(model, "s", model.const(np.zeros(2, np.float32)), "2")
    assign(model, "s", x)
    model.result(model.concat([state, x], axis=0), name="both")  # one shape every step: its array is reused
    runner = ir.Interpreter(model, reuse_outputs=True)
    outputs = run_steps(runner, {"x": np.array([1, 2], np.float32)}, 3)
    assert [outputs[f"step{k}/both"].tolist() for k in (1, 2, 3)] == [[0, 0, 1, 2], [1, 2, 1, 2], [1, 2, 1, 2]]
    assert outputs["step2/both"] is not outputs["step3/both"]


def _initialized_twice(enabled: bool, monkeypatch) -> tuple[list[list[float]], list[set[str]]]:
    """Runs of a model whose two variables start from layers of their own ("twice", "thrice"), with a reset of one
    variable and then of all in between: the outputs, and the layers each run executed."""
    monkeypatch.setattr(_fast, "ENABLED", enabled)
    model = Model("initialized")
    x = model.parameter("x", [-1])
    twice = OutputPort(model.add_node(Add(), "twice", [x, x]).id, 0)
    first = read_value(model, "a", twice, "?")
    second = read_value(model, "b", OutputPort(model.add_node(Add(), "thrice", [twice, x]).id, 0), "?")
    assign(model, "a", OutputPort(model.add_node(Add(), "next_a", [first, x]).id, 0))
    assign(model, "b", OutputPort(model.add_node(Add(), "next_b", [second, x]).id, 0))
    model.result(OutputPort(model.add_node(Add(), "sum", [first, second]).id, 0), name="y")
    runner = ir.Interpreter(model)
    ran: list[set[str]] = []
    runner.on_step = lambda node: ran[-1].add(node.name)
    outputs = []
    for reset in (None, None, "a", None, "all", None):
        if reset is not None:
            runner.reset_state(None if reset == "all" else reset)
        ran.append(set())
        outputs.append(runner.run({"x": np.array([1, 2], np.float32)})["y"].tolist())
    return outputs, ran


def test_layers_computing_only_initial_values_run_only_while_a_variable_they_start_has_no_value(monkeypatch):
    """As OpenVINO's CPU plugin runs them (its MoveReadValueInputsToSubgraph pass): once both variables hold values,
    "twice" and "thrice" are left out; a reset of either brings them back. The values do not change."""
    outputs, ran = _initialized_twice(True, monkeypatch)
    assert outputs == [[5, 10], [7, 14], [7, 14], [9, 18], [5, 10], [7, 14]]  # a = 2x, b = 3x, then + x a run
    assert outputs == _initialized_twice(False, monkeypatch)[0]
    initializing = {"twice", "thrice"}
    assert [initializing <= names for names in ran] == [True, False, True, False, True, False]
    assert all("sum" in names and "next_a" in names for names in ran)
