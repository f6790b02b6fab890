"""irgraph.io.weights: .bin byte layouts, string tensors, WeightsFile bounds and mmap, WeightsWriter dedup."""

from __future__ import annotations

import gc
import io
import math
import mmap
import re
import struct
import zlib

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from irgraph.core.element_types import ElementType
from irgraph.core.errors import WeightsError
from irgraph.io.weights import WeightsFile, WeightsWriter, byte_size, decode_tensor, encode_tensor

E = ElementType
STRINGS_25 = bytes.fromhex("03000000 00000000 02000000 02000000 05000000 616278797a")


def strings(*items: str) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def string_blob(declared: int, ends: list[int], text: bytes) -> bytes:
    return struct.pack(f"<i{len(ends)}i", declared, *ends) + text


# --- exact bytes ----------------------------------------------------------------------------------

EXACT = [
    # ir-format.md section 2 and 4.4
    pytest.param(E.I4, np.array([-1, 2, -8], dtype=ml_dtypes.int4), "2f08", id="i4"),
    pytest.param(E.U4, np.array([1, 2, 3], dtype=ml_dtypes.uint4), "2103", id="u4"),
    pytest.param(E.U2, np.array([1, 2, 3, 0, 1], dtype=ml_dtypes.uint2), "3901", id="u2"),
    pytest.param(E.U1, np.array([1, 1, 0, 1, 0, 0, 0, 0, 1], dtype=ml_dtypes.uint1), "d080", id="u1"),
    pytest.param(E.STRING, strings("ab", "", "xyz"), STRINGS_25.hex(), id="string"),
    # written by OpenVINO 2026.4 (see the oracle tests)
    pytest.param(E.NF4, np.array([1, 2, 15], dtype=np.uint8), "210f", id="nf4"),
    pytest.param(E.F4E2M1, np.array([0.5, 1.0, -6.0], dtype=ml_dtypes.float4_e2m1fn), "210f", id="f4e2m1"),
    pytest.param(E.U3, np.arange(8, dtype=np.uint8), "1b1b0f", id="u3-block"),
    pytest.param(E.U3, np.arange(5, dtype=np.uint8), "1b0008", id="u3-partial"),
    pytest.param(E.U3, np.arange(9, dtype=np.uint8) % 8, "1b1b0f000000", id="u3-two-blocks"),
    pytest.param(E.U6, np.arange(4, dtype=np.uint8), "012300", id="u6-block"),
    pytest.param(E.U6, np.arange(9, dtype=np.uint8), "012300456700800000", id="u6-three-blocks"),
    pytest.param(E.U6, np.array([63, 0, 0, 48], dtype=np.uint8), "f000c3", id="u6-high-bits"),
    pytest.param(E.I64, np.array([1, -2], dtype=np.int64), "0100000000000000feffffffffffffff", id="i64"),
    pytest.param(E.F16, np.array([1.0, -2.0], dtype=np.float16), "003c00c0", id="f16"),
    pytest.param(E.BF16, np.array([1.0, -2.0], dtype=ml_dtypes.bfloat16), "803f00c0", id="bf16"),
    pytest.param(E.BOOLEAN, np.array([True, False, True]), "010001", id="boolean"),
]


@pytest.mark.parametrize(("element_type", "array", "hex_bytes"), EXACT)
def test_encode_gives_the_documented_bytes(element_type, array, hex_bytes):
    assert encode_tensor(array, element_type).hex() == hex_bytes


@pytest.mark.parametrize(("element_type", "array", "hex_bytes"), EXACT)
def test_decode_gives_the_documented_values(element_type, array, hex_bytes):
    decoded = decode_tensor(bytes.fromhex(hex_bytes), element_type, array.shape)
    assert decoded.dtype == element_type.numpy_dtype
    assert decoded.shape == array.shape
    assert decoded.tolist() == array.tolist()


def test_u3_and_u6_bit_positions_match_openvino():
    # One bit set at a time, as probed with openvino.op.Constant(Type.u3 / Type.u6, ...).get_data().
    for element, bit, expected in [(0, 0, "400000"), (0, 2, "000080"), (3, 1, "020000"), (7, 2, "000001")]:
        codes = np.zeros(8, dtype=np.uint8)
        codes[element] = 1 << bit
        assert encode_tensor(codes, E.U3).hex() == expected
    for element, bit, expected in [(0, 0, "100000"), (0, 5, "000080"), (3, 3, "000800"), (3, 4, "000001")]:
        codes = np.zeros(4, dtype=np.uint8)
        codes[element] = 1 << bit
        assert encode_tensor(codes, E.U6).hex() == expected


def test_packed_values_follow_flat_order_of_a_2d_shape():
    array = np.array([[-1, 2], [-8, 7]], dtype=ml_dtypes.int4)
    assert encode_tensor(array, E.I4).hex() == "2f78"
    assert decode_tensor(bytes.fromhex("2f78"), E.I4, (2, 2)).tolist() == [[-1, 2], [-8, 7]]


def test_encode_accepts_integer_codes_for_packed_types():
    assert encode_tensor([1, 2, 3], E.U4) == bytes.fromhex("2103")
    assert encode_tensor(np.array([-1, 2, -8]), E.I4) == bytes.fromhex("2f08")
    assert encode_tensor(np.array([True, False, True]), E.U1) == bytes.fromhex("a0")


def test_non_ascii_strings_round_trip():
    array = strings("é", "日本", "", "a\x00b")
    blob = encode_tensor(array, E.STRING)
    assert blob[:20] == struct.pack("<5i", 4, 0, 2, 8, 8)
    assert decode_tensor(blob, E.STRING, (2, 2)).tolist() == [["é", "日本"], ["", "a\x00b"]]


