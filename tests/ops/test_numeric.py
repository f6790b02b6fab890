"""Hand-worked conversions of ops/numeric.py: f32 -> f8e8m0 rounding and the ends of the NF4 table."""

from __future__ import annotations

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.ops.numeric import convert


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
