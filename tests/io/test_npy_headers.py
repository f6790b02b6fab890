"""Reading .npy arrays and .npz members: every .npy format version NumPy writes, the element limit at its
bound, and a member that must hold exactly the bytes its header declares."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

from irgraph.core.errors import IrIOError, ResourceLimitError
from irgraph.io.data import npz


def _npy(array: np.ndarray, version: tuple[int, int]) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, version=version)
    return buffer.getvalue()


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_every_npy_version_numpy_writes_is_read(version: tuple[int, int], tmp_path: Path) -> None:
    array = np.arange(6, dtype=np.int16).reshape(2, 3)
    path = tmp_path / "a.npy"
    path.write_bytes(_npy(array, version))
    loaded = npz.load_npy(str(path), 6)
    assert loaded.dtype == np.int16 and loaded.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_an_unknown_npy_version_is_named(tmp_path: Path) -> None:
    data = bytearray(_npy(np.zeros(2, np.float32), (3, 0)))
    data[7] = 1  # version 3.1
    path = tmp_path / "a.npy"
    path.write_bytes(bytes(data))
    with pytest.raises(IrIOError, match=r": cannot read the \.npy file: unsupported \.npy format version 3\.1$"):
        npz.load_npy(str(path), 10)


def test_the_element_limit_admits_exactly_its_count(tmp_path: Path) -> None:
    path = tmp_path / "a.npy"
    path.write_bytes(_npy(np.ones(4, np.float32), (1, 0)))
    assert npz.load_npy(str(path), 4).tolist() == [1.0] * 4
    with pytest.raises(ResourceLimitError, match="declares 4 elements, above the limit of 3"):
        npz.load_npy(str(path), 3)


def test_an_npz_member_with_bytes_after_its_data_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("x.npy", _npy(np.ones(2, np.float32), (1, 0)) + b"\x00\x00\x00\x00")
    with pytest.raises(IrIOError, match="array 'x': the header declares 8 bytes of data but 12 follow$"):
        npz.load_npz(str(path), 100)
