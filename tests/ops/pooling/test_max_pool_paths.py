"""MaxPool's two ways to the window maxima: one fmax per tap (data without -0.0, no indices asked) and the
reference's scan (strictly greater wins, first of equals kept). Bit for bit the same values, NaN, infinities,
the lowest value and zeros included; data holding -0.0 take the scan, which keeps the first zero's sign."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from irgraph.ops.pooling.max_pool import MaxPool8, _maximum_is_exact, max_pool

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, 1.0, -1.0, 2.5]


def _data(dtype, negative_zero: bool) -> np.ndarray:
    rng = np.random.default_rng(7)
    values = rng.choice(SPECIALS + [-0.0] if negative_zero else SPECIALS, size=(2, 3, 7, 6))
    return values.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, ml_dtypes.bfloat16])
@pytest.mark.parametrize("negative_zero", [False, True])
@pytest.mark.parametrize(("kernel", "strides", "begin", "end"), [((3, 3), (2, 2), (1, 1), (1, 1)),
                                                                  ((2, 3), (1, 2), (0, 2), (1, 0))])
def test_fmax_per_tap_equals_the_reference_scan(dtype, negative_zero, kernel, strides, begin, end):
    data = _data(dtype, negative_zero)
    assert _maximum_is_exact(data) is not negative_zero
    op = MaxPool8(strides=strides, pads_begin=begin, pads_end=end, kernel=kernel, rounding_type="floor")
    geometry = op.geometry(data)
    fast, _ = max_pool(data, geometry, None)  # fmax when the data allow it
    scanned, _ = max_pool(data, geometry, 0)  # the indices path always scans
    bits = np.dtype(f"u{data.dtype.itemsize}")
    np.testing.assert_array_equal(fast.view(bits), scanned.view(bits))


def test_the_first_zero_keeps_its_sign():
    data = np.array([[[[-0.0, 0.0, -1.0]]]], np.float32)
    op = MaxPool8(strides=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), kernel=(1, 2), rounding_type="floor")
    values, _ = max_pool(data, op.geometry(data), None)
    assert np.signbit(values).ravel().tolist() == [True, False]  # -0 then +0: -0 kept; +0 then -1: +0


def test_integers_and_booleans_take_the_maximum():
    data = np.array([[[[3, -7, 5, 5]]]], np.int8)
    assert _maximum_is_exact(data) is True  # integers have no -0: the maximum per tap is exact
    op = MaxPool8(strides=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), kernel=(1, 2), rounding_type="floor")
    assert max_pool(data, op.geometry(data), None)[0].ravel().tolist() == [3, 5, 5]
    flags = np.array([[[[False, True, False]]]])
    assert _maximum_is_exact(flags) is True
    assert max_pool(flags, op.geometry(flags), None)[0].ravel().tolist() == [True, True]


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize(("kernel", "strides", "dilations", "begin", "end"), [
    ((3,), (2,), (1,), (1,), (2,)),
    ((2, 2, 3), (1, 2, 1), (2, 1, 2), (1, 0, 2), (0, 1, 1)),
    ((3, 2), (3, 1), (1, 3), (2, 0), (2, 2)),
])
def test_one_pass_per_axis_equals_the_scan_in_1d_3d_and_dilated(dtype, kernel, strides, dilations, begin, end):
    rng = np.random.default_rng(11)
    shape = (2, 3, *[7 - axis for axis in range(len(kernel))])
    data = rng.choice(SPECIALS, size=shape).astype(dtype) if dtype == np.float32 else rng.integers(-9, 9, shape,
                                                                                                 dtype=dtype)
    op = MaxPool8(strides=strides, dilations=dilations, pads_begin=begin, pads_end=end, kernel=kernel,
                  rounding_type="ceil")
    geometry = op.geometry(data)
    fast, _ = max_pool(data, geometry, None)
    scanned, _ = max_pool(data, geometry, 0)
    bits = np.dtype(f"u{data.dtype.itemsize}")
    np.testing.assert_array_equal(fast.view(bits), scanned.view(bits))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_windows_of_nan_or_minus_infinity_give_the_lowest_value(dtype):
    """The reference's scan starts at numeric_limits::lowest() (-inf for f16) and NaN or -inf never beats it."""
    data = np.array([[[[np.nan, np.nan, -np.inf, -np.inf], [np.nan, -np.inf, 1.0, np.nan]]]], dtype)
    op = MaxPool8(strides=(2, 2), pads_begin=(0, 0), pads_end=(0, 0), kernel=(1, 2), rounding_type="floor")
    values, _ = max_pool(data, op.geometry(data), None)
    lowest = np.finfo(np.float32).min if dtype == np.float32 else -np.inf
    assert values.ravel().tolist() == [lowest, lowest]
    op = MaxPool8(strides=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), kernel=(2, 2), rounding_type="floor")
    assert max_pool(data, op.geometry(data), None)[0].ravel().tolist() == [lowest, 1.0, 1.0]
