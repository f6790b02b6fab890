"""RandomUniform-8 against openvino 2026.4.1: its reference ``evaluate`` bit for bit (every output type, both
alignments, seeds up to 2**62, empty and odd-sized shapes), its CPU plugin over repeated inferences of one
compiled model (the Philox offset it keeps), its shape rule and refusals. OpenVINO's constant folding never
folds RandomUniform, so the harness compares types and refusals and these tests compare the values."""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import openvino as ov
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.analysis.shape_inference import infer_shapes
from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrError, OpError
from irgraph.graph import Model
from irgraph.ops.generation.random_uniform import SKIP_PER_ELEMENT, RandomUniform, philox_blocks
from irgraph.ops.numeric import round_float
from irgraph.ops.op import Tolerance
from irgraph.runtime.interpreter import Interpreter
from tests.ops.differential import OP_EXAMPLES, assert_values_close, check_op, check_types, ov_constant, same_op
from tests.ops.helpers import infer, tt
from tests.oracle.isa import cpu_plugin_float_precision
from tests.oracle.ov_models import from_tensor, to_tensor

TYPES = [ElementType.F32, ElementType.F16, ElementType.BF16, ElementType.F64, ElementType.I32, ElementType.I64]
CPU_EXACT = [ElementType.F32, ElementType.BF16, ElementType.I32]
"""Types openvino 2026.4.1's CPU plugin generates as its reference does (see the named deviations)."""
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}
RANGES = {
    "f": [(0.0, 1.0), (2.0, 10.0), (-3.5, 1.25), (-1000.3, 0.7), (1e-3, 2e-3)],
    ElementType.I32: [(50, 100), (-7, 3), (-2**31, 2**31 - 1), (0, 1)],
    ElementType.I64: [(50, 100), (-7, 3), (0, 2**40), (-2**62, 2**62), (5, 2**32 + 5), (-2**33, -5)],
}


