"""replace_files: the temporary beside a long non-ASCII name stays within 255 bytes; a failed fsync of the
directory is an error naming the destination, except where the filesystem cannot fsync directories."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from irgraph.io import atomic


def test_a_destination_named_with_61_four_byte_characters_is_written(tmp_path: Path) -> None:
    """The temporary's prefix keeps 60 characters of the name: 1 + 240 + 1 + 8 + 4 = 254 bytes with mkstemp's
    8 random characters and '.tmp' (61 would give 258, over the 255-byte limit of a file name)."""
    name = "\U0001f600" * 61 + ".xml"
    assert len(name.encode("utf-8")) == 248
    path = tmp_path / name
    atomic.replace_files([(str(path), lambda file: file.write(b"<net/>"))])
    assert path.read_bytes() == b"<net/>" and os.listdir(tmp_path) == [name]


def _failing_directory_fsync(code: int):
    real = os.fsync

    def fsync(descriptor: int) -> None:
        if stat.S_ISDIR(os.fstat(descriptor).st_mode):
            raise OSError(code, os.strerror(code))
        real(descriptor)

    return fsync


def test_a_failed_directory_fsync_is_an_error_naming_the_destination(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "model.xml"
    monkeypatch.setattr(os, "fsync", _failing_directory_fsync(errno.EIO))
    with pytest.raises(OSError) as failed:
        atomic.replace_files([(str(path), lambda file: file.write(b"x"))])
    assert failed.value.errno == errno.EIO and str(path) in str(failed.value)


def test_a_filesystem_that_cannot_fsync_a_directory_is_no_error(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "model.xml"
    monkeypatch.setattr(os, "fsync", _failing_directory_fsync(errno.EINVAL))
    atomic.replace_files([(str(path), lambda file: file.write(b"x"))])
    assert path.read_bytes() == b"x"
