"""The .bin side of IR I/O: Const byte sizes, (un)packing, a read-only weights file, a deduplicating writer."""

from __future__ import annotations

import math
import mmap
import operator
import os
import weakref
import zlib
from collections.abc import Iterable
from typing import BinaryIO

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import WeightsError
from irgraph.core.mappings import register_mapping
from irgraph.io.packed import pack_codes, packed_codes, unpack_codes
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
            flat = unpack_codes(np.frombuffer(buf, dtype=np.uint8, count=needed), element_type, count)
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
        return pack_codes(packed_codes(array, element_type), element_type)
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
