"""The member list of a zip archive (an ``.npz``), read as ``zipfile.ZipFile`` reads it, without importing ``zipfile``.

Importing ``zipfile`` imports ``pathlib`` (for ``zipfile.Path``), and with it ``urllib.parse`` and ``ipaddress``,
``shutil``, ``bz2``, ``lzma`` and ``threading``: about 7 ms, a sixth of what a cold ``ir-run`` of a small model
adds to ``import numpy`` (issue 28 item 5). ``irgraph.io.data.npz`` already inflates members itself (to bound
what they inflate to), so only the list is needed. ``read_directory`` follows CPython 3.11's
``_EndRecData``, ``_EndRecData64``, ``ZipFile._RealGetContents`` and ``ZipInfo._decodeExtra`` step by step: the
same records found, the same fields, the same exceptions and messages (``zipfile.BadZipFile``, imported when
one is raised). tests/io/test_npz_files.py compares the two on valid and damaged archives.
"""

from __future__ import annotations

import struct
from typing import IO, TYPE_CHECKING

from irgraph.core.lazy import lazy_module
from irgraph.core.records import Record

if TYPE_CHECKING:
    import zipfile
else:
    zipfile = lazy_module("zipfile")  # for its BadZipFile, when an archive is damaged

__all__ = ["ZIP_BZIP2", "ZIP_DEFLATED", "ZIP_LZMA", "ZIP_STORED", "ZipMember", "read_directory"]

ZIP_STORED, ZIP_DEFLATED, ZIP_BZIP2, ZIP_LZMA = 0, 8, 12, 14
"""Compression methods, as ``zipfile`` names them."""

_END = struct.Struct("<4s4H2LH")  # end of central directory record
_END_SIGNATURE = b"PK\005\006"
_LOCATOR = struct.Struct("<4sLQL")  # zip64 end of central directory locator
_LOCATOR_SIGNATURE = b"PK\x06\x07"
_END64 = struct.Struct("<4sQ2H2L4Q")  # zip64 end of central directory record
_END64_SIGNATURE = b"PK\x06\x06"
_ENTRY = struct.Struct("<4s4B4HL2L5H2L")  # central directory file header
_ENTRY_SIGNATURE = b"PK\001\002"
_MAX_EXTRACT_VERSION = 63
_UTF8_NAME = 1 << 11


class ZipMember(Record):
    """What irgraph reads of one central directory entry (the ``zipfile.ZipInfo`` fields of the same names)."""

    __slots__ = ("filename", "flag_bits", "compress_type", "CRC", "compress_size", "file_size", "header_offset")

    filename: str
    flag_bits: int
    compress_type: int
    CRC: int
    compress_size: int
    file_size: int
    header_offset: int

    def __init__(self, filename: str, flag_bits: int, compress_type: int, CRC: int, compress_size: int,  # noqa: N803
                 file_size: int, header_offset: int) -> None:
        object.__setattr__(self, "filename", filename)
        object.__setattr__(self, "flag_bits", flag_bits)
        object.__setattr__(self, "compress_type", compress_type)
        object.__setattr__(self, "CRC", CRC)
        object.__setattr__(self, "compress_size", compress_size)
        object.__setattr__(self, "file_size", file_size)
        object.__setattr__(self, "header_offset", header_offset)

    def is_dir(self) -> bool:
        """True for a directory entry (its name ends with a slash)."""
        return self.filename.endswith("/")


def _end_record(stream: IO[bytes], size: int) -> tuple[list[int | bytes], int] | None:
    """``_EndRecData``: the end record's fields (zip64's where it has them) and where it starts, or None."""
    if size < _END.size:
        return None
    stream.seek(size - _END.size)
    data = stream.read()
    if len(data) == _END.size and data[0:4] == _END_SIGNATURE and data[-2:] == b"\000\000":
        return _zip64(stream, size, size - _END.size, list(_END.unpack(data)))
    comment_start = max(size - (1 << 16) - _END.size, 0)
    stream.seek(comment_start)
    data = stream.read()
    start = data.rfind(_END_SIGNATURE)
    if start < 0 or len(data) - start < _END.size:
        return None
    return _zip64(stream, size, comment_start + start, list(_END.unpack(data[start : start + _END.size])))


