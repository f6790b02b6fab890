"""Hand-worked conversions of ops/numeric.py (f32 -> f8e8m0 rounding, the ends of the NF4 table, rounding through f32,
float -> wide integers) and its erf."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.ops.numeric import convert, erf, round_float, round_half_away, truncate_to_int


def test_f32_to_f8e8m0_rounds_the_exponent_as_openvino_does():
    """The code is the biased f32 exponent, one up when the mantissa is above half, or exactly half with an odd
    exponent (1.5 = 1.1b x 2**0 has exponent 127: up to 2; 3.0 = 1.1b x 2**1 has 128: stays 2); values <= 0,
    -0.0 and subnormals give code 0 (2**-127); infinity and overflow saturate at 254 (2**127); NaN is 255."""
    values = np.array([1.0, 1.5, 3.0, 1.75, 1.25, 0.5, -2.0, 0.0, -0.0, 1e-45, np.inf, 3.0e38, np.nan, 2.0**-126],
                      np.float32)
    codes = convert(values, ElementType.F32, ElementType.F8E8M0).view(np.uint8)
    assert codes.tolist() == [127, 128, 128, 128, 127, 126, 0, 0, 0, 0, 254, 254, 255, 1]


def test_nf4_codes_decode_to_the_ends_of_the_normal_float_table():
    """NF4 levels span [-1, 1] with an exact zero at code 7 (QLoRA's NormalFloat, OpenVINO's ConvertNF4 table)."""
    codes = np.array([0, 7, 15], np.uint8).astype(ElementType.NF4.numpy_dtype)
    assert convert(codes, ElementType.NF4, ElementType.F32).tolist() == [-1.0, 0.0, 1.0]
    back = convert(np.array([-1.0, -0.84, 0.0, 0.9, 1.0], np.float32), ElementType.F32, ElementType.NF4)
    assert back.view(np.uint8).tolist() == [0, 1, 7, 15, 15]


def test_floats_round_to_bf16_and_f16_through_f32_as_openvino_rounds_them():
    """Values exactly between two neighbours go to the even one; an f64 just above such a midpoint is rounded to
    f32 first (the 2**-30 and 2**-40 are below f32's step), then lands on the midpoint and goes to even: 1.0, not
    the upper neighbour. openvino 2026.4.1's reference Convert (Model.evaluate) gives these same values."""
    bf16 = round_float(np.array([1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-30]), np.dtype(ml_dtypes.bfloat16))
    assert bf16.dtype == ml_dtypes.bfloat16 and bf16.astype(np.float64).tolist() == [1.0, 1.015625, 1.0]
    f16 = round_float(np.array([65519.0, 65520.0, 1 + 2**-11 + 2**-40]), np.dtype(np.float16))
    assert f16.dtype == np.float16 and f16.tolist() == [65504.0, np.inf, 1.0]  # 65520 is halfway to 65536: inf
    same = np.array([0.1], np.float32)
    assert round_float(same, np.dtype(np.float32)) is same
    assert round_float(same, np.dtype(np.float64)).tolist() == [float(np.float32(0.1))]


def test_floats_beyond_the_signed_range_convert_to_the_wide_unsigned_and_64_bit_integers():
    """Values of openvino 2026.4.1's reference Convert (Model.evaluate): f32 -> u32 from 2**31 up and f32 -> u64
    from 2**63 up are shifted down, truncated and shifted back; u32 and i64 targets truncate in 64 bits."""
    def converted(values, source, target):
        return convert(np.array(values, source.numpy_dtype), source, target).tolist()

    assert converted([3e9, 2**31, 4294967040, 1.5], ElementType.F32, ElementType.U32) == [
        3000000000, 2147483648, 4294967040, 1]
    assert converted([1e19, 2**63, 5.5], ElementType.F32, ElementType.U64) == [
        9999999980506447872, 9223372036854775808, 5]  # 1e19 is 9999999980506447872 in f32
    assert converted([3e9, -3e9, 2.5e9], ElementType.F32, ElementType.I64) == [3000000000, -3000000000, 2500000000]
    assert converted([3e9, 4294967295.0], ElementType.F64, ElementType.U32) == [3000000000, 4294967295]


def test_negative_floats_below_the_signed_range_convert_to_u64_as_int64s_minimum():
    """openvino 2026.4.1's reference Convert (Model.evaluate) gives 2**63 (int64's minimum, as unsigned) for f32
    -1e19 and -1e30 and wraps -3.5 to 2**64 - 3."""
    got = convert(np.array([-1e19, -1e30, -3.5], np.float32), ElementType.F32, ElementType.U64)
    assert got.tolist() == [2**63, 2**63, 2**64 - 3]


def test_exact_bf16_values_stay_exact_odd_last_bit_or_even():
    """f32 values bf16 holds exactly (last mantissa bit odd or even) come back unchanged, as ov::bfloat16's
    round_to_nearest_even (bits + ((bits & 0x10000) >> 1)) >> 16 keeps them."""
    exact = np.array([1 + 2**-7, 1 + 2**-6, -(3 + 2**-6), 2**-120 * (1 + 2**-7)], np.float32)
    rounded = round_float(exact, np.dtype(ml_dtypes.bfloat16))
    assert rounded.astype(np.float32).tolist() == exact.tolist()


def test_f16_arithmetic_through_f32_handles_rows_longer_than_its_f32_block():
    """A row of more than _F32_CHUNK (16,384) values is still one block of rows (at least one row a block)."""
    from irgraph.ops.numeric import f16_through_f32

    a = np.tile(np.array([1.0, 2.5, -4.0, 0.5], np.float16), (3, 5000))  # 3 rows of 20,000
    b = np.full((1, 20000), 2.0, np.float16)
    out = np.empty_like(a)
    f16_through_f32(np.multiply, a, b, out)
    assert out.dtype == np.float16 and out[:, :4].tolist() == [[2.0, 5.0, -8.0, 1.0]] * 3
    np.testing.assert_array_equal(out, a * np.float16(2))


def test_integers_convert_in_their_own_width_not_through_f32():
    """2**24 + 1 has no f32: to f64 it stays exact (as openvino 2026.4.1's reference Convert gives it)."""
    values = np.array([16777217, -16777217], np.int32)
    assert convert(values, ElementType.I32, ElementType.F64).tolist() == [16777217.0, -16777217.0]
    assert convert(np.array([2**40 + 5], np.int64), ElementType.I64, ElementType.I32).tolist() == [5]  # wraps


def test_erf_agrees_with_the_c_library_s_in_each_of_cody_s_ranges():
    """Near zero (|x| <= 0.46875), the middle (up to 4) and far (beyond 4, up to where erf is 1 in f64); Python's
    math.erf (the C library's) is the independent judge, to one f64 ULP."""
    points = [-3e-9, 0.1, -0.46875, 0.5, 1.0, -2.5, 3.999, 4.5, -6.0, 10.0, 27.0]
    found = erf(np.array(points))
    expected = np.array([math.erf(x) for x in points])
    np.testing.assert_array_max_ulp(found, expected, maxulp=1)
    assert math.isnan(erf(np.array([np.nan]))[0])


def test_sub_byte_integers_wrap_to_their_width_and_floats_truncate_toward_zero():
    assert convert(np.array([5.0, 3.0, 4.0, -1.0], np.float32), ElementType.F32, ElementType.U2).astype(
        np.uint8).tolist() == [1, 3, 0, 3]  # modulo 4
    assert truncate_to_int(np.array([2.7, -2.7, np.nan, 3e9]), 32).tolist() == [2, -2, -(2**31), -(2**31)]
    assert truncate_to_int(np.array([3e9, -2.5])).tolist() == [3000000000, -2]


def test_f32_to_bf16_and_f8e8m0_of_a_subnormal_above_half_and_std_round():
    assert convert(np.array([1 + 2**-8, 1 + 3 * 2**-8], np.float32), ElementType.F32, ElementType.BF16).astype(
        np.float32).tolist() == [1.0, 1.015625]  # ties to even
    # a subnormal's mantissa above half does not round its (zero) exponent up: still 2**-127
    assert convert(np.array([0.75 * 2.0**-126], np.float32), ElementType.F32, ElementType.F8E8M0).view(
        np.uint8).tolist() == [0]
    rounded = round_half_away(np.array([2.5, -2.5, 0.4, -0.0, 1.5, 2.2, -7.49]))
    assert rounded.tolist() == [3.0, -3.0, 0.0, -0.0, 2.0, 2.0, -7.0] and np.signbit(rounded[3])
