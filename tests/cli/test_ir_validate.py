"""ir-validate: diagnostics as FILE:LINE lines, --strict, --json, several files, exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from irgraph.cli import ir_validate
from tests.cli.helpers import SAMPLE_NAMES, SAMPLES, split_xml

DIAGNOSTIC = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<severity>error|warning): \[(?P<code>[\w-]+)\] (?P<msg>.+)$")


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_validate.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def diagnostics(out: str) -> list[re.Match[str]]:
    return [m for m in map(DIAGNOSTIC.match, out.splitlines()) if m]


@pytest.fixture
def duplicate_ids(write_ir):
    xml, weights = split_xml()
    return write_ir(xml.replace('<layer id="4" name="r1"', '<layer id="3" name="r1"'), weights)


@pytest.fixture
def with_warning(write_ir):
    return write_ir(*split_xml(extra_data=' frobnicity="3"'))


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_samples_are_valid(name: str, capsys) -> None:
    code, out, err = run(capsys, SAMPLES / name / "model.xml")
    assert code == 0, out + err
    assert diagnostics(out) == []
    assert out.strip().endswith("valid: 0 errors, 0 warnings")
    assert err == ""


def test_error_is_a_file_line_diagnostic_and_exit_1(duplicate_ids, capsys) -> None:
    code, out, err = run(capsys, duplicate_ids.xml)
    assert code == 1
    found = diagnostics(out)
    assert found and all(m["file"] == str(duplicate_ids.xml) for m in found)
    assert any(m["severity"] == "error" for m in found)
    assert err.startswith("error: ") and str(duplicate_ids.xml) in err and len(err.splitlines()) == 1


def test_warnings_pass_unless_strict(with_warning, capsys) -> None:
    code, out, _ = run(capsys, with_warning.xml)
    assert code == 0
    warnings = [m for m in diagnostics(out) if m["severity"] == "warning"]
    assert warnings and "frobnicity" in warnings[0]["msg"]
    code, out, err = run(capsys, "--strict", with_warning.xml)
    assert code == 1
    assert [m["severity"] for m in diagnostics(out)] == ["error"] * len(warnings)
    assert "error:" in err


def test_several_files_report_each(split_model, duplicate_ids, capsys) -> None:
    code, out, _ = run(capsys, split_model.xml, duplicate_ids.xml)
    assert code == 1
    assert f"{split_model.xml}: valid: 0 errors" in out
    assert f"{duplicate_ids.xml}: invalid:" in out


def test_json_report(split_model, with_warning, capsys) -> None:
    code, out, _ = run(capsys, "--json", split_model.xml, with_warning.xml)
    assert code == 0
    report = json.loads(out)
    assert report["valid"] is True and report["strict"] is False
    first, second = report["files"]
    assert first == {"file": str(split_model.xml), "valid": True, "unreadable": False, "errors": 0, "warnings": 0,
                     "notes": 0, "diagnostics": []}
    assert second["warnings"] >= 1
    diagnostic = second["diagnostics"][0]
    assert diagnostic["severity"] == "warning" and diagnostic["file"] == str(with_warning.xml)
    assert isinstance(diagnostic["line"], int) and diagnostic["code"]
    code, out, _ = run(capsys, "--json", "--strict", with_warning.xml)
    assert code == 1 and json.loads(out)["valid"] is False


def test_missing_file_is_exit_2_even_among_valid_ones(split_model, tmp_path: Path, capsys) -> None:
    code, out, err = run(capsys, split_model.xml, tmp_path / "nope.xml")
    assert code == 2
    assert f"{split_model.xml}: valid" in out
    assert err.strip() == f"error: {tmp_path / 'nope.xml'}: no such model file"


def test_an_unreadable_file_in_the_json_report_counts_no_diagnostics_and_gives_the_reason(tmp_path: Path,
                                                                                           capsys) -> None:
    missing = tmp_path / "nope.xml"
    code, out, _ = run(capsys, "--json", missing)
    assert code == 2
    assert json.loads(out)["files"] == [{"file": str(missing), "valid": False, "unreadable": True, "errors": 0,
                                         "warnings": 0, "notes": 0, "diagnostics": [],
                                         "reason": f"{missing}: no such model file"}]


def test_directory_is_exit_2(tmp_path: Path, capsys) -> None:
    code, _, err = run(capsys, tmp_path)
    assert code == 2 and "not a regular file" in err


def test_unparsable_xml_is_an_invalid_model(write_ir, capsys) -> None:
    files = write_ir('<?xml version="1.0"?>\n<net name="x" version="11">\n<layers>\n')
    code, out, err = run(capsys, files.xml)
    assert code == 1, out + err
    assert diagnostics(out) and diagnostics(out)[0]["severity"] == "error"


def test_weights_option(split_model, tmp_path: Path, capsys) -> None:
    moved = tmp_path / "w.bin"
    split_model.bin.rename(moved)
    code, out, err = run(capsys, split_model.xml, "--weights", moved)
    assert code == 0, out + err
    code, _, err = run(capsys, split_model.xml, split_model.xml, "--weights", moved)
    assert code == 2 and "one model" in err


def test_help_and_usage(capsys) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "examples:" in out and "--strict" in out
    code, _, err = run(capsys)
    assert code == 2 and "error:" in err
