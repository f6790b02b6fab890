"""Reading untrusted ``.npy`` files and ``.npz`` archives, and writing ``.npz`` files: every size is checked
before it is read or inflated.

DESIGN.md section 7. A ``.npy`` header is read with a bounded length and checked (no Python
objects, the element budget, and, through ``expect``, the Parameter it feeds) before any data is
read. An ``.npz`` is opened as a regular file without reading past its reported size; its member
count is bounded before the members are listed (by ``zip_directory``, as ``zipfile`` lists them), names
must be unique, and a member is only inflated once its header has been checked: the decompressor is
driven with ``max_length`` so that no more than the declared bytes are ever inflated (``zipfile`` itself
inflates a bzip2 or lzma chunk of 4 KiB to whatever it expands to, gigabytes for a bomb).
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import struct
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Protocol

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrError, IrIOError, Location, ResourceLimitError, printable
from irgraph.core.lazy import lazy_module
from irgraph.io.data.zip_directory import ZIP_BZIP2, ZIP_DEFLATED, ZIP_LZMA, ZIP_STORED, ZipMember, read_directory
from irgraph.io.regular_file import NotARegularFileError, SizedReader

# Imported when an archive is written, damaged or compressed with bzip2 or lzma: reading a plain one needs none
# of them (irgraph.io.data.zip_directory lists its members).
if TYPE_CHECKING:
    import bz2
    import lzma
    import zipfile

    from irgraph.io import atomic
else:
    bz2, lzma, zipfile = lazy_module("bz2"), lazy_module("lzma"), lazy_module("zipfile")
    atomic = lazy_module("irgraph.io.atomic")

__all__ = [
    "MAX_NPY_HEADER_BYTES", "MAX_NPZ_MEMBERS", "ByteSource", "Expect", "NpzArchive", "decode_stored", "for_storage",
    "is_ml_dtype", "load_member", "load_npy", "load_npz", "open_npz", "read_npy", "require_file", "storage_dtype",
    "to_stored", "write_npz",
]

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


class ByteSource(Protocol):
    """What reading a .npy needs of its stream: a file, a BytesIO, an archive member (which may return fewer
    bytes than asked, or None as a raw stream may)."""

    def read(self, size: int = ..., /) -> bytes | None: ...

    def readinto(self, buffer: memoryview, /) -> int | None: ...


# ------------------------------------------------------------------------------------ .npy
def _read_exact(stream: ByteSource, size: int, what: str) -> bytes:
    data = b""
    while len(data) < size:  # a raw stream may return fewer bytes than asked
        piece = stream.read(size - len(data))
        if not piece:
            raise ValueError(f"EOF: reading {what}, expected {size} bytes got {len(data)}")
        data += piece
    return data


def _read_header(stream: ByteSource) -> tuple[tuple[int, ...], bool, np.dtype, int]:
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

            read = _format_impl._read_array_header  # type: ignore[attr-defined]  # private, not in NumPy's stubs
        shape, fortran_order, dtype = read(header, version)
    return tuple(shape), bool(fortran_order), dtype, 8 + field + length


def read_npy(stream: ByteSource, available: int, what: str, element_limit: int, expect: Expect | None = None,
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
        target = array.reshape(-1).view(np.uint8).data  # a memoryview of the array's bytes
        done = 0
        while done < needed:
            got = stream.readinto(target[done : done + _CHUNK])
            if not got:
                raise ValueError(f"the data ends after {done} of the {needed} bytes its header declares")
            done += got
    return array.T if fortran_order else array


def load_npy_file(path: str, element_limit: int, expect: Expect | None = None) -> np.ndarray:
    """The array of a .npy file: a regular file only, never read past its reported size."""
    with io.BufferedReader(SizedReader.open(path)) as stream:
        return read_npy(stream, stream.raw.size, path, element_limit, expect)


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
            _check_member_count(self._stream, self._stream.raw.size)
            members: dict[str, ZipMember] = {}
            for info in read_directory(self._stream, self._stream.raw.size):
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
        array = read_npy(stream, info.file_size, what, element_limit, expect, exact=True)
        stream.finish()
        return array


def _check_member_count(stream: IO[bytes], size: int) -> None:
    """Refuse an archive with more than MAX_NPZ_MEMBERS members before they are listed."""
    tail_size = min(size, (1 << 16) + 22)
    stream.seek(size - tail_size)
    tail = stream.read(tail_size)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        return  # not a zip file: read_directory says so
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

    def __init__(self, archive: IO[bytes], info: ZipMember) -> None:
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
        # zlib's object (typeshed's private name: the class is not exposed) or bzip2's or lzma's.
        self._decompressor: zlib._Decompress | bz2.BZ2Decompressor | lzma.LZMADecompressor | None
        if self._method == ZIP_STORED:
            self._decompressor = None
        elif self._method == ZIP_DEFLATED:
            self._decompressor = zlib.decompressobj(-15)
        elif self._method == ZIP_BZIP2:
            self._decompressor = bz2.BZ2Decompressor()
        elif self._method == ZIP_LZMA:
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
        # zipfile decodes a member's LZMA properties with the same private function (so typeshed lacks it).
        decode = lzma._decode_filter_properties  # type: ignore[attr-defined]  # private, as said above
        filters = [decode(lzma.FILTER_LZMA1, properties)]
        return lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=filters)

    def _inflate(self, size: int) -> bytes:
        decompressor = self._decompressor
        if size <= 0:
            return b""  # zlib takes max_length 0 as "no limit"
        if decompressor is None:
            return self._raw(size)
        while True:
            if not isinstance(decompressor, (bz2.BZ2Decompressor, lzma.LZMADecompressor)):  # deflate
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

    def readinto(self, buffer) -> int:
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


# ------------------------------------------------------------------------------------ stored arrays
# How an array is stored in an .npz and read back, in one place: strings (object arrays) are
# written as unicode (``for_storage``); ml_dtypes' types are written as raw ``|Vn`` items
# (``to_stored``, ``storage_dtype``) and viewed as their own dtype again when read (``decode_stored``).
def is_ml_dtype(dtype: np.dtype) -> bool:
    """True for ml_dtypes' types (bf16, f8, 4-bit...), which ``.npz`` files hold as raw ``|Vn`` bytes.

    Most of them already save as ``|Vn``, but float8_e5m2 reports kind ``f`` and saves as ``<f1``,
    which ``np.load`` cannot read back, so every one of them is stored explicitly as raw bytes.
    """
    return dtype.type.__module__.startswith("ml_dtypes")


def storage_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype an array of ``dtype`` has after an ``.npz`` round trip (ml_dtypes types become ``|Vn``)."""
    if is_ml_dtype(dtype):
        return np.dtype(f"V{dtype.itemsize}")
    return dtype


