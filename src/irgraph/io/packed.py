"""Sub-byte element types in the .bin: u1, u2, u3, u4, u6, i4, nf4 and f4e2m1 codes packed several to a byte.

Everything here assumes a little-endian host for its fastest path (the lanes); other hosts take the strided columns.
"""

from __future__ import annotations

import sys

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import WeightsError

__all__ = ["pack_codes", "packed_codes", "unpack_codes"]

# Packed layouts (verified against OpenVINO 2026.4's serializer):
# u1: 8 per byte, element 0 in the most significant bit.
# u2, u4, i4, nf4, f4e2m1: element 0 in the least significant bits.
# u3: blocks of 8 elements in 3 bytes. Bytes 0 and 1 hold the low 2 bits of elements 0-3 and 4-7,
#     element 0 in bits 7..6; byte 2 holds bit 2 of elements 0-7, element 0 in bit 7.
# u6: blocks of 4 elements in 3 bytes. Bytes 0 and 1 hold the low 4 bits of elements 0-1 and 2-3,
#     element 0 in the high nibble; byte 2 holds bits 5..4 of elements 0-3, element 0 in bits 7..6.

_SHIFTS_2 = np.array([6, 4, 2, 0], dtype=np.uint8)
_SHIFTS_4 = np.array([4, 0], dtype=np.uint8)


_CODE_VIEWS = frozenset({ElementType.F4E2M1, ElementType.U4, ElementType.U2, ElementType.U1})
"""Packed types whose NumPy dtype (ml_dtypes) holds an element as its code in one byte's low bits."""


_LANES: dict[int, np.dtype] = {4: np.dtype(np.uint16), 2: np.dtype(np.uint32)} if sys.byteorder == "little" else {}
"""Field width -> the unsigned type holding one packed byte's fields a byte each (little-endian machines)."""
_LANE_CHUNK = 1 << 15
"""Packed bytes per pass of ``_lanes``: its temporaries stay in cache and are not fresh pages for every pass."""


def _lanes(raw: np.ndarray, bits: int) -> np.ndarray:
    """Each byte of ``raw`` widened to a lane holding its ``bits``-wide fields a byte each (little-endian: byte k of a
    lane is field k, so the lanes' bytes are the codes in order): whole-array passes over contiguous lanes, 3x faster
    than writing each field into a strided column."""
    per_byte, mask = 8 // bits, (1 << bits) - 1
    out = np.empty(raw.size, dtype=_LANES[bits])
    spare = np.empty((2, min(raw.size, _LANE_CHUNK)), dtype=_LANES[bits])
    for start in range(0, raw.size, _LANE_CHUNK):
        part = raw[start : start + _LANE_CHUNK]
        lanes, moved, field = out[start : start + part.size], spare[0, : part.size], spare[1, : part.size]
        np.copyto(lanes, part)
        # Field k (bits k*bits..) moves to byte k (bits 8k..): a left shift by k * (8 - bits), then its mask.
        np.left_shift(lanes, 8 - bits, out=moved)
        moved &= mask << 8
        for position in range(2, per_byte):
            np.left_shift(lanes, position * (8 - bits), out=field)
            field &= mask << (8 * position)
            moved |= field
        lanes &= mask
        lanes |= moved
    return out