def test_scalar_string_and_unicode_array_input():
    assert encode_tensor(np.array("hi"), E.STRING) == struct.pack("<3i", 1, 0, 2) + b"hi"
    assert decode_tensor(struct.pack("<3i", 1, 0, 2) + b"hi", E.STRING, ()).item() == "hi"
    assert encode_tensor(np.array(["ab", "", "xyz"]), E.STRING) == STRINGS_25


def test_string_offsets_up_to_the_int32_maximum_are_written_and_one_more_byte_is_refused(monkeypatch):
    """The end offsets are int32: the last may be INT32_MAX itself. 2 GiB of text is too much for a test, so the
    bound is lowered to 10 bytes (the rule, not the number, is what is checked)."""
    import irgraph.io.weights

    monkeypatch.setattr(irgraph.io.weights, "_INT32_MAX", 10)
    assert encode_tensor(strings("abcde", "fghij"), E.STRING) == struct.pack("<4i", 2, 0, 5, 10) + b"abcdefghij"
    with pytest.raises(WeightsError, match=r"^string Const too large for int32 offsets: 2 strings, 11 bytes of text$"):
        encode_tensor(strings("abcde", "fghijk"), E.STRING)


# --- byte_size ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("element_type", "count", "size"),
    [
        (E.F32, 6, 24),
        (E.F64, 0, 0),
        (E.BOOLEAN, 3, 3),
        (E.BF16, 5, 10),
        (E.U1, 9, 2),
        (E.U1, 8, 1),
        (E.U2, 5, 2),
        (E.U4, 3, 2),
        (E.I4, 1, 1),
        (E.NF4, 4, 2),
        (E.F4E2M1, 0, 0),
        (E.U3, 1, 3),
        (E.U3, 8, 3),
        (E.U3, 9, 6),
        (E.U6, 4, 3),
        (E.U6, 5, 6),
        (E.I64, 2**61, 2**64),
    ],
)
def test_byte_size(element_type, count, size):
    assert byte_size(element_type, count) == size


@pytest.mark.parametrize("element_type", [E.STRING, E.DYNAMIC])
def test_byte_size_undefined_for_string_and_dynamic(element_type):
    with pytest.raises(WeightsError, match=f"a {element_type} Const has no fixed byte size"):
        byte_size(element_type, 3)


def test_byte_size_rejects_negative_count():
    with pytest.raises(WeightsError, match="element count must be >= 0, got -1"):
        byte_size(E.F32, -1)


# --- decode: sizes, views, errors -------------------------------------------------------------------


def test_decode_reports_missing_bytes():
    with pytest.raises(WeightsError) as info:
        decode_tensor(bytes(16), E.F32, (2, 3))
    assert str(info.value) == "Const needs 24 bytes for f32 [2,3] but size is 16"


@pytest.mark.parametrize(
    ("element_type", "shape", "data", "message"),
    [
        (E.U4, (3,), b"\x21", "Const needs 2 bytes for u4 [3] but size is 1"),
        (E.U1, (9,), b"\xff", "Const needs 2 bytes for u1 [9] but size is 1"),
        # OpenVINO's reader accepts ceil(n*3/8) bytes here, but element 0's top bit lives in byte 2.
        (E.U3, (1,), b"\x40", "Const needs 3 bytes for u3 [1] but size is 1"),
        (E.U6, (5,), bytes(5), "Const needs 6 bytes for u6 [5] but size is 5"),
        (E.I64, (), bytes(7), "Const needs 8 bytes for i64 [] but size is 7"),
        (E.F32, (2**40, 2**40), bytes(8), "Const needs 4835703278458516698824704 bytes for f32"),
    ],
)
def test_decode_rejects_short_data(element_type, shape, data, message):
    with pytest.raises(WeightsError, match=re.escape(message)):
        decode_tensor(data, element_type, shape)


def test_decode_rejects_bad_shapes_and_types():
    with pytest.raises(WeightsError, match=re.escape("Const shape [2,-1] has a negative dimension")):
        decode_tensor(bytes(8), E.F32, (2, -1))
    with pytest.raises(WeightsError, match="Const shape must be a sequence of integers"):
        decode_tensor(bytes(8), E.F32, (2.0,))
    with pytest.raises(WeightsError, match="element type dynamic"):
        decode_tensor(bytes(8), E.DYNAMIC, (2,))
    with pytest.raises(WeightsError, match=re.escape("Const shape [0,4611686018427387904] cannot be held by NumPy")):
        decode_tensor(b"\x00", E.F32, (0, 2**62))


def test_decode_ignores_trailing_bytes():
    data = np.array([1.5, 2.5], dtype=np.float32).tobytes() + b"junk"
    assert decode_tensor(data, E.F32, (2,)).tolist() == [1.5, 2.5]
    assert decode_tensor(bytes.fromhex("2103ff"), E.U4, (3,)).tolist() == [1, 2, 3]
    assert decode_tensor(STRINGS_25 + b"more", E.STRING, (3,)).tolist() == ["ab", "", "xyz"]


def test_decode_is_a_read_only_view_of_the_buffer():
    buffer = bytearray(np.arange(6, dtype=np.int32).tobytes())
    array = decode_tensor(memoryview(buffer).toreadonly(), E.I32, (2, 3))
    assert np.shares_memory(array, np.frombuffer(buffer, dtype=np.uint8))
    assert not array.flags.writeable
    buffer[0] = 9
    assert array[0, 0] == 9


