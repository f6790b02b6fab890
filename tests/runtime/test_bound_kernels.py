"""The kernels of issue 28 item 7 and the bound evaluates of the ops a transformer spends its time in (Gelu, MVN,
Gather, convolutions): each bound evaluate gives ``evaluate``'s arrays bit for bit, Gelu's table erf stays within
half an f64 ULP of 1 of libm's, and a bound step compiled into a straight-line run still reports an error at its
layer."""

from __future__ import annotations

import math

import numpy as np
import pytest

import irgraph as ir
from irgraph.core.element_types import ElementType
from irgraph.core.errors import EvaluationError
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.activation.gelu import Gelu2, Gelu7, erf_by_table, gelu_erf
from irgraph.ops.convolution.binary_convolution import BinaryConvolution
from irgraph.ops.convolution.convolution import Convolution
from irgraph.ops.convolution.group_convolution import GroupConvolution
from irgraph.ops.families import convolution_kernels as kernels
from irgraph.ops.movement.gather import Gather, Gather8
from irgraph.ops.normalization.mvn import MVN, MVN6
from irgraph.runtime._fast import ufunc_steps
from irgraph.runtime.plan import Step

RNG = np.random.default_rng(28)


def _normal(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


@pytest.mark.parametrize(("op", "arrays", "constants"), [
    (Gelu7(), [_normal(2, 16, 64, scale=3.0)], ()),
    (Gelu7(approximation_mode="tanh"), [_normal(3, 5)], ()),
    (Gelu2(), [_normal(7).astype(np.float64)], ()),
    (MVN6(eps=1e-5, normalize_variance=True, eps_mode="inside_sqrt"), [_normal(2, 7, 32), np.array([-1], np.int32)],
     (1,)),
    (MVN6(eps=1e-3, normalize_variance=True, eps_mode="outside_sqrt"), [_normal(2, 3, 4, 5), np.array([1, 3])], (1,)),
    (MVN6(eps=1e-5, normalize_variance=False, eps_mode="inside_sqrt"), [_normal(2, 3, 4), np.array([0, 2])], (1,)),
    (MVN(eps=1e-9, across_channels=True), [_normal(2, 3, 4).astype(np.float16)], ()),
    (Gather8(), [_normal(100, 32), RNG.integers(-100, 100, (2, 7)).astype(np.int32), np.array(0)], (2,)),
    (Gather8(), [_normal(10, 4), np.array([[3, 10], [-11, 0]]), np.array(0)], (2,)),  # out of range: zeros
    (Gather(), [_normal(2, 7, 32), np.array(6), np.array(-2)], (2,)),
    (Convolution(strides=(1,), dilations=(1,), pads_begin=(1,), pads_end=(1,)), [_normal(2, 8, 32), _normal(32, 8, 3)],
     (1,)),
    (Convolution(strides=(2, 2), dilations=(1, 1), pads_begin=(1, 0), pads_end=(1, 1)),
     [_normal(1, 3, 9, 8), _normal(4, 3, 3, 3)], ()),
    (GroupConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1)),
     [_normal(1, 6, 7, 7), _normal(6, 1, 1, 3, 3)], (1,)),
    (GroupConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0)),
     [_normal(1, 8, 5, 5), _normal(4, 3, 2, 1, 1)], (1,)),
    (GroupConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0)),  # a view's data
     [_normal(1, 8, 10, 5)[:, :, ::2], _normal(4, 3, 2, 1, 1)], (1,)),
    (Convolution(strides=(2, 1), dilations=(1, 2), pads_begin=(0, 0), pads_end=(0, 0)),
     [_normal(2, 3, 9, 8), _normal(4, 3, 3, 2)], (1,)),
    (Convolution(strides=(2, 1), dilations=(1, 2), pads_begin=(0, 0), pads_end=(0, 0)),  # not in C order
     [_normal(2, 3, 8, 9).swapaxes(2, 3), _normal(4, 3, 3, 2)], (1,)),
    (GroupConvolution(strides=(2, 1), dilations=(1, 2), pads_begin=(1, 2), pads_end=(0, 1)),  # batch 2, 3 groups
     [_normal(2, 6, 9, 10), _normal(3, 2, 2, 3, 2)], (1,)),
    (Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1)),  # several bands
     [_normal(1, 4, 600, 600), _normal(2, 4, 3, 3)], (1,)),
])
def test_a_bound_evaluate_gives_evaluate_s_arrays(op, arrays, constants):
    types = [TensorType(ElementType.from_numpy(a.dtype), Shape.of(list(a.shape))) for a in arrays]
    known = [a if index in constants else None for index, a in enumerate(arrays)]
    bound = op.bound_evaluate(types, known, op.infer(types, known))
    assert bound is not None
    with np.errstate(all="ignore"):  # as the run calls it
        (got,) = bound(arrays)
    (expected,) = op.evaluate(arrays)
    assert (got.dtype, got.shape, got.tobytes()) == (expected.dtype, expected.shape, expected.tobytes())


