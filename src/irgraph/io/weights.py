"""The .bin side of IR I/O: Const byte sizes, (un)packing, a read-only weights file, a deduplicating writer."""

from __future__ import annotations

import math
import mmap
import operator
import os
import sys
import weakref
import zlib
from collections.abc import Iterable
from typing import BinaryIO

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import WeightsError
from irgraph.core.mappings import register_mapping
from irgraph.io.regular_file import open_regular, read_range
from irgraph.ops.op import shape_text

__all__ = ["WeightsFile", "WeightsWriter", "byte_size", "decode_tensor", "encode_tensor"]

# Everything here assumes a little-endian host (x86-64, AArch64): the .bin is little-endian and
# the in-memory dtypes of ElementType are native.

_I32 = np.dtype("<i4")
_INT32_MAX = 2**31 - 1
_COMPARE_CHUNK = 1 << 20
_MAP_AT_LEAST = 1 << 20  # a smaller range is read rather than given a mapping of its own (each costs a VMA)
_EMPTY_BLOB = b"\x00"  # OpenVINO writes a zero-element Const it allocated as this one byte, size="1"


def byte_size(element_type: ElementType, count: int) -> int:
    """Bytes a Const of ``count`` elements occupies in the .bin, as OpenVINO's writer emits it.

    Packed types take ceil(count * bits / 8) bytes, except u3 and u6, which are written in whole
    3-byte blocks (8 u3 or 4 u6 elements per block).
    """
    if count < 0:
        raise WeightsError(f"element count must be >= 0, got {count}")
    if element_type is ElementType.STRING or element_type.is_dynamic:
        raise WeightsError(f"a {element_type} Const has no fixed byte size per element")
    if element_type is ElementType.U3:
        return -(-count // 8) * 3
    if element_type is ElementType.U6:
        return -(-count // 4) * 3
    return (count * element_type.bitwidth + 7) // 8


def decode_tensor(data: memoryview | bytes, element_type: ElementType, shape: Iterable[int]) -> np.ndarray:
    """Turn a Const's bytes (at least as many as needed) into an array of ``shape``.

    The dtype is ``element_type.numpy_dtype``. Byte-aligned types come back as a read-only view of
    ``data`` (no copy); packed types are unpacked one element per byte; strings become an object
    array of ``str``. Boolean bytes other than 0/1 are normalised to True (in a copy).
    """
    dims = _dims(shape)
    count = math.prod(dims)
    buf = _bytes_view(data)
    if element_type is ElementType.STRING:
        flat = _decode_strings(buf, dims, count)
    else:
        if element_type.is_dynamic:
            raise WeightsError("a Const cannot have element type dynamic: its data has no layout")
        needed = byte_size(element_type, count)
        if len(buf) < needed:
            raise WeightsError(
                f"Const needs {needed} bytes for {element_type} {shape_text(dims)} but size is {len(buf)}"
            )
        if element_type.is_packed:
            flat = _unpack(np.frombuffer(buf, dtype=np.uint8, count=needed), element_type, count)
        elif element_type is ElementType.BOOLEAN:
            raw = np.frombuffer(buf, dtype=np.uint8, count=count)
            flat = raw != 0 if count and raw.max() > 1 else raw.view(np.bool_)
        else:
            flat = np.frombuffer(buf, dtype=element_type.numpy_dtype, count=count)
    try:
        return flat.reshape(dims)
    except ValueError as exc:
        raise WeightsError(f"Const shape {shape_text(dims)} cannot be held by NumPy: {exc}") from None


def encode_tensor(array: np.ndarray, element_type: ElementType) -> bytes:
    """The .bin bytes of ``array`` as a Const of ``element_type``: the exact inverse of ``decode_tensor``.

    Byte-aligned types are cast to ``element_type.numpy_dtype``; packed types take arrays of their
    own dtype or integer codes in range (nf4/u3/u6: uint8 codes); strings take ``str`` (or ``bytes``) items.
    """
    if element_type is ElementType.STRING:
        return _encode_strings(array)
    if element_type.is_dynamic:
        raise WeightsError("a Const cannot have element type dynamic: its data has no layout")
    if element_type.is_packed:
        return _pack(_codes(array, element_type), element_type)
    return np.ascontiguousarray(array, dtype=element_type.numpy_dtype).tobytes()


class WeightsFile:
    """A .bin file opened read-only; ``view`` hands out bounds-checked, zero-copy slices of it.

    Only a regular file is opened (never a FIFO, socket, device or directory) and nothing past the
    size ``fstat`` reports is read: a procfs file such as ``/proc/self/environ`` reads as empty.

    With ``use_mmap`` (the default, like OpenVINO's ENABLE_MMAP) the file is mapped with
    ``ACCESS_READ`` and arrays from ``decode_tensor`` alias the mapping. When the whole file cannot
    be mapped (a 100 GiB sparse file under ``ulimit -v``, a file system without mmap), each range
    ``view`` is asked for is mapped on its own (page-aligned; small ranges are read), so only the
    bytes the Consts use take address space or memory. ``close()`` only drops this object's
    reference: a mapping is released by the garbage collector once the last memoryview or array
    using it is gone, so arrays decoded earlier stay valid after ``close()`` (closing the mmap
    itself would fail or leave them dangling). Rewriting the file in place while mapped changes
    those arrays, and truncating it can crash the process with SIGBUS: ``Interpreter`` checks the
    size again (:func:`irgraph.core.mappings.check_mapping`) before preparing and before every run, which leaves a
    truncation during a run as the one fatal window. On Windows the map keeps the file locked.
    Pass ``use_mmap=False`` to read each range into memory instead.
    """

    path: str | None
    size: int

    def __init__(self, path: str | os.PathLike[str], *, use_mmap: bool = True) -> None:
        self.path = os.fspath(path)
        try:
            descriptor, self.size = open_regular(self.path)
        except OSError as exc:
            raise WeightsError(f"cannot open weights file {self.path!r}: {exc.strerror or exc}") from exc
        self._use_mmap = use_mmap
        self._closed = False
        self._ranges: dict[tuple[int, int], memoryview] = {}
        self._buffer: memoryview | None = memoryview(b"") if self.size == 0 else None
        if use_mmap and self.size > 0:
            try:
                # The length is the size fstat reported (0 would map whatever the file has grown to).
                mapping = mmap.mmap(descriptor, self.size, access=mmap.ACCESS_READ)
                register_mapping(mapping, self.path, self.size)
                self._buffer = memoryview(mapping)
            except (OSError, ValueError, OverflowError):
                pass  # no address space for the whole file (ulimit -v) or no mmap here: map ranges in view()
        if self._buffer is not None:
            os.close(descriptor)
            self._descriptor: int | None = None
        else:
            self._descriptor = descriptor
            self._finalizer = weakref.finalize(self, os.close, descriptor)

    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview) -> WeightsFile:
        """Weights held in memory (read-only view of ``data``; ``path`` is None)."""
        self = cls.__new__(cls)
        self.path = None
        self._buffer = _bytes_view(data).toreadonly()
        self.size = len(self._buffer)
        self._closed = False
        self._descriptor = None
        self._ranges = {}
        return self

    @property
    def closed(self) -> bool:
        """True after ``close()``."""
        return self._closed

    def view(self, offset: int, size: int) -> memoryview:
        """The read-only bytes ``[offset, offset + size)``; WeightsError if they are not all in the file."""
        if self._closed:
            raise ValueError(f"weights file {self.path!r} is closed")
        offset, size = operator.index(offset), operator.index(size)
        if offset < 0:
            raise WeightsError(f"Const offset must be >= 0, got {offset}")
        if size < 0:
            raise WeightsError(f"Const size must be >= 0, got {size}")
        if offset + size > self.size:  # Python ints: no overflow
            raise WeightsError(
                f"Const bytes [{offset}, {offset + size}) lie outside the weights file of {self.size} bytes"
            )
        if self._buffer is not None:
            return self._buffer[offset : offset + size]
        key = (offset, size)
        found = self._ranges.get(key)
        if found is None:
            found = self._ranges[key] = self._read(offset, size)
        return found

    def _read(self, offset: int, size: int) -> memoryview:
        """The bytes of one range when the whole file is not mapped: a page-aligned map, else a read."""
        assert self._descriptor is not None
        if self._use_mmap and size >= _MAP_AT_LEAST:
            start = offset - offset % mmap.ALLOCATIONGRANULARITY
            try:
                mapped = mmap.mmap(self._descriptor, offset + size - start, access=mmap.ACCESS_READ, offset=start)
            except (OSError, ValueError, OverflowError):
                pass  # read it instead
            else:
                register_mapping(mapped, self.path or "", offset + size)
                return memoryview(mapped)[offset - start : offset - start + size]
        try:
            return memoryview(read_range(self._descriptor, offset, size, self.path or "")).toreadonly()
        except OSError as exc:
            raise WeightsError(f"cannot read weights file {self.path!r}: {exc.strerror or exc}") from exc

    def close(self) -> None:
        """Stop handing out views; the mappings live on while earlier views or arrays use them."""
        self._closed = True
        self._buffer = None
        self._ranges = {}
        if self._descriptor is not None:
            self._finalizer()
            self._descriptor = None

    def __enter__(self) -> WeightsFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self.size} bytes"
        return f"WeightsFile({self.path!r}, {state})"


