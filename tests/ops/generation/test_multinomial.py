"""Multinomial-13 against openvino 2026.4.1's CPU plugin, bit for bit (it has no reference evaluate: constant
folding leaves Multinomial, so the plugin is the oracle): with and without replacement, log probabilities,
f32, f16 (computed in f32, as the plugin does) and bf16 (computed in bf16 where the CPU has it natively, in f32
on AVX2: a hand-worked case judges irgraph's bf16 on every CPU), large seeds; shapes, refusals and what
OpenVINO leaves uninitialised (refused here)."""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np
import openvino as ov
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.graph import Model
from irgraph.ops.generation.multinomial import Multinomial, mt19937_seeded
from irgraph.runtime.interpreter import Interpreter
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_constant, ov_parameter, same_op
from tests.ops.helpers import infer, tt
from tests.oracle.isa import cpu_plugin_float_precision
from tests.oracle.ov_models import from_tensor, to_tensor

CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}


def draw_case(data, dtype):
    """Valid probabilities (the spec's rules: non-negative, finite, a positive sum) and a sample count."""
    batch, classes = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 12))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    log_probs, with_replacement = data.draw(st.booleans()), data.draw(st.booleans())
    if log_probs:
        probs = rng.normal(0, 2, (batch, classes))
    elif with_replacement:  # zero probabilities too, never a whole row of them
        probs = rng.uniform(0, 1, (batch, classes)) * (rng.uniform(size=(batch, classes)) > 0.3)
        probs[:, 0] += 0.01
    else:
        probs = rng.uniform(0.05, 1, (batch, classes))
    count = data.draw(st.integers(0, 20 if with_replacement else classes))
    seeds = st.one_of(st.integers(1, 1000), st.integers(1, 2**62))
    op = Multinomial(convert_type=ElementType.I32, with_replacement=with_replacement, log_probs=log_probs,
                     global_seed=data.draw(seeds), op_seed=data.draw(seeds))
    return op, probs.astype(dtype), count


@OP_EXAMPLES
@given(data=st.data())
def test_multinomial_matches_the_cpu_plugin(data):
    op, probs, count = draw_case(data, data.draw(st.sampled_from([np.float32, np.float16])))
    # an i32 count: the harness runs the CPU plugin only on types it computes in their own width
    outcome = check_op(op, [probs, np.array(count, np.int32)], same_op(op), constant=(1,))
    assert outcome.cpu and not outcome.reference and outcome.cpu_deviation is None, outcome


def compiled_on_cpu(op: Multinomial, probs: np.ndarray, count: int) -> ov.CompiledModel:
    element_type = ElementType.from_numpy(probs.dtype)
    parameter = ov_parameter(tt(",".join(map(str, probs.shape)), element_type.ir_name))
    node = same_op(op)(parameter, ov_constant(np.array(count, np.int64)))
    return ov.Core().compile_model(ov.Model([node.output(0)], [parameter], "m"), "CPU", CPU_CONFIG)


def on_cpu(op: Multinomial, probs: np.ndarray, count: int, runs: int = 1) -> list[np.ndarray]:
    request = compiled_on_cpu(op, probs, count).create_infer_request()
    outputs = []
    for _ in range(runs):
        request.infer({0: to_tensor(probs, ElementType.from_numpy(probs.dtype).ir_name)})
        outputs.append(from_tensor(request.get_output_tensor(0)))
    return outputs


@functools.cache
def bf16_on_this_cpu() -> str:
    """What openvino 2026.4.1's CPU plugin computes bf16 Multinomial in here: ``bf16`` where the CPU has it
    natively (AVX-512 and newer), ``f32`` where it has not (AVX2): the bf16 probabilities widened exactly."""
    op = Multinomial(convert_type=ElementType.I32, with_replacement=True, log_probs=False, global_seed=1, op_seed=2)
    precision = cpu_plugin_float_precision(compiled_on_cpu(op, np.ones((1, 2), ml_dtypes.bfloat16), 1), "Multinomial")
    assert precision in ("bf16", "f32"), precision
    return precision


