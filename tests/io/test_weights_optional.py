"""read_ir(weights_optional=True): the topology from the .xml alone, a missing or broken .bin one finding."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import irgraph as ir
from irgraph.io.xml.reader import read_ir
from irgraph.ops import Const

REAL = Path(__file__).resolve().parents[1] / "data" / "realistic" / "resnet-block"


@pytest.fixture
def without_bin(tmp_path: Path) -> Path:
    shutil.copy(REAL / "model.xml", tmp_path / "model.xml")
    return tmp_path / "model.xml"


def test_a_missing_bin_still_fails_by_default(without_bin):
    with pytest.raises(ir.WeightsError, match="there is no weights file"):
        read_ir(without_bin)


def test_a_missing_bin_leaves_consts_without_values_and_says_so_once(without_bin):
    result = read_ir(without_bin, weights_optional=True)
    consts = [node.op for node in result.model if isinstance(node.op, Const)]
    assert len(consts) == 10 and all(op.value is None for op in consts)
    assert [(d.code, d.severity.value) for d in result.findings] == [("weights", "warning")]
    assert result.findings[0].message.endswith("so 10 Const layers have no data (the topology needs none)")


def test_an_explicit_weights_file_that_cannot_be_opened_is_a_finding_too(without_bin, tmp_path):
    result = read_ir(without_bin, tmp_path / "nothing.bin", weights_optional=True)
    assert result.findings[0].message.startswith(f"cannot open the weights file '{tmp_path / 'nothing.bin'}'")


def test_a_readable_bin_is_read_as_always(tmp_path):
    result = read_ir(REAL / "model.xml", weights_optional=True)
    assert result.findings == []
    assert all(node.op.value is not None for node in result.model if isinstance(node.op, Const))
