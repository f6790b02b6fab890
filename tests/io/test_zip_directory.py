"""zip_directory.read_directory lists an archive's members as zipfile.ZipFile (CPython 3.11) does: the same entries
and fields for valid archives of every kind an .npz may be, and the same exception and message for damaged ones
(every byte of the directory and end records overwritten, every length cut short)."""

from __future__ import annotations

import io
import os
import struct
import zipfile

import numpy as np
import pytest

from irgraph.io.data.zip_directory import read_directory

FIELDS = ("filename", "flag_bits", "compress_type", "CRC", "compress_size", "file_size", "header_offset")


class _File(io.BytesIO):
    """Bytes that seek as a file does (npz reads through SizedReader): a position before the start is an OSError
    (BytesIO would clamp it to 0)."""

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self.tell(), os.SEEK_END: len(self.getbuffer())}[whence]
        if base + offset < 0:
            raise OSError(22, "Invalid argument")
        return super().seek(base + offset)


def _listing(entries) -> list[tuple]:
    return [(*(getattr(entry, name) for name in FIELDS), entry.filename.endswith("/")) for entry in entries]


def _zipfile(data: bytes) -> object:
    try:
        with zipfile.ZipFile(_File(data)) as archive:
            return _listing(archive.infolist())
    except Exception as err:  # noqa: BLE001 - the outcome compared, whatever it is
        return type(err).__name__, str(err)


def _ours(data: bytes) -> object:
    try:
        return _listing(read_directory(_File(data), len(data)))
    except Exception as err:  # noqa: BLE001
        return type(err).__name__, str(err)


def _archive(compression: int = zipfile.ZIP_STORED, comment: bytes = b"", zip64: bool = False,
             names: tuple[str, ...] = ("x.npy", "y.npy")) -> bytes:
    stream = io.BytesIO()
    with zipfile.ZipFile(stream, "w", compression) as archive:
        archive.comment = comment
        for index, name in enumerate(names):
            with archive.open(name, "w", force_zip64=zip64) as member:
                np.lib.format.write_array(member, np.arange(index + 2, dtype=np.float32))
    return stream.getvalue()


def _with_zip64_end_records(data: bytes) -> bytes:
    """``data`` with its end record saturated and the zip64 end record and locator before it (zipfile writes them
    only past 65,535 members or 4 GiB)."""
    end = data.rfind(b"PK\x05\x06")
    count, size, offset = struct.unpack("<HII", data[end + 10 : end + 20])
    record = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size, offset)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, end, 1)
    saturated = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFF_FFFF, 0xFFFF_FFFF, 0)
    return data[:end] + record + locator + saturated


def _with_zip64_extra_fields(data: bytes, values: int = 3) -> bytes:
    """``data`` (no archive comment) with every central entry's sizes and local header offset saturated and given in
    a zip64 extra field instead (zipfile writes that field only for members past 4 GiB)."""
    end = len(data) - 22
    size, offset = struct.unpack("<II", data[end + 12 : end + 20])
    entries, position = [], offset
    while position < offset + size:
        fixed = bytearray(data[position : position + 46])
        compress_size, file_size, name_length, extra_length, comment_length = struct.unpack("<IIHHH", fixed[20:34])
        (header_offset,) = struct.unpack("<I", fixed[42:46])
        zip64 = struct.pack(f"<HH{values}Q", 1, 8 * values, *(file_size, compress_size, header_offset)[:values])
        fixed[20:28] = struct.pack("<II", 0xFFFF_FFFF, 0xFFFF_FFFF)
        fixed[30:32] = struct.pack("<H", extra_length + len(zip64))
        fixed[42:46] = struct.pack("<I", 0xFFFF_FFFF)
        variable = data[position + 46 : position + 46 + name_length + extra_length + comment_length]
        entries.append(bytes(fixed) + variable[:name_length] + zip64 + variable[name_length:])
        position += 46 + len(variable)
    directory = b"".join(entries)
    record = data[end : end + 12] + struct.pack("<II", len(directory), offset) + data[end + 20 :]
    return data[:offset] + directory + record