class WeightsWriter:
    """Collects Const blobs for a .bin in emission order, deduplicated by content like OpenVINO's writer.

    The first blob with given bytes keeps its offset; later equal blobs (of any type or shape)
    reuse it. Blobs are kept by reference and written once, so a blob that is not ``bytes`` must
    not change until the .bin has been written.
    """

    def __init__(self) -> None:
        self._blobs: list[bytes | memoryview] = []
        self._seen: dict[tuple[int, int], list[tuple[int, bytes | memoryview]]] = {}
        self.size = 0

    def add(self, blob: bytes | bytearray | memoryview, *, zero_bytes: bool = False) -> tuple[int, int]:
        """Append ``blob`` unless equal bytes were added before; return its ``(offset, size)``.

        An empty blob is stored as the single byte 0x00 with size 1, as OpenVINO writes the Consts it
        allocates, unless ``zero_bytes`` (a Const wrapping a zero-byte tensor: size 0 at the current end).
        """
        data = blob if isinstance(blob, bytes) else _bytes_view(blob)
        if len(data) == 0 and not zero_bytes:
            data = _EMPTY_BLOB
        key = (len(data), zlib.crc32(data))
        candidates = self._seen.setdefault(key, [])
        for offset, earlier in candidates:
            if _same_bytes(earlier, data):
                return offset, len(data)
        offset = self.size
        candidates.append((offset, data))
        self._blobs.append(data)
        self.size += len(data)
        return offset, len(data)

    def getvalue(self) -> bytes:
        """The whole .bin content."""
        return b"".join(self._blobs)

    def write_to(self, fileobj: BinaryIO) -> int:
        """Write the .bin content to a binary file object, blob by blob; return the byte count."""
        for blob in self._blobs:
            view = memoryview(blob)
            while view:
                written = fileobj.write(view)
                if written is None or written >= len(view):
                    break
                view = view[written:]
        return self.size


