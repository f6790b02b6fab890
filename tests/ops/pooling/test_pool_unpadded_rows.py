"""The row passes of ``separable_reduce`` that start from the first two taps combined (an axis without padding,
where both taps cover every output row; SqueezeNet's and Inception's 3x3 stride-2 MaxPools), and MaxPool's check
for -0.0 as one reduction. The maxima are compared bit for bit with the reference's scan (the indices path), the
sums with a sum made tap by tap from 0 in the reference's order."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from irgraph.ops.families.pooling import separable_reduce
from irgraph.ops.pooling.max_pool import MaxPool8, _maximum_is_exact, max_pool

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, 1.0, -1.0, 2.5, 3.0]

GEOMETRIES = [  # kernel, strides, dilations, pads_begin, pads_end, rounding
    ((3, 3), (2, 2), (1, 1), (0, 0), (0, 0), "floor"),  # SqueezeNet: both row taps cover every output row
    ((3, 3), (2, 2), (1, 1), (0, 0), (0, 0), "ceil"),  # the last window runs past the data: its third tap does not
    ((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), "floor"),  # padded rows: the pass starts from the fill
    ((2, 2), (2, 2), (1, 1), (0, 0), (0, 0), "floor"),  # two taps, both covering: nothing left after them
    ((3, 2), (1, 1), (2, 1), (0, 0), (0, 0), "floor"),  # dilated rows
    ((2, 2, 3), (2, 1, 1), (1, 1, 1), (0, 0, 1), (0, 1, 1), "floor"),  # 3-D: two unpadded axes before the last
    ((3,), (2,), (1,), (0,), (0,), "floor"),  # 1-D: the only axis is the last
]


def _data(shape: tuple[int, ...], dtype: object, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.choice(SPECIALS, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, ml_dtypes.bfloat16])
@pytest.mark.parametrize(("kernel", "strides", "dilations", "begin", "end", "rounding"), GEOMETRIES)
def test_maxima_of_unpadded_rows_equal_the_reference_scan(dtype, kernel, strides, dilations, begin, end, rounding):
    shape = (2, 3, *(9 - axis for axis in range(len(kernel))))  # batch 2
    data = _data(shape, dtype, 5)
    op = MaxPool8(strides=strides, dilations=dilations, pads_begin=begin, pads_end=end, kernel=kernel,
                  rounding_type=rounding)
    geometry = op.geometry(data)
    fast, _ = max_pool(data, geometry, None)
    scanned, _ = max_pool(data, geometry, 0)
    bits = np.dtype(f"u{data.dtype.itemsize}")
    np.testing.assert_array_equal(fast.view(bits), scanned.view(bits))


def test_squeezenet_s_first_pool_gives_the_window_maxima():
    """3x3, stride 2, floor on 11x11: output (i, j) is the maximum of rows 2i..2i+2 and columns 2j..2j+2."""
    data = np.arange(2 * 121, dtype=np.float32).reshape(1, 2, 11, 11)[:, :, ::-1, :].copy()
    op = MaxPool8(strides=(2, 2), pads_begin=(0, 0), pads_end=(0, 0), kernel=(3, 3), rounding_type="floor")
    values, _ = max_pool(data, op.geometry(data), None)
    expected = np.array([[[[data[0, c, 2 * i:2 * i + 3, 2 * j:2 * j + 3].max() for j in range(5)] for i in range(5)]
                          for c in range(2)]], np.float32)
    np.testing.assert_array_equal(values, expected)
    assert values[0, 0, 0].tolist() == [112.0, 114.0, 116.0, 118.0, 120.0]  # row 0 holds 110..120


def _sums_tap_by_tap(data: np.ndarray, kernel, strides, dilations, begin, out_spatial) -> np.ndarray:
    """Each window's sum from 0, its taps added in row-major order (outside the data: nothing added)."""
    result = np.zeros((*data.shape[:2], *out_spatial), data.dtype)
    for position in itertools.product(*(range(size) for size in out_spatial)):
        for tap in itertools.product(*(range(size) for size in kernel)):
            index = [p * s + t * d - b for p, s, t, d, b in zip(position, strides, tap, dilations, begin, strict=True)]
            if all(0 <= i < n for i, n in zip(index, data.shape[2:], strict=True)):
                result[(slice(None), slice(None), *position)] += data[(slice(None), slice(None), *index)]
    return result


@pytest.mark.parametrize(("kernel", "strides", "dilations", "begin", "end", "rounding"), GEOMETRIES)
def test_sums_of_unpadded_rows_add_the_taps_in_the_reference_order(kernel, strides, dilations, begin, end, rounding):
    """AvgPool's sums: the first two taps added first is 0 + a + b, the same values in the same order (floats
    whose sums depend on the order: 1e8 and 1 and -1e8)."""
    shape = (2, 2, *(9 - axis for axis in range(len(kernel))))
    rng = np.random.default_rng(3)
    data = rng.choice(np.array([1e8, 1.0, -1e8, 0.5, -0.0, 3.25], np.float32), size=shape)
    op = MaxPool8(strides=strides, dilations=dilations, pads_begin=begin, pads_end=end, kernel=kernel,
                  rounding_type=rounding)
    geometry = op.geometry(data)
    sums = separable_reduce(data, geometry, np.add, 0)
    with np.errstate(invalid="ignore"):
        # separable: the sums of each row first, then of those; the reference adds them tap by tap per axis
        expected = data
        for axis in range(len(kernel)):
            one_axis = [1] * len(kernel)
            one_axis[axis] = kernel[axis]
            size = list(expected.shape[2:])
            size[axis] = geometry.out_spatial[axis]
            step = [1] * len(kernel)
            step[axis] = strides[axis]
            dilation = [1] * len(kernel)
            dilation[axis] = dilations[axis]
            start = [0] * len(kernel)
            start[axis] = begin[axis]
            expected = _sums_tap_by_tap(expected, one_axis, step, dilation, start, size)
    np.testing.assert_array_equal(sums.view(np.uint32), expected.view(np.uint32))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, ml_dtypes.bfloat16])
def test_negative_zero_anywhere_is_found(dtype):
    data = np.ones((2, 3, 4, 5), dtype)
    assert _maximum_is_exact(data) is True
    for flat in (0, 7, data.size - 1):
        marked = data.copy()
        marked.reshape(-1)[flat] = -0.0
        assert _maximum_is_exact(marked) is False
    positive = data.copy()
    positive[0, 0, 0, 0] = 0.0
    assert _maximum_is_exact(positive) is True  # +0.0 is no concern
    assert _maximum_is_exact(np.full((2, 3, 4, 5), -np.inf, dtype)) is True
    assert _maximum_is_exact(np.zeros((1, 0, 3, 3), dtype)) is True  # nothing to find


def test_negative_zero_in_a_strided_view_is_found_where_the_view_sees_it():
    data = np.ones((1, 2, 4, 4), np.float32)
    data[0, 0, 1, 1] = -0.0  # outside the view below
    view = data[:, :, ::2, ::2]
    assert _maximum_is_exact(view) is True
    data[0, 1, 2, 2] = -0.0  # inside it
    assert _maximum_is_exact(view) is False
    op = MaxPool8(strides=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), kernel=(2, 2), rounding_type="floor")
    values = op.evaluate([view])[0]
    scanned, _ = max_pool(view, op.geometry(view), 0)
    np.testing.assert_array_equal(values.view(np.uint32), scanned.view(np.uint32))
