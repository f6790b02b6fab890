"""The forward convolutions' evaluation paths: one matmul over copied windows (im2col), one matmul over windows
copied from the flattened padded data (depthwise, unit strides), one matmul of all taps' weights followed by
shifted adds (fewer output than input channels), and one matmul per kernel tap. They must
agree (the tap path is the one the differential tests checked first), and copies that
would be large against the data and the output must send evaluation to the tap path."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from irgraph.ops.convolution.convolution import Convolution
from irgraph.ops.convolution.convolution_backprop_data import ConvolutionBackpropData
from irgraph.ops.convolution.group_convolution import GroupConvolution
from irgraph.ops.families import convolution_kernels as family

CASES = [
    # (data shape, filters shape, strides, dilations, pads_begin, pads_end, grouped)
    ((1, 3, 9, 9), (4, 3, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1), False),
    ((2, 4, 8, 7), (5, 4, 1, 1), (1, 1), (1, 1), (0, 0), (0, 0), False),  # 1x1: the data are the columns
    ((1, 4, 8, 7), (5, 4, 1, 1), (2, 2), (1, 1), (0, 0), (0, 0), False),  # 1x1 strided
    ((2, 3, 11, 10), (6, 3, 3, 2), (2, 3), (2, 1), (3, 0), (1, 2), False),
    ((1, 2, 7), (3, 2, 3), (2,), (1,), (0,), (5,), False),  # padding at the end only
    ((1, 2, 5, 4, 6), (3, 2, 2, 3, 1), (1, 2, 1), (1, 1, 2), (1, 0, 2), (0, 1, 0), False),
    ((2, 6, 9, 9), (3, 2, 2, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1), True),  # 3 groups
    ((1, 8, 6, 6), (8, 1, 1, 3, 3), (2, 2), (1, 1), (1, 1), (1, 1), True),  # depthwise
    ((1, 2, 4, 4), (1, 2, 3, 3), (1, 1), (1, 1), (7, 7), (7, 7), False),  # windows wholly in the padding
    ((2, 8, 6, 5), (3, 8, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1), False),  # fewer outputs than inputs: shifted
    ((1, 6, 9, 8), (2, 2, 3, 2, 3), (1, 1), (2, 1), (2, 0), (1, 3), True),  # shifted, groups, dilation, pads
    ((1, 4, 15), (1, 4, 5), (1,), (3,), (0,), (0,), False),  # shifted, dilated, no padding
    ((2, 6, 7, 5), (6, 1, 1, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1), True),  # depthwise, unit strides: flat
    ((1, 4, 9), (4, 1, 1, 3), (1,), (2,), (2,), (0,), True),  # flat, 1-D, dilated, padding at the start only
    ((1, 3, 4, 5, 6), (3, 1, 1, 2, 3, 2), (1, 1, 1), (1, 2, 1), (1, 0, 1), (0, 2, 1), True),  # flat, 3-D
    ((1, 3, 6, 6), (3, 2, 1, 3, 3), (1, 1), (1, 1), (0, 1), (2, 0), True),  # flat, two outputs per channel
    ((1, 1, 6, 7), (2, 1, 2, 3), (1, 1), (2, 1), (0, 0), (0, 0), False),  # flat: one input channel, no padding
]


def _evaluate(case, dtype) -> tuple[np.ndarray, np.ndarray]:
    """The op's result (windows or shifted products) and the per-tap path's."""
    data_shape, filter_shape, strides, dilations, begin, end, grouped = case
    rng = np.random.default_rng(len(data_shape) + sum(filter_shape))
    data = rng.integers(-8, 8, data_shape).astype(dtype)
    filters = rng.integers(-8, 8, filter_shape).astype(dtype)
    kind = GroupConvolution if grouped else Convolution
    op = kind(strides=strides, dilations=dilations, pads_begin=begin, pads_end=end)
    (windows,) = op.evaluate([data, filters])
    weights = op.grouped_weights(filters)
    (shape,) = op.output_shapes([data, filters])
    taps = family.convolve_taps(data, weights, strides, dilations, begin, shape[2:])
    return windows, taps


@pytest.mark.parametrize(("case", "dtype"), list(itertools.product(CASES, [np.float32, np.int32, np.float16])),
                         ids=lambda value: getattr(value, "__name__", None))
def test_windows_and_taps_agree(case, dtype):
    windows, taps = _evaluate(case, dtype)  # small integers: every sum is exact in each dtype, so equal bits
    assert windows.dtype == taps.dtype == np.dtype(dtype)
    assert windows.flags.c_contiguous
    np.testing.assert_array_equal(windows, taps)


def test_large_copies_take_the_tap_path(monkeypatch):
    # a 1 x 1 output from a 1,000,000-wide padding: the padded copy would hold a million elements for one
    op = Convolution(strides=(1,), dilations=(1,), pads_begin=(1_000_000,), pads_end=(0,))
    data, filters = np.ones((1, 1, 1), np.float32), np.ones((1, 1, 1_000_001), np.float32)
    monkeypatch.setattr(family, "WINDOW_COPY_LIMIT", 1000)
    assert family.convolve_windows(data, filters[None], (1,), (1,), (1_000_000,), (1,)) is None
    assert family.convolve_shifted(data, filters[None], (1,), (1_000_000,), (1,)) is None
    assert family.convolve_flat(data, filters[None], (1,), (1_000_000,), (1,)) is None
    (result,) = op.evaluate([data, filters])
    assert result.tolist() == [[[1.0]]]


@pytest.mark.parametrize("chunk", [1, 40])
@pytest.mark.parametrize("case", CASES, ids=lambda value: None)
def test_windows_copied_a_band_of_rows_at_a_time_agree(monkeypatch, case, chunk):
    """Columns made one band of output rows at a time (one row when the chunk is 1 element) give the same
    values, written into their own rows of the output."""
    monkeypatch.setattr(family, "COLUMN_CHUNK", chunk)
    monkeypatch.setattr(family, "BAND_POSITIONS", 1)
    windows, taps = _evaluate(case, np.float32)
    assert windows.flags.c_contiguous
    np.testing.assert_array_equal(windows, taps)


# bf16 and f64 convolutions are never folded by openvino 2026.4.1 and its CPU plugin computes neither in its
# own width, so these are hand-worked: the exact sum in f64, rounded once to the output type. The sums run over
# kernel taps, which the shifted and per-tap paths add one tap at a time.
TINY = 2.0**-8  # bf16 keeps 8 bits: 1 + 2^-8 ties to the even 1, 1 + 2^-7 is exact


def _one_channel_of_two(values, dtype):
    return np.array([values, [0.0] * len(values)], dtype)[None]


@pytest.mark.parametrize("kind", ["forward", "grouped"])
@pytest.mark.parametrize(("dtype", "values", "expected"), [
    # 1 + 2^-8 + 2^-8 summed in f32 and rounded once: 1 + 2^-7; rounded to bf16 after each tap: 1
    (ml_dtypes.bfloat16, [1.0, TINY, TINY], 1 + 2.0**-7),
    # 1 + 2^-30 is exact in f64 and 1 in f32
    (np.float64, [1.0, 2.0**-30, 0.0], 1 + 2.0**-30),
], ids=["bf16", "f64"])
def test_bf16_sums_in_f32_and_f64_in_f64(kind, dtype, values, expected):
    """A 3-tap kernel of ones over one of two channels (fewer outputs than inputs: the shifted path)."""
    data = _one_channel_of_two(values, dtype)
    ones = dict(strides=(1,), dilations=(1,), pads_begin=(0,), pads_end=(0,))
    op = Convolution(**ones) if kind == "forward" else GroupConvolution(**ones)
    filters = np.ones((1, 2, 3) if kind == "forward" else (1, 1, 2, 3), dtype)
    (result,) = op.evaluate([data, filters])
    assert result.dtype == np.dtype(dtype) and result.shape == (1, 1, 1)
    assert float(result[0, 0, 0]) == expected


@pytest.mark.parametrize(("dtype", "values", "expected"), [
    # positions sum d0; d0+d1; d0+d1+d2; d1+d2; d2 in f32, each rounded once to bf16
    (ml_dtypes.bfloat16, [TINY, TINY, 1.0], [TINY, 2 * TINY, 1 + 2 * TINY, 1.0, 1.0]),
    (np.float64, [2.0**-30, 0.0, 1.0], [2.0**-30, 2.0**-30, 1 + 2.0**-30, 1.0, 1.0]),
], ids=["bf16", "f64"])
def test_transposed_bf16_sums_in_f32_and_f64_in_f64(dtype, values, expected):
    """ConvolutionBackpropData adds each tap's products into the output one tap at a time."""
    op = ConvolutionBackpropData(strides=(1,), dilations=(1,), pads_begin=(0,), pads_end=(0,))
    (result,) = op.evaluate([np.array(values, dtype).reshape(1, 1, 3), np.ones((1, 1, 3), dtype)])
    assert result.dtype == np.dtype(dtype)
    assert [float(v) for v in result.ravel()] == expected


