"""validate_file: schema errors with lines, one located reader error, graph/op findings, declared vs inferred."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.io.xml.file_validation import schema_for
from tests.helpers import CORPUS, line_of

SOURCE = (CORPUS / "type-f32" / "model.xml").read_text("utf-8")


def copy_case(tmp_path: Path, xml: str, case: str = "type-f32") -> Path:
    path = tmp_path / "model.xml"
    path.write_text(xml, "utf-8")
    shutil.copy(CORPUS / case / "model.bin", tmp_path / "model.bin")
    return path


def codes(found: list[ir.Diagnostic]) -> list[tuple[str, str]]:
    return [(d.code, d.severity.value) for d in found]


def test_files_written_by_openvino_are_clean():
    for case in ("type-f32", "type-string-v10", "names-comma", "rtinfo-layer-port", "dyn-interval-split"):
        assert ir.validate_file(CORPUS / case / "model.xml") == [], case


def test_schema_errors_come_first_with_their_lines(tmp_path):
    xml = SOURCE.replace('<port id="0" precision="FP32" names="x">', '<port id="zero" precision="FP32" names="x">', 1)
    found = ir.validate_file(copy_case(tmp_path, xml))
    assert codes(found) == [("schema", "error"), ("parse", "error")]
    line = line_of(xml, '<port id="zero"')
    assert found[0].location.line == line and "'zero' is not a valid value" in found[0].message
    assert found[1].location.line == line and found[1].message == "port id 'zero' must be a non-negative integer " \
        "(output ports)"
    assert str(found[1]).startswith(f"{tmp_path / 'model.xml'}:{line}: error: [parse] layer 0 'x' (Parameter): ")


def test_the_schema_is_chosen_by_the_net_version():
    assert schema_for(10) is not schema_for(11) and schema_for(11) is schema_for(11)


@pytest.mark.parametrize(
    ("old", "new", "code", "needle"),
    [
        ('<layer id="7"', '<layer id="5"', "graph", '<layer id="5" name="k"'),
        ('to-layer="6" to-port="1"', 'to-layer="6" to-port="9"', "graph", 'to-layer="6" to-port="9"'),
        ('<data num_splits="2" />', '<data num_splits="two" />', "op", '<layer id="6"'),
        ('offset="68" size="24"', 'offset="9999" size="24"', "weights", '<layer id="7"'),
    ],
)
def test_a_reader_error_is_one_located_diagnostic(tmp_path, old, new, code, needle):
    xml = SOURCE.replace(old, new, 1)
    assert xml != SOURCE
    found = [d for d in ir.validate_file(copy_case(tmp_path, xml)) if d.code != "schema"]
    assert codes(found) == [(code, "error")]
    assert found[0].location.line == line_of(xml, needle)


def test_unreadable_files_are_io_diagnostics(tmp_path):
    found = ir.validate_file(tmp_path / "missing.xml")
    assert codes(found) == [("io", "error")] and found[0].location.file == str(tmp_path / "missing.xml")
    (tmp_path / "empty.xml").write_bytes(b"")
    assert codes(ir.validate_file(tmp_path / "empty.xml")) == [("parse", "error")]


def test_graph_and_op_findings_and_reader_findings_together(tmp_path):
    xml = SOURCE.replace('<data num_splits="2" />', '<data num_splits="2" flavour="x" />').replace(
        'offset="0" size="28"', 'offset="0" size="29"'
    ).replace("\t</edges>\n", "\t</edges>\n\t<extra />\n")
    found = ir.validate_file(copy_case(tmp_path, xml))
    assert sorted(codes(found)) == [("const-size", "warning"), ("ignored", "warning"), ("unknown-attribute", "warning")]


def test_declared_dims_and_precisions_that_contradict_inference_are_warnings(tmp_path):
    # Split's first output says [2,4] but inference gives [2,3]; OpenVINO silently overrides it.
    start = SOURCE.index('<port id="2" precision="FP32"')
    end = SOURCE.index("</port>", start)
    port = SOURCE[start:end]
    xml = SOURCE[:start] + port.replace("<dim>3</dim>", "<dim>4</dim>").replace("FP32", "FP16") + SOURCE[end:]
    assert xml != SOURCE
    path = copy_case(tmp_path, xml)
    found = ir.validate_file(path)
    assert sorted(codes(found)) == [("declared-shape", "warning"), ("declared-type", "warning")]
    assert {d.location.layer_name for d in found} == {"sp"}
    messages = sorted(d.message for d in found)
    assert messages == ["output 0 declares dims [2,4] but inference gives [2,3]",
                        "output 0 declares precision FP16 but the op produces f32"]
    # Execution uses the inferred type.
    model = ir.read_model(path)
    out = ir.run(model, {"x": np.zeros((2, 6), np.float32)})
    assert all(v.dtype == np.float32 for v in out.values())


def test_input_ports_contradicting_their_producer_are_reported_once(tmp_path):
    start = SOURCE.index('<layer id="8"')
    start = SOURCE.index("<dim>", start)
    xml = SOURCE[:start] + "<dim>5</dim>" + SOURCE[start + len("<dim>2</dim>"):]
    found = ir.validate_file(copy_case(tmp_path, xml))
    assert codes(found) == [("declared-shape", "warning")]
    assert found[0].location.layer_id == 8 and found[0].message == "input 0 declares dims [5,3] but receives [2,3]"


def test_schema_lines_past_65535_are_exact(tmp_path):
    padding = "\n" * 70000
    xml = SOURCE.replace("\t<edges>", padding + "\t<edges>").replace(
        'to-layer="6" to-port="1"', 'to-layer="6" to-port="one"'
    )
    found = ir.validate_file(copy_case(tmp_path, xml))
    schema = [d for d in found if d.code == "schema"]
    assert schema and schema[0].location.line == line_of(xml, 'to-port="one"') > 70000