# --- helpers -------------------------------------------------------------------------------------


def _bytes_view(data: bytes | bytearray | memoryview) -> memoryview:
    """A flat unsigned-byte memoryview of any C-contiguous buffer."""
    view = memoryview(data)
    if view.format != "B" or view.ndim != 1:
        if not view.c_contiguous:
            raise ValueError("weights data must be a C-contiguous buffer")
        view = view.cast("B")
    return view


def _dims(shape: Iterable[int]) -> tuple[int, ...]:
    try:
        dims = tuple(operator.index(dim) for dim in shape)
    except TypeError:
        raise WeightsError(f"Const shape must be a sequence of integers, got {shape!r}") from None
    if any(dim < 0 for dim in dims):
        raise WeightsError(f"Const shape {shape_text(dims)} has a negative dimension")
    return dims


def _same_bytes(first: bytes | memoryview, second: bytes | memoryview) -> bool:
    if len(first) != len(second):
        return False
    if isinstance(first, bytes) and isinstance(second, bytes):
        return first == second
    left, right = np.frombuffer(first, dtype=np.uint8), np.frombuffer(second, dtype=np.uint8)
    return all(
        np.array_equal(left[start : start + _COMPARE_CHUNK], right[start : start + _COMPARE_CHUNK])
        for start in range(0, len(left), _COMPARE_CHUNK)
    )


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