def _zip64(stream: IO[bytes], size: int, at: int, record: list[int | bytes]) -> tuple[list[int | bytes], int]:
    """``_EndRecData64``: the zip64 end record's counts, size and offset in place of ``record``'s when its
    locator stands right before the end record."""
    if at - _LOCATOR.size < 0:
        return record, at
    stream.seek(at - _LOCATOR.size)
    data = stream.read(_LOCATOR.size)
    if len(data) != _LOCATOR.size:
        return record, at
    signature, disk, _, disks = _LOCATOR.unpack(data)
    if signature != _LOCATOR_SIGNATURE:
        return record, at
    if disk != 0 or disks > 1:
        raise zipfile.BadZipFile("zipfiles that span multiple disks are not supported")
    if at - _LOCATOR.size - _END64.size < 0:  # zipfile's seek fails here: an OSError, "not a zip file"
        raise OSError("the zip64 end record would start before the file")
    stream.seek(at - _LOCATOR.size - _END64.size)
    data = stream.read(_END64.size)
    if len(data) != _END64.size:
        return record, at
    fields = _END64.unpack(data)
    if fields[0] != _END64_SIGNATURE:
        return record, at
    record[0] = fields[0]
    record[1:7] = fields[4:10]  # disk number, disk start, entries (this disk, total), size, offset
    return record, at


def read_directory(stream: IO[bytes], size: int) -> list[ZipMember]:
    """The entries of the zip archive ``stream`` (``size`` bytes long) in central directory order, as
    ``zipfile.ZipFile(stream).infolist()`` gives them (raising what it raises on a damaged archive)."""
    try:
        found = _end_record(stream, size)
    except OSError:
        raise zipfile.BadZipFile("File is not a zip file") from None
    if found is None:
        raise zipfile.BadZipFile("File is not a zip file")
    record, location = found
    directory_size, directory_offset = int(record[5]), int(record[6])
    concat = location - directory_size - directory_offset  # data before the archive (a self-extractor)
    if record[0] == _END64_SIGNATURE:
        concat -= _END64.size + _LOCATOR.size
    start = directory_offset + concat
    if start < 0:
        raise zipfile.BadZipFile("Bad offset for central directory")
    stream.seek(start)
    data = stream.read(directory_size)
    members = []
    position = 0
    while position < directory_size:
        entry = data[position : position + _ENTRY.size]
        if len(entry) != _ENTRY.size:
            raise zipfile.BadZipFile("Truncated central directory")
        fields = _ENTRY.unpack(entry)
        if fields[0] != _ENTRY_SIGNATURE:
            raise zipfile.BadZipFile("Bad magic number for central directory")
        name_length, extra_length, comment_length = fields[12:15]
        at = position + _ENTRY.size
        raw_name = data[at : at + name_length]
        extra = data[at + name_length : at + name_length + extra_length]
        flags = fields[5]
        # zipfile decodes names without the UTF-8 flag as cp437, which is ASCII below 0x80 (and costs an import).
        name = raw_name.decode("utf-8" if flags & _UTF8_NAME else "ascii" if raw_name.isascii() else "cp437")
        if fields[3] > _MAX_EXTRACT_VERSION:
            raise NotImplementedError("zip file version %.1f" % (fields[3] / 10))  # noqa: UP031 - zipfile's words
        compress_size, file_size, header_offset = _sizes(extra, fields[10], fields[11], fields[18])
        null = name.find("\0")  # ZipInfo cuts a name at its first NUL
        members.append(ZipMember(name if null < 0 else name[:null], flags, fields[6], fields[9], compress_size,
                                 file_size, header_offset + concat))
        position = at + name_length + extra_length + comment_length
    return members


def _sizes(extra: bytes, compress_size: int, file_size: int, header_offset: int) -> tuple[int, int, int]:
    """``ZipInfo._decodeExtra``: the zip64 extra field's values in place of the entry's saturated ones."""
    while len(extra) >= 4:
        kind, length = struct.unpack("<HH", extra[:4])
        if length + 4 > len(extra):
            raise zipfile.BadZipFile("Corrupt extra field %04x (size=%d)" % (kind, length))  # noqa: UP031
        if kind == 0x0001:
            data = extra[4 : length + 4]
            field = ""
            try:
                if file_size in (0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF):
                    field = "File size"
                    (file_size,) = struct.unpack("<Q", data[:8])
                    data = data[8:]
                if compress_size == 0xFFFF_FFFF:
                    field = "Compress size"
                    (compress_size,) = struct.unpack("<Q", data[:8])
                    data = data[8:]
                if header_offset == 0xFFFF_FFFF:
                    field = "Header offset"
                    (header_offset,) = struct.unpack("<Q", data[:8])
            except struct.error:
                raise zipfile.BadZipFile(f"Corrupt zip64 extra field. {field} not found.") from None
        extra = extra[length + 4 :]
    return compress_size, file_size, header_offset
