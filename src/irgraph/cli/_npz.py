"""Reading untrusted ``.npy`` files and ``.npz`` archives: every size is checked before it is read or inflated.

DESIGN.md section 7. A ``.npy`` header is read with a bounded length and checked (no Python
objects, the element budget, and, through ``expect``, the Parameter it feeds) before any data is
read. An ``.npz`` is opened as a regular file without reading past its reported size; its member
count is bounded before ``zipfile`` lists the members, names must be unique, and a member is only
inflated once its header has been checked: the decompressor is driven with ``max_length`` so that
no more than the declared bytes are ever inflated (``zipfile`` itself inflates a bzip2 or lzma
chunk of 4 KiB to whatever it expands to, gigabytes for a bomb).
"""

from __future__ import annotations

import bz2
import io
import lzma
import math
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import IO

import numpy as np

from irgraph.errors import ResourceLimitError
from irgraph.io.regular_file import SizedReader

__all__ = ["MAX_NPY_HEADER_BYTES", "MAX_NPZ_MEMBERS", "NpzArchive", "read_npy"]

MAX_NPY_HEADER_BYTES = 10_000
"""Longest ``.npy`` header read (NumPy's own default limit, ``max_header_size``); checked before reading it."""

MAX_NPZ_MEMBERS = 10_000
"""Most members an ``.npz`` may have (a model has at most a few thousand inputs or outputs)."""

_MAX_CENTRAL_DIRECTORY = MAX_NPZ_MEMBERS * 1024  # bytes of member records read before counting them
_CHUNK = 1 << 20
_MAGIC = b"\x93NUMPY"
_LENGTH_FIELDS = {(1, 0): 2, (2, 0): 4, (3, 0): 4}

Expect = Callable[[np.dtype, tuple[int, ...]], None]
"""Called with a header's dtype and shape before any data is read; raises to refuse it."""


# ------------------------------------------------------------------------------------ .npy
def _read_exact(stream: IO[bytes], size: int, what: str) -> bytes:
    data = b""
    while len(data) < size:  # a raw stream may return fewer bytes than asked
        piece = stream.read(size - len(data))
        if not piece:
            raise ValueError(f"EOF: reading {what}, expected {size} bytes got {len(data)}")
        data += piece
    return data


def _read_header(stream: IO[bytes]) -> tuple[tuple[int, ...], bool, np.dtype, int]:
    """``(shape, fortran_order, dtype, header bytes)`` of the .npy at the stream's start, read with bounds."""
    magic = _read_exact(stream, 8, "magic string")
    if magic[:6] != _MAGIC:
        raise ValueError("the magic string is not correct: this is not a .npy array")
    version = (magic[6], magic[7])
    field = _LENGTH_FIELDS.get(version)
    if field is None:
        raise ValueError(f"unsupported .npy format version {version[0]}.{version[1]}")
    length_bytes = _read_exact(stream, field, "array header length")
    length = int.from_bytes(length_bytes, "little")
    if length > MAX_NPY_HEADER_BYTES:
        raise ValueError(f"the .npy header declares {length} bytes; at most {MAX_NPY_HEADER_BYTES} are read")
    header = io.BytesIO(magic + length_bytes + _read_exact(stream, length, "array header"))
    header.seek(8)
    fmt = np.lib.format
    if version == (1, 0):
        shape, fortran_order, dtype = fmt.read_array_header_1_0(header)
    elif version == (2, 0):
        shape, fortran_order, dtype = fmt.read_array_header_2_0(header)
    else:  # v3 (UTF-8 field names) has no public reader; NumPy 2 keeps the private one in _format_impl
        read = getattr(fmt, "_read_array_header", None)
        if read is None:
            from numpy.lib import _format_impl

            read = _format_impl._read_array_header
        shape, fortran_order, dtype = read(header, version)
    return tuple(shape), bool(fortran_order), dtype, 8 + field + length


