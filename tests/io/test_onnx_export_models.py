"""Issue 18's done-when on the committed real-IR corpus (tests/data/models: BERT, GPT-2, T5, the Whisper encoder,
the LSTM tagger, the GRU, YOLO): each model exports to ONNX that passes ``onnx.checker`` (full check, inside
``export_onnx``) and runs in onnxruntime 1.31.1 with irgraph's outputs, its fp16 weights kept behind Casts or
folded; the stateful GPT-2 is refused with one message naming its variables, and its stateless form
(``stateless=True``) runs step by step in onnxruntime with irgraph's stateful logits."""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from irgraph.control_flow.tensor_iterator import TensorIterator
from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError
from irgraph.core.shapes import Shape
from irgraph.graph import Body, PortMapEntry
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.infrastructure.assign import Assign3, Assign6
from irgraph.ops.infrastructure.read_value import ReadValue3, ReadValue6
from tests.io.test_onnx_export import onnxruntime_run
from tests.test_models import MODELS, NAMES, TOLERANCE, inputs_of

pytestmark = pytest.mark.oracle

STATELESS = [name for name in NAMES if name != "gpt2-tiny-stateful"]


@pytest.mark.parametrize("fold", [False, True], ids=["casts", "folded"])
@pytest.mark.parametrize("name", STATELESS)
def test_every_model_of_the_corpus_runs_in_onnxruntime_as_in_irgraph(name, fold):
    model = ir.read_model(MODELS / name / "model.xml")
    feeds = inputs_of(name)
    ours = ir.run(model, feeds)
    proto = ir.export_onnx(model, fold_decompression=fold)
    assert [i.name for i in proto.graph.input] == [p.name for p in model.parameters]
    theirs = onnxruntime_run(proto, feeds)
    assert list(theirs) == list(ours)
    for key, value in ours.items():
        assert theirs[key].dtype == value.dtype and theirs[key].shape == value.shape, key
        # float32 networks of a few layers: summation order differs (BLAS vs onnxruntime's kernels)
        np.testing.assert_allclose(theirs[key], value, **TOLERANCE, err_msg=key)


def test_the_stateful_gpt2_is_refused_with_one_message_naming_its_variables_and_stateless():
    model = ir.read_model(MODELS / "gpt2-tiny-stateful" / "model.xml")
    with pytest.raises(ConversionError) as caught:
        ir.export_onnx(model)
    message = str(caught.value)
    assert message.startswith("8 layers cannot be exported to ONNX: Assign x4, ReadValue x4 (layers ")
    assert message.count("a stateful model's variables (ReadValue/Assign) have no ONNX form") == 1
    assert "export it stateless (ir-convert --stateless, export_onnx(..., stateless=True))" in message
    assert "\n" not in message


def test_the_stateless_gpt2_runs_step_by_step_in_onnxruntime_as_the_stateful_one_in_irgraph():
    """Each variable becomes an input and an output, named as optimum's ONNX export of GPT-2 names them; feeding
    each step's present.* back as past_key_values.* (empty caches, the ReadValues' initial value, first), three
    steps give irgraph's stateful logits, and the outputs its variables after each step."""
    model = ir.read_model(MODELS / "gpt2-tiny-stateful" / "model.xml")
    explained: list[str] = []
    proto = ir.export_onnx(model, stateless=True, explain=explained)
    layers = [f"{n}.{kind}" for n in range(2) for kind in ("key", "value")]
    assert [i.name for i in proto.graph.input] == ["input_ids", *(f"past_key_values.{k}" for k in layers)]
    assert [o.name for o in proto.graph.output] == ["logits", *(f"present.{k}" for k in layers)]
    notes = [line for line in explained if line.startswith("stateless: ")]
    assert notes[1:] == [f"stateless: variable 'past.{k}present.{k}' -> input 'past_key_values.{k}', output "
                         f"'present.{k}'" for k in layers]
    interpreter = ir.Interpreter(model)
    variables = {f"past_key_values.{k}": f"past.{k}present.{k}" for k in layers}
    past = {name: interpreter.get_state(variable) for name, variable in variables.items()}
    assert all(value.shape == (1, 2, 0, 16) for value in past.values())
    rng = np.random.default_rng(7)
    for step in range(3):
        feeds = {"input_ids": rng.integers(0, 100, (1, 3 if step == 0 else 1), dtype=np.int64)}
        (logits,) = interpreter.run(feeds).values()
        theirs = onnxruntime_run(proto, {**feeds, **past})
        np.testing.assert_allclose(theirs["logits"], logits, **TOLERANCE, err_msg=f"step {step}")
        for name, variable in variables.items():
            present = theirs[name.replace("past_key_values.", "present.")]
            assert present.shape == (1, 2, 3 + step, 16)
            np.testing.assert_allclose(present, interpreter.get_state(variable), **TOLERANCE,
                                       err_msg=f"{name} at step {step}")
        past = {name: theirs[name.replace("past_key_values.", "present.")] for name in variables}


