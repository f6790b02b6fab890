"""Why irgraph's v10 writer drops layer/port rt_info and reports it: OpenVINO's v10 reader ignores it."""

from __future__ import annotations

from pathlib import Path

import pytest

import irgraph as ir
from irgraph.io.xml.v10 import v10_losses

ov = pytest.importorskip("openvino", reason="the test extra installs openvino")

pytestmark = pytest.mark.oracle
REAL = Path(__file__).resolve().parents[1] / "data" / "realistic" / "resnet-block" / "model.xml"


def test_openvinos_v10_reader_ignores_layer_rt_info_and_keeps_the_models(tmp_path):
    """OpenVINO 2026.4.1 reads the real model's text as v10 (layer rt_info left in) without any layer rt_info,
    and with the model's rt_info: what irgraph's v10 writer keeps and what v10_losses reports as dropped."""
    text = REAL.read_text().replace('version="11">', 'version="10">', 1)
    (tmp_path / "v10.xml").write_text(text)
    (tmp_path / "v10.bin").write_bytes(REAL.with_suffix(".bin").read_bytes())
    model = ov.Core().read_model(tmp_path / "v10.xml")
    assert [op.get_friendly_name() for op in model.get_ops() if _decompression(op)] == []
    assert "conversion_parameters" in model.get_rt_info()
    assert v10_losses(ir.read_model(REAL)) == [
        "IR v10 cannot hold layer rt_info: 9 layers' rt_info dropped (decompression×9)"]
    v11 = ov.Core().read_model(REAL)
    assert sum(_decompression(op) for op in v11.get_ops()) == 9  # the same text as v11: kept


def _decompression(op) -> bool:
    return any(key.startswith("decompression") for key in op.get_rt_info())  # OpenVINO's key: decompression_0