@OP_EXAMPLES
@given(data=st.data())
def test_bfloat16_probabilities_match_the_cpu_plugin(data):
    """bf16 sums, divisions and samples round to bf16 after each operation (OpenVINO's rounding), where the CPU
    plugin computes bf16; where it computes f32 (AVX2) it is the oracle of the f32 path only, and the bf16 path
    is judged by the hand-worked case below."""
    op, probs, count = draw_case(data, ml_dtypes.bfloat16)
    if not op.with_replacement:
        count = min(count, probs.shape[1] - 1)  # bf16 can exhaust the CDF on the last draws: see the named test
    (expected,) = on_cpu(op, probs, count)
    computed_in = probs if bf16_on_this_cpu() == "bf16" else probs.astype(np.float32)
    assert op.evaluate([computed_in, np.array(count)])[0].tolist() == expected.tolist()


def test_bfloat16_rounds_the_samples_worked_by_hand():
    """Probabilities [1, 3] (CDF [0.25, 1]) and seeds 234, 148, whose first samples are 0.25085384, 0.18983798
    and 0.79834485 (test_samples_come_from_mt19937_seeded_by_seed_seq). In bf16 the first rounds to 0.25, which
    the first class's CDF covers: classes [0, 0, 1]; in f32 it stays above 0.25: [1, 0, 1]. openvino 2026.4.1's
    CPU plugin gives the first where it computes bf16 (AVX-512 and newer), the second where it widens bf16 to f32
    (AVX2, no native bf16): each accepted by the precision its execution graph names."""
    op = Multinomial(convert_type=ElementType.I64, with_replacement=True, log_probs=False, global_seed=234, op_seed=148)
    probs = np.array([[1, 3]], ml_dtypes.bfloat16)
    by_precision = {"bf16": [[0, 0, 1]], "f32": [[1, 0, 1]]}
    assert op.evaluate([probs, np.array(3)])[0].tolist() == by_precision["bf16"]
    assert op.evaluate([probs.astype(np.float32), np.array(3)])[0].tolist() == by_precision["f32"]
    assert on_cpu(op, probs, 3)[0].tolist() == by_precision[bf16_on_this_cpu()]


def test_example_and_runs_are_the_same():
    """openvino 2026.4.1's CPU plugin, seeds 234 and 148: every inference gives these (no state between runs)."""
    probs = np.array([[0.1, 0.5, 0.4], [0.3, 0.3, 0.4]], np.float32)
    op = Multinomial(convert_type=ElementType.I64, with_replacement=True, log_probs=False, global_seed=234, op_seed=148)
    model = Model("m")
    data = model.parameter("p", [2, 3], ElementType.F32)
    node = model.add_node(op, "m", [data, model.const(np.array(5, np.int64), ElementType.I64)])
    model.result(type(data)(node.id, 0), name="out")
    runner = Interpreter(model)
    expected = [[1, 1, 2, 1, 2], [2, 0, 1, 2, 1]]
    assert runner.run({"p": probs})["out"].tolist() == expected == runner.run({"p": probs})["out"].tolist()
    assert [x.tolist() for x in on_cpu(op, probs, 5, runs=2)] == [expected, expected]


def test_samples_come_from_mt19937_seeded_by_seed_seq():
    """std::mt19937 with std::seed_seq{234, 148}: the first outputs libstdc++ gives (and the plugin's samples)."""
    raw = mt19937_seeded((234, 148), 3)
    assert (raw.astype(np.float32) / np.float32(2**32 - 1)).tolist() == pytest.approx(
        [0.25085384, 0.18983798, 0.79834485], abs=1e-7)
    assert mt19937_seeded((234 + 2**32, 148), 3).tolist() == raw.tolist()  # seed_seq keeps 32 bits of each seed


def test_without_replacement_never_repeats_a_class():
    probs = np.array([[0.2, 0.3, 0.1, 0.4]] * 3, np.float32)
    op = Multinomial(convert_type=ElementType.I32, with_replacement=False, log_probs=False, global_seed=5, op_seed=6)
    (got,) = op.evaluate([probs, np.array(4)])
    assert all(sorted(row) == [0, 1, 2, 3] for row in got.tolist())
    assert got.tolist() == on_cpu(op, probs, 4)[0].tolist()