def test_decode_at_an_unaligned_offset():
    data = memoryview(b"\x00\x00\x00" + np.array([7, -7], dtype=np.int64).tobytes())[3:]
    assert decode_tensor(data, E.I64, (2,)).tolist() == [7, -7]


def test_decode_accepts_typed_memoryviews():
    source = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    assert decode_tensor(memoryview(source), E.F32, (4,)).tolist() == [1.0, 2.0, 3.0, 4.0]


def test_boolean_bytes_other_than_0_and_1_read_as_true():
    decoded = decode_tensor(bytes([0, 1, 2, 255]), E.BOOLEAN, (4,))
    assert decoded.tolist() == [False, True, True, True]
    assert encode_tensor(decoded, E.BOOLEAN) == bytes([0, 1, 1, 1])


def test_bf16_bits_are_preserved():
    # +0, -0, 1, smallest subnormal, +inf, -inf, quiet NaN, NaN with payload, signalling-NaN pattern
    bits = np.array([0x0000, 0x8000, 0x3F80, 0x0001, 0x7F80, 0xFF80, 0x7FC0, 0x7FC1, 0xFF81], dtype="<u2")
    array = bits.view(ml_dtypes.bfloat16)
    blob = encode_tensor(array, E.BF16)
    assert blob == bits.tobytes()
    assert decode_tensor(blob, E.BF16, bits.shape).view("<u2").tolist() == bits.tolist()


@pytest.mark.parametrize(
    "element_type", [t for t in ElementType if t.numpy_dtype is not None and t is not E.STRING], ids=str
)
def test_zero_element_tensors(element_type):
    empty = np.zeros((2, 0), dtype=element_type.numpy_dtype)
    assert encode_tensor(empty, element_type) == b""
    # OpenVINO writes such a Const as one byte with size="1"
    decoded = decode_tensor(b"\x00", element_type, (2, 0))
    assert decoded.shape == (2, 0)
    assert decoded.dtype == element_type.numpy_dtype
    assert decode_tensor(b"", element_type, (0,)).shape == (0,)


def test_zero_element_string_tensor():
    blob = encode_tensor(np.empty((2, 0), dtype=object), E.STRING)
    assert blob == bytes(8)  # what OpenVINO writes for string [2, 0]
    decoded = decode_tensor(blob, E.STRING, (2, 0))
    assert decoded.shape == (2, 0)
    assert decoded.dtype == object


# --- string layout validation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "data", "message"),
    [
        ((3,), b"\x03\x00", "string Const needs at least 4 bytes for its string count but size is 2"),
        ((3,), string_blob(-1, [0], b""), "string Const declares -1 strings; the count must be >= 0"),
        ((2,), STRINGS_25, "string Const declares 3 strings but shape [2] has 2 elements"),
        ((4,), STRINGS_25, "string Const declares 3 strings but shape [4] has 4 elements"),
        ((3,), STRINGS_25[:16], "string Const with 3 strings needs 20 bytes for its count and offsets but size is 16"),
        ((3,), string_blob(3, [1, 2, 2, 5], b"abxyz"), "string Const offsets must start at 0, got 1"),
        (
            (3,),
            string_blob(3, [0, 3, 2, 5], b"abxyz"),
            "string Const offsets must not decrease: string 1 starts at 3 but ends at 2",
        ),
        (
            (3,),
            string_blob(3, [0, 2, 2, 9], b"abxyz"),
            "string Const text ends at byte 9 but only 5 bytes follow its 20-byte header (size is 25)",
        ),
        (
            (3,),
            string_blob(3, [0, 2, 2, -5], b"abxyz"),
            "string Const offsets must not decrease: string 2 starts at 2 but ends at -5",
        ),
        (
            (2,),
            string_blob(2, [0, 1, 3], b"a\xc3("),
            "string Const element 1 is not valid UTF-8: invalid continuation byte at byte 0",
        ),
        ((1,), string_blob(1, [0, 2], b"\xff\xfe"), "string Const element 0 is not valid UTF-8: invalid start byte"),
    ],
)
def test_decode_rejects_broken_string_layouts(shape, data, message):
    with pytest.raises(WeightsError) as info:
        decode_tensor(data, E.STRING, shape)
    assert str(info.value).startswith(message)


def test_string_count_is_checked_before_any_allocation():
    # A huge declared count matching a huge (but zero-data) shape still fails on the header size.
    with pytest.raises(WeightsError, match="needs 8589934596 bytes"):
        decode_tensor(string_blob(2**31 - 1, [0], b""), E.STRING, (2**31 - 1,))


# --- encode errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("element_type", "array", "message"),
    [
        (E.U4, np.array([1, 16]), "u4 values must lie in 0..15, got 16"),
        (E.I4, np.array([-9, 3]), "i4 values must lie in -8..7, got -9"),
        (E.U1, np.array([2]), "u1 values must lie in 0..1, got 2"),
        (E.NF4, np.array([16], dtype=np.uint8), "nf4 values must lie in 0..15, got 16"),
        (E.U3, np.array([8], dtype=np.uint8), "u3 values must lie in 0..7, got 8"),
        (E.U6, np.array([-1]), "u6 values must lie in 0..63, got -1"),
        (E.U2, np.array([1.0]), "u2 Const data must be uint2 or integers, got float64"),
        (E.STRING, np.array([1, 2], dtype=object), "string Const elements must be str, element 0 is int"),
        (E.STRING, strings("ok", "\ud800"), "string element 1 cannot be encoded as UTF-8"),
        (E.DYNAMIC, np.zeros(2), "element type dynamic"),
    ],
)
def test_encode_rejects_values_the_type_cannot_hold(element_type, array, message):
    with pytest.raises(WeightsError, match=re.escape(message)):
        encode_tensor(array, element_type)