def read_npy(stream: IO[bytes], available: int, what: str, element_limit: int, expect: Expect | None = None,
             exact: bool = False) -> np.ndarray:
    """One .npy array from ``stream`` (``available`` bytes in all), never unpickled.

    The header is checked before any data is read: no Python objects, at most ``element_limit``
    elements, the data must fit in what is ``available`` (and, with ``exact``, fill it), then
    ``expect(dtype, shape)``. Exactly the declared bytes are read, into a fresh array.
    """
    shape, fortran_order, dtype, header_size = _read_header(stream)
    if dtype.hasobject:
        raise ValueError("it holds Python objects (a pickle); only typed arrays are read")
    count = math.prod(shape)
    if count > element_limit:
        raise ResourceLimitError(
            f"{what} declares {count} elements, above the limit of {element_limit} (see --max-elements)"
        )
    needed = count * dtype.itemsize
    left = available - header_size
    if needed > left:
        raise ValueError(f"the header declares {needed} bytes of data but only {max(left, 0)} follow")
    if exact and needed != left:
        raise ValueError(f"the header declares {needed} bytes of data but {left} follow")
    if expect is not None:
        expect(dtype, shape)
    array = np.empty(shape[::-1] if fortran_order else shape, dtype=dtype)
    if needed:
        target = memoryview(array.reshape(-1).view(np.uint8))
        done = 0
        while done < needed:
            got = stream.readinto(target[done : done + _CHUNK])  # type: ignore[attr-defined]
            if not got:
                raise ValueError(f"the data ends after {done} of the {needed} bytes its header declares")
            done += got
    return array.T if fortran_order else array


def load_npy_file(path: str, element_limit: int, expect: Expect | None = None) -> np.ndarray:
    """The array of a .npy file: a regular file only, never read past its reported size."""
    with io.BufferedReader(SizedReader.open(path)) as stream:
        return read_npy(stream, stream.raw.size, path, element_limit, expect)  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------ .npz
class NpzArchive(Mapping[str, np.ndarray]):
    """An untrusted .npz opened for reading: member names are known at once, arrays are read on demand.

    Opening checks the file (regular, never read past its reported size), bounds the member count
    before listing the members, and refuses duplicate names and members that are not ``.npy``.
    ``load(key, ...)`` reads one member; indexing loads with the element limit given here.
    """

    def __init__(self, path: str, element_limit: int) -> None:
        self.path = path
        self.element_limit = element_limit
        self._stream = io.BufferedReader(SizedReader.open(path))
        try:
            _check_member_count(self._stream, self._stream.raw.size)  # type: ignore[attr-defined]
            self._zip = zipfile.ZipFile(self._stream)
            members: dict[str, zipfile.ZipInfo] = {}
            for info in self._zip.infolist():
                if info.is_dir():
                    continue
                if not info.filename.endswith(".npy"):
                    raise ValueError(f"member {info.filename!r} is not a .npy array")
                key = info.filename[: -len(".npy")]
                if key in members:
                    raise ValueError(f"two members are named {info.filename!r}; which one is meant is unclear")
                members[key] = info
            self._members = members
        except BaseException:
            self._stream.close()
            raise

    def close(self) -> None:
        """Close the file."""
        self._stream.close()

    def __enter__(self) -> NpzArchive:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __len__(self) -> int:
        return len(self._members)

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __contains__(self, key: object) -> bool:
        return key in self._members

    def __getitem__(self, key: str) -> np.ndarray:
        return self.load(key, self.element_limit)

    def load(self, key: str, element_limit: int, expect: Expect | None = None) -> np.ndarray:
        """The array of member ``key``: header checked (see :func:`read_npy`) before it is inflated."""
        info = self._members[key]
        what = f"array {key!r}"
        if info.flag_bits & 0x1:
            raise ValueError(f"{what} is encrypted")
        stream = _MemberReader(self._stream, info)
        array = read_npy(stream, info.file_size, what, element_limit, expect, exact=True)  # type: ignore[arg-type]
        stream.finish()
        return array


