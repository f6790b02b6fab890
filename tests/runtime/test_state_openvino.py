"""Stateful models against OpenVINO 2026.4.1: files its save_model writes (opset3/opset6 read_value and
assign, ``ov.op.util.Variable``) round-trip byte for byte, validate clean, and run step by step with the
outputs and variable values of its CPU plugin's ``InferRequest`` (``query_state``, ``reset_state``,
``VariableState.state``)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_validate
from irgraph.core.errors import EvaluationError, InputError
from irgraph.runtime.state import run_steps

ov = pytest.importorskip("openvino", reason="the test extra installs openvino")
import openvino.opset3 as ops3  # noqa: E402
import openvino.opset6 as ops6  # noqa: E402
from openvino.op.util import Variable, VariableInfo  # noqa: E402

from tests.oracle.ov_models import CPU_CONFIG  # noqa: E402

pytestmark = pytest.mark.oracle


def variable(variable_id: str, shape, element_type=None) -> Variable:
    info = VariableInfo()
    info.data_shape = ov.PartialShape(shape) if not isinstance(shape, ov.PartialShape) else shape
    info.data_type = element_type or ov.Type.f32
    info.variable_id = variable_id
    return Variable(info)


def kv_cache() -> ov.Model:
    """ReadValue (initially [1,0,4]) -> Concat with the new tokens along the sequence axis -> Assign; the
    output is a MatMul of the whole cache, as an attention block reads it."""
    x = ops6.parameter([1, 2, 4], np.float32, name="x")
    cache = variable("kv", [1, -1, 4])
    init = ops6.broadcast(ops6.constant(np.float32(0)), ops6.constant(np.array([1, 0, 4], np.int64)))
    joined = ops6.concat([ops6.read_value(init, cache), x], 1)
    weights = ops6.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    scores = ops6.matmul(joined, weights, False, False)
    return ov.Model([ops6.result(scores)], [ops6.assign(joined, cache)], [x], "kv")


def counter_without_initial_value() -> ov.Model:
    z = ops6.parameter([2, 3], np.int32, name="z")
    count = variable("n", [2, 3], ov.Type.i32)
    total = ops6.add(ops6.read_value(count), z)
    return ov.Model([ops6.result(total)], [ops6.assign(total, count)], [z], "counter")


def version_3() -> ov.Model:
    y = ops6.parameter([2], np.float32, name="y")
    state = ops3.read_value(ops6.constant(np.array([0.5, -1], np.float32)), "v3id")
    total = ops6.add(state, y)
    return ov.Model([ops6.result(total)], [ops3.assign(total, "v3id")], [y], "v3")


def every_declaration() -> ov.Model:
    """Variables of every kind save_model writes: scalar, dynamic rank and type, intervals, sub-byte types, odd ids."""
    x = ops6.parameter(ov.PartialShape("[?,2..5,3..,..7]"), np.float32, name="x")
    results, sinks = [], []
    for variable_id, shape, element_type in [
        ("scalar", [], ov.Type.i64), ("rank", ov.PartialShape.dynamic(), ov.Type.dynamic),
        ("iv", ov.PartialShape("[?,2..5,3..,..7]"), ov.Type.f32), ("bf", [2], ov.Type.bf16),
        ("b", [1], ov.Type.boolean), ("u4", [4], ov.Type.u4), ('weird id, "<&>\'', [1], ov.Type.u8),
    ]:
        declared = variable(variable_id, shape, element_type)
        state = ops6.read_value(x, declared) if variable_id in ("iv", "rank") else ops6.read_value(declared)
        results.append(ops6.result(state))
        sinks.append(ops6.assign(state, declared))
    return ov.Model(results, sinks, [x], "declarations")


def save(model: ov.Model, directory: Path) -> Path:
    path = directory / "model.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    return path


def request(path: Path) -> ov.InferRequest:
    return ov.Core().compile_model(str(path), "CPU", CPU_CONFIG).create_infer_request()


def ov_states(infer: ov.InferRequest) -> dict[str, np.ndarray]:
    return {state.name: np.array(state.state.data) for state in infer.query_state()}


@pytest.mark.parametrize("build", [kv_cache, counter_without_initial_value, version_3, every_declaration])
def test_save_model_files_round_trip_byte_for_byte_and_validate_clean(tmp_path, build):
    path = save(build(), tmp_path)
    model = ir.read_model(path)
    assert ir.validate(model) == []
    assert ir_validate.main(["--strict", str(path)]) == 0
    ir.write_model(model, tmp_path / "again.xml")
    assert (tmp_path / "again.xml").read_bytes() == path.read_bytes()
    assert (tmp_path / "again.bin").read_bytes() == path.with_suffix(".bin").read_bytes()
    again = ov.Core().read_model(str(tmp_path / "again.xml"))
    assert sorted(v.get_info().variable_id for v in again.get_variables()) == sorted(
        v.get_info().variable_id for v in ov.Core().read_model(str(path)).get_variables())


def test_the_kv_cache_runs_step_by_step_as_openvinos_cpu_plugin(tmp_path):
    path = save(kv_cache(), tmp_path)
    theirs, ours = request(path), ir.Interpreter(ir.read_model(path))
    rng = np.random.default_rng(3)

    def both(feeds: dict[str, np.ndarray]) -> None:
        want = list(theirs.infer(feeds).values())[0]
        got = list(ours.run(feeds).values())[0]
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
        states = ov_states(theirs)
        assert list(states) == ["kv"]
        np.testing.assert_array_equal(ours.get_state("kv"), states["kv"])  # data movement: exact

    for _ in range(4):
        both({"x": rng.standard_normal((1, 2, 4)).astype(np.float32)})
    assert ours.get_state("kv").shape == (1, 8, 4)
    theirs.reset_state()
    ours.reset_state()
    assert ours.get_state("kv").shape == ov_states(theirs)["kv"].shape == (1, 0, 4)
    both({"x": rng.standard_normal((1, 2, 4)).astype(np.float32)})
    start = rng.standard_normal((1, 5, 4)).astype(np.float32)
    theirs.query_state()[0].state = ov.Tensor(start)
    ours.set_state("kv", start)
    both({"x": rng.standard_normal((1, 2, 4)).astype(np.float32)})
    assert ours.get_state("kv").shape == (1, 7, 4)
    theirs.query_state()[0].reset()
    ours.reset_state("kv")
    both({"x": rng.standard_normal((1, 2, 4)).astype(np.float32)})


@pytest.mark.parametrize(("build", "name"), [(counter_without_initial_value, "z"), (version_3, "y")])
def test_read_value_6_without_and_3_with_an_initial_value_run_as_openvino(tmp_path, build, name):
    path = save(build(), tmp_path)
    theirs, ours = request(path), ir.Interpreter(ir.read_model(path))
    parameter = ours.model.parameters[0].op
    feeds = {name: np.arange(parameter.shape.element_count_bound(), dtype=parameter.element_type.numpy_dtype)
             .reshape(parameter.shape.to_tuple())}
    for _ in range(3):
        want = list(theirs.infer(feeds).values())[0]
        got = list(ours.run(feeds).values())[0]
        np.testing.assert_array_equal(got, want)
        (variable_id, value), = ov_states(theirs).items()
        np.testing.assert_array_equal(ours.get_state(variable_id), value)


def test_a_wrong_shape_is_refused_by_both(tmp_path):
    path = save(kv_cache(), tmp_path)
    theirs, ours = request(path), ir.Interpreter(ir.read_model(path))
    wrong = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(RuntimeError, match=re.escape("is incompatible with provided dimensions: {2, 3, 4}")):
        theirs.query_state()[0].state = ov.Tensor(wrong)
    with pytest.raises(InputError, match=re.escape(
        "the value given has shape [2,3,4], which does not fit variable 'kv': its ReadValue declares [1,?,4]"
    )):
        ours.set_state("kv", wrong)


def test_a_wrong_element_type_openvino_converts_irgraph_refuses(tmp_path):
    """OpenVINO 2026.4.1's CPU plugin takes an i32 array into an f32 variable (converting it); irgraph takes
    the declared element type only, as it does for inputs."""
    path = save(kv_cache(), tmp_path)
    theirs, ours = request(path), ir.Interpreter(ir.read_model(path))
    given = np.arange(12, dtype=np.int32).reshape(1, 3, 4)
    theirs.query_state()[0].state = ov.Tensor(given)
    theirs.infer({"x": np.zeros((1, 2, 4), np.float32)})
    assert ov_states(theirs)["kv"][0, :3].tolist() == given[0].astype(np.float32).tolist()
    with pytest.raises(InputError, match="the value given has dtype int32, but variable 'kv' holds f32"):
        ours.set_state("kv", given)


def without_its_read_value(path: Path, version: int) -> str:
    """The file with its Assign writing another variable_id, which no ReadValue declares."""
    text = path.read_text("utf-8")
    edited, count = re.subn(r'(type="Assign" version="opset\d+">\s*<data variable_id=")[^"]*"', r'\1other"', text)
    assert count == 1
    return edited


@pytest.mark.parametrize(("build", "version", "openvino_says"), [
    (counter_without_initial_value, 6, "map::at"),
    (version_3, 3, "Can't find variable with id = other"),
])
def test_an_assign_without_a_read_value_is_refused_by_both(tmp_path, build, version, openvino_says):
    path = save(build(), tmp_path)
    edited = tmp_path / "edited.xml"
    edited.write_text(without_its_read_value(path, version), "utf-8")
    edited.with_suffix(".bin").write_bytes(path.with_suffix(".bin").read_bytes())
    with pytest.raises(RuntimeError, match=re.escape(openvino_says)):
        ov.Core().read_model(str(edited))
    model = ir.read_model(edited)
    found = [d for d in ir.validate(model) if d.is_error]
    assert [d.code for d in found] == ["variable"]
    assert "writes variable 'other'" in found[0].message
    with pytest.raises(EvaluationError, match="writes variable 'other'"):
        ir.Interpreter(model)


def test_steps_run_in_one_interpreter_as_repeated_openvino_inferences(tmp_path):
    path = save(kv_cache(), tmp_path)
    theirs = request(path)
    feeds = {"x": np.linspace(-2, 2, 8, dtype=np.float32).reshape(1, 2, 4)}
    outputs = run_steps(ir.Interpreter(ir.read_model(path)), feeds, 3)
    for step in (1, 2, 3):
        (want,) = theirs.infer(feeds).values()
        (key,) = [k for k in outputs if k.startswith(f"step{step}/")]
        np.testing.assert_allclose(outputs[key], want, rtol=1e-6, atol=1e-6)


def beam_search_cache(initial_from_shape_of: bool = False) -> ov.Model:
    """A KV cache as optimum-intel exports it: dynamic sequence, the cache reordered by ``beam_idx`` before the
    new tokens join it; the initial value is [2, 0, 4], or [batch, 0, 4] computed from the input's shape."""
    x = ops6.parameter([-1, -1, 4], np.float32, name="x")
    beam_idx = ops6.parameter([-1], np.int32, name="beam_idx")
    if initial_from_shape_of:
        batch = ops6.gather(ops6.shape_of(x), ops6.constant(np.array([0], np.int64)), ops6.constant(np.int64(0)))
        shape = ops6.concat([batch, ops6.constant(np.array([0, 4], np.int64))], 0)
    else:
        shape = ops6.constant(np.array([2, 0, 4], np.int64))
    cache = variable("past", [-1, -1, 4])
    past = ops6.read_value(ops6.broadcast(ops6.constant(np.float32(0)), shape), cache)
    joined = ops6.concat([ops6.gather(past, beam_idx, ops6.constant(np.int64(0))), x], 1)
    weights = ops6.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    scores = ops6.matmul(joined, weights, False, False)
    return ov.Model([ops6.result(scores)], [ops6.assign(joined, cache)], [x, beam_idx], "beams")