def unpack_codes(raw: np.ndarray, element_type: ElementType, count: int) -> np.ndarray:
    """Codes (one uint8 per element) from packed bytes, converted to the element type's dtype."""
    codes: np.ndarray
    if element_type is ElementType.U1:
        codes = np.unpackbits(raw, count=count, bitorder="big")
    elif element_type is ElementType.U3:
        blocks = raw.reshape(-1, 3)
        codes = ((blocks[:, :2, None] >> _SHIFTS_2) & 3).reshape(-1, 8)
        codes |= np.unpackbits(blocks[:, 2:], axis=1, bitorder="big") << 2
        codes = codes.reshape(-1)[:count]
    elif element_type is ElementType.U6:
        blocks = raw.reshape(-1, 3)
        codes = ((blocks[:, :2, None] >> _SHIFTS_4) & 15).reshape(-1, 4)
        codes |= ((blocks[:, 2:] >> _SHIFTS_2) & 3) << 4
        codes = codes.reshape(-1)[:count]
    elif element_type.bitwidth in _LANES:
        codes = _lanes(raw, element_type.bitwidth).view(np.uint8)[:count]
    else:
        bits = element_type.bitwidth
        per_byte = 8 // bits
        # One shift per position into a strided column: 3-4x faster than broadcasting against the shifts
        # (NumPy's inner loop would run over the 2 or 4 shifts of each byte).
        codes = np.empty((raw.size, per_byte), dtype=np.uint8)
        mask = (1 << bits) - 1
        np.bitwise_and(raw, mask, out=codes[:, 0])
        for position in range(1, per_byte):
            column = codes[:, position]
            np.right_shift(raw, position * bits, out=column)
            if position < per_byte - 1:  # the top field needs no mask
                column &= mask
        codes = codes.reshape(-1)[:count]
    if element_type is ElementType.I4:
        signed = codes.astype(np.int8)
        signed ^= 8
        signed -= 8
        return signed.astype(element_type.numpy_dtype)
    if element_type in _CODE_VIEWS:
        # ml_dtypes keeps these one code per byte, in the low bits: a view, not a converting copy.
        return np.ascontiguousarray(codes).view(element_type.dtype)
    return codes.astype(element_type.numpy_dtype)


def packed_codes(array: np.ndarray, element_type: ElementType) -> np.ndarray:
    """The flat uint8 codes of a packed-type array (two's complement nibbles for i4)."""
    values = np.asarray(array)
    dtype = element_type.numpy_dtype
    mask = (1 << element_type.bitwidth) - 1
    if element_type is ElementType.F4E2M1:
        floats = np.ascontiguousarray(values if values.dtype == dtype else values.astype(dtype))
        return floats.reshape(-1).view(np.uint8) & mask
    signed = element_type is ElementType.I4
    if values.dtype == dtype and dtype != np.uint8:  # ml_dtypes int4 / uint4 / uint2 / uint1
        ints = values.astype(np.int8 if signed else np.uint8)
    else:
        if values.dtype.kind not in "biu":
            raise WeightsError(f"{element_type} Const data must be {dtype} or integers, got {values.dtype}")
        low, high = element_type.integer_range
        if values.size:
            smallest, largest = values.min(), values.max()
            if smallest < low or largest > high:
                bad = smallest if smallest < low else largest
                raise WeightsError(f"{element_type} values must lie in {low}..{high}, got {bad}")
        ints = values.astype(np.int8 if signed else np.uint8)
    return ints.reshape(-1).view(np.uint8) & mask


def _pad(codes: np.ndarray, multiple: int) -> np.ndarray:
    extra = -codes.size % multiple
    return np.concatenate([codes, np.zeros(extra, dtype=np.uint8)]) if extra else codes


def pack_codes(codes: np.ndarray, element_type: ElementType) -> bytes:
    """Pack uint8 codes into the .bin layout of ``element_type`` (padding bits are 0)."""
    if element_type is ElementType.U1:
        return np.packbits(codes, bitorder="big").tobytes()
    if element_type is ElementType.U3:
        groups = _pad(codes, 8).reshape(-1, 8)
        out = np.empty((len(groups), 3), dtype=np.uint8)
        low = (groups & 3).reshape(-1, 2, 4) << _SHIFTS_2
        out[:, :2] = np.bitwise_or.reduce(low, axis=2)
        out[:, 2] = np.packbits(groups >> 2, axis=1, bitorder="big")[:, 0]
        return out.tobytes()
    if element_type is ElementType.U6:
        groups = _pad(codes, 4).reshape(-1, 4)
        out = np.empty((len(groups), 3), dtype=np.uint8)
        low = (groups & 15).reshape(-1, 2, 2) << _SHIFTS_4
        out[:, :2] = np.bitwise_or.reduce(low, axis=2)
        out[:, 2] = np.bitwise_or.reduce((groups >> 4) << _SHIFTS_2, axis=1)
        return out.tobytes()
    bits = element_type.bitwidth
    per_byte = 8 // bits
    groups = _pad(codes, per_byte).reshape(-1, per_byte)
    out = groups[:, 0].copy()
    for k in range(1, per_byte):
        out |= groups[:, k] << (k * bits)
    return out.tobytes()
