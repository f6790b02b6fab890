"""The command-line tools on a real-world-shaped model (tests/data/realistic/resnet-block, written by
OpenVINO 2026.4.1 from ONNX with fp16 compression): no per-layer noise, summaries, filters, invalid types."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from irgraph.cli import ir_validate

REAL = Path(__file__).resolve().parents[1] / "data" / "realistic" / "resnet-block"
SUMMARY = ("note: [unchecked-op] 25 layers of 6 op types not checked yet (kept as declared; they cannot run): "
           "Convert×9, Add×6, Convolution×4, ReLU×4, MatMul×1, ReduceMean×1")


def run(capsys: pytest.CaptureFixture[str], main, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture
def real_copy(tmp_path: Path):
    """A copy of the real model; ``edit(old, new, count)`` rewrites its XML text and returns the .xml path."""
    shutil.copy(REAL / "model.xml", tmp_path / "model.xml")
    shutil.copy(REAL / "model.bin", tmp_path / "model.bin")
    xml = tmp_path / "model.xml"

    def edit(old: str, new: str, count: int = 1) -> Path:
        text = xml.read_text()
        assert text.count(old) >= count, old
        xml.write_text(text.replace(old, new, count))
        return xml

    return edit


def test_a_real_model_is_one_summary_line_not_a_line_per_layer(capsys):
    model = REAL / "model.xml"
    code, out, err = run(capsys, ir_validate.main, model)
    assert (code, err) == (0, "")
    assert out.splitlines() == [f"{model}: {SUMMARY}", f"{model}: valid: 0 errors, 0 warnings, 1 note"]


def test_strict_does_not_fail_on_ops_irgraph_does_not_check_yet(capsys):
    code, out, _ = run(capsys, ir_validate.main, "--strict", REAL / "model.xml")
    assert code == 0 and out.splitlines()[-1].endswith("valid: 0 errors, 0 warnings, 1 note")


def test_a_type_the_named_opset_lacks_is_an_error_as_openvino_refuses_it(real_copy, capsys):
    xml = real_copy('name="b1_relu" type="ReLU"', 'name="b1_relu" type="FooBarOp"')
    code, out, err = run(capsys, ir_validate.main, xml)
    assert code == 1
    assert out.splitlines()[0] == (
        f"{xml}:583: error: [invalid-op] layer 30 'b1_relu' (FooBarOp): Opset opset1 doesn't contain the operation "
        "with type: FooBarOp (no OpenVINO opset 1-16 has this type); OpenVINO refuses the model"
    )
    assert "24 layers of 6 op types not checked yet" in out and "ReLU×3" in out
    assert err.strip() == f"error: {xml}: invalid model (1 error)"


def test_a_custom_op_is_noted_once_and_strict_passes(real_copy, capsys):
    real_copy('type="ReLU" version="opset1"', 'type="MyRelu" version="extension"', 4)
    xml = real_copy('type="Convert" version="opset1"', 'type="MyConvert" version="my_opset"', 2)
    code, out, _ = run(capsys, ir_validate.main, "--strict", xml)
    assert code == 0
    assert f"{xml}: note: [custom-op] 6 layers of 2 op types outside OpenVINO's opsets (OpenVINO reads them only " \
           "with their extension; irgraph keeps them as declared): MyRelu (extension)×4, MyConvert (my_opset)×2" \
           in out.splitlines()


def test_a_problem_at_many_layers_is_one_line_unless_verbose(real_copy, capsys):
    xml = real_copy('<data destination_type="f32" />', '<data destination_type="f32" colour="red" />', 3)
    code, out, _ = run(capsys, ir_validate.main, xml)
    assert code == 0
    repeated = [line for line in out.splitlines() if "[unknown-attribute]" in line]
    assert len(repeated) == 0  # Convert is not implemented: its attributes are kept, not judged
    xml = real_copy('name="b0c0_relu"', 'name="b0_relu"')
    code, out, _ = run(capsys, ir_validate.main, xml)
    assert f"{xml}:131: warning: [duplicate-name] layer 7 'b0_relu' (ReLU): 2 layers are named 'b0_relu' " \
           "[and 1 more (lines 290)]" in out.splitlines()
    code, out, _ = run(capsys, ir_validate.main, "--verbose", xml)
    assert sum("[duplicate-name]" in line for line in out.splitlines()) == 2


def test_select_and_ignore_filter_by_code(real_copy, capsys):
    xml = real_copy('name="b0c0_relu"', 'name="b0_relu"')
    code, out, _ = run(capsys, ir_validate.main, "--select", "duplicate-name", xml)
    assert [line.split(": ", 2)[1] for line in out.splitlines()[:-1]] == ["warning"]
    assert out.splitlines()[-1] == f"{xml}: valid: 0 errors, 2 warnings"  # one line for the two layers
    code, out, _ = run(capsys, ir_validate.main, "--ignore", "unchecked-op", "--ignore=duplicate-name", xml)
    assert out.splitlines() == [f"{xml}: valid: 0 errors, 0 warnings"]
    code, out, _ = run(capsys, ir_validate.main, "--strict", "--select", "duplicate-name,unchecked-op", xml)
    assert code == 1 and out.splitlines()[-1] == f"{xml}: invalid: 2 errors, 0 warnings, 1 note"


def test_an_unknown_code_for_select_is_a_warning_naming_the_codes(capsys):
    code, out, err = run(capsys, ir_validate.main, "--select", "unknown-op", REAL / "model.xml")
    assert code == 0
    assert err.startswith("warning: --select: no diagnostic has the code 'unknown-op' (codes: const-size, custom-op,")
    assert out.splitlines() == [f"{REAL / 'model.xml'}: valid: 0 errors, 0 warnings"]


def test_json_holds_every_diagnostic_and_the_summary_counts(real_copy, capsys):
    xml = real_copy('name="b0c0_relu"', 'name="b0_relu"')
    code, out, _ = run(capsys, ir_validate.main, "--json", "--ignore", "cycle", xml)
    report = json.loads(out)
    assert (report["select"], report["ignore"]) == (None, ["cycle"])
    (file,) = report["files"]
    assert (file["errors"], file["warnings"], file["notes"]) == (0, 2, 1)
    assert [d["code"] for d in file["diagnostics"]] == ["duplicate-name", "duplicate-name", "unchecked-op"]
    summary = file["diagnostics"][-1]
    assert summary["counts"] == {"Convert": 9, "Add": 6, "Convolution": 4, "ReLU": 4, "MatMul": 1, "ReduceMean": 1}
    assert (summary["severity"], summary["line"], summary["layer_id"]) == ("note", None, None)