def test_bound_evaluates_are_not_offered_for_what_the_run_must_work_out():
    assert Gelu7().bound_evaluate([TensorType(ElementType.F16, Shape.of([3]))], [None], []) is None  # via f32
    data, axes = TensorType(ElementType.F32, Shape.of([2, 3])), TensorType(ElementType.I64, Shape.of([1]))
    mvn = MVN6(eps=1e-5, normalize_variance=True, eps_mode="inside_sqrt")
    assert mvn.bound_evaluate([data, axes], [None, None], [data]) is None  # axes computed by the run
    indices, axis = TensorType(ElementType.U64, Shape.of([2])), TensorType(ElementType.I64, Shape.of([]))
    gathered = TensorType(ElementType.F32, Shape.of([2, 3]))
    assert Gather8().bound_evaluate([data, indices, axis], [None, None, np.array(0)], [gathered]) is None
    binary = BinaryConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0),
                               mode="xnor-popcount", pad_value=0.0)  # a Convolution with an evaluate of its own
    types = [TensorType(ElementType.F32, Shape.of([1, 2, 3, 3])), TensorType(ElementType.U1, Shape.of([1, 2, 1, 1]))]
    assert binary.bound_evaluate(types, [None, np.ones((1, 2, 1, 1), np.uint8)], binary.infer(types, [None, None])) \
        is None


def test_erf_by_table_is_within_half_an_ulp_of_one_of_libm_s_erf():
    """What 1 + erf needs (Gelu's only use of it); near 0 its relative error is larger, and no matter there."""
    arguments = np.concatenate([RNG.uniform(-6.5, 6.5, 20_000), RNG.uniform(-0.05, 0.05, 5_000),
                                [0.0, 5e-324, 1e-300, 1 / 128, 6.0, 5.999, 30.0, np.inf]])
    arguments = np.concatenate([arguments, -arguments])
    expected = np.array([math.erf(value) for value in arguments])
    got = erf_by_table(arguments)
    assert np.array_equal(np.signbit(got), np.signbit(expected))
    assert np.max(np.abs(got - expected)) <= np.spacing(1.0) / 2


def test_gelu_of_f32_rounds_as_libm_s_erf_does_away_from_the_left_tail():
    """Below -3, 1 + erf cancels and the f64 ULPs of any erf show (the tolerance's eps covers them)."""
    x = RNG.uniform(-3, 8, 50_000).astype(np.float32)
    wide = x.astype(np.float64)
    erf = np.array([math.erf(value) for value in wide / np.sqrt(2.0)])
    expected = ((erf + 1.0) * wide * 0.5).astype(np.float32)
    np.testing.assert_array_equal(gelu_erf(x), expected)
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0], np.float32)
    with np.errstate(all="ignore"):
        got = gelu_erf(specials)
    np.testing.assert_array_equal(got, [np.inf, np.nan, np.nan, 0.0, -0.0])
    assert np.signbit(got[4])


