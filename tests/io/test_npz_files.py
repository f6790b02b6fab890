"""open_npz and write_npz at the file level: what is not a regular file is one IrIOError naming it, and members
are written in ZIP64 form (a streamed member over 4 GiB needs it declared before its data)."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

from irgraph.core.errors import IrIOError
from irgraph.io.data import npz


def test_a_directory_or_a_missing_path_is_one_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(IrIOError) as directory:
        npz.open_npz(str(tmp_path), 10)
    assert str(directory.value) == f"{tmp_path}: not a regular file"
    with pytest.raises(IrIOError) as missing:
        npz.open_npz(str(tmp_path / "absent.npz"), 10)
    assert str(missing.value) == f"{tmp_path / 'absent.npz'}: no such file"


def test_members_are_written_as_zip64_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "out.npz"
    npz.write_npz(str(path), {"a/b:0": np.arange(3, dtype=np.float32)})
    with zipfile.ZipFile(path) as archive:
        assert [(i.filename, i.extract_version) for i in archive.infolist()] == [("a/b:0.npy", 45)]  # 4.5: ZIP64
    assert npz.load_npz(str(path), 10)["a/b:0"].tolist() == [0.0, 1.0, 2.0]


def test_a_json_file_cut_short_is_not_json_with_where_it_broke(tmp_path: Path) -> None:
    from irgraph.io.data.polygraphy_json import read_iterations

    path = tmp_path / "inputs.json"
    path.write_text('[{"x": 1', encoding="utf-8")
    with pytest.raises(IrIOError) as refused:
        read_iterations(str(path))
    assert str(refused.value) == (f"{path}: cannot read the JSON file: not JSON: Expecting ',' delimiter: "
                                  "line 1 column 9 (char 8)")


def _open_and_load(path: Path) -> dict[str, np.ndarray]:
    archive = npz.open_npz(str(path), 10**6)
    return {key: npz.load_member(archive, key, 10**6) for key in archive}


def test_members_compressed_with_lzma_or_empty_deflated_members_read_back(tmp_path: Path) -> None:
    """zipfile writes LZMA members (numpy's savez never does, other tools may); an empty array inflates to nothing."""
    path = tmp_path / "lzma.npz"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_LZMA) as archive, archive.open("x.npy", "w") as member:
        np.lib.format.write_array(member, np.arange(6, dtype=np.int16).reshape(2, 3))
    (read,) = _open_and_load(path).values()
    assert read.dtype == np.int16 and read.tolist() == [[0, 1, 2], [3, 4, 5]]
    np.savez_compressed(tmp_path / "empty.npz", e=np.zeros((0, 3), np.float32))
    empty = _open_and_load(tmp_path / "empty.npz")["e"]
    assert empty.shape == (0, 3) and empty.dtype == np.float32


def test_an_encrypted_member_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "encrypted.npz"
    np.savez(path, x=np.arange(3.0))
    raw = bytearray(path.read_bytes())
    raw[raw.rfind(b"PK\x01\x02") + 8] |= 1  # the central directory's "encrypted" flag bit
    path.write_bytes(bytes(raw))
    with pytest.raises(IrIOError, match=r"cannot read the \.npz file: array 'x': array 'x' is encrypted$"):
        _open_and_load(path)


def test_a_central_directory_of_exactly_the_limit_is_not_refused_for_its_size(tmp_path: Path) -> None:
    """An end record claiming a directory of _MAX_CENTRAL_DIRECTORY bytes passes the size check (zipfile then
    finds no directory there); one byte more is refused before anything is read."""
    def end_record(size: int) -> bytes:
        return b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 0, 0, size, 0, 0)

    limit = npz._MAX_CENTRAL_DIRECTORY
    (tmp_path / "at.npz").write_bytes(end_record(limit))
    with pytest.raises(IrIOError, match=r"cannot read the \.npz file: Bad offset for central directory$"):
        _open_and_load(tmp_path / "at.npz")
    (tmp_path / "above.npz").write_bytes(end_record(limit + 1))
    with pytest.raises(IrIOError, match=rf"its list of members takes {limit + 1} bytes; irgraph reads at most {limit} "
                                        r"\(and 10000 members\)$"):
        _open_and_load(tmp_path / "above.npz")


def test_an_end_record_cut_short_is_no_zip_file(tmp_path: Path) -> None:
    path = tmp_path / "cut.npz"
    path.write_bytes(b"junk" + b"PK\x05\x06" + bytes(10))  # 14 of the record's 22 bytes
    with pytest.raises(IrIOError, match=r"cannot read the \.npz file: File is not a zip file$"):
        _open_and_load(path)


def test_a_reference_archive_reads_a_member_when_it_is_looked_up(tmp_path: Path) -> None:
    from irgraph.io.data.reference import Reference

    np.savez(tmp_path / "reference.npz", y=np.array([1.5, -2.0], np.float32))
    reference = Reference(npz.open_npz(str(tmp_path / "reference.npz"), 10**6))
    assert list(reference) == ["y"] and reference["y"].tolist() == [1.5, -2.0]
    with pytest.raises(KeyError):
        reference["z"]


def test_a_member_read_of_zero_bytes_gives_nothing_and_leaves_the_member_whole(tmp_path: Path) -> None:
    """io.RawIOBase.read(0) asks readinto for zero bytes: zlib would take a max_length of 0 as "no limit"."""
    np.savez_compressed(tmp_path / "x.npz", x=np.arange(4.0))
    archive = npz.open_npz(str(tmp_path / "x.npz"), 10**6)
    reader = npz._MemberReader(archive._stream, archive._members["x"])
    assert reader.read(0) == b""
    assert reader.read(6) == b"\x93NUMPY"


def test_an_archive_of_exactly_the_member_limit_is_listed_and_one_more_is_refused(tmp_path: Path) -> None:
    """The count in the end record and the member records counted are both held to MAX_NPZ_MEMBERS (10,000)."""
    assert npz.MAX_NPZ_MEMBERS == 10_000
    for count in (10_000, 10_001):
        with zipfile.ZipFile(tmp_path / f"{count}.npz", "w") as archive:
            for index in range(count):
                archive.writestr(f"a{index}.npy", b"")
    assert len(npz.open_npz(str(tmp_path / "10000.npz"), 10**6)) == 10_000
    with pytest.raises(IrIOError, match=r"it has 10001 members; irgraph reads at most 10000$"):
        npz.open_npz(str(tmp_path / "10001.npz"), 10**6)


def test_a_member_reader_is_a_readable_raw_stream_a_buffered_reader_can_wrap(tmp_path: Path) -> None:
    """io.BufferedReader asks its raw stream readable() (io.RawIOBase's default says False)."""
    import io

    np.savez_compressed(tmp_path / "x.npz", x=np.arange(4.0))
    archive = npz.open_npz(str(tmp_path / "x.npz"), 10**6)
    reader = npz._MemberReader(archive._stream, archive._members["x"])
    assert reader.readable() is True
    assert io.BufferedReader(reader).read(6) == b"\x93NUMPY"
