"""SizedReader: reads stop at the size fstat gave, seeks are checked like a file's."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from irgraph.io.regular_file import SizedReader


def test_reads_and_seeks_within_the_opened_size(tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(b"0123456789")
    with SizedReader.open(path) as reader:
        assert reader.size == 10 and reader.read(4) == b"0123"
        assert reader.seek(-3, os.SEEK_END) == 7 and reader.read() == b"789"
        assert reader.seek(0) == 0 and reader.seek(2, os.SEEK_CUR) == 2 and reader.read(1) == b"2"
        assert reader.seek(20) == 20 and reader.read(5) == b""  # past the end: nothing, as a file gives
        with pytest.raises(OSError) as refused:
            reader.seek(-1)
        assert refused.value.errno == errno.EINVAL
        with pytest.raises(ValueError, match="invalid whence 7"):
            reader.seek(0, 7)


def test_closing_marks_the_reader_closed_once_and_its_descriptor_is_released(tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(b"0123456789")
    reader = SizedReader.open(path)
    descriptor = reader.fileno()
    reader.close()
    assert reader.closed
    reader.close()  # a second close does nothing (it would close a descriptor another file may hold by now)
    with pytest.raises(ValueError, match="^I/O operation on closed file$"):
        reader.read(1)  # never a pread of a descriptor number the process may have given to another file
    with pytest.raises(OSError) as gone:
        os.fstat(descriptor)
    assert gone.value.errno == errno.EBADF