@pytest.mark.parametrize("case", CASES, ids=lambda value: None)
def test_each_path_runs_its_cases_and_agrees_with_the_taps(case):
    """The window and shifted paths called directly: neither declines these small cases (their copies are far
    below the limits), and each gives the per-tap path's values, so a path cannot hide behind another."""
    data_shape, filter_shape, strides, dilations, begin, end, grouped = case
    rng = np.random.default_rng(len(data_shape) + sum(filter_shape))
    data = rng.integers(-8, 8, data_shape).astype(np.float32)
    filters = rng.integers(-8, 8, filter_shape).astype(np.float32)
    op = (GroupConvolution if grouped else Convolution)(strides=strides, dilations=dilations, pads_begin=begin,
                                                       pads_end=end)
    weights = op.grouped_weights(filters)
    (shape,) = op.output_shapes([data, filters])
    taps = family.convolve_taps(data, weights, strides, dilations, begin, shape[2:])
    windows = family.convolve_windows(data, weights, strides, dilations, begin, shape[2:])
    assert windows is not None
    np.testing.assert_array_equal(windows, taps)
    if all(s == 1 for s in strides):
        shifted = family.convolve_shifted(data, weights, dilations, begin, shape[2:])
        assert shifted is not None
        np.testing.assert_array_equal(shifted, taps)
        flat = family.convolve_flat(data, weights, dilations, begin, shape[2:])
        assert flat is not None and flat.flags.c_contiguous and flat.base is None
        np.testing.assert_array_equal(flat, taps)


