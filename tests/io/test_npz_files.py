"""open_npz and write_npz at the file level: what is not a regular file is one IrIOError naming it, and members
are written in ZIP64 form (a streamed member over 4 GiB needs it declared before its data)."""

from __future__ import annotations

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