def test_encode_casts_byte_aligned_input():
    assert encode_tensor([1, 2], E.I16) == bytes.fromhex("01000200")
    assert encode_tensor(np.array([[1.0, 2.0]], dtype=np.float64).T, E.F32) == np.float32([1, 2]).tobytes()


# --- round trips ------------------------------------------------------------------------------------

SHAPES = array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)
BYTE_ALIGNED = [t for t in ElementType if t.numpy_dtype is not None and t.bitwidth >= 8 and t is not E.BOOLEAN]
PACKED = [t for t in ElementType if t.is_packed]


def test_every_type_with_a_dtype_is_covered():
    covered = {*BYTE_ALIGNED, *PACKED, E.BOOLEAN, E.STRING}
    assert covered == {t for t in ElementType if t.numpy_dtype is not None}


@pytest.mark.parametrize("element_type", BYTE_ALIGNED, ids=str)
@given(data=st.data())
def test_byte_aligned_round_trip_is_bit_exact(element_type, data):
    shape = data.draw(SHAPES)
    nbytes = math.prod(shape) * element_type.numpy_dtype.itemsize
    raw = data.draw(st.binary(min_size=nbytes, max_size=nbytes))
    array = np.frombuffer(raw, dtype=element_type.numpy_dtype).reshape(shape)
    blob = encode_tensor(array, element_type)
    assert blob == raw
    decoded = decode_tensor(blob, element_type, shape)
    assert decoded.dtype == element_type.numpy_dtype
    assert decoded.shape == shape
    assert decoded.tobytes() == raw


@pytest.mark.parametrize("element_type", PACKED, ids=str)
@given(data=st.data())
def test_packed_round_trip(element_type, data):
    shape = data.draw(SHAPES)
    count = math.prod(shape)
    low, high = (-8, 7) if element_type is E.I4 else (0, (1 << element_type.bitwidth) - 1)
    codes = np.array(data.draw(st.lists(st.integers(low, high), min_size=count, max_size=count)), dtype=np.int64)
    if element_type is E.F4E2M1:
        array = codes.astype(np.uint8).view(ml_dtypes.float4_e2m1fn).reshape(shape)
    else:
        array = codes.astype(element_type.numpy_dtype).reshape(shape)
    blob = encode_tensor(array, element_type)
    assert len(blob) == byte_size(element_type, count)
    decoded = decode_tensor(blob, element_type, shape)
    assert decoded.dtype == element_type.numpy_dtype
    assert decoded.shape == shape
    assert decoded.view(np.uint8).tolist() == array.view(np.uint8).tolist()
    assert encode_tensor(decoded, element_type) == blob


@given(shape=SHAPES, data=st.data())
def test_boolean_round_trip(shape, data):
    count = math.prod(shape)
    array = np.array(data.draw(st.lists(st.booleans(), min_size=count, max_size=count)), dtype=bool).reshape(shape)
    blob = encode_tensor(array, E.BOOLEAN)
    assert blob == array.astype(np.uint8).tobytes()
    assert np.array_equal(decode_tensor(blob, E.BOOLEAN, shape), array)


@given(shape=SHAPES, data=st.data())
def test_string_round_trip(shape, data):
    count = math.prod(shape)
    items = data.draw(st.lists(st.text(max_size=6), min_size=count, max_size=count))
    array = np.empty(count, dtype=object)
    array[:] = items
    array = array.reshape(shape)
    blob = encode_tensor(array, E.STRING)
    assert len(blob) == 4 * (count + 2) + sum(len(item.encode()) for item in items)
    decoded = decode_tensor(blob, E.STRING, shape)
    assert decoded.dtype == object
    assert decoded.shape == shape
    assert decoded.tolist() == array.tolist()


def _whole_blocks(element_type: ElementType, count: int) -> bool:
    """True when ``count`` packed elements fill their bytes (u3: blocks of 8, u6: of 4): no padding bits."""
    per_block = {ElementType.U3: 8, ElementType.U6: 4}.get(element_type)
    return count % per_block == 0 if per_block else count * element_type.bitwidth % 8 == 0


@given(data=st.binary(max_size=64), shape=SHAPES)
def test_decode_of_arbitrary_bytes_gives_their_values_or_names_the_fault(data, shape):
    """Any bytes as any type: an array of ``shape`` and the type's dtype whose encoding is the leading bytes
    (booleans normalised, a packed type's padding bits zeroed), or a WeightsError saying what is wrong."""
    count = math.prod(shape)
    for element_type in ElementType:
        if element_type.is_dynamic:
            with pytest.raises(WeightsError, match="cannot have element type dynamic"):
                decode_tensor(data, element_type, shape)
            continue
        if element_type is ElementType.STRING:
            try:
                decoded = decode_tensor(data, element_type, shape)
            except WeightsError as err:
                assert str(err).startswith("string Const "), str(err)
                continue
            encoded = encode_tensor(decoded, element_type)
            assert decoded.shape == shape and data[:len(encoded)] == encoded
            continue
        needed = byte_size(element_type, count)
        if len(data) < needed:
            with pytest.raises(WeightsError, match=f"^Const needs {needed} bytes for {element_type} "):
                decode_tensor(data, element_type, shape)
            continue
        decoded = decode_tensor(data, element_type, shape)
        assert (decoded.shape, decoded.dtype) == (shape, element_type.numpy_dtype), element_type
        encoded = encode_tensor(decoded, element_type)
        if element_type is ElementType.BOOLEAN:
            assert decoded.reshape(-1).tolist() == [byte != 0 for byte in data[:count]]
        elif element_type.is_packed and not _whole_blocks(element_type, count):
            blocked = element_type in (ElementType.U3, ElementType.U6)  # padding in the middle of the block
            assert len(encoded) == needed and (blocked or encoded[:-1] == data[:needed - 1])
            assert decode_tensor(encoded, element_type, shape).tobytes() == decoded.tobytes(), element_type
        else:
            assert encoded == data[:needed], element_type


