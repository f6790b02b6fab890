"""Elements IR has once per parent, written twice. openvino 2026.4.1 (pugixml's ``child()``) silently reads the
first; an earlier irgraph read the last, so a Clamp ran with other bounds and an input had another name. irgraph
refuses them, with the line of the second, in both readers (the fast path leaves them to the lxml path)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run, ir_validate
from irgraph.core.errors import IrParseError
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT
from irgraph.io.xml import reader as xml_reader
from irgraph.io.xml._fast import reader as fast_reader
from irgraph.io.xml.security import load_xml
from tests.helpers import line_of
from tests.hostile.conftest import EXIT_FAILURE, expect_cli_error, expect_error, layer, net, port, save_npz

CLAMP = net(
    [
        layer(0, "a", "Parameter", data={"shape": "2,3", "element_type": "f32"}, outputs=[port(0, (2, 3), names="a")]),
        layer(1, "clamp", "Clamp", data={"min": "-100", "max": "100"}, inputs=[port(0, (2, 3))],
              outputs=[port(1, (2, 3), names="y")]),
        layer(2, "y", "Result", inputs=[port(0, (2, 3))]),
    ],
    ['\t\t<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />\n',
     '\t\t<edge from-layer="1" from-port="1" to-layer="2" to-port="0" />\n'],
)
CLAMP_DATA = '<data min="-100" max="100" />'
A_OUTPUT = '<output><port id="0" precision="FP32" names="a"><dim>2</dim><dim>3</dim></port></output>'
CLAMP_INPUT = '<input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>'
Y_PORT_END = '<port id="1" precision="FP32" names="y"><dim>2</dim><dim>3</dim></port>'
SECOND_RT_INFO = '<rt_info><attribute name="a" version="0" value="2" /></rt_info>'

# name -> (text to edit, what replaces it, where the refused (second) element starts, what the message says)
DUPLICATES = {
    "two-data": (CLAMP_DATA, CLAMP_DATA + '\n<data min="0" max="0" />', '<data min="0"',
                 "the layer has two <data> elements"),
    "two-outputs": (A_OUTPUT, A_OUTPUT + "\n" + A_OUTPUT.replace('"a"', '"shadow"'), 'names="shadow"',
                    "the layer has two <output> elements"),
    "two-inputs": (CLAMP_INPUT, CLAMP_INPUT + "\n<input />", "<input />", "the layer has two <input> elements"),
    "two-layer-rt-info": (CLAMP_DATA, CLAMP_DATA + "\n<rt_info />\n" + SECOND_RT_INFO, SECOND_RT_INFO,
                          "the layer has two <rt_info> elements"),
    "two-port-rt-info": (Y_PORT_END, Y_PORT_END.replace("</port>", "<rt_info />\n<rt_info />\n</port>"),
                         "<rt_info />\n</port>", "the port has two <rt_info> elements"),
    "two-layers-sections": ("\t<edges>", "\t<layers />\n\t<edges>", "<layers />", "<net> has two <layers> elements"),
    "two-edges-sections": ("</net>", "\t<edges />\n</net>", "<edges />", "<net> has two <edges> elements"),
    "two-net-rt-info": ("</net>", "\t<rt_info />\n\t<rt_info name='2' />\n</net>", "<rt_info name='2'",
                        "<net> has two <rt_info> elements"),
}


def _edited(case: str) -> tuple[str, int]:
    """The model with the duplicate of ``case`` and the line of the element irgraph refuses (the second)."""
    old, new, second, _ = DUPLICATES[case]
    text = CLAMP.replace(old, new, 1)
    assert text != CLAMP
    return text, line_of(text, second)


def _write(directory: Path, text: str) -> Path:
    xml = directory / "model.xml"
    xml.write_text(text, "utf-8")
    xml.with_suffix(".bin").write_bytes(b"")
    return xml


def test_the_base_model_runs_and_is_read_by_the_fast_path(tmp_path, capsys):
    xml = _write(tmp_path, CLAMP)
    reader = xml_reader._Reader(load_xml(xml, parse=False), None, DEFAULT_ELEMENT_LIMIT)
    assert fast_reader.read_fast(reader) is not None
    a = np.float32([[-300, -50, 0], [50, 100, 300]])
    np.testing.assert_array_equal(ir.run(ir.read_model(xml), {"a": a})["y"],
                                  np.float32([[-100, -50, 0], [50, 100, 100]]))
    assert ir_validate.main(["--strict", str(xml)]) == 0


@pytest.mark.parametrize("case", list(DUPLICATES))
def test_a_duplicated_singleton_element_is_refused_at_its_line(case, tmp_path, capsys):
    text, line = _edited(case)
    xml = _write(tmp_path, text)
    message = DUPLICATES[case][3]
    reader = xml_reader._Reader(load_xml(xml, parse=False), None, DEFAULT_ELEMENT_LIMIT)
    assert fast_reader.read_fast(reader) is None  # left to the lxml path, which says where
    expect_error(lambda: ir.read_model(xml), IrParseError, message, file=xml, line=line)
    inputs = save_npz(tmp_path / "inputs.npz", a=np.zeros((2, 3), np.float32))
    outcome = expect_cli_error(ir_run.main, [xml, "--inputs", inputs, "--output", tmp_path / "out.npz"], capsys,
                               EXIT_FAILURE, message)
    assert outcome.error_lines[0].startswith(f"error: {xml}:{line}: ")
    assert "OpenVINO would silently use the first" in outcome.error_lines[0]
    outcome = expect_cli_error(ir_validate.main, ["--strict", xml], capsys, EXIT_FAILURE, message)
    assert f"{xml}:{line}: error: [parse] " in outcome.out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs.npz", "model.bin", "model.xml"]


def test_a_body_with_two_layers_sections_is_refused_at_its_line(tmp_path, capsys):
    text = (Path(__file__).parents[1] / "data" / "ov-subgraphs" / "ti" / "model.xml").read_text("utf-8")
    start = text.index("<body>")
    layers_end = text.index("</layers>", start) + len("</layers>")
    text = text[:layers_end] + "\n<layers />" + text[layers_end:]
    xml = tmp_path / "model.xml"
    xml.write_text(text, "utf-8")
    xml.with_suffix(".bin").write_bytes((Path(__file__).parents[1] / "data" / "ov-subgraphs" / "ti" /
                                         "model.bin").read_bytes())
    line = line_of(text, "<layers />")
    expect_error(lambda: ir.read_model(xml), IrParseError, "<body> has two <layers> elements", file=xml, line=line)
    outcome = expect_cli_error(ir_run.main, [xml], capsys, EXIT_FAILURE, "<body> has two <layers> elements")
    assert outcome.error_lines[0].startswith(f"error: {xml}:{line}: ")
    expect_cli_error(ir_validate.main, [xml], capsys, EXIT_FAILURE, "<body> has two <layers> elements")
