"""Issue 14 on its own example: ResNet-50 converted by OpenVINO 2026.4.1 (fp16-compressed, from the onnx
wheel's light_resnet50.onnx; see tests/real_networks.py) through ir-validate, ir-info and ir-convert."""

from __future__ import annotations

import pytest

from irgraph.cli import ir_convert, ir_info, ir_validate
from tests.cli.test_real_models import notes, summary_lines
from tests.real_networks import RealIR, convert

pytest.importorskip("openvino", reason="the test extra installs openvino")
pytestmark = pytest.mark.oracle


@pytest.fixture(scope="module")
def resnet50(real_networks_folder) -> RealIR:
    return convert("resnet50", real_networks_folder)


def run(capsys, main, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_prints_one_summary_instead_of_285_warnings(resnet50, capsys):
    code, out, err = run(capsys, ir_validate.main, resnet50.xml)
    assert (code, err) == (0, "")
    # what irgraph does not check yet shrinks as ops arrive: one summary line at most, never a line per layer
    assert out.splitlines() == [*summary_lines(resnet50.xml), f"{resnet50.xml}: valid: 0 errors, 0 warnings"
                                f"{notes(resnet50.xml)}"]
    assert run(capsys, ir_validate.main, "--strict", resnet50.xml)[0] == 0


def test_info_without_the_bin(resnet50, tmp_path, capsys):
    xml = tmp_path / "model.xml"
    xml.write_bytes(resnet50.xml.read_bytes())
    code, out, err = run(capsys, ir_info.main, xml)
    assert code == 0 and err.startswith(f"warning: {xml}: the model has Const layers but there is no weights file")
    assert "compressed 108 decompression Converts (weights stored compressed, converted on load)" in out


def test_v10_down_conversion_names_the_108_decompression_markers(resnet50, tmp_path, capsys):
    code, _, err = run(capsys, ir_convert.main, resnet50.xml, tmp_path / "v10.xml", "--ir-version", "10")
    assert code == 0
    assert err.splitlines() == [
        f"warning: {tmp_path / 'v10.xml'}: IR v10 cannot hold layer rt_info: 109 layers' rt_info dropped "
        "(decompression×108, DisablePrecisionConversion×1)",
    ]