BEAM_STEPS = [(3, [0, 1]), (1, [1, 0]), (1, [0, 0]), (2, [1, 0])]
"""(new tokens, beam_idx) of each step: a prompt of 3 tokens, then tokens as beams are reordered."""


def test_a_beam_search_cache_runs_as_openvino(tmp_path):
    path = save(beam_search_cache(), tmp_path)
    theirs, ours = request(path), ir.Interpreter(ir.read_model(path))
    rng = np.random.default_rng(5)
    for _ in range(2):  # a second sequence after reset_state
        theirs.reset_state()
        ours.reset_state()
        for tokens, beams in BEAM_STEPS:
            feeds = {"x": rng.standard_normal((2, tokens, 4)).astype(np.float32),
                     "beam_idx": np.array(beams, np.int32)}
            (want,) = theirs.infer(feeds).values()
            (got,) = ours.run(feeds).values()
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
            np.testing.assert_array_equal(ours.get_state("past"), ov_states(theirs)["past"])
    assert ours.get_state("past").shape == (2, 7, 4)


def test_an_initial_value_from_the_input_shape_runs_where_openvinos_cpu_plugin_fails(tmp_path):
    """OpenVINO 2026.4.1's CPU plugin cannot run a ReadValue whose initial value is a Broadcast to a shape
    computed by ShapeOf (it fails to compile or at the first inference); irgraph computes it in the run."""
    path = save(beam_search_cache(initial_from_shape_of=True), tmp_path)
    # the shape the plugin gave the variable ({0 - ?, 0, 4}) refuses the first step's: not any RuntimeError (a
    # model the test built wrong would raise one too)
    with pytest.raises(RuntimeError, match=r"(?s)Node Assign_\d+ of type Assign.*Can not clone with new dims"):
        request(path).infer({"x": np.zeros((2, 3, 4), np.float32), "beam_idx": np.array([0, 1], np.int32)})
    ours = ir.Interpreter(ir.read_model(path))
    assert ir.validate(ours.model) == []
    rng = np.random.default_rng(7)
    for batch in (3, 2):
        ours.reset_state()
        cache = np.zeros((batch, 0, 4), np.float32)
        for tokens, beams in BEAM_STEPS:
            order = np.array(beams + list(range(2, batch)), np.int32)
            x = rng.standard_normal((batch, tokens, 4)).astype(np.float32)
            cache = np.concatenate([cache[order], x], axis=1)
            ours.run({"x": x, "beam_idx": order})
            np.testing.assert_array_equal(ours.get_state("past"), cache)


def test_an_initial_value_computed_from_an_input_runs_as_openvino(tmp_path):
    x = ops6.parameter([-1], np.float32, name="x")
    declared = variable("s", [-1])
    total = ops6.add(ops6.read_value(ops6.multiply(x, ops6.constant(np.float32(3))), declared), x)
    path = save(ov.Model([ops6.result(total)], [ops6.assign(total, declared)], [x], "from-input"), tmp_path)
    theirs, ours = request(path), ir.Interpreter(ir.read_model(path))
    for values in ([1, 2], [1, 2], [5, -1]):
        feeds = {"x": np.array(values, np.float32)}
        (want,) = theirs.infer(feeds).values()
        np.testing.assert_array_equal(list(ours.run(feeds).values())[0], want)
        np.testing.assert_array_equal(ours.get_state("s"), ov_states(theirs)["s"])
