"""Names from a file never reach the terminal raw: every output escapes them with irgraph.core.errors.printable.

The model is the corpus's dml-split-axis3-2 with its net, input, Split and first output named with an
ANSI colour sequence, a right-to-left override, a C1 CSI, DEL and a newline (the ESC and the newline
as character references, which OpenVINO reads). Text output shows each as Python's repr writes it;
``--json`` carries the names exactly (json.dumps escapes what JSON needs).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from irgraph.cli import ir_info, ir_run, ir_validate
from irgraph.core.errors import printable
from tests.helpers import CORPUS

HOSTILE = "\x1b[31m\u202e\x9b\x7f\n"
HOSTILE_XML = "&#27;[31m\u202e\x9b\x7f&#10;"
ESCAPED = "\\x1b[31m\\u202e\\x9b\\x7f\\n"
"""HOSTILE as printed."""
SOURCE = CORPUS / "dml-split-axis3-2"


def hostile_model(directory: Path, num_splits: int = 2, extra: str = "") -> Path:
    """The corpus model with hostile names, written to ``directory`` (created) with its weights."""
    xml = (
        (SOURCE / "model.xml").read_text("utf-8")
        .replace('name="dml_split_axis3"', f'name="net{HOSTILE_XML}"')
        .replace('name="input"', f'name="in{HOSTILE_XML}"')
        .replace('names="input"', f'names="in{HOSTILE_XML}"')
        .replace('name="split"', f'name="split{HOSTILE_XML}"')
        .replace('names="output0"', f'names="out{HOSTILE_XML}"')
        .replace('output_names="output0"', f'output_names="out{HOSTILE_XML}"')
        .replace('<data num_splits="2" />', f'<data num_splits="{num_splits}"{extra} />')
    )
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "model.xml").write_text(xml, "utf-8")
    (directory / "model.bin").write_bytes((SOURCE / "model.bin").read_bytes())
    return directory / "model.xml"


def run(tool, capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = tool.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_terminal_safe(text: str) -> None:
    """No character a terminal could act on: only printable characters and line breaks between lines."""
    for line in text.split("\n"):
        assert line.isprintable(), repr(line)


@pytest.fixture
def model(tmp_path: Path) -> Path:
    return hostile_model(tmp_path / "m")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "x.npy"
    np.save(path, np.arange(12, dtype=np.float32).reshape(1, 1, 6, 2))
    return path


def test_printable_escapes_as_repr_does():
    assert printable(HOSTILE) == ESCAPED
    assert printable("\t\r\u0085\u2066\u2069\u200e\u200f\u061c\u202a\u00a0") == \
        "\\t\\r\\x85\\u2066\\u2069\\u200e\\u200f\\u061c\\u202a\\xa0"
    assert printable("plain ünïcode 中文 a\\b") == "plain ünïcode 中文 a\\b"


def test_ir_run_table_escapes_output_names(model, data, capsys):
    code, out, err = run(ir_run, capsys, model, "-i", f"in{HOSTILE}={data}")
    assert (code, err) == (0, "")
    assert out == (
        "output                       type  shape      min  max  mean\n"
        f"out{ESCAPED}  f32   [1,1,6,1]  0    10   5\n"
        "output1                      f32   [1,1,6,1]  1    11   6\n"
    )


def test_ir_run_comparison_escapes_output_names(model, data, tmp_path, capsys):
    reference = tmp_path / "ref.npz"
    code, _, _ = run(ir_run, capsys, model, "-i", f"in{HOSTILE}={data}", "--output", reference)
    assert code == 0
    code, out, err = run(ir_run, capsys, model, "-i", f"in{HOSTILE}={data}", "--compare", reference)
    assert (code, err) == (0, "")
    assert out.splitlines()[-3:] == [
        f"  ok        out{ESCAPED}  max abs error 0  max rel error 0",
        "  ok        output1                      max abs error 0  max rel error 0",
        "2 of 2 outputs match",
    ]


def test_ir_run_error_escapes_the_path_and_the_layer_name(tmp_path, capsys):
    path = hostile_model(tmp_path / f"dir{HOSTILE}", num_splits=3)
    code, out, err = run(ir_run, capsys, path)
    assert (code, out) == (1, "")
    assert err == (
        f"error: {tmp_path}/dir{ESCAPED}/model.xml:21: layer 2 'split{ESCAPED}' (Split): Split-1 produces 3 outputs "
        "here but the layer declares 2\n"
    )


def test_ir_run_warning_escapes_input_names(model, capsys):
    code, _, err = run(ir_run, capsys, model)
    assert code == 0
    assert err == (
        f"warning: no input data given: every input is filled with random data (seed 0): in{ESCAPED} f32[1,1,6,2]\n"
    )


def test_ir_info_text_escapes_names(model, capsys):
    code, out, err = run(ir_info, capsys, model)
    assert (code, err) == (0, "")
    assert out == (
        f"model      net{ESCAPED} ({model})\n"
        "IR version 11\n"
        "layers     5 (4 edges)\n"
        f"weights    {model.with_suffix('.bin')} (8 bytes)\n"
        "consts     1 i64\n"
        "\n"
        "inputs:\n"
        f"  in{ESCAPED}  f32  [1,1,6,2]\n"
        "\n"
        "outputs:\n"
        f"  out{ESCAPED}  f32  [1,1,6,1]  (Result output0)\n"
        "  output1                      f32  [1,1,6,1]\n"
        "\n"
        "ops:\n"
        "  Result-1     2  runs\n"
        "  Const-1      1  runs\n"
        "  Parameter-1  1  runs\n"
        "  Split-1      1  runs\n"
    )


def test_ir_info_layers_escape_names(model, capsys):
    code, out, err = run(ir_info, capsys, model, "--layers")
    assert (code, err) == (0, "")
    assert all(HOSTILE[0] not in line and "\u202e" not in line for line in out.splitlines())
    assert [line.split()[:3] for line in out.splitlines()[1:4]] == [
        ["0", f"in{ESCAPED}", "Parameter-1"], ["1", "split/axis", "Const-1"], ["2", f"split{ESCAPED}", "Split-1"]]


_DOT_STRING = r'"(?:[^"\\\n]|\\.)*"'
_DOT_LINE = re.compile(
    rf"digraph {_DOT_STRING} \{{|  rankdir=TB;|  node \[shape=box, fontname=\"Helvetica\"\];"
    rf"|  edge \[fontname=\"Helvetica\", fontsize=10\];"
    rf"|  n\d+ \[label={_DOT_STRING}(?:, shape=ellipse|, style=dashed)?\];|  n\d+ -> n\d+ \[label={_DOT_STRING}\];|\}}"
)


def test_ir_info_dot_escapes_names_and_stays_valid_graphviz(model, capsys):
    code, out, err = run(ir_info, capsys, model, "--dot")
    assert (code, err) == (0, "")
    dot_escaped = ESCAPED.replace("\\", "\\\\")  # the escapes' backslashes, quoted for Graphviz
    assert out.splitlines()[:5] == [
        f'digraph "net{dot_escaped}" {{',
        "  rankdir=TB;",
        '  node [shape=box, fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
        f'  n0 [label="in{dot_escaped}\\nParameter-1", shape=ellipse];',
    ]
    assert out.splitlines()[5] == (f'  n2 [label="split{dot_escaped}\\nSplit-1\\nnum_splits=2\\n'
                                   'in1: split/axis i64[] = [3]"];')
    for line in out.splitlines():
        assert _DOT_LINE.fullmatch(line), line


def test_ir_info_dot_quotes_quotes_and_backslashes(tmp_path, capsys):
    path = hostile_model(tmp_path / "q")
    path.write_text(path.read_text("utf-8").replace(f'name="split{HOSTILE_XML}"', 'name="a&quot;b\\c"'), "utf-8")
    code, out, _ = run(ir_info, capsys, path, "--dot")
    assert code == 0
    assert '  n2 [label="a\\"b\\\\c\\nSplit-1\\nnum_splits=2\\nin1: split/axis i64[] = [3]"];' in out.splitlines()


def test_ir_validate_lines_escape_names(tmp_path, capsys):
    path = hostile_model(tmp_path / f"v{HOSTILE}", extra=' extra="1"')
    code, out, err = run(ir_validate, capsys, path)
    assert (code, err) == (0, "")
    where = f"{tmp_path}/v{ESCAPED}/model.xml"
    assert out == (
        f"{where}:21: warning: [unknown-attribute] layer 2 'split{ESCAPED}' (Split): Split-1 has no attribute "
        "'extra'; it is ignored\n"
        f"{where}: valid: 0 errors, 1 warning\n"
    )


def test_ir_validate_error_summary_escapes_the_path(tmp_path, capsys):
    path = hostile_model(tmp_path / f"v{HOSTILE}", num_splits=3)
    code, out, err = run(ir_validate, capsys, path)
    assert code == 1
    assert_terminal_safe(out)
    assert err == f"error: {tmp_path}/v{ESCAPED}/model.xml: invalid model (1 error)\n"


def test_json_outputs_carry_names_exactly(model, data, tmp_path, capsys):
    code, out, _ = run(ir_run, capsys, model, "-i", f"in{HOSTILE}={data}", "--json")
    assert code == 0 and out.isascii()
    summary = json.loads(out)
    assert [o["name"] for o in summary["outputs"]] == [f"out{HOSTILE}", "output1"]
    assert summary["inputs"][0]["name"] == f"in{HOSTILE}"

    code, out, _ = run(ir_info, capsys, model, "--json")
    assert code == 0 and out.isascii()
    info = json.loads(out)
    assert info["name"] == f"net{HOSTILE}"
    assert [(i["name"], i["tensor_names"]) for i in info["inputs"]] == [(f"in{HOSTILE}", [])]
    assert [o["name"] for o in info["outputs"]] == [f"out{HOSTILE}", "output1"]

    path = hostile_model(tmp_path / "j", extra=' extra="1"')
    code, out, _ = run(ir_validate, capsys, path, "--json")
    assert code == 0 and out.isascii()
    diagnostic = json.loads(out)["files"][0]["diagnostics"][0]
    assert diagnostic["layer_name"] == f"split{HOSTILE}"
    assert diagnostic["text"].endswith(f"layer 2 'split{ESCAPED}' (Split): Split-1 has no attribute 'extra'; it is "
                                       "ignored")