# --- WeightsFile --------------------------------------------------------------------------------


@pytest.fixture
def bin_path(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(bytes(range(8)) + np.array([1.5, -2.0], dtype=np.float32).tobytes())
    return path


def test_weights_file_views(bin_path):
    with WeightsFile(bin_path) as weights:
        assert weights.path == str(bin_path)
        assert weights.size == 16
        assert bytes(weights.view(2, 3)) == b"\x02\x03\x04"
        assert bytes(weights.view(16, 0)) == b""
        assert weights.view(0, 16).readonly
        assert decode_tensor(weights.view(8, 8), E.F32, (2,)).tolist() == [1.5, -2.0]


@pytest.mark.parametrize(
    ("offset", "size", "message"),
    [
        (-1, 4, "Const offset must be >= 0, got -1"),
        (0, -1, "Const size must be >= 0, got -1"),
        (8, 9, "Const bytes [8, 17) lie outside the weights file of 16 bytes"),
        (17, 0, "Const bytes [17, 17) lie outside the weights file of 16 bytes"),
        (2**63, 1, "Const bytes [9223372036854775808, 9223372036854775809) lie outside the weights file of 16 bytes"),
        (1, 2**64 - 1, "Const bytes [1, 18446744073709551616) lie outside the weights file of 16 bytes"),
        (2**63 - 1, 2**63 - 1, "Const bytes [9223372036854775807, 18446744073709551614) lie outside"),
        (-(2**63), 2**63 + 4, "Const offset must be >= 0, got -9223372036854775808"),
    ],
)
def test_weights_file_bounds(bin_path, offset, size, message):
    with WeightsFile(bin_path) as weights, pytest.raises(WeightsError, match=re.escape(message)):
        weights.view(offset, size)


def test_weights_file_rejects_non_integers(bin_path):
    with WeightsFile(bin_path) as weights, pytest.raises(TypeError):
        weights.view(1.0, 2)


def test_empty_weights_file(tmp_path):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    with WeightsFile(path) as weights:
        assert weights.size == 0
        assert bytes(weights.view(0, 0)) == b""
        with pytest.raises(WeightsError, match=re.escape("Const bytes [0, 1) lie outside the weights file of 0 bytes")):
            weights.view(0, 1)


def test_missing_weights_file(tmp_path):
    with pytest.raises(WeightsError, match="cannot open weights file .*missing.bin"):
        WeightsFile(tmp_path / "missing.bin")


def _owners(array: np.ndarray) -> list[object]:
    """The chain of objects behind an array: its bases, then the memoryviews' exporters."""
    chain, owner = [], array
    while owner is not None:
        owner = owner.base if isinstance(owner, np.ndarray) else getattr(owner, "obj", None)
        if owner is not None:
            chain.append(owner)
    return chain


def test_decoded_arrays_alias_the_mapping(bin_path):
    weights = WeightsFile(bin_path)
    array = decode_tensor(weights.view(8, 8), E.F32, (2,))
    assert np.shares_memory(array, np.frombuffer(weights.view(0, weights.size), dtype=np.uint8))
    assert any(isinstance(owner, mmap.mmap) for owner in _owners(array))
    assert not array.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        array[0] = 3.0


def test_arrays_outlive_close(bin_path):
    weights = WeightsFile(bin_path)
    array = decode_tensor(weights.view(8, 8), E.F32, (2,))
    weights.close()
    del weights
    gc.collect()
    assert array.tolist() == [1.5, -2.0]


def test_closed_file_refuses_views(bin_path):
    weights = WeightsFile(bin_path)
    weights.close()
    assert weights.closed
    with pytest.raises(ValueError, match="is closed"):
        weights.view(0, 1)
    weights.close()  # idempotent


def test_weights_file_without_mmap(bin_path):
    with WeightsFile(bin_path, use_mmap=False) as weights:
        array = decode_tensor(weights.view(8, 8), E.F32, (2,))
        assert array.tolist() == [1.5, -2.0]
        assert not any(isinstance(owner, mmap.mmap) for owner in _owners(array))
        assert not array.flags.writeable


def test_weights_from_bytes():
    buffer = bytearray(b"\x01\x00\x02\x00")
    weights = WeightsFile.from_bytes(buffer)
    assert weights.path is None
    assert weights.size == 4
    array = decode_tensor(weights.view(0, 4), E.I16, (2,))
    assert array.tolist() == [1, 2]
    assert not array.flags.writeable
    with pytest.raises(WeightsError, match=re.escape("Const bytes [2, 6) lie outside the weights file of 4 bytes")):
        weights.view(2, 4)


# --- WeightsWriter ------------------------------------------------------------------------------


def test_writer_concatenates_without_padding():
    writer = WeightsWriter()
    assert writer.add(b"abc") == (0, 3)
    assert writer.add(b"defgh") == (3, 5)
    assert writer.add(b"ij") == (8, 2)
    assert writer.size == 10
    assert writer.getvalue() == b"abcdefghij"


def test_writer_deduplicates_by_content_across_types_and_shapes():
    writer = WeightsWriter()
    pair = encode_tensor(np.array([[1, 3]], dtype=np.int64), E.I64)
    assert writer.add(b"x") == (0, 1)
    assert writer.add(pair) == (1, 16)
    assert writer.add(encode_tensor(np.array([[1, 3]], dtype=np.int64), E.I64)) == (1, 16)
    assert writer.add(encode_tensor(np.array([1, 0, 3, 0], dtype=np.int32), E.I32)) == (1, 16)
    scalar = writer.add(encode_tensor(np.array(1, dtype=np.int64), E.I64))
    assert scalar == (17, 8)
    assert writer.add(encode_tensor(np.array([1], dtype=np.int64), E.I64)) == scalar
    assert writer.size == 25
    assert writer.getvalue() == b"x" + pair + pair[:8]


def test_writer_does_not_match_substrings():
    writer = WeightsWriter()
    writer.add(b"\x00\x00")
    assert writer.add(b"\x00") == (2, 1)


def test_writer_stores_an_empty_blob_as_one_zero_byte():
    writer = WeightsWriter()
    assert writer.add(b"") == (0, 1)
    assert writer.add(memoryview(b"")) == (0, 1)
    assert writer.add(b"\x00") == (0, 1)  # OpenVINO shares the byte with a u8 [0] Const
    assert writer.add(b"\x07") == (1, 1)
    assert writer.getvalue() == b"\x00\x07"


def test_writer_zero_byte_first_then_empty_blob():
    writer = WeightsWriter()
    writer.add(b"\x05")
    assert writer.add(b"\x00") == (1, 1)
    assert writer.add(b"") == (1, 1)


def test_writer_accepts_buffers_and_matches_them_with_bytes():
    writer = WeightsWriter()
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert writer.add(memoryview(array)) == (0, 24)
    assert writer.add(array.tobytes()) == (0, 24)
    assert writer.add(bytearray(array.tobytes())) == (0, 24)
    assert writer.getvalue() == array.tobytes()
    with pytest.raises(ValueError, match="C-contiguous"):
        writer.add(memoryview(array[:, ::2]))


def test_writer_compares_bytes_when_hashes_collide(monkeypatch):
    monkeypatch.setattr(zlib, "crc32", lambda data: 0)
    big = np.zeros(3 << 20, dtype=np.uint8)
    other = big.copy()
    other[-1] = 1
    writer = WeightsWriter()
    assert writer.add(memoryview(big)) == (0, len(big))
    assert writer.add(memoryview(other)) == (len(big), len(big))
    assert writer.add(big.tobytes()) == (0, len(big))
    assert writer.add(bytes(other)) == (len(big), len(big))
    assert writer.add(b"ab") == (2 * len(big), 2)
    assert writer.add(b"cd") == (2 * len(big) + 2, 2)
    assert writer.add(b"cd") == (2 * len(big) + 2, 2)


def test_writer_write_to_matches_getvalue():
    writer = WeightsWriter()
    for blob in (b"abc", memoryview(b"de"), b"", b"abc"):
        writer.add(blob)
    out = io.BytesIO()
    assert writer.write_to(out) == 6
    assert out.getvalue() == writer.getvalue() == b"abcde\x00"


class _Trickle(io.RawIOBase):
    """A raw stream that writes at most 3 bytes per call."""

    def __init__(self) -> None:
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, blob) -> int:
        chunk = bytes(memoryview(blob)[:3])
        self.data += chunk
        return len(chunk)


