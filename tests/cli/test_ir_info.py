"""ir-info: text, --json and --dot views of a model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irgraph.cli import ir_info
from tests.cli.helpers import SAMPLES, split_xml


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_info.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_text_report(capsys) -> None:
    model = SAMPLES / "dml-split-axis2" / "model.xml"
    code, out, err = run(capsys, model)
    assert code == 0, err
    assert "IR version 11" in out
    assert "layers     7 (6 edges)" in out
    assert "(32 bytes)" in out
    lines = out.splitlines()
    assert lines[lines.index("inputs:") + 1].split() == ["input", "f32", "[1,1,6,2]"]
    outputs = lines[lines.index("outputs:") + 1:lines.index("outputs:") + 4]
    assert [line.split()[:3] for line in outputs] == [
        ["output0", "f32", "[1,1,2,2]"], ["output1", "f32", "[1,1,1,2]"], ["output2", "f32", "[1,1,3,2]"]]
    assert "VariadicSplit-1" in out and "Const-1" in out


def test_json_report_with_intervals(write_ir, capsys) -> None:
    files = write_ir(*split_xml(parameter_shape="?,2..8"))
    code, out, err = run(capsys, files.xml, "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["ir_version"] == 11 and info["layers"] == 5 and info["edges"] == 4
    assert info["weights"] == {"file": str(files.bin), "bytes": 8, "consts": {"i64": 1}, "without_data": 0,
                               "decompression": 0}
    assert info["inputs"] == [{"name": "x", "tensor_names": [], "element_type": "f32", "shape": "[?,2..8]"}]
    assert [o["name"] for o in info["outputs"]] == ["y0", "y1"]
    assert info["outputs"][0]["shape"] == "[?,1..4]"
    assert info["ops"] == {"Result-1": 2, "Const-1": 1, "Parameter-1": 1, "Split-1": 1}


def test_dot_graph(split_model, capsys) -> None:
    code, out, _ = run(capsys, split_model.xml, "--dot")
    assert code == 0
    assert out.startswith('digraph "split" {')
    assert 'n1 [label="axis\\nConst-1\\ni64[] = [1]", style=dashed];' in out
    assert 'n2 [label="split\\nSplit-1\\nnum_splits=2"];' in out
    assert 'n0 -> n2 [label="f32[2,6]"];' in out
    assert 'n2 -> n3 [label="f32[2,3]"];' in out
    assert out.rstrip().endswith("}")


def test_unknown_op_is_shown_with_its_declared_types(write_ir, capsys) -> None:
    files = write_ir(*split_xml(op_type="Frobnicate"))
    code, out, err = run(capsys, files.xml)
    assert code == 0, err
    assert "Frobnicate-1" in out


def test_failed_inference_warns_and_shows_declared_types(write_ir, capsys) -> None:
    files = write_ir(*split_xml(num_splits=4))
    code, out, err = run(capsys, files.xml)
    assert code == 0
    assert err.startswith("warning: shape inference failed") and "divisible" in err
    assert "y0" in out


def test_missing_weights_are_a_warning_and_the_topology_is_shown(split_model, capsys) -> None:
    split_model.bin.unlink()
    code, out, err = run(capsys, split_model.xml)
    assert code == 0
    assert err == (f"warning: {split_model.xml}: the model has Const layers but there is no weights file: "
                   f"'{split_model.bin}' does not exist (pass the .bin path explicitly); so 1 Const layer has no "
                   "data (the topology needs none)\n")
    assert f"weights    {split_model.bin} (missing)" in out and "consts     1 i64; 1 without data" in out


def test_errors_and_usage(tmp_path: Path, split_model, capsys) -> None:
    code, _, err = run(capsys, tmp_path / "nope.xml")
    assert code == 2 and err.startswith("error: ") and "nope.xml" in err
    code, _, err = run(capsys, split_model.xml, "--json", "--dot")
    assert code == 2 and "not allowed with" in err
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "examples:" in out and "--dot" in out


def test_invalid_model_is_exit_1(write_ir, capsys) -> None:
    files = write_ir('<?xml version="1.0"?>\n<net name="x" version="11">\n<layers>\n')
    code, _, err = run(capsys, files.xml)
    assert code == 1
    assert err.startswith(f"error: {files.xml}") and len(err.splitlines()) == 1


def test_weights_option(split_model, tmp_path: Path, capsys) -> None:
    moved = tmp_path / "w.bin"
    split_model.bin.rename(moved)
    code, out, err = run(capsys, split_model.xml, "--weights", moved, "--json")
    assert code == 0, err
    assert json.loads(out)["weights"] == {"file": str(moved), "bytes": 8, "consts": {"i64": 1}, "without_data": 0,
                                          "decompression": 0}


def test_a_stateful_models_variables_are_listed(capsys) -> None:
    """The stateful GPT-2 of the model corpus: its four KV-cache variables, their declared types, their ReadValue."""
    xml = Path(__file__).resolve().parents[1] / "data" / "models" / "gpt2-tiny-stateful" / "model.xml"
    assert ir_info.main([str(xml)]) == 0
    out = capsys.readouterr().out
    assert "variables (state kept between runs: ReadValue/Assign):" in out
    assert "  past.0.keypresent.0.key      f32  [1,2,?,16]  (ReadValue ReadValue_15414)" in out
    assert ir_info.main([str(xml), "--json"]) == 0
    variables = json.loads(capsys.readouterr().out)["variables"]
    assert sorted(v["variable_id"] for v in variables) == sorted(
        f"past.{layer}.{kind}present.{layer}.{kind}" for layer in (0, 1) for kind in ("key", "value"))
    assert all(v["assigned"] and v["shape"] == "[1,2,?,16]" for v in variables)