@pytest.mark.parametrize(("probs", "message"), [
    ([[0.0, 0.0, 0.0]], "probabilities must be non-negative and finite with a positive finite sum per batch"),
    ([[0.5, -0.1, 0.6]], "probabilities must be non-negative"),
    ([[0.5, np.nan, 0.6]], "probabilities must be non-negative"),
    ([[0.5, np.inf, 0.6]], "probabilities must be non-negative"),
])
def test_probabilities_the_spec_rules_out_are_refused(probs, message):
    """openvino 2026.4.1's CPU plugin returns uninitialised memory for a row of zeros (no class is ever chosen)."""
    op = Multinomial(convert_type=ElementType.I32, with_replacement=True, log_probs=False, global_seed=1, op_seed=2)
    with pytest.raises(OpError, match=message):
        op.evaluate([np.array(probs, np.float32), np.array(3)])


def test_more_samples_than_classes_without_replacement_is_refused():
    op = Multinomial(convert_type=ElementType.I32, with_replacement=False, log_probs=False, global_seed=1, op_seed=2)
    with pytest.raises(OpError, match="a sample found no class with probability left"):
        op.evaluate([np.array([[0.5, 0.5]], np.float32), np.array(3)])
    assert op.evaluate([np.array([[0.5, 0.5]], np.float32), np.array(0)])[0].shape == (1, 0)


def test_probabilities_without_classes_are_refused():
    """openvino 2026.4.1's CPU plugin returns uninitialised memory for probs [2, 0] (irgraph raised NumPy's ValueError
    before); nothing to sample is refused, no samples or no rows is an empty answer."""
    op = Multinomial(convert_type=ElementType.I64, with_replacement=False, log_probs=False, global_seed=1, op_seed=2)
    with pytest.raises(OpError, match=r"3 samples asked from probabilities with no class \(shape \[2,0\]\)"):
        op.evaluate([np.zeros((2, 0), np.float32), np.array(3)])
    assert op.evaluate([np.zeros((2, 0), np.float32), np.array(0)])[0].shape == (2, 0)
    assert op.evaluate([np.zeros((0, 0), np.float32), np.array(3)])[0].shape == (0, 3)


def test_zero_seeds_are_not_deterministic():
    op = Multinomial(convert_type=ElementType.I64, with_replacement=True, log_probs=False)
    probs = np.full((1, 1000), 1.0, np.float32)
    assert op.evaluate([probs, np.array(16)])[0].tolist() != op.evaluate([probs, np.array(16)])[0].tolist()


@pytest.mark.parametrize(("probs", "samples", "value", "expected"), [
    ("2,3", "", 5, "[2,5]"), ("2,3", "1", None, "[2,?]"), ("?,3", "", None, "[?,?]"), ("1..4,3", "", 4, "[1..4,4]"),
    ("...", "", 4, "[...]"), ("2,3", "", -1, "[2,?]"),
])
def test_shapes_infer_as_openvino(probs, samples, value, expected):
    op = Multinomial(convert_type=ElementType.I32, with_replacement=True, log_probs=False, global_seed=1, op_seed=2)
    inputs = [tt(probs), tt(samples, "i64")]
    values = [None, None if value is None else np.array(value if samples == "" else [value], np.int64)]
    check_types(op, inputs, same_op(op), values)
    assert infer(op, inputs, values) == [expected]


@pytest.mark.parametrize(("probs", "samples", "message"), [
    (tt("3"), tt("", "i64"), "Input probabilities must be a 2D tensor"),
    (tt("2,3,4"), tt("", "i64"), "Input probabilities must be a 2D tensor"),
    (tt("2,3", "i32"), tt("", "i64"), "Expected floating point type as element type for the 'probs' input"),
    (tt("2,3"), tt("", "f32"), "Expected integer type as element type for the 'num_samples' input"),
    (tt("2,3"), tt("2", "i64"), "Number of samples must be a scalar or one element 1D tensor"),
])
def test_refused_as_openvino_refuses(probs, samples, message):
    op = Multinomial(convert_type=ElementType.I32, with_replacement=True, log_probs=False, global_seed=1, op_seed=2)
    assert check_types(op, [probs, samples], same_op(op)).refused
    with pytest.raises(OpError, match=message):
        op.infer([probs, samples], [None, None])


def test_attributes_in_openvino_order():
    op = Multinomial.from_attributes({"convert_type": "i64", "with_replacement": "false", "log_probs": "true",
                                      "global_seed": "234", "op_seed": "148"})
    assert list(op.to_attributes()) == ["convert_type", "with_replacement", "log_probs", "global_seed", "op_seed"]
    assert op.global_seed == 234 and not op.with_replacement and op.log_probs
