"""WeightsFile without a mapping reads ranges; a file that shrank since it was opened is one WeightsError naming
the file and the byte it ended at."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from irgraph.core.errors import WeightsError
from irgraph.io.weights import WeightsFile


def test_a_shrunk_file_read_without_a_mapping_names_where_it_ended(tmp_path: Path) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(bytes(range(16)))
    weights = WeightsFile(path, use_mmap=False)
    assert bytes(weights.view(4, 4)) == bytes([4, 5, 6, 7])
    os.truncate(path, 6)
    with pytest.raises(WeightsError) as failed:
        weights.view(8, 4)
    assert failed.value.message == (f"cannot read weights file {str(path)!r}: the file ended at byte 8, before the "
                                    "size it reports")


def test_a_range_mapping_knows_its_file_and_end_when_the_whole_file_cannot_be_mapped(tmp_path: Path,
                                                                                   monkeypatch) -> None:
    """Without address space for the whole file, a large range gets a mapping of its own: a truncation below the
    range's end is then caught (as for a whole-file mapping) and named with the file."""
    import mmap

    from irgraph.core.mappings import check_mapping, mapping_of
    from irgraph.io import weights as weights_module

    class NoWholeFile(mmap.mmap):
        def __new__(cls, descriptor, length, *args, **kwargs):  # noqa: ANN001, ANN204 - mmap's own signature
            if "offset" not in kwargs:
                raise OSError(12, "Cannot allocate memory")  # as under ulimit -v
            return super().__new__(cls, descriptor, length, *args, **kwargs)

    monkeypatch.setattr(weights_module.mmap, "mmap", NoWholeFile)
    path = tmp_path / "model.bin"
    megabyte = 1 << 20
    path.write_bytes(bytes(2 * megabyte))
    view = WeightsFile(path).view(megabyte, megabyte)
    mapping = mapping_of(np.frombuffer(view, np.uint8))
    assert mapping is not None
    check_mapping(mapping)
    os.truncate(path, megabyte + megabyte // 2)
    with pytest.raises(WeightsError) as shrank:
        check_mapping(mapping)
    assert str(shrank.value) == (f"{path}: the weights file shrank to {megabyte + megabyte // 2} bytes while in use "
                                 f"(irgraph maps its first {2 * megabyte}); irgraph stops rather than read past its "
                                 "end (which would kill the process with SIGBUS)")