def test_writer_write_to_handles_partial_writes():
    writer = WeightsWriter()
    writer.add(b"0123456789")
    writer.add(b"abcd")
    out = _Trickle()
    writer.write_to(out)
    assert bytes(out.data) == b"0123456789abcd"


def test_writer_with_many_small_constants():
    writer = WeightsWriter()
    offsets = [writer.add(np.int64(i % 10_000).tobytes()) for i in range(20_000)]
    assert writer.size == 80_000
    assert offsets[12_345] == offsets[2_345] == (2_345 * 8, 8)


# --- oracle: OpenVINO's own serializer and reader -------------------------------------------------


def _ov_constants():
    """(name, element_type, openvino Constant, the values we expect) for every element type."""
    import openvino as ov
    from openvino import op

    def typed(type_name, shape, values):
        return op.Constant(getattr(ov.Type, type_name), ov.Shape(list(shape)), values)

    def ov_strings(shape, items):
        tensor = ov.Tensor(ov.Type.string, ov.Shape(list(shape)))
        if items:
            tensor.str_data = items
        return op.Constant(tensor)

    f4_values = [0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6]
    numpy_arrays = {
        "boolean": np.array([[True, False, True], [False, False, True]]),
        "f16": np.array([1.0, -0.0, 65504.0, np.inf, 6e-8], dtype=np.float16),
        "f32": np.array([[1.5, -2.25], [3.4e38, 1e-45]], dtype=np.float32),
        "f64": np.array([np.pi, -1e308], dtype=np.float64),
        "i8": np.array([-128, 127, 0], dtype=np.int8),
        "i16": np.array([-32768, 32767], dtype=np.int16),
        "i32": np.array([-(2**31), 2**31 - 1, 5], dtype=np.int32),
        "i64": np.array([-(2**63), 2**63 - 1], dtype=np.int64),
        "u8": np.array([0, 255, 7], dtype=np.uint8),
        "u16": np.array([65535, 1], dtype=np.uint16),
        "u32": np.array([2**32 - 1], dtype=np.uint32),
        "u64": np.array([[2**64 - 1, 3]], dtype=np.uint64),
    }
    cases = [(name, ElementType.from_ir_name(name), op.Constant(a), a) for name, a in numpy_arrays.items()]
    by_type = [
        ("bf16", [4], [1.0, -2.5, 0.15625, 65280.0]),
        ("f8e4m3", [4], [0.5, 1.0, -2.0, 448.0]),
        ("f8e5m2", [4], [0.5, 1.0, -2.0, 57344.0]),
        ("f8e8m0", [4], [0.5, 1.0, 2.0, 1024.0]),
        ("f4e2m1", [4, 4], f4_values),
        ("nf4", [5], [0, 1, 2, 15, 7]),  # integer lists are taken as nf4 codes
        ("i4", [17], [*range(-8, 8), 3]),
        ("u4", [17], [*range(16), 5]),
        ("u2", [13], [0, 1, 2, 3] * 3 + [1]),
        ("u1", [3, 3], [1, 0, 1, 1, 1, 0, 0, 0, 1]),
        ("u3", [11], [i % 8 for i in range(11)]),
        ("u6", [2, 5], [i * 7 % 64 for i in range(10)]),
    ]
    for name, shape, values in by_type:
        element_type = ElementType.from_ir_name(name)
        expected = np.array(values).astype(element_type.numpy_dtype).reshape(shape)
        cases.append((name, element_type, typed(name, shape, values), expected))
    text = [["ab", "", "xyz"], ["é", "日本", "a b"]]
    cases.append(("string", E.STRING, ov_strings([2, 3], sum(text, [])), np.array(text, dtype=object)))
    # zero-element Consts, duplicates across types and shapes
    cases.append(("empty_f32", E.F32, op.Constant(np.zeros((2, 0), np.float32)), np.zeros((2, 0), np.float32)))
    cases.append(("empty_string", E.STRING, ov_strings([0], []), np.empty(0, dtype=object)))
    cases.append(("zero_u8", E.U8, op.Constant(np.array([0], np.uint8)), np.array([0], np.uint8)))
    pair = np.array([[1, 3]], dtype=np.int64)
    cases.append(("pair", E.I64, op.Constant(pair), pair))
    cases.append(("pair_again", E.I64, op.Constant(pair.copy()), pair))
    cases.append(("pair_i32", E.I32, op.Constant(np.array([1, 0, 3, 0], np.int32)), np.array([1, 0, 3, 0], np.int32)))
    cases.append(("one_scalar", E.I64, op.Constant(np.array(1, np.int64)), np.array(1, np.int64)))
    cases.append(("one_vector", E.I64, op.Constant(np.array([1], np.int64)), np.array([1], np.int64)))
    for name, _, constant, _ in cases:
        constant.set_friendly_name(name)
    return cases