def _valid_archives(tmp_path) -> dict[str, bytes]:
    np.savez(tmp_path / "plain.npz", a=np.arange(3), b=np.ones((2, 2)))
    np.savez_compressed(tmp_path / "compressed.npz", a=np.arange(3))
    empty = io.BytesIO()
    zipfile.ZipFile(empty, "w").close()
    empty_with_comment = io.BytesIO()
    with zipfile.ZipFile(empty_with_comment, "w") as archive:
        archive.comment = b"c"  # the end record found by the comment search, at the first byte searched
    directory = io.BytesIO()
    with zipfile.ZipFile(directory, "w") as archive:
        archive.writestr("folder/", b"")
        archive.writestr("folder/x.npy", b"")
    return {
        "savez": (tmp_path / "plain.npz").read_bytes(),
        "savez_compressed": (tmp_path / "compressed.npz").read_bytes(),
        "zip64 members": _archive(zip64=True),
        "zip64 end records": _with_zip64_end_records(_archive(zip64=True)),
        "zip64 end records, data before": b"junk" + _with_zip64_end_records(_archive()),
        "zip64 extra fields": _with_zip64_extra_fields(_archive()),
        "deflated, with a comment": _archive(zipfile.ZIP_DEFLATED, comment=b"a comment PK"),
        "lzma": _archive(zipfile.ZIP_LZMA),
        "data before the archive": b"#!/bin/sh\nexit 0\n" + _archive(),
        "UTF-8 and cp437 names, a NUL in one": _archive(names=("n\u00e9.npy", "a\0b.npy")).replace(
            b"n\xc3\xa9.npy", b"n\xe9x.npy", 1),  # the first name's local header only: the directory keeps UTF-8
        "empty": empty.getvalue(),
        "empty, with a comment": empty_with_comment.getvalue(),
        "empty, zip64 end records": _with_zip64_end_records(empty.getvalue()),  # its zip64 record at byte 0
        "a directory entry": directory.getvalue(),
    }


def test_valid_archives_list_as_zipfile_lists_them(tmp_path) -> None:
    for what, data in _valid_archives(tmp_path).items():
        expected = _zipfile(data)
        assert isinstance(expected, list), (what, expected)
        assert _ours(data) == expected, what


def test_a_cp437_name_decodes_as_zipfile_decodes_it() -> None:
    data = _archive(names=("abc.npy",))
    for old, new in ((b"abc", b"\x80\xe9c"), (b"abc", b"a\xffc")):
        damaged = data.replace(old, new)
        assert _ours(damaged) == _zipfile(damaged)
        assert isinstance(_ours(damaged), list)


@pytest.mark.parametrize("kind", ["savez", "zip64 members", "zip64 end records", "zip64 end records, data before",
                                  "zip64 extra fields", "deflated, with a comment", "data before the archive"])
def test_every_byte_of_the_tail_overwritten_gives_zipfiles_outcome(tmp_path, kind) -> None:
    """Each byte from the central directory on (its entries, the zip64 records, the end record, the comment) set to
    0x00, 0x01, 0x7f, 0x80 and 0xff in turn: read_directory lists or refuses the archive exactly as zipfile does."""
    data = _valid_archives(tmp_path)[kind]
    start = data.find(b"PK\x01\x02")
    outcomes = set()
    for position in range(start, len(data)):
        for value in (0x00, 0x01, 0x7F, 0x80, 0xFF):
            damaged = data[:position] + bytes([value]) + data[position + 1 :]
            expected = _zipfile(damaged)
            assert _ours(damaged) == expected, (position, value)
            outcomes.add(expected[0] if isinstance(expected, tuple) else "listed")
    assert {"listed", "BadZipFile"} <= outcomes  # the damage reached both ways


