"""Element types: which are stored several to a byte (the .bin layout of OpenVINO 2026.4.1's packed types)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrError


def test_the_sub_byte_types_are_packed():
    packed = {e.ir_name: e.bitwidth for e in ElementType if e.is_packed}
    assert packed == {"u1": 1, "u2": 2, "u3": 3, "u4": 4, "i4": 4, "nf4": 4, "f4e2m1": 4, "u6": 6}
    assert not ElementType.U8.is_packed and not ElementType.BOOLEAN.is_packed


def test_the_real_and_integral_types():
    real = {e.ir_name for e in ElementType if e.is_real}
    assert real == {"f16", "f32", "f64", "bf16", "nf4", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1"}
    assert ElementType.I4.is_integral and ElementType.U64.is_integral and not ElementType.BOOLEAN.is_integral


def test_from_numpy_tells_nf4_codes_from_u8_by_the_dtype_tag():
    import numpy as np
    import pytest

    from irgraph.core.errors import IrParseError

    assert ElementType.from_numpy(ElementType.NF4.numpy_dtype) is ElementType.NF4
    assert ElementType.from_numpy(np.uint8) is ElementType.U8
    assert ElementType.from_numpy(np.dtype("<U3")) is ElementType.STRING
    with pytest.raises(IrParseError, match="^NumPy dtype complex64 has no IR element type$"):
        ElementType.from_numpy(np.complex64)


def test_a_whole_byte_type_is_as_wide_as_its_numpy_dtype():
    whole = [e for e in ElementType if e.numpy_dtype is not None and not e.is_packed and e is not ElementType.STRING]
    assert len(whole) == 16
    assert {e.ir_name: e.bitwidth for e in whole} == {e.ir_name: 8 * e.numpy_dtype.itemsize for e in whole}


def test_the_dtype_of_a_type_with_values_and_the_refusal_of_dynamic():
    assert (ElementType.F16.dtype, ElementType.BF16.dtype, ElementType.I64.dtype) == (
        np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16), np.dtype(np.int64))
    with pytest.raises(IrError, match=r"^element type dynamic has no values, hence no NumPy dtype$"):
        ElementType.DYNAMIC.dtype  # noqa: B018  # the property raises


@pytest.mark.parametrize(("element_type", "smallest", "largest"), [
    (ElementType.I8, -128, 127), (ElementType.U8, 0, 255), (ElementType.I4, -8, 7), (ElementType.U4, 0, 15),
    (ElementType.NF4, 0, 15), (ElementType.U1, 0, 1), (ElementType.U3, 0, 7), (ElementType.U6, 0, 63),
    (ElementType.I64, -(2**63), 2**63 - 1), (ElementType.U64, 0, 2**64 - 1)])
def test_the_integer_range_follows_the_bit_width_and_the_sign(element_type, smallest, largest):
    assert element_type.integer_range == (smallest, largest)