def test_a_compiled_bound_step_s_error_names_its_layer():
    model = ir.Model("m")
    x = model.parameter("x", [2, 3])
    node = model.add_node(Gather8(), "pick", [x, model.const(np.array([1, 0])), model.const(np.int64(0))])
    model.result(ir.OutputPort(node.id, 0), name="y")
    interpreter = ir.Interpreter(model)
    assert not any(type(step) is Step for step in interpreter._program)  # the Gather runs compiled
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(interpreter.run({"x": data})["y"], data[[1, 0]])

    def failing(arrays):
        raise ir.OpError("no such thing")

    (step,) = interpreter._plan
    interpreter._program = ufunc_steps.compiled_program([step.replace(evaluate=failing)])
    with pytest.raises(EvaluationError, match="no such thing") as caught:
        interpreter.run({"x": data})
    assert node.location is not None and caught.value.location == node.location


def test_convolutions_of_one_band_and_1x1_ones_take_the_bound_window_kernel():
    def bound(op, data, filters):
        types = [TensorType(ElementType.F32, Shape.of(list(shape))) for shape in (data, filters)]
        known = [None, _normal(*filters)]
        return op.bound_evaluate(types, known, op.infer(types, known))

    padded = Convolution(strides=(1,), dilations=(1,), pads_begin=(1,), pads_end=(1,))
    pointwise = GroupConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0))
    assert bound(padded, (2, 8, 32), (32, 8, 3)).__name__ == "by_windows"
    assert bound(pointwise, (1, 8, 5, 5), (4, 3, 2, 1, 1)).__name__ == "by_windows"
    assert bound(padded, (2, 8, 32), (4, 8, 3)).__name__ == "convolved"  # fewer outputs: shifted taps
    assert bound(Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1)), (1, 4, 600, 600),
                 (2, 4, 3, 3)).__name__ == "convolved"  # several bands


def test_bound_steps_of_large_outputs_stay_in_the_interpreter_s_loop():
    """Compiled runs take small bound steps only (ufunc_steps.BOUND_OUTPUT_LIMIT): the loop's overhead is nothing
    next to a large one, and a compiled run's order of frees made glibc fault pages in again."""
    model = ir.Model("m")
    x = model.parameter("x", [2, ufunc_steps.BOUND_OUTPUT_LIMIT])
    small = model.parameter("s", [2, 3])
    for name, source in (("big", x), ("small", small)):
        node = model.add_node(Gather8(), name, [source, model.const(np.array([1, 0])), model.const(np.int64(0))])
        model.result(ir.OutputPort(node.id, 0), name=name)
    interpreter = ir.Interpreter(model)
    assert [step.node.name for step in interpreter._program if type(step) is Step] == ["big"]
    outputs = interpreter.run({"x": np.ones((2, ufunc_steps.BOUND_OUTPUT_LIMIT), np.float32),
                               "s": np.arange(6, dtype=np.float32).reshape(2, 3)})
    np.testing.assert_array_equal(outputs["small"], np.arange(6, dtype=np.float32).reshape(2, 3)[[1, 0]])


def _small_integers(*shape: int) -> np.ndarray:
    """f32 values in -2..2: every product and sum of them is exact, so any summing order gives the same bits."""
    return RNG.integers(-2, 3, shape).astype(np.float32)


# (data, weights (G, Co, Ci, *K), strides, pads_begin, output sizes, whether the window copy is allowed): the limits
# of WINDOW_COPY_LIMIT (4 Mi elements, 16 MiB of f32) and WINDOW_COPY_FACTOR (16x the data plus the output).
WINDOW_LIMIT_CASES = [
    ((1, 1, 5119), (1, 1, 1, 4096), (1,), (0,), (1024,), True),  # columns 4096 * 1024 = 2^22: the limit itself
    ((1, 1, 5120), (1, 1, 1, 4097), (1,), (0,), (1024,), False),  # 4097 * 1024 columns: 1024 too many
    ((1, 2, 4), (1, 1, 2, 2), (2**21 - 2,), (1,), (2,), True),  # a padded copy of 2 * 2^21 = 2^22: the limit
    ((1, 2, 4), (1, 1, 2, 2), (2**21 - 1,), (1,), (2,), False),  # a padded copy of 2 * (2^21 + 1): 2 too many
    # 64 * 65 * 1024 columns, above 2^22 but within 16 * (data 64 * 1088 + output 64 * 4 * 1024) = 5308416
    ((1, 64, 1088), (64, 4, 1, 65), (1,), (0,), (1024,), True),
]