def _same_values(actual: np.ndarray, expected: np.ndarray) -> bool:
    if expected.dtype == object:
        return actual.shape == expected.shape and actual.tolist() == expected.tolist()
    return actual.shape == expected.shape and actual.tobytes() == np.ascontiguousarray(expected).tobytes()


def _parse_consts(xml_path):
    from lxml import etree

    tree = etree.parse(str(xml_path), etree.XMLParser(resolve_entities=False, no_network=True))
    out = []
    for layer in tree.iter("layer"):
        if layer.get("type") == "Const":
            data = layer.find("data")
            shape = tuple(int(dim) for dim in data.get("shape").split(",") if dim.strip())
            out.append(
                (layer.get("name"), data.get("element_type"), shape, int(data.get("offset")), int(data.get("size")))
            )
    return out


@pytest.mark.oracle
def test_openvino_serializer_writes_our_bytes(tmp_path):
    import openvino as ov
    import openvino.opset13 as ops

    cases = {name: (element_type, constant, expected) for name, element_type, constant, expected in _ov_constants()}
    model = ov.Model([ops.result(constant) for _, constant, _ in cases.values()], [], "weights")
    ov.serialize(model, str(tmp_path / "model.xml"))
    blob = (tmp_path / "model.bin").read_bytes()
    consts = _parse_consts(tmp_path / "model.xml")
    assert sorted(name for name, *_ in consts) == sorted(cases)

    writer = WeightsWriter()
    for name, type_name, shape, offset, size in consts:  # the .bin is written in XML layer order
        element_type, constant, expected = cases[name]
        assert type_name == element_type.ir_name
        assert shape == expected.shape
        ours = encode_tensor(expected, element_type)
        if element_type is not E.STRING:
            assert ours == constant.get_data().tobytes(), name
        assert (offset, size) == writer.add(ours), name
        assert blob[offset : offset + size] == (ours or b"\x00"), name
        decoded = decode_tensor(memoryview(blob)[offset : offset + size], element_type, shape)
        assert decoded.dtype == element_type.numpy_dtype, name
        assert _same_values(decoded, expected), name
        if element_type is E.STRING:
            assert decoded.reshape(-1).tolist() == list(constant.get_value_strings()), name
    assert writer.getvalue() == blob

    by_name = {name: (offset, size) for name, _, _, offset, size in consts}
    assert by_name["pair"] == by_name["pair_again"] == by_name["pair_i32"]
    assert by_name["one_scalar"] == by_name["one_vector"]
    assert by_name["empty_f32"][1] == 1
    assert by_name["empty_f32"] == by_name["zero_u8"]