def small_stateful_model() -> ir.Model:
    """Three variables named three ways: optimum's id, an id that starts with its ReadValue's tensor name (as
    make_stateful writes any input/output pair), and a bare id a Parameter's name collides with; one ReadValue-3
    starts from a Const, one ReadValue has no Assign."""
    model = ir.Model("state")
    x = model.parameter("x", [2], "f32")
    model.parameter("past.counter", [1], "f32")  # takes the name the bare id asks for
    shape = Shape.of([2])
    cache = model.add_node(ReadValue6(variable_id="past_key_values.3.valuepresent.3.value",
                                      variable_type=ElementType.F32, variable_shape=shape), "cache")
    ssm = model.add_node(ReadValue6(variable_id="ssm_stateout_state", variable_type=ElementType.F32,
                                    variable_shape=shape), "ssm")
    ssm.outputs[0].tensor_names = ["ssm_state"]
    counter = model.add_node(ReadValue3(variable_id="counter"), "counter", [model.const(np.ones(2, np.float32))])
    fixed = model.add_node(ReadValue6(variable_id="fixed", variable_type=ElementType.F32, variable_shape=shape),
                           "fixed")
    total = ir.OutputPort(x.node_id, 0)
    for read in (cache, ssm, counter, fixed):
        total = ir.OutputPort(model.add_node(Add(), None, [total, ir.OutputPort(read.id, 0)]).id, 0)
    model.result(total, name="y")
    for read in (cache, ssm, counter):
        grown = model.add_node(Add(), f"{read.name}_next", [ir.OutputPort(read.id, 0), total])
        op = Assign3 if isinstance(read.op, ReadValue3) else Assign6
        model.add_node(op(variable_id=read.op.variable_id), f"{read.name}_write", [ir.OutputPort(grown.id, 0)])
    return model


def test_stateless_names_follow_optimum_then_the_variable_id():
    model = small_stateful_model()
    explained: list[str] = []
    proto = ir.export_onnx(model, stateless=True, explain=explained)
    assert [i.name for i in proto.graph.input] == ["x", "past.counter", "past.counter_1", "past.fixed",
                                                   "past_key_values.3.value", "ssm_state"]
    assert [o.name for o in proto.graph.output] == ["y", "present.counter", "present.3.value", "out_state"]
    assert [line for line in explained if line.startswith("stateless: variable")] == [
        "stateless: variable 'counter' -> input 'past.counter_1', output 'present.counter'",
        "stateless: variable 'fixed' -> input 'past.fixed', no output (no Assign writes it: the input is fed "
        "unchanged at every step)",
        "stateless: variable 'past_key_values.3.valuepresent.3.value' -> input 'past_key_values.3.value', output "
        "'present.3.value'",
        "stateless: variable 'ssm_stateout_state' -> input 'ssm_state', output 'out_state'",
    ]
    assert "ReadValue 'counter': its initial value (input 0) is not exported; feed it as 'past.counter_1' at the " \
           "first step" in explained
    interpreter = ir.Interpreter(model)
    names = {"past.counter_1": "counter", "past.fixed": "fixed", "past_key_values.3.value":
             "past_key_values.3.valuepresent.3.value", "ssm_state": "ssm_stateout_state"}
    outputs = {"counter": "present.counter", "past_key_values.3.valuepresent.3.value": "present.3.value",
               "ssm_stateout_state": "out_state"}
    past = {name: interpreter.get_state(variable) for name, variable in names.items()}
    assert past["past.counter_1"].tolist() == [1.0, 1.0]
    for step in range(3):
        feeds = {"x": np.asarray([step, -1.5], np.float32), "past.counter": np.zeros(1, np.float32)}
        ours = interpreter.run(feeds)
        theirs = onnxruntime_run(proto, {**feeds, **past})
        np.testing.assert_array_equal(theirs["y"], ours["y"])
        for variable, output in outputs.items():
            np.testing.assert_array_equal(theirs[output], interpreter.get_state(variable))
        past = {name: theirs.get(outputs.get(variable, ""), past[name]) for name, variable in names.items()}


def test_stateless_refuses_a_variable_the_model_cannot_run():
    model = small_stateful_model()
    read = next(node for node in model if node.name == "cache")
    model.add_node(Assign6(variable_id=read.op.variable_id), "second_write", [ir.OutputPort(read.id, 0)])
    with pytest.raises(ConversionError, match=r"the stateless form needs one ReadValue and at most one Assign per "
                                              r"variable: variable 'past_key_values.3.valuepresent.3.value' is "
                                              r"written by two Assign layers"):
        ir.export_onnx(model, stateless=True)


def test_stateless_leaves_a_variable_inside_a_body_refused():
    """A body's graph cannot add inputs to the model: a variable there has no stateless form, and says so."""
    body = ir.Model("body")
    part = body.parameter("part", [1, 2])
    read = body.add_node(ReadValue6(variable_id="inner", variable_type=ElementType.F32,
                                    variable_shape=Shape.of([1, 2])), "inner_read")
    grown = body.add_node(Add(), "grown", [part, ir.OutputPort(read.id, 0)])
    body.add_node(Assign6(variable_id="inner"), "inner_write", [ir.OutputPort(grown.id, 0)])
    out = body.result(ir.OutputPort(grown.id, 0), name="out")
    model = ir.Model("loop")
    x = model.parameter("x", [3, 2])
    node = model.add_node(TensorIterator(), "ti", [x], num_outputs=1)
    node.bodies = (Body("body", body, (
        PortMapEntry(False, 0, part.node_id, axis=0, start=0, end=-1, stride=1, part_size=1),
        PortMapEntry(True, 0, out.id, axis=0, start=0, end=-1, stride=1, part_size=1)), ()),)
    model.result(ir.OutputPort(node.id, 0), name="y")
    with pytest.raises(ConversionError, match=r"layer \d+ 'ti': in <body>: 2 layers cannot be exported to ONNX: "
                                              r"Assign x1, ReadValue x1 \(layers .*: a variable read or written "
                                              r"inside a sub-graph body has no stateless form"):
        ir.export_onnx(model, stateless=True)