@pytest.mark.parametrize(("data_shape", "weights_shape", "strides", "pads_begin", "out_spatial", "allowed"),
                         WINDOW_LIMIT_CASES)
def test_window_copies_stay_within_4_mi_elements_or_16_times_the_data_and_output(
        data_shape, weights_shape, strides, pads_begin, out_spatial, allowed):
    """The window kernels refuse (None: the per-tap kernel runs) a copy past the budget and take one up to it; the
    plan-time kernel decides as the run-time one does, and both give the per-tap kernel's values."""
    data, weights = _small_integers(*data_shape), _small_integers(*weights_shape)
    dilations = (1,) * len(strides)
    windows = kernels.convolve_windows(data, weights, strides, dilations, pads_begin, out_spatial)
    bound = kernels.bound_windows(data.shape, data.dtype, weights, strides, dilations, pads_begin, out_spatial)
    assert (windows is not None, bound is not None) == (allowed, allowed)
    if allowed:
        expected = kernels.convolve_taps(data, weights, strides, dilations, pads_begin, out_spatial)
        np.testing.assert_array_equal(windows, expected)
        np.testing.assert_array_equal(bound(data), expected)


# (data, weights (G, Co, Ci, *K), pads_begin, the output columns each band's product has): bands of at most
# max(COLUMN_CHUNK = 2^18, data + output) column elements, as few as that allows.
BAND_CASES = [
    # 2 * 520 * 129 data + 2 * 2 * 520 * 128 output = 400400 elements: 782 rows of 2 * 2 * 128 columns, all 520 rows
    ((1, 2, 520, 129), (2, 2, 1, 1, 2), (0, 0), [520 * 128]),
    # 2^18 // (4 * 9 * 100) = 72 rows of 100 positions a band (the data and output, 60000, are fewer)
    ((1, 4, 100, 100), (1, 2, 4, 3, 3), (1, 1), [72 * 100, 28 * 100]),
    # 2^18 // (2 * 3 * 2 * 4 * 40) = 136 rows, more than the 48 there are
    ((2, 6, 49, 41), (3, 2, 2, 2, 2), (0, 0), [48 * 40]),
]


@pytest.mark.parametrize(("data_shape", "weights_shape", "pads_begin", "band_columns"), BAND_CASES)
def test_window_copies_come_in_as_few_bands_as_the_column_budget_allows(monkeypatch, data_shape, weights_shape,
                                                                         pads_begin, band_columns):
    """Checked by the products' widths (the band is invisible in the values); the plan-time kernel takes the
    layers of one band only and gives their values bit for bit."""
    data, weights = _normal(*data_shape), _normal(*weights_shape)
    strides = dilations = (1, 1)
    out_spatial = tuple(n + 2 * p - k + 1 for n, p, k in zip(data_shape[2:], pads_begin, weights_shape[3:],
                                                              strict=True))
    widths = []
    matmul = np.matmul

    def recording(first, second, **options):
        widths.append(second.shape[-1])
        return matmul(first, second, **options)

    monkeypatch.setattr(np, "matmul", recording)
    expected = kernels.convolve_windows(data, weights, strides, dilations, pads_begin, out_spatial)
    assert widths == band_columns
    monkeypatch.setattr(np, "matmul", matmul)
    bound = kernels.bound_windows(data.shape, data.dtype, weights, strides, dilations, pads_begin, out_spatial)
    assert (bound is not None) == (len(band_columns) == 1)
    if bound is not None:
        got = bound(data)
        assert (got.dtype, got.shape, got.tobytes()) == (expected.dtype, expected.shape, expected.tobytes())