@pytest.mark.parametrize(("data_shape", "filter_shape", "expected"), [
    ((0, 2, 5), (3, 2, 3), (0, 3, 3)),  # no batch
    ((1, 0, 5), (3, 0, 3), (1, 3, 3)),  # no input channels: every output is an empty sum, 0
    ((1, 2, 5), (0, 2, 3), (1, 0, 3)),  # no filters
])
def test_empty_operands_give_the_empty_sums(data_shape, filter_shape, expected):
    op = Convolution(strides=(1,), dilations=(1,), pads_begin=(0,), pads_end=(0,))
    (result,) = op.evaluate([np.ones(data_shape, np.float32), np.ones(filter_shape, np.float32)])
    np.testing.assert_array_equal(result, np.zeros(expected, np.float32))


def test_window_budget_counts_the_output_as_well_as_the_data(monkeypatch):
    """Beyond WINDOW_COPY_LIMIT the columns may be WINDOW_COPY_FACTOR x (data + output): a 5x5 kernel over an
    8x8 plane copies 25 x 64 = 1600 column values, more than 16 x 64 of data alone, within 16 x (64 + 128)."""
    monkeypatch.setattr(family, "WINDOW_COPY_LIMIT", 1)
    data = np.arange(64, dtype=np.float32).reshape(1, 1, 8, 8)
    weights = np.ones((1, 2, 1, 5, 5), np.float32)
    windows = family.convolve_windows(data, weights, (1, 1), (1, 1), (2, 2), (8, 8))
    assert windows is not None
    np.testing.assert_array_equal(windows, family.convolve_taps(data, weights, (1, 1), (1, 1), (2, 2), (8, 8)))


def test_a_padded_copy_beyond_the_budget_takes_the_tap_path(monkeypatch):
    """Stride 1000 with 1000 of end padding: 2 column values, but the padded copy would span 1001 (beyond
    16 x (1 + 2)), so the window path declines; the taps give x * w, then 0 for the window in the padding."""
    monkeypatch.setattr(family, "WINDOW_COPY_LIMIT", 1)
    data, weights = np.array([[[5.0]]], np.float32), np.array([[[[3.0]]]], np.float32)
    assert family.convolve_windows(data, weights, (1000,), (1,), (0,), (2,)) is None
    op = Convolution(strides=(1000,), dilations=(1,), pads_begin=(0,), pads_end=(1000,))
    (result,) = op.evaluate([data, weights[0]])
    assert result.tolist() == [[[15.0, 0.0]]]


def test_shifted_products_of_exactly_the_limit_are_allowed(monkeypatch):
    """WINDOW_COPY_LIMIT elements are always allowed: 3 taps x 1 output x 5 positions = 15 products."""
    monkeypatch.setattr(family, "WINDOW_COPY_LIMIT", 15)
    monkeypatch.setattr(family, "WINDOW_COPY_FACTOR", 1)  # 1 x (10 data + 3 outputs) < 15: the limit decides
    data = np.arange(10, dtype=np.float32).reshape(1, 2, 5)
    weights = np.ones((1, 1, 2, 3), np.float32)
    shifted = family.convolve_shifted(data, weights, (1,), (0,), (3,))
    assert shifted is not None and shifted.tolist() == [[[21.0, 27.0, 33.0]]]  # 0+1+2 + 5+6+7, ...
    monkeypatch.setattr(family, "WINDOW_COPY_LIMIT", 14)
    assert family.convolve_shifted(data, weights, (1,), (0,), (3,)) is None


def test_flat_budget_counts_every_group_s_outputs(monkeypatch):
    """Depthwise, 2 groups, a 17-tap kernel over 4 values padded by 8 on each side: 2 x 17 x 4 = 136 column
    values, more than 16 x 8 of data alone, within 16 x (8 data + 8 outputs)."""
    monkeypatch.setattr(family, "WINDOW_COPY_LIMIT", 1)
    data = np.arange(8, dtype=np.float32).reshape(1, 2, 4)
    weights = np.ones((2, 1, 1, 17), np.float32)
    flat = family.convolve_flat(data, weights, (1,), (8,), (4,))
    assert flat is not None
    assert flat.tolist() == [[[6.0] * 4, [22.0] * 4]]  # every window holds the whole channel
