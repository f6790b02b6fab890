"""ir-diff: text and --json reports, exit codes 0 (equivalent) / 1 (different) / 2 (unreadable), --help."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from irgraph.cli import ir_diff
from tests.cli.helpers import REPO, SAMPLES, split_xml


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_diff.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def edited(write_ir, *replacements: tuple[str, str]):
    """The split model (x f32[2,6] -> Split -> r0, r1) and a copy with ``replacements`` made in its XML."""
    xml, weights = split_xml()
    original = write_ir(xml, weights)
    for old, new in replacements:
        assert old in xml, old
        xml = xml.replace(old, new)
    return original, write_ir(xml, weights)


def test_equivalent_models_exit_0_with_one_line(tmp_path, capsys):
    sample = SAMPLES / "dml-split-axis2"
    shutil.copy(sample / "model.xml", tmp_path / "copy.xml")
    shutil.copy(sample / "model.bin", tmp_path / "copy.bin")
    code, out, err = run(capsys, sample / "model.xml", tmp_path / "copy.xml")
    assert (code, out, err) == (0, "equivalent (7 layers matched)\n", "")


def test_differences_one_line_each_with_their_lines_then_a_summary(write_ir, capsys):
    a, b = edited(write_ir, ('name="r1" type="Result"', 'name="out1" type="Result"'),
                  ('<data num_splits="2"/>', '<data num_splits="2"/>\n\t\t\t<rt_info><attribute name="fused_names" '
                   'version="0" value="split,x"/></rt_info>'))
    code, out, err = run(capsys, a.xml, b.xml)
    assert code == 1 and err == ""
    assert out.splitlines() == [
        f"--- {a.xml}",
        f"+++ {b.xml}",
        "~ layer 'split' (Split): rt_info fused_names (none) -> version=0 value=split,x  (lines 12, 12)",
        "~ layer 'r1' (Result): renamed to 'out1'  (lines 20, 21)",  # B has one line more before it
        "2 differences: 2 layers changed, 0 added, 0 removed (5 layers matched); by kind: 1 renamed, 1 rt_info",
    ]


def test_derived_type_differences_are_counted_and_listed_with_all(write_ir, capsys):
    a, b = edited(write_ir, ('<data shape="2,6"', '<data shape="4,6"'),
                  ("<dim>2</dim><dim>6</dim>", "<dim>4</dim><dim>6</dim>"))
    code, out, _ = run(capsys, a.xml, b.xml)
    assert code == 1
    assert out.splitlines()[2:] == [
        "~ layer 'x' (Parameter): attribute shape 2,6 -> 4,6  (lines 4, 4)",
        "1 difference: 1 layer changed, 0 added, 0 removed (5 layers matched); by kind: 1 attribute; 2 more type "
        "differences follow from them (--all lists them)",
    ]
    code, out, _ = run(capsys, a.xml, b.xml, "--all")
    assert out.splitlines()[3:5] == [
        "~ layer 'x' (Parameter): output 0 type f32[2,6] -> f32[4,6]  (lines 4, 4) [follows]",
        "~ layer 'split' (Split): input 0 type f32[2,6] -> f32[4,6]  (lines 12, 12) [follows]",
    ]


def test_json_report(write_ir, capsys):
    a, b = edited(write_ir, ('name="split" type="Split"', 'name="halves" type="Split"'),
                  ('<dim>2</dim><dim>3</dim></port><port id="3"', '<dim>2</dim><dim>4</dim></port><port id="3"'))
    code, out, _ = run(capsys, a.xml, b.xml, "--json")
    assert code == 1
    report = json.loads(out)
    assert report["equivalent"] is False and report["a"] == str(a.xml) and report["b"] == str(b.xml)
    assert report["matched"] == {"by_name": 4, "by_structure": 1, "by_position": 0}
    assert report["counts"] == {"renamed": 1, "port_type": 1}
    assert report["compressed_weights"] == {"a": {}, "b": {}} and report["weight_changes"] == []
    assert report["generated_renames"] == 0
    assert [d["text"] for d in report["differences"]] == [
        "~ layer 'split' (Split): renamed to 'halves'",
        "~ layer 'split' (Split): output 0 type f32[2,3] -> f32[2,4]",
    ]
    first = report["differences"][0]
    assert first["kind"] == "renamed" and first["old"] == "split" and first["new"] == "halves"
    assert first["a"] == {"id": 2, "name": "split", "type": "Split", "file": str(a.xml), "line": 12}
    assert first["b"]["name"] == "halves" and first["b"]["file"] == str(b.xml)
    assert report["differences"][1]["kind"] == "port_type" and report["derived"] == []


def test_unreadable_or_invalid_files_exit_2_not_1(tmp_path, write_ir, capsys):
    good = write_ir(*split_xml())
    code, out, err = run(capsys, good.xml, tmp_path / "missing.xml")
    assert code == 2 and out == "" and err == f"error: {tmp_path / 'missing.xml'}: no such model file\n"
    broken = tmp_path / "broken.xml"
    broken.write_text("<net")
    code, out, err = run(capsys, broken, good.xml)
    assert code == 2 and out == "" and err.startswith(f"error: {broken}:1: ")


def test_a_graph_with_a_cycle_exits_2(capsys):
    cycle = REPO / "tests" / "data" / "ov" / "err-cycle" / "model.xml"
    code, out, err = run(capsys, cycle, cycle)
    assert (code, out) == (2, "")
    assert err == f"error: {cycle}:107: layer 8 'cat' (Concat): the graph has a cycle through layers 8 -> 7 -> 8\n"


def test_help_has_examples(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "examples:\n  ir-diff model.xml edited.xml\n" in out
    assert "exit codes:" in out


@pytest.mark.parametrize(("script", "module"), [("ir-diff", "ir_diff"), ("ir-extract", "ir_extract")])
def test_the_console_script_is_registered(script, module):
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11 reads TOML")
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]
    assert scripts[script] == f"irgraph.cli.{module}:main"
    target_module, function = scripts[script].split(":")
    imported = __import__(target_module, fromlist=[function])
    assert callable(getattr(imported, function))


def test_the_module_runs_as_a_program():
    # The console script is this module's main (the venv gets it with pip install -e .); here it runs as -m.
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run([sys.executable, "-m", "irgraph.cli.ir_diff", "--version"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("ir-diff (irgraph ")