@pytest.mark.oracle
def test_openvino_reads_what_we_write():
    import openvino as ov

    cases = _ov_constants()
    writer = WeightsWriter()
    layers, edges = [], []
    for index, (name, element_type, _, expected) in enumerate(cases):
        offset, size = writer.add(encode_tensor(expected, element_type))
        shape = ", ".join(str(dim) for dim in expected.shape)
        const_id, result_id = 2 * index, 2 * index + 1
        layers.append(
            f'<layer id="{const_id}" name="{name}" type="Const" version="opset1">'
            f'<data element_type="{element_type.ir_name}" shape="{shape}" offset="{offset}" size="{size}" />'
            f'<output><port id="0" precision="{element_type.ir_name}" /></output></layer>'
            f'<layer id="{result_id}" name="{name}_result" type="Result" version="opset1">'
            '<input><port id="0" /></input></layer>'
        )
        edges.append(f'<edge from-layer="{const_id}" from-port="0" to-layer="{result_id}" to-port="0" />')
    xml = f'<?xml version="1.0"?><net name="m" version="11"><layers>{"".join(layers)}</layers>'
    xml += f"<edges>{''.join(edges)}</edges></net>"
    weights = np.frombuffer(writer.getvalue(), dtype=np.uint8).copy()
    model = ov.Core().read_model(xml.encode(), ov.Tensor(weights))
    read = {node.get_friendly_name(): node for node in model.get_ordered_ops() if node.get_type_name() == "Constant"}
    assert sorted(read) == sorted(name for name, *_ in cases)
    for name, element_type, original, expected in cases:
        constant = read[name]
        assert list(constant.get_output_shape(0)) == list(expected.shape), name
        if element_type is E.STRING:
            assert list(constant.get_value_strings()) == expected.reshape(-1).tolist(), name
        else:
            assert constant.get_data().tobytes() == original.get_data().tobytes(), name


def test_boolean_bytes_of_0_and_1_are_read_without_a_copy():
    buffer = bytes([0, 1, 1, 0])
    decoded = decode_tensor(buffer, E.BOOLEAN, (4,))
    assert decoded.tolist() == [False, True, True, False]
    assert np.shares_memory(decoded, np.frombuffer(buffer, dtype=np.uint8))
    other = bytes([0, 2])  # a byte above 1 is normalised, in a copy
    assert not np.shares_memory(decode_tensor(other, E.BOOLEAN, (2,)), np.frombuffer(other, dtype=np.uint8))


def test_a_directory_is_not_a_weights_file(tmp_path):
    with pytest.raises(WeightsError, match=re.escape(f"cannot open weights file {str(tmp_path)!r}: Is a directory")):
        WeightsFile(tmp_path)


def test_a_one_byte_weights_file_is_mapped_too(tmp_path):
    (tmp_path / "one.bin").write_bytes(b"\x01")
    weights = WeightsFile(tmp_path / "one.bin")
    array = decode_tensor(weights.view(0, 1), E.U8, (1,))
    assert array.tolist() == [1] and any(isinstance(owner, mmap.mmap) for owner in _owners(array))


def test_weights_file_repr_and_context_manager():
    with WeightsFile.from_bytes(b"ab") as weights:
        assert repr(weights) == "WeightsFile(None, 2 bytes)"
    assert weights.closed and repr(weights) == "WeightsFile(None, closed)"


def test_decode_casts_any_buffer_to_bytes_first():
    assert decode_tensor(memoryview(np.array([1.5, 2.5], np.float32)), E.F32, (2,)).tolist() == [1.5, 2.5]
    assert decode_tensor(memoryview(np.arange(4, dtype=np.uint8).reshape(2, 2)), E.U8, (4,)).tolist() == [0, 1, 2, 3]
    assert decode_tensor(memoryview(np.array(7, np.uint8)), E.U8, ()).tolist() == 7


def test_writer_compares_every_byte_of_buffers_with_equal_hashes(monkeypatch):
    monkeypatch.setattr(zlib, "crc32", lambda data: 0)
    writer = WeightsWriter()
    assert writer.add(memoryview(b"ab")) == (0, 2)
    assert writer.add(memoryview(b"bb")) == (2, 2)  # differs in the first byte only
    assert writer.add(memoryview(bytearray(b"ab"))) == (0, 2)


def test_writer_write_to_a_file_object_whose_write_returns_none():
    class Collecting:
        def __init__(self):
            self.data = b""

        def write(self, view):
            self.data += bytes(view)

    writer = WeightsWriter()
    writer.add(b"abc")
    out = Collecting()
    assert writer.write_to(out) == 3 and out.data == b"abc"


def test_string_edges_four_bytes_and_bytes_items():
    with pytest.raises(WeightsError, match=re.escape("string Const with 0 strings needs 8 bytes for its count and "
                                                     "offsets but size is 4")):
        decode_tensor(bytes(4), E.STRING, (0,))
    blob = encode_tensor(np.array([b"ab", "c"], object), E.STRING)
    assert blob == struct.pack("<4i", 2, 0, 2, 3) + b"abc"


@pytest.mark.parametrize("element_type", [ElementType.U4, ElementType.I4, ElementType.NF4, ElementType.F4E2M1,
                                          ElementType.U2])
def test_packed_codes_unpack_the_same_through_lanes_and_through_columns(element_type, monkeypatch):
    # The lanes (little-endian machines) against the strided columns every machine can run: the same codes and dtype,
    # for odd counts, a last byte half used, and tensors of one and of several lane passes.
    from irgraph.io import packed

    rng = np.random.default_rng(7)
    per_byte = 8 // element_type.bitwidth
    for count in (0, 1, 3, 64, 1001, packed._LANE_CHUNK * per_byte + 5, 3 * packed._LANE_CHUNK * per_byte):
        raw = rng.integers(0, 256, -(-count // per_byte), dtype=np.uint8)
        lanes = packed.unpack_codes(raw, element_type, count)
        with monkeypatch.context() as patch:
            patch.setattr(packed, "_LANES", {})
            columns = packed.unpack_codes(raw, element_type, count)
        assert lanes.dtype == columns.dtype and lanes.shape == columns.shape == (count,)
        assert lanes.tobytes() == columns.tobytes()
