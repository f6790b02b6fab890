"""The plan-time depthwise kernel (irgraph.ops.families.depthwise_kernels): which layers it takes, that it gives
evaluate's bits, the other kernels' sums within the tolerance and the per-tap kernel's exactly on exact sums,
that a run with and without the fast paths agree, and that GroupConvolution with constant depthwise filters still
matches OpenVINO's CPU plugin."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irgraph as ir
from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.convolution.convolution import Convolution
from irgraph.ops.convolution.group_convolution import GroupConvolution
from irgraph.ops.families import convolution_kernels as kernels
from irgraph.ops.families import depthwise_kernels as depthwise
from irgraph.runtime import _fast
from tests.ops.convolution.conv_cases import AUTO_PADS, tensor
from tests.ops.differential import OP_EXAMPLES, check_op, ov_ops

RNG = np.random.default_rng(2028)

# (data shape, filters (G, M, 1, *K), dilations, pads_begin, pads_end); strides are 1
CASES = [
    ((1, 6, 14, 14), (6, 1, 1, 3, 3), (1, 1), (1, 1), (1, 1)),  # ShuffleNet's layer, small
    ((2, 5, 7, 9), (5, 1, 1, 3, 3), (1, 1), (1, 1), (1, 1)),  # batch 2, odd sizes
    ((3, 4, 5, 6), (4, 2, 1, 3, 2), (1, 1), (0, 1), (2, 0)),  # batch 3, two outputs per channel, asymmetric pads
    ((1, 3, 9, 8), (3, 1, 1, 3, 3), (2, 3), (2, 0), (1, 3)),  # dilated
    ((1, 4, 11), (4, 1, 1, 5), (2,), (3,), (0,)),  # 1-D, padding at the start only
    ((1, 3, 4, 5, 6), (3, 1, 1, 2, 3, 2), (1, 2, 1), (1, 0, 1), (0, 2, 1)),  # 3-D
    ((1, 2, 3, 3), (2, 1, 1, 3, 3), (1, 1), (0, 0), (0, 0)),  # no padding, a 1x1 output
    ((1, 2, 2, 2), (2, 1, 1, 3, 3), (1, 1), (4, 4), (4, 4)),  # windows wholly in the padding
    ((1, 1, 6, 5), (1, 3, 1, 2, 2), (1, 1), (1, 0), (0, 1)),  # one channel, three outputs
    # outputs as wide as the data: the product is written straight into the output, wrapped taps zeroed
    ((1, 3, 10), (3, 1, 1, 3), (1,), (1,), (1,)),  # 1-D
    ((2, 4, 6, 8), (4, 1, 1, 3, 5), (1, 2), (1, 4), (1, 4)),  # dilated along the rows
    ((1, 2, 3, 2), (2, 1, 1, 3, 5), (1, 1), (1, 2), (1, 2)),  # rows 2 wide, taps reaching 2 past each end
    ((1, 3, 5, 4), (3, 1, 1, 3, 3), (1, 1), (2, 2), (0, 0)),  # all the padding before
    ((1, 3, 5, 4), (3, 1, 1, 3, 3), (1, 1), (0, 0), (2, 2)),  # all the padding after
    ((2, 3, 6, 6), (3, 2, 1, 3, 3), (1, 1), (0, 1), (2, 0)),  # two outputs per channel, narrower: padded rows
]
# (data shape, filters, strides, dilations, pads_begin, pads_end): strides above 1 read the stride phases
STRIDED = [
    ((1, 6, 14, 14), (6, 1, 1, 3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),  # MobileNet's and ShuffleNet's, small
    ((2, 5, 9, 7), (5, 1, 1, 5, 5), (2, 2), (1, 1), (2, 2), (2, 2)),  # 5x5, odd sizes: phases of unequal lengths
    ((1, 4, 11, 10), (4, 1, 1, 3, 2), (3, 2), (1, 1), (0, 1), (2, 0)),  # stride 3 by 2, asymmetric pads
    ((1, 3, 13, 12), (3, 1, 1, 3, 3), (2, 2), (2, 3), (2, 0), (1, 3)),  # dilation 2 on stride 2: one phase a row
    ((1, 4, 11), (4, 1, 1, 4), (2,), (3,), (3,), (0,)),  # 1-D, dilation 3 on stride 2
    ((1, 3, 5, 6, 7), (3, 1, 1, 2, 3, 2), (2, 1, 2), (1, 2, 1), (1, 0, 1), (0, 2, 1)),  # 3-D
    ((1, 2, 2, 2), (2, 1, 1, 3, 3), (2, 2), (1, 1), (4, 4), (4, 4)),  # windows wholly in the padding
    ((1, 2, 3, 3), (2, 1, 1, 2, 2), (4, 4), (1, 1), (0, 0), (0, 0)),  # a stride past the kernel: data never read
]


def _out_spatial(data_shape, weights_shape, dilations, begin, end, strides=None) -> tuple[int, ...]:
    strides = strides or (1,) * len(dilations)
    return tuple((n + b + e - (k - 1) * d - 1) // s + 1 for n, k, d, b, e, s in zip(
        data_shape[2:], weights_shape[3:], dilations, begin, end, strides, strict=True))


ALL_CASES = [(data, weights, (1,) * len(dilations), dilations, begin, end)
             for data, weights, dilations, begin, end in CASES] + STRIDED


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", ALL_CASES, ids=lambda value: None)
def test_the_bound_kernel_gives_evaluate_s_bits_and_the_taps_sums(case, dtype):
    """evaluate (the run without the fast paths) takes the same kernel, so the same bits; against the other
    kernels, which sum the taps' products in other orders (BLAS's), within the Convolution tolerance
    (docs/tolerances.md: 16 eps x sum|terms|), and exactly on small integers."""
    data_shape, weights_shape, strides, dilations, begin, end = case
    out_spatial = _out_spatial(data_shape, weights_shape, dilations, begin, end, strides)
    normal_data = RNG.standard_normal(data_shape).astype(dtype)
    normal_weights = RNG.standard_normal(weights_shape).astype(dtype)
    bound = depthwise.bound_depthwise(data_shape, np.dtype(dtype), normal_weights, strides, dilations, begin,
                                      out_spatial)
    assert bound is not None
    got = bound(normal_data)
    op = GroupConvolution(strides=strides, dilations=dilations, pads_begin=begin, pads_end=end)
    (expected,) = op.evaluate([normal_data, normal_weights])
    assert (got.dtype, got.shape, got.tobytes()) == (expected.dtype, expected.shape, expected.tobytes())
    assert got.flags.c_contiguous and got.base is None  # later steps may write over it
    windows = kernels.convolve_windows(normal_data, normal_weights, strides, dilations, begin, out_spatial)
    assert windows is not None
    terms = kernels.convolve_taps(np.abs(normal_data), np.abs(normal_weights), strides, dilations, begin, out_spatial)
    assert np.all(np.abs(got - windows) <= 16 * np.finfo(dtype).eps * terms)
    # small integers: every sum is exact, so the per-tap kernel's sums are the same bits
    data = RNG.integers(-4, 5, data_shape).astype(dtype)
    weights = RNG.integers(-4, 5, weights_shape).astype(dtype)
    bound = depthwise.bound_depthwise(data_shape, np.dtype(dtype), weights, strides, dilations, begin, out_spatial)
    assert bound is not None
    taps = kernels.convolve_taps(data, weights, strides, dilations, begin, out_spatial)
    np.testing.assert_array_equal(bound(data), taps)
    np.testing.assert_array_equal(bound(data + 0), taps)  # again: nothing is kept from the run before


def test_the_taps_sums_follow_the_kernel_s_order_within_a_phase():
    """Unit strides: one sum-of-products call over all the taps, in the kernel's row-major order, one rounding per
    product and per sum: the bits of a multiply and an add per tap (values whose sums round). NumPy 2.4's einsum
    loops are its baseline SIMD (x86-64-v2 in its wheels: no fused multiply-add on any CPU)."""
    data = RNG.standard_normal((1, 5, 6, 7)).astype(np.float32)
    weights = RNG.standard_normal((5, 1, 1, 3, 3)).astype(np.float32)
    bound = depthwise.bound_depthwise(data.shape, data.dtype, weights, (1, 1), (1, 1), (1, 1), (6, 7))
    assert bound is not None
    padded = np.pad(data, ((0, 0), (0, 0), (1, 1), (1, 1)))
    expected = np.zeros((1, 5, 6, 7), np.float32)
    for row in range(3):
        for column in range(3):
            expected += padded[:, :, row:row + 6, column:column + 7] * weights[:, 0, 0, row, column][:, None, None]
    np.testing.assert_array_equal(bound(data), expected)


def test_one_output_per_channel_reads_the_phases_and_several_the_copied_columns():
    """Several outputs per channel (unit strides only) keep the column kernels, measured faster for them; those
    of outputs as wide as their data write the product straight into the output (1-D and 2-D)."""
    kinds = [depthwise.bound_depthwise(case[0], np.dtype(np.float32), np.ones(case[1], np.float32), case[2], case[3],
                                       case[4], _out_spatial(case[0], case[1], *case[3:], case[2]))
             for case in ALL_CASES]
    names = [kind.__qualname__.split(".")[0] for kind in kinds if kind is not None]
    expected = ["_same_width" if case[1][1] > 1 and case[0][-1] == _out_spatial(case[0], case[1], *case[3:])[-1]
                and len(case[0]) <= 4 else "_padded_rows" if case[1][1] > 1 else "_by_phases" for case in ALL_CASES]
    assert names == expected
    assert (expected.count("_same_width"), expected.count("_padded_rows")) == (2, 1)


@pytest.mark.parametrize(("multiplier", "strides", "out_spatial"), [(1, (1, 1), (5, 7)), (1, (2, 2), (3, 4)),
                                                                   (2, (1, 1), (5, 7))])
def test_data_that_are_a_view_give_the_same_values(multiplier, strides, out_spatial):
    weights = RNG.standard_normal((4, multiplier, 1, 3, 3)).astype(np.float32)
    data = RNG.standard_normal((1, 4, 10, 7)).astype(np.float32)[:, :, ::2]  # not in C order
    bound = depthwise.bound_depthwise(data.shape, data.dtype, weights, strides, (1, 1), (1, 1), out_spatial)
    assert bound is not None
    expected = bound(np.ascontiguousarray(data))
    np.testing.assert_array_equal(bound(data), expected)
    np.testing.assert_array_equal(bound(np.asfortranarray(data)), expected)


WEIGHTS = RNG.standard_normal((4, 1, 1, 3, 3)).astype(np.float32)


@pytest.mark.parametrize(("data_shape", "dtype", "weights", "strides"), [
    ((1, 8, 8, 8), np.float32, RNG.standard_normal((4, 1, 2, 3, 3)).astype(np.float32), (1, 1)),  # 2 per group
    ((1, 4, 8, 8), np.float32, RNG.standard_normal((4, 2, 1, 3, 3)).astype(np.float32), (2, 2)),  # 2 outputs each,
    # strides above 1: bound_windows
    ((1, 4, 8, 8), np.float16, WEIGHTS.astype(np.float16), (1, 1)),  # f16 computes in f32: convolve_flat
    ((1, 4, 8, 8), np.int32, WEIGHTS.astype(np.int32), (1, 1)),  # integers wrap: convolve_flat
    ((1, 4, 8, 8), np.float32, WEIGHTS.astype(np.float64), (1, 1)),  # mixed dtypes
    ((1, 4, 8, 8), np.float32, WEIGHTS[..., :1, :1], (1, 1)),  # one tap: a 1x1 product
    ((0, 4, 8, 8), np.float32, WEIGHTS, (1, 1)),  # no batch
    ((1, 4, 8), np.float32, WEIGHTS, (1, 1)),  # weights of another rank
])
def test_other_layers_are_left_to_the_general_kernels(data_shape, dtype, weights, strides):
    count = len(data_shape) - 2
    out_spatial = tuple((n + 2 - 3) // s + 1 for n, s in zip(data_shape[2:], strides, strict=False))
    assert depthwise.bound_depthwise(data_shape, np.dtype(dtype), weights, strides, (1,) * count, (1,) * count,
                                     out_spatial) is None


def test_negative_pads_are_left_to_the_general_kernels():
    assert depthwise.bound_depthwise((1, 4, 8, 8), np.dtype(np.float32), WEIGHTS, (1, 1), (1, 1), (-1, 1),
                                     (6, 8)) is None


def test_buffers_past_the_budget_are_left_to_the_general_kernels(monkeypatch):
    """The same budget as the window copies: a phase buffer of 4 stride phases x 5 x 5 positions x 4 channels and
    9 taps' weights tiled 4 outputs x 4 channels wide make 544 elements, within max(limit, 16 * (data 256 +
    output 64)) and within a limit of 544 once the factor is 1, not within 543."""
    monkeypatch.setattr(depthwise, "WINDOW_COPY_LIMIT", 544)
    args = ((1, 4, 8, 8), np.dtype(np.float32), WEIGHTS, (2, 2), (1, 1), (1, 1), (4, 4))
    assert depthwise.bound_depthwise(*args) is not None
    monkeypatch.setattr(depthwise, "WINDOW_COPY_FACTOR", 1)
    assert depthwise.bound_depthwise(*args) is not None
    monkeypatch.setattr(depthwise, "WINDOW_COPY_LIMIT", 543)
    assert depthwise.bound_depthwise(*args) is None


def _bound_name(op, data_shape, weights_shape, constant=True) -> str:
    types = [TensorType(ElementType.F32, Shape.of(list(shape))) for shape in (data_shape, weights_shape)]
    known = [None, RNG.standard_normal(weights_shape).astype(np.float32) if constant else None]
    bound = op.bound_evaluate(types, known, op.infer(types, known))
    assert bound is not None
    return bound.__name__


def test_depthwise_layers_of_constant_filters_take_the_bound_kernel():
    def group(strides):
        return GroupConvolution(strides=strides, dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1))

    assert _bound_name(group((1, 1)), (1, 8, 14, 14), (8, 1, 1, 3, 3)) == "by_depthwise"
    assert _bound_name(group((2, 2)), (1, 8, 14, 14), (8, 1, 1, 3, 3)) == "by_depthwise"
    assert _bound_name(group((1, 1)), (1, 8, 14, 14), (8, 1, 1, 3, 3), constant=False) == "convolved"
    assert _bound_name(group((1, 1)), (1, 8, 14, 14), (2, 1, 4, 3, 3)) == "convolved"  # shifted taps
    # a Convolution of one input channel is depthwise as well: (O, 1, *K) are one group of O outputs
    single = Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1))
    assert _bound_name(single, (1, 1, 9, 9), (3, 1, 3, 3)) == "by_depthwise"


def _depthwise_model(data_shape, weights, strides) -> ir.Model:
    model = ir.Model("depthwise")
    x = model.parameter("x", list(data_shape))
    op = GroupConvolution(strides=strides, dilations=(1, 2), pads_begin=(1, 2), pads_end=(1, 0))
    node = model.add_node(op, "dw", [x, model.const(weights)])
    model.result(ir.OutputPort(node.id, 0), name="y")
    return model


@pytest.mark.parametrize("strides", [(1, 1), (2, 2)])
def test_a_run_with_and_without_the_fast_paths_gives_the_same_bits(monkeypatch, strides):
    weights = RNG.standard_normal((6, 1, 1, 3, 3)).astype(np.float32)
    data = RNG.standard_normal((2, 6, 9, 11)).astype(np.float32)
    runs = []
    for enabled in (True, False):
        monkeypatch.setattr(_fast, "ENABLED", enabled)
        interpreter = ir.Interpreter(_depthwise_model(data.shape, weights, strides))
        first = interpreter.run({"x": data})["y"]
        second = interpreter.run({"x": data})["y"]
        assert first is not second and first.tobytes() == second.tobytes()
        runs.append(first.tobytes())
    assert runs[0] == runs[1]


@OP_EXAMPLES
@given(st.data())
def test_depthwise_group_convolution_of_constant_filters_matches_openvino(data):
    """Constant filters: the layers the bound kernel takes (the general differential test feeds the
    filters as a Parameter), judged by OpenVINO's CPU plugin (f32) or the formulation (f64)."""
    count = data.draw(st.integers(1, 3))
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F64]))
    ints = lambda low, high: data.draw(st.lists(st.integers(low, high), min_size=count, max_size=count))  # noqa: E731
    attributes = {"strides": ints(1, 2), "dilations": ints(1, 2), "pads_begin": ints(0, 2), "pads_end": ints(0, 2),
                  "auto_pad": data.draw(st.sampled_from(AUTO_PADS))}
    batch, channels, multiplier = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 5)), data.draw(
        st.integers(1, 2))
    spatial = [data.draw(st.integers(1, 9 if count < 3 else 4)) for _ in range(count)]
    kernel = [data.draw(st.integers(1, 3)) for _ in range(count)]
    x = tensor(data, element_type, (batch, channels, *spatial))
    w = tensor(data, element_type, (channels, multiplier, 1, *kernel))
    op = GroupConvolution(**{k: tuple(v) if isinstance(v, list) else v for k, v in attributes.items()})

    def ov_group_convolution(x, w):
        return ov_ops.group_convolution(x, w, attributes["strides"], attributes["pads_begin"], attributes["pads_end"],
                                        attributes["dilations"], attributes["auto_pad"])

    check_op(op, [x, w], ov_group_convolution, constant=(1,))