def _unpack(raw: np.ndarray, element_type: ElementType, count: int) -> np.ndarray:
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


def _codes(array: np.ndarray, element_type: ElementType) -> np.ndarray:
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
        low, high = (-8, 7) if signed else (0, mask)
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


def _pack(codes: np.ndarray, element_type: ElementType) -> bytes:
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


def _encode_strings(array: np.ndarray) -> bytes:
    values = np.asarray(array)
    parts: list[bytes] = []
    for index, item in enumerate(values.reshape(-1).tolist()):
        if isinstance(item, str):
            try:
                parts.append(item.encode("utf-8"))
            except UnicodeEncodeError as exc:
                raise WeightsError(f"string element {index} cannot be encoded as UTF-8: {exc.reason}") from None
        elif isinstance(item, (bytes, bytearray)):
            parts.append(bytes(item))
        else:
            raise WeightsError(f"string Const elements must be str, element {index} is {type(item).__name__}")
    ends = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(np.array([len(part) for part in parts], dtype=np.int64), out=ends[1:])
    if len(parts) > _INT32_MAX or ends[-1] > _INT32_MAX:
        raise WeightsError(
            f"string Const too large for int32 offsets: {len(parts)} strings, {int(ends[-1])} bytes of text"
        )
    header = np.empty(len(parts) + 2, dtype=_I32)
    header[0] = len(parts)
    header[1:] = ends
    return header.tobytes() + b"".join(parts)


def _decode_strings(buf: memoryview, dims: tuple[int, ...], count: int) -> np.ndarray:
    """Parse ``int32 N, N+1 int32 end offsets from 0, UTF-8 text``, checking every field first."""
    size = len(buf)
    if size < 4:
        raise WeightsError(f"string Const needs at least 4 bytes for its string count but size is {size}")
    declared = int(np.frombuffer(buf, dtype=_I32, count=1)[0])
    if declared < 0:
        raise WeightsError(f"string Const declares {declared} strings; the count must be >= 0")
    if declared != count:
        raise WeightsError(
            f"string Const declares {declared} strings but shape {shape_text(dims)} has {count} elements"
        )
    header = 4 * (declared + 2)
    if size < header:
        raise WeightsError(
            f"string Const with {declared} strings needs {header} bytes for its count and offsets but size is {size}"
        )
    ends = np.frombuffer(buf, dtype=_I32, count=declared + 1, offset=4).astype(np.int64)
    if ends[0] != 0:
        raise WeightsError(f"string Const offsets must start at 0, got {int(ends[0])}")
    steps = np.diff(ends)
    if (steps < 0).any():
        index = int(np.argmax(steps < 0))
        raise WeightsError(
            f"string Const offsets must not decrease: string {index} starts at {int(ends[index])} "
            f"but ends at {int(ends[index + 1])}"
        )
    text_size = size - header
    if ends[-1] > text_size:
        raise WeightsError(
            f"string Const text ends at byte {int(ends[-1])} but only {text_size} bytes follow its "
            f"{header}-byte header (size is {size})"
        )
    text = bytes(buf[header : header + int(ends[-1])])
    out = np.empty(count, dtype=object)
    bounds = ends.tolist()
    for index in range(count):
        try:
            out[index] = text[bounds[index] : bounds[index + 1]].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise WeightsError(
                f"string Const element {index} is not valid UTF-8: {exc.reason} at byte {exc.start}"
            ) from None
    return out
