"""WeightsFile without a mapping reads ranges; a file that shrank since it was opened is one WeightsError naming
the file and the byte it ended at."""

from __future__ import annotations

import os
from pathlib import Path

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