@pytest.mark.parametrize("kind", ["savez", "zip64 members", "zip64 end records", "deflated, with a comment"])
def test_every_cut_gives_zipfiles_outcome(tmp_path, kind) -> None:
    """The archive cut short at every length, and cut from the front by every length up to its directory."""
    data = _valid_archives(tmp_path)[kind]
    for length in range(len(data) + 1):
        assert _ours(data[:length]) == _zipfile(data[:length]), length
    for cut in range(0, data.find(b"PK\x01\x02") + 8):
        assert _ours(data[cut:]) == _zipfile(data[cut:]), cut


def test_zip64_records_that_disagree_or_span_disks_are_refused_as_zipfile_refuses_them() -> None:
    data = _with_zip64_end_records(_archive(zip64=True))
    locator = data.rfind(b"PK\x06\x07")
    record = data.rfind(b"PK\x06\x06")
    assert isinstance(_zipfile(data), list) and _ours(data) == _zipfile(data)
    variants = {
        "two disks": data[: locator + 16] + (2).to_bytes(4, "little") + data[locator + 20 :],
        "disk 1": data[: locator + 4] + (1).to_bytes(4, "little") + data[locator + 8 :],
        "locator pointing elsewhere": data[: locator + 8] + (2**40).to_bytes(8, "little") + data[locator + 16 :],
        # (zipfile reads the zip64 record right before the locator, whatever the locator's offset says)
        "directory size too big": data[: record + 40] + (2**33).to_bytes(8, "little") + data[record + 48 :],
        "no record before the locator": data[record + 56 :],
    }
    outcomes = {what: _zipfile(damaged) for what, damaged in variants.items()}
    for what, damaged in variants.items():
        assert _ours(damaged) == outcomes[what], what
    assert outcomes["two disks"] == outcomes["disk 1"] == (
        "BadZipFile", "zipfiles that span multiple disks are not supported")
    assert outcomes["no record before the locator"] == ("BadZipFile", "File is not a zip file")


@pytest.mark.parametrize("version", [20, 63, 64, 255])
def test_an_entry_needing_a_later_zip_version_is_refused_as_zipfile_refuses_it(version) -> None:
    data = _archive()
    at = data.find(b"PK\x01\x02") + 6  # the version needed to extract, of the first central entry
    changed = data[:at] + bytes([version]) + data[at + 1 :]
    expected = _zipfile(changed)
    assert _ours(changed) == expected
    assert isinstance(expected, list) == (version <= 63)


@pytest.mark.parametrize("values", [0, 1, 2])
def test_a_zip64_extra_field_short_of_the_saturated_values_is_refused_as_zipfile_refuses_it(values) -> None:
    damaged = _with_zip64_extra_fields(_archive(), values)
    expected = _zipfile(damaged)
    assert expected[0] == "BadZipFile" and _ours(damaged) == expected


def test_an_end_record_holding_the_end_signature_in_its_fields_is_read_as_zipfile_reads_it() -> None:
    # zipfile takes the last 22 bytes as the end record when they have no comment; a search for the signature
    # would find the copy in the directory size field instead
    data = _archive()
    damaged = data[:-10] + b"PK\x05\x06" + data[-6:]
    assert _ours(damaged) == _zipfile(damaged)


@pytest.mark.parametrize("length", [23, 24, 25, 26, 28])
def test_an_extra_field_longer_than_what_is_left_is_refused_as_zipfile_refuses_it(length) -> None:
    data = _with_zip64_extra_fields(_archive())
    at = data.find(b"PK\x01\x02")
    at += 46 + struct.unpack("<H", data[at + 28 : at + 30])[0] + 2  # the first entry's zip64 field's length
    damaged = data[:at] + struct.pack("<H", length) + data[at + 2 :]
    expected = _zipfile(damaged)
    assert _ours(damaged) == expected
    assert (expected[0] == "BadZipFile") == (length != 24), expected  # 23: the header offset cut short