def _check_member_count(stream: IO[bytes], size: int) -> None:
    """Refuse an archive with more than MAX_NPZ_MEMBERS members before ``zipfile`` lists them."""
    tail_size = min(size, (1 << 16) + 22)
    stream.seek(size - tail_size)
    tail = stream.read(tail_size)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        return  # not a zip file: zipfile says so
    count, directory_size, directory_offset = struct.unpack("<HII", tail[at + 10 : at + 20])
    locator = tail[at - 20 : at] if at >= 20 else b""
    if locator[:4] == b"PK\x06\x07":  # zip64: the real fields are in the zip64 end record
        stream.seek(int.from_bytes(locator[8:16], "little"))
        record = stream.read(56)
        if len(record) == 56 and record[:4] == b"PK\x06\x06":
            count, directory_size, directory_offset = struct.unpack("<QQQ", record[32:56])
    if count > MAX_NPZ_MEMBERS:
        raise ValueError(f"it has {count} members; irgraph reads at most {MAX_NPZ_MEMBERS}")
    if directory_size > _MAX_CENTRAL_DIRECTORY:
        raise ValueError(f"its list of members takes {directory_size} bytes; irgraph reads at most "
                         f"{_MAX_CENTRAL_DIRECTORY} (and {MAX_NPZ_MEMBERS} members)")
    stream.seek(directory_offset)
    records = stream.read(directory_size).count(b"PK\x01\x02")  # the count field may lie: count the records
    if records > MAX_NPZ_MEMBERS:
        raise ValueError(f"it has about {records} members; irgraph reads at most {MAX_NPZ_MEMBERS}")


class _MemberReader(io.RawIOBase):
    """The inflated bytes of one member, never more than asked for (``max_length``), CRC checked by ``finish``."""

    def __init__(self, archive: IO[bytes], info: zipfile.ZipInfo) -> None:
        super().__init__()
        archive.seek(info.header_offset)
        local = archive.read(30)
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise zipfile.BadZipFile(f"bad local header for member {info.filename!r}")
        name_length, extra_length = struct.unpack("<HH", local[26:30])
        self._archive = archive
        self._position = info.header_offset + 30 + name_length + extra_length
        self._raw_left = info.compress_size
        self._info = info
        self._method = info.compress_type
        self._crc = 0
        self._pending = b""  # compressed bytes given to zlib that it has not consumed yet
        if self._method == zipfile.ZIP_STORED:
            self._decompressor = None
        elif self._method == zipfile.ZIP_DEFLATED:
            self._decompressor = zlib.decompressobj(-15)
        elif self._method == zipfile.ZIP_BZIP2:
            self._decompressor = bz2.BZ2Decompressor()
        elif self._method == zipfile.ZIP_LZMA:
            self._decompressor = self._lzma()
        else:
            raise NotImplementedError(f"compression method {self._method} of member {info.filename!r}")

    def readable(self) -> bool:
        return True

    def _raw(self, size: int) -> bytes:
        size = min(size, self._raw_left)
        if size <= 0:
            return b""
        self._archive.seek(self._position)
        data = self._archive.read(size)
        if len(data) != size:
            raise EOFError(f"member {self._info.filename!r} is truncated")
        self._position += size
        self._raw_left -= size
        return data

    def _lzma(self) -> lzma.LZMADecompressor:
        head = self._raw(4)
        if len(head) != 4:
            raise EOFError(f"member {self._info.filename!r} is truncated")
        properties = self._raw(int.from_bytes(head[2:4], "little"))
        filters = [lzma._decode_filter_properties(lzma.FILTER_LZMA1, properties)]  # type: ignore[attr-defined]
        return lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=filters)

    def _inflate(self, size: int) -> bytes:
        decompressor = self._decompressor
        if size <= 0:
            return b""  # zlib takes max_length 0 as "no limit"
        if decompressor is None:
            return self._raw(size)
        while True:
            if self._method == zipfile.ZIP_DEFLATED:
                data = self._pending or self._raw(_CHUNK)
                out = decompressor.decompress(data, size)
                self._pending = decompressor.unconsumed_tail
                if out or decompressor.eof or not data:
                    return out
            else:
                if decompressor.eof:
                    return b""
                data = self._raw(_CHUNK) if decompressor.needs_input else b""
                if decompressor.needs_input and not data:
                    return b""
                out = decompressor.decompress(data, size)
                if out:
                    return out

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
        view = memoryview(buffer).cast("B")
        out = self._inflate(len(view))
        view[: len(out)] = out
        self._crc = zlib.crc32(out, self._crc)
        return len(out)

    def finish(self) -> None:
        """After the declared bytes: the member must end here and match its CRC-32."""
        if self._inflate(1):
            raise ValueError(f"member {self._info.filename!r} holds more data than its size says")
        if self._crc != self._info.CRC:
            raise zipfile.BadZipFile(f"Bad CRC-32 for file {self._info.filename!r}")