def for_storage(array: np.ndarray) -> np.ndarray:
    """An array ``np.lib.format`` can write without pickling: string (object) tensors become unicode."""
    if array.dtype.kind == "O":
        items = [str(item) for item in array.reshape(-1).tolist()]
        return np.array(items, dtype=str).reshape(array.shape) if items else np.zeros(array.shape, dtype="<U1")
    return array


def to_stored(array: np.ndarray) -> np.ndarray:
    """``array`` as an ``.npz`` member holds it: ml_dtypes items as raw ``|Vn`` bytes (a view, no copy)."""
    array = np.asarray(array)
    return array.view(storage_dtype(array.dtype))


def decode_stored(array: np.ndarray, want: ElementType | np.dtype) -> np.ndarray:
    """Undo ``to_stored``: raw ``|Vn`` items become ``want``'s ml_dtypes dtype; anything else is unchanged."""
    dtype = want.numpy_dtype if isinstance(want, ElementType) else want
    if dtype is not None and is_ml_dtype(dtype) and array.dtype == storage_dtype(dtype):
        return array.view(dtype)
    return array


# ------------------------------------------------------------------------------------ files
def require_file(path: str, what: str = "file") -> None:
    """Raise IrIOError unless ``path`` is an existing regular file."""
    if not os.path.exists(path):
        raise IrIOError(f"no such {what}", Location(file=path))
    if not os.path.isfile(path):
        raise IrIOError("not a regular file", Location(file=path))


@contextlib.contextmanager
def reading(path: str, kind: str) -> Iterator[None]:
    """Turn what reading an untrusted data file raises into an IrIOError naming ``path`` (or locate IrErrors).

    OSErrors that name their own file (permission denied, ...) pass through unchanged.
    """
    try:
        yield
    except IrError as err:
        raise err.locate(Location(file=path)) from None
    except NotARegularFileError as err:
        raise IrIOError(str(err.strerror), Location(file=path)) from None
    except (zipfile.BadZipFile, ValueError, EOFError, RuntimeError, NotImplementedError, OSError, zlib.error,
            lzma.LZMAError) as err:
        if isinstance(err, OSError) and err.filename is not None and not isinstance(err, zipfile.BadZipFile):
            raise
        reason = printable(str(err)).strip(" ") or type(err).__name__
        raise IrIOError(f"cannot read the {kind} file: {reason}", Location(file=path)) from None


def load_npy(path: str, element_limit: int, expect: Expect | None = None) -> np.ndarray:
    """One untrusted .npy file: header checked (and ``expect``-ed) before reading data, never unpickled."""
    require_file(path, "input file")
    with reading(path, ".npy"):
        return load_npy_file(path, element_limit, expect)


def open_npz(path: str, element_limit: int) -> NpzArchive:
    """An untrusted .npz with its member names checked (see NpzArchive); read members with ``load_member``."""
    require_file(path, "file")
    with reading(path, ".npz"):
        return NpzArchive(path, element_limit)


def load_member(archive: NpzArchive, key: str, element_limit: int, expect: Expect | None = None) -> np.ndarray:
    """Member ``key`` of ``archive``: header checked (and ``expect``-ed) before it is inflated."""
    with reading(archive.path, ".npz"):
        try:
            return archive.load(key, element_limit, expect)
        except (IrError, NotARegularFileError):
            raise
        except Exception as err:  # noqa: BLE001 - numpy raises many kinds on corrupt headers
            raise ValueError(f"array {key!r}: {printable(str(err)).strip(' ') or type(err).__name__}") from None


def load_npz(path: str, element_limit: int) -> dict[str, np.ndarray]:
    """Every array of an untrusted .npz, by key: headers checked before inflating, never unpickled.

    A file that is not a readable .npz (corrupt, truncated, pickled members, non-.npy members,
    two members of one name, too many members) raises IrIOError like any other unreadable file.
    """
    with open_npz(path, element_limit) as archive:
        return {key: load_member(archive, key, element_limit) for key in archive}


def write_npz(path: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` as an .npz via a temporary file in the same directory and a rename.

    Keys may hold any character (``np.savez(**arrays)`` cannot take every tensor name). On any
    failure the temporary file is removed and an existing ``path`` is left untouched.
    """

    def write(stream: IO[bytes]) -> None:
        with zipfile.ZipFile(stream, "w", zipfile.ZIP_STORED) as archive:
            for key, array in arrays.items():
                with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, to_stored(array), allow_pickle=False)

    atomic.replace_files([(path, write)])