def bounds(element_type: ElementType, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    dtype = element_type.numpy_dtype
    return np.array(low).astype(dtype), np.array(high).astype(dtype)


def ov_evaluate(op: RandomUniform, inputs: list[np.ndarray], node=None) -> np.ndarray:
    """OpenVINO's reference ``RandomUniform::evaluate`` (constant folding skips the op); ``node`` keeps its state."""
    if node is None:
        node = same_op(op)(*[ov_constant(x) for x in inputs])
    shape = [int(d) for d in inputs[0]]
    out = [ov.Tensor(node.get_output_element_type(0), ov.Shape(shape))]
    assert node.evaluate(out, [to_tensor(x, ElementType.from_numpy(x.dtype).ir_name) for x in inputs])
    return from_tensor(out[0])


def same_bits(actual: np.ndarray, expected: np.ndarray) -> bool:
    return actual.dtype == expected.dtype and actual.shape == expected.shape and actual.tobytes() == expected.tobytes()


def random_uniform_model(op: RandomUniform, inputs: list[np.ndarray]) -> Model:
    model = Model("random")
    ports = [model.const(x, ElementType.from_numpy(x.dtype), name=f"c{i}") for i, x in enumerate(inputs)]
    node = model.add_node(op, "ru", ports)
    model.result(type(ports[0])(node.id, 0), name="out")
    return model


@OP_EXAMPLES
@given(data=st.data())
def test_random_uniform_matches_the_openvino_reference(data):
    element_type = data.draw(st.sampled_from(TYPES))
    low, high = data.draw(st.sampled_from(RANGES["f" if element_type.is_real else element_type]))
    shape = np.array(data.draw(st.lists(st.integers(0, 9), min_size=0, max_size=3)),
                     data.draw(st.sampled_from([np.int32, np.int64])))
    seeds = st.one_of(st.integers(0, 1000), st.integers(0, 2**62))
    op = RandomUniform(output_type=element_type, global_seed=data.draw(seeds), op_seed=data.draw(seeds) | 1,
                       alignment=data.draw(st.sampled_from(["tensorflow", "pytorch"])))
    inputs = [shape, *bounds(element_type, low, high)]
    outcome = check_op(op, inputs, same_op(op), constant=(0,), cpu=False)  # types, attribute order, no folding
    assert not outcome.refused and not outcome.reference
    expected = ov_evaluate(op, inputs)
    (got,) = op.evaluate(inputs)
    assert same_bits(got, expected), f"{op!r}: irgraph {got.ravel()[:6]} vs reference {expected.ravel()[:6]}"


@pytest.mark.parametrize("alignment", ["tensorflow", "pytorch"])
@pytest.mark.parametrize("element_type", CPU_EXACT + [ElementType.I64], ids=str)
def test_repeated_runs_continue_the_stream_as_the_cpu_plugin_does(element_type, alignment):
    """One Interpreter runs as one compiled model infers: openvino 2026.4.1's CPU plugin moves the Philox ``n``
    on by 256 per element each inference (TensorFlow's skip); PyTorch alignment restarts the twister every run.
    Its i64 are i32 numbers (see the named test) and its scaling an FMA: [0, 1) floats are exact either way. bf16
    where the CPU has no native bf16 (AVX2; the plugin's execution graph says f32): the f32 stream rounded."""
    if element_type is ElementType.I64 and alignment == "tensorflow":
        pytest.skip("the CPU plugin's TensorFlow i64 are i32 numbers: test_cpu_plugin_deviations")
    low, high = (-5, 100) if element_type.is_integral else (0.0, 1.0)  # exact with or without an FMA
    op = RandomUniform(output_type=element_type, global_seed=150, op_seed=10, alignment=alignment)
    inputs = [np.array([3, 41], np.int64), *bounds(element_type, low, high)]
    compiled = ov.Core().compile_model(ov.Model([same_op(op)(*map(ov_constant, inputs)).output(0)], [], "ru"),
                                       "CPU", CPU_CONFIG)
    request = compiled.create_infer_request()
    computed_in = cpu_plugin_float_precision(compiled, "RandomUniform") if element_type.is_real else None
    # No native bf16 (AVX2): the plugin draws f32 numbers and rounds them to bf16 (docs/oracles.md); irgraph's own
    # bf16 stream is judged by the reference above, on every CPU.
    widened = element_type is ElementType.BF16 and computed_in == "f32"
    assert widened or computed_in in (None, element_type.ir_name), f"{op!r} computed in {computed_in}"
    if widened:
        f32_inputs = [inputs[0], *bounds(ElementType.F32, low, high)]
        runner = Interpreter(random_uniform_model(dataclasses.replace(op, output_type=ElementType.F32), f32_inputs))
    else:
        runner = Interpreter(random_uniform_model(op, inputs))
    runs = []
    for _ in range(3):
        request.infer()
        expected = from_tensor(request.get_output_tensor(0))
        got = runner.run({})["out"]
        if widened:
            got = round_float(got, ml_dtypes.bfloat16)
        assert same_bits(got, expected), f"{op!r} computed in {computed_in} by the CPU plugin, run {len(runs)}"
        runs.append(got)
    assert (alignment == "pytorch") == same_bits(runs[0], runs[1])


def test_the_reference_moves_its_state_by_blocks_not_elements():
    """openvino 2026.4.1's reference evaluate moves ``n`` by 256 per block of four values (7 f32: 512), its CPU
    plugin by 256 per element (1792, as TensorFlow): irgraph's second run is the CPU plugin's."""
    op = RandomUniform(output_type=ElementType.F32, global_seed=150, op_seed=10)
    inputs = [np.array([7], np.int64), *bounds(ElementType.F32, 0, 1)]
    node = same_op(op)(*map(ov_constant, inputs))
    first, second = ov_evaluate(op, inputs, node), ov_evaluate(op, inputs, node)
    units = (philox_blocks(150, 10, 2, (512, 0)).reshape(-1)[:7] & 0x7FFFFF | 0x3F800000).view(np.float32) - 1
    assert same_bits(second, units.astype(np.float32))
    runner = Interpreter(random_uniform_model(op, inputs))
    assert same_bits(runner.run({})["out"], first)
    theirs = (philox_blocks(150, 10, 2, (7 * SKIP_PER_ELEMENT, 0)).reshape(-1)[:7] & 0x7FFFFF | 0x3F800000)
    assert same_bits(runner.run({})["out"], theirs.view(np.float32) - np.float32(1))


def test_the_offset_carries_into_the_counter_between_runs():
    """n is 64 bits: a run that moves it past 2**64 adds one to the counter, as the CPU plugin's state does."""
    op = RandomUniform(output_type=ElementType.F32, global_seed=150, op_seed=10)
    inputs = [np.array([4], np.int64), *bounds(ElementType.F32, 0, 1)]
    start = (2**64 - 512, 7)
    (values,), (seed, state) = op.evaluate_with_state(inputs, (150, start))
    assert seed == 150 and state == (512, 8)  # 2**64 - 512 + 4 * 256 wraps to 512
    bits = philox_blocks(150, 10, 1, start).reshape(-1)
    assert same_bits(values, ((bits & 0x7FFFFF) | 0x3F800000).view(np.float32) - np.float32(1))
    assert philox_blocks(150, 10, 1).tolist() == philox_blocks(150, 10, 1, (0, 10)).tolist()  # counter: op_seed


def test_cpu_plugin_deviations():
    """openvino 2026.4.1's CPU plugin generates f16 as f32 numbers rounded afterwards and i64 as i32 numbers
    (it computes i64 in 32 bits); its reference (and irgraph) draw f16 from 10 mantissa bits and i64 from two
    uint32. Its float scaling is one fused multiply-add (1 ULP, or an f32 eps where min cancels the product)."""
    core = ov.Core()

    def on_cpu(op, inputs):
        model = ov.Model([same_op(op)(*map(ov_constant, inputs)).output(0)], [], "ru")
        request = core.compile_model(model, "CPU", CPU_CONFIG).create_infer_request()
        request.infer()
        return from_tensor(request.get_output_tensor(0))

    shape = np.array([9], np.int64)
    half = RandomUniform(output_type=ElementType.F16, global_seed=150, op_seed=10)
    single = RandomUniform(output_type=ElementType.F32, global_seed=150, op_seed=10)
    low, high = bounds(ElementType.F16, -2, 3)
    (as_f32,) = single.evaluate([shape, low.astype(np.float32), high.astype(np.float32)])
    assert same_bits(on_cpu(half, [shape, low, high]), as_f32.astype(np.float16))
    assert not same_bits(half.evaluate([shape, low, high])[0], as_f32.astype(np.float16))
    wide = RandomUniform(output_type=ElementType.I64, global_seed=150, op_seed=10)
    narrow = RandomUniform(output_type=ElementType.I32, global_seed=150, op_seed=10)
    assert on_cpu(wide, [shape, np.int64(-5), np.int64(100)]).tolist() == narrow.evaluate(
        [shape, np.int32(-5), np.int32(100)])[0].tolist() == [95, 20, 86, 70, 62, 30, 45, 75, 25]
    assert wide.evaluate([shape, np.int64(-5), np.int64(100)])[0].tolist() == [90, 71, 97, 50, 31, 38, 64, 43, -1]
    inputs = [np.array([3, 41]), *bounds(ElementType.F32, -2, 3)]
    assert_values_close(single.evaluate(inputs)[0], on_cpu(single, inputs), Tolerance(ulp=1, eps=1), "f32 FMA")


def test_spec_examples():
    """The three TensorFlow-alignment examples of the RandomUniform-8 spec."""
    (got,) = RandomUniform(output_type=ElementType.F32, global_seed=150, op_seed=10).evaluate(
        [np.array([3, 3]), *bounds(ElementType.F32, 0, 1)])
    np.testing.assert_array_equal(got, np.array([[0.7011236, 0.30539632, 0.93931055], [0.9456035, 0.11694777,
                                                 0.50770056], [0.5197197, 0.22727466, 0.991374]], np.float32))
    (got,) = RandomUniform(output_type=ElementType.F64, global_seed=80, op_seed=100).evaluate(
        [np.array([2, 2]), *bounds(ElementType.F64, 2, 10)])
    np.testing.assert_allclose(got, [[5.65927959, 4.23122376], [2.67008206, 2.36423758]], rtol=1e-8)
    (got,) = RandomUniform(output_type=ElementType.I32, global_seed=80, op_seed=100).evaluate(
        [np.array([2, 3]), *bounds(ElementType.I32, 50, 100)])
    assert got.tolist() == [[65, 70, 56], [59, 82, 92]]


def test_an_interpreter_never_folds_it():
    """Constant inputs do not make a constant: each run draws new numbers, and shape inference gives no value."""
    op = RandomUniform(output_type=ElementType.I32, global_seed=1, op_seed=2)
    model = random_uniform_model(op, [np.array([4], np.int64), *bounds(ElementType.I32, 0, 1000)])
    infer_shapes(model)
    runner = Interpreter(model)
    first, second = runner.run({})["out"], runner.run({})["out"]
    assert first.tolist() == op.evaluate([np.array([4]), *bounds(ElementType.I32, 0, 1000)])[0].tolist()
    assert first.tolist() != second.tolist()
    assert Interpreter(model).run({})["out"].tolist() == first.tolist()  # a new Interpreter starts afresh


def test_zero_seeds_are_not_deterministic():
    """Both seeds 0: OpenVINO seeds from std::rand(); irgraph from the OS (two evaluations differ)."""
    op = RandomUniform(output_type=ElementType.I64)
    inputs = [np.array([8]), *bounds(ElementType.I64, 0, 2**60)]
    assert op.evaluate(inputs)[0].tolist() != op.evaluate(inputs)[0].tolist()


@pytest.mark.parametrize(("shape", "expected"), [("3", "[?,?,?]"), ("?", "[...]"), ("1..3", "[?,?,?]"),
                                                 ("...", "[...]")])
def test_unknown_shape_values_infer_as_openvino(shape, expected):
    op = RandomUniform(output_type=ElementType.F32, global_seed=1, op_seed=1)
    inputs = [tt(shape, "i64"), tt(""), tt("")]
    check_types(op, inputs, same_op(op))
    assert infer(op, inputs, [None, None, None]) == [expected]
    assert infer(op, [tt("2", "i64"), tt(""), tt("")], [np.array([2, -1]), None, None]) == ["[2,?]"]


def test_attributes_read_and_write_in_openvino_order():
    op = RandomUniform.from_attributes({"output_type": "f16", "global_seed": "234", "op_seed": "148"})
    assert op == RandomUniform(output_type=ElementType.F16, op_seed=148, global_seed=234, alignment="tensorflow")
    assert list(op.to_attributes()) == ["output_type", "op_seed", "global_seed", "alignment"]
    assert RandomUniform.from_attributes({"output_type": "f32", "alignment": "PYTORCH"}).evaluate(
        [np.array([2]), *bounds(ElementType.F32, 0, 1)])[0].dtype == np.float32  # any case, as OpenVINO reads it


@pytest.mark.parametrize(("inputs", "attributes", "message"), [
    ([np.array([2]), np.float32(1), np.float32(1)], {}, "Min value must be less than max value. Got min value: 1"),
    ([np.array([2]), np.float32(1), np.float32(np.nan)], {}, "Min value must be less than max value"),
    ([np.array([2]), np.int64(2**62), np.int64(2**62 + 1)], {"output_type": ElementType.I64},
     "Min value must be less than max value"),  # compared as doubles, as OpenVINO does
    ([np.array([2]), np.float16(0), np.float32(1)], {}, "'min_val' should have the same type as 'max_val'"),
    ([np.array([2]), np.uint8(0), np.uint8(3)], {}, "'min_val' and 'max_val' should have the same type"),
    ([np.array([2], np.float32), np.float32(0), np.float32(1)], {}, "Type of the input should be int32 or int64"),
    ([np.array([[2, 3]]), np.float32(0), np.float32(1)], {}, "The rank of the tensor defining output shape must be"),
    ([np.array([2]), np.array([0, 1], np.float32), np.float32(3)], {}, "Min value must be a scalar or one element"),
])
def test_refused_as_openvino_refuses(inputs, attributes, message):
    op = RandomUniform(**{"output_type": ElementType.F32, "global_seed": 1, "op_seed": 2, **attributes})
    arrays = [np.asarray(x) for x in inputs]
    assert check_op(op, arrays, same_op(op), constant=(0, 1, 2), cpu=False).refused
    with pytest.raises(IrError, match=message):
        infer_shapes(random_uniform_model(op, arrays))


def test_refused_attributes_and_run_time_values():
    with pytest.raises(OpError, match="'output_type' must be one of f16, bf16, f32, f64, i32, i64. Got: u8"):
        RandomUniform(output_type=ElementType.U8)
    with pytest.raises(OpError, match="'alignment' must be tensorflow or pytorch. Got: 'mock'"):
        RandomUniform(output_type=ElementType.F32, alignment="mock")
    with pytest.raises(OpError, match="'global_seed' must be an unsigned 64-bit integer. Got: -1"):
        RandomUniform(output_type=ElementType.F32, global_seed=-1)
    op = RandomUniform(output_type=ElementType.F32, global_seed=1)
    with pytest.raises(OpError, match="Min value must be less than max value. Got min value: 3, max value: 1"):
        op.evaluate([np.array([2]), np.float32(3), np.float32(1)])  # min and max known only at run time
    with pytest.raises(OpError, match=r"the output shape must not have negative dims \(-1 is a dynamic one\)"):
        infer(op, [tt("2", "i64"), tt(""), tt("")], [np.array([2, -3]), None, None])
    with pytest.raises(OpError, match="the output shape must not have negative dims. Got: \\[2, -1\\]"):
        op.evaluate([np.array([2, -1]), np.float32(0), np.float32(1)])


def test_bfloat16_scaling_rounds_each_operation():
    """bf16: ``(unit * (max - min)) + min`` with every operation rounded to bf16, as OpenVINO's operators do."""
    op = RandomUniform(output_type=ElementType.BF16, global_seed=7, op_seed=3)
    inputs = [np.array([64]), *bounds(ElementType.BF16, -3.3, 7.1)]
    (got,) = op.evaluate(inputs)
    assert got.dtype == ml_dtypes.bfloat16 and same_bits(got, ov_evaluate(op, inputs))


def test_f64_with_pytorch_alignment_matches_the_openvino_reference():
    """The pytorch f64 path: 53 bits of two joined uint32 scaled by 2**-53, bit for bit openvino 2026.4.1's
    reference evaluate; every value in [min, max)."""
    op = RandomUniform(output_type=ElementType.F64, global_seed=41, op_seed=7, alignment="pytorch")
    inputs = [np.array([3, 5], np.int64), *bounds(ElementType.F64, -2.5, 4.0)]
    (got,) = op.evaluate(inputs)
    assert same_bits(got, ov_evaluate(op, inputs))
    assert ((got >= -2.5) & (got < 4.0)).all()


def test_min_and_max_of_one_element_vectors_are_accepted_as_openvino_accepts_them():
    op = RandomUniform(output_type=ElementType.F32, global_seed=3, op_seed=5)
    inputs = [np.array([4], np.int64), np.array([-1.0], np.float32), np.array([2.0], np.float32)]
    assert not check_op(op, inputs, same_op(op), constant=(0,), cpu=False).refused
    assert infer(op, [tt("1", "i64"), tt("1"), tt("1")], [np.array([4]), None, None]) == ["[4]"]
    (got,) = op.evaluate(inputs)
    assert same_bits(got, ov_evaluate(op, inputs))


def test_a_shape_sub_graph_gives_its_bounds_to_the_output_shape():
    """RandomUniform(ShapeOf(x[1..3,4])): the shape input's bounds give [1..3,4], as openvino 2026.4.1 infers."""
    import openvino.opset3 as ov3
    import openvino.opset8 as ov8

    from irgraph.graph import OutputPort
    from irgraph.ops.shape.shape_of import ShapeOf3

    model = Model("bounded")
    x = model.parameter("x", "1..3,4")
    shape = OutputPort(model.add_node(ShapeOf3(), "shape", [x]).id, 0)
    low, high = bounds(ElementType.F32, 0, 1)
    node = model.add_node(RandomUniform(output_type=ElementType.F32, global_seed=1, op_seed=2), "ru",
                          [shape, model.const(low, ElementType.F32), model.const(high, ElementType.F32)])
    model.result(OutputPort(node.id, 0), name="out")
    infer_shapes(model)
    assert str(node.outputs[0].type.shape) == "[1..3,4]"
    ov_node = ov8.random_uniform(ov3.shape_of(ov8.parameter(ov.PartialShape("1..3,4"), np.float32)),
                                 ov_constant(low), ov_constant(high), "f32", 1, 2)
    assert str(ov_node.get_output_partial_shape(0)) == "[1..3,4]"
