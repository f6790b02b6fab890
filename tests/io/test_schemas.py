"""The structural XSD schemas (src/irgraph/schemas/ir-v10.xsd, ir-v11.xsd).

Every IR file OpenVINO reads (the golden corpus and the shared conformance cases) must be valid;
structurally broken files must be rejected with a line number.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from irgraph.io.xml.file_validation import schema_for

REPO = Path(__file__).parents[2]
SCHEMAS = REPO / "src/irgraph/schemas"
GOLDEN = REPO / "tests/data/ov"
CONFORMANCE = Path("/work/shared/conformance/cases")

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


@pytest.fixture(scope="module")
def schemas() -> dict[int, etree.XMLSchema]:
    return {v: schema_for(v) for v in (10, 11)}


def _validate(schemas: dict[int, etree.XMLSchema], xml: bytes) -> list[etree._LogEntry]:
    """Schema errors of ``xml``, the schema picked by <net version>; unknown versions use v11's."""
    doc = etree.fromstring(xml, _PARSER).getroottree()
    version = doc.getroot().get("version", "")
    schema = schemas[10] if version.strip() == "10" else schemas[11]
    return [] if schema.validate(doc) else list(schema.error_log)


def _readable_golden() -> list[Path]:
    found = []
    for case in sorted(GOLDEN.glob("*/case.json")):
        if json.loads(case.read_text("utf-8"))["expect"] == "ok":
            found.append(case.parent / "model.xml")
    return found


def _conformance() -> list[Any]:
    """The shared conformance corpus's models; where the machine has none, one skip that says so (an empty list
    fails at collection: pyproject's empty_parameter_set_mark)."""
    if not CONFORMANCE.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{CONFORMANCE} is not on this machine"))]
    found = sorted(CONFORMANCE.rglob("model.xml"))
    assert found, f"{CONFORMANCE} holds no model.xml"
    return found


def test_schema_files_are_in_the_package_and_at_the_top_level():
    for v in (10, 11):
        assert (SCHEMAS / f"ir-v{v}.xsd").is_file()
        assert (REPO / "schemas" / f"ir-v{v}.xsd").read_bytes() == (SCHEMAS / f"ir-v{v}.xsd").read_bytes()


def test_the_corpus_has_both_versions():
    versions = {etree.parse(str(p), _PARSER).getroot().get("version") for p in _readable_golden()}
    assert versions == {"10", "11"}


@pytest.mark.parametrize("path", _readable_golden(), ids=lambda p: p.parent.name)
def test_golden_files_openvino_reads_are_valid(schemas, path):
    errors = _validate(schemas, path.read_bytes())
    assert not errors, [f"{e.line}: {e.message}" for e in errors]


@pytest.mark.parametrize("path", _conformance(),
                         ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}" if p else "absent")
def test_conformance_files_are_valid(schemas, path):
    # ov-invalid cases are rejected by OpenVINO's shape inference, not structurally: they are valid too.
    errors = _validate(schemas, path.read_bytes())
    assert not errors, [f"{e.line}: {e.message}" for e in errors]


BASE = """<?xml version="1.0"?>
<net name="t" version="11">
	<layers>
		<layer id="0" name="x" type="Parameter" version="opset1">
			<data shape="2,6" element_type="f32" />
			<output>
				<port id="0" precision="FP32" names="x">
					<dim>2</dim>
					<dim>6</dim>
				</port>
			</output>
		</layer>
		<layer id="1" name="y" type="Result" version="opset1" output_names="x">
			<input>
				<port id="0" precision="FP32">
					<dim>2</dim>
					<dim>6</dim>
				</port>
			</input>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
	</edges>
	<rt_info />
</net>
"""


def _edit(old: str, new: str, text: str = BASE) -> bytes:
    assert old in text, old
    return text.replace(old, new, 1).encode("utf-8")


def test_the_base_document_is_valid(schemas):
    assert _validate(schemas, BASE.encode()) == []
    assert _validate(schemas, _edit('version="11"', 'version="10"', BASE.replace(' output_names="x"', ""))) == []


TOLERATED = {
    "no_xml_declaration": ('<?xml version="1.0"?>\n', ""),
    "no_net_name": (' name="t" version', " version"),
    "no_net_rt_info": ("\t<rt_info />\n", ""),
    "dim_with_whitespace": ("<dim>2</dim>", "<dim>\n  2 </dim>"),
    "dim_minus_one": ("<dim>6</dim>", "<dim>-1</dim>"),
    "unknown_layer_children": ('\t\t\t<data shape="2,6" element_type="f32" />\n',
                               '\t\t\t<extra/><data shape="2,6" element_type="f32" unknown="1" /><more a="b"/>\n'),
    "unknown_sections_after_edges": ("\t<rt_info />\n", "\t<meta_data><x value='1'/></meta_data>\n\t<rt_info />\n"
                                     "\t<quantization_parameters/>\n"),
    "unknown_attributes": ('<net name="t"', '<net extra="1" name="t"'),
    "net_rt_info_nested": ("\t<rt_info />\n", '\t<rt_info><info name="a b" value="1"/><k value="v"/>'
                           "<nested><deeper><x value='2'/></deeper></nested></rt_info>\n"),
    "layer_and_port_rt_info": ("\t\t\t\t\t<dim>6</dim>\n\t\t\t\t</port>\n\t\t\t</output>",
                               '\t\t\t\t\t<dim>6</dim>\n<rt_info><attribute name="layout" version="0" layout="[N,C]"/>'
                               "</rt_info>\t\t\t\t</port>\n\t\t\t</output>\n<rt_info>"
                               '<attribute name="fused_names" version="0" value="a, b"/></rt_info>'),
    "ports_without_dims": ('<port id="0" precision="FP32" names="x">\n\t\t\t\t\t<dim>2</dim>\n\t\t\t\t\t<dim>6</dim>\n'
                           "\t\t\t\t</port>", '<port id="0" precision="FP32" names="x" />'),
    "empty_edges": ("\t<edges>\n\t\t<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\" />\n"
                    "\t</edges>\n", "\t<edges />\n"),
    "sparse_ids": ('<layer id="1"', '<layer id="1000"'),
}


@pytest.mark.parametrize("old,new", TOLERATED.values(), ids=TOLERATED.keys())
def test_tolerated_variations_are_valid(schemas, old, new):
    errors = _validate(schemas, _edit(old, new))
    assert not errors, [f"{e.line}: {e.message}" for e in errors]


def test_tensor_iterator_body_in_v10_is_valid(schemas):
    body = """
			<port_map>
				<input axis="1" external_port_id="0" internal_layer_id="0" start="0" end="-1" stride="1" />
				<output external_port_id="1" internal_layer_id="1" />
			</port_map>
			<back_edges>
				<edge from-layer="1" to-layer="0" />
			</back_edges>
			<body>
				<layers>
					<layer id="0" name="xi" type="Parameter" version="opset1">
						<data shape="2,1" element_type="f32" />
						<output><port id="0" precision="FP32"><dim>2</dim><dim>1</dim></port></output>
					</layer>
					<layer id="1" name="r" type="Result" version="opset1">
						<input><port id="0" precision="FP32"><dim>2</dim><dim>1</dim></port></input>
					</layer>
				</layers>
				<edges>
					<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
				</edges>
				<rt_info />
			</body>
"""
    text = BASE.replace('version="11"', 'version="10"').replace(' output_names="x"', "")
    text = text.replace('type="Result" version="opset1">\n', 'type="Result" version="opset1">\n' + body)
    assert _validate(schemas, text.encode()) == []
    # the nested layers are validated too
    broken = text.replace('<layer id="1" name="r"', '<layer name="r"')
    errors = _validate(schemas, broken.encode())
    assert errors and "'id' is required" in errors[0].message


BROKEN = {
    "missing_layers": (
        lambda: _edit(BASE[BASE.index("\t<layers>") : BASE.index("\t<edges>")], ""), 3, "edges"),
    "layer_without_id": (lambda: _edit('<layer id="1" name="y"', '<layer name="y"'), 13, "'id' is required"),
    "edge_from_port_not_a_number": (lambda: _edit('from-port="0"', 'from-port="x"'), 23, "from-port"),
    "root_not_net": (lambda: _edit("<net ", "<model ", BASE.replace("</net>", "</model>")), 2, "model"),
    "version_12": (lambda: _edit('version="11"', 'version="12"'), 2, "version"),
    "v10_dim_not_a_number": (lambda: _edit('<net name="t" version="11">', '<net name="t" version="10">',
                                                BASE.replace("<dim>6</dim>", "<dim>six</dim>")), 9, "six"),
    "dim_below_minus_one": (lambda: _edit("<dim>6</dim>", "<dim>-2</dim>"), 9, "-2"),
    "dim_question_mark": (lambda: _edit("<dim>6</dim>", "<dim>?</dim>"), 9, "?"),
    "port_without_id": (lambda: _edit('<port id="0" precision="FP32" names="x">', '<port precision="FP32">'), 7,
                        "'id' is required"),
    "negative_layer_id": (lambda: _edit('<layer id="1"', '<layer id="-1"'), 13, "-1"),
    "edge_missing_to_port": (lambda: _edit(' to-port="0" />', " />"), 23, "to-port"),
    "edges_missing": (lambda: _edit(BASE[BASE.index("\t<edges>") : BASE.index("\t<rt_info />")], ""), 22, "rt_info"),
    "unknown_port_child": (lambda: _edit("<dim>6</dim>\n\t\t\t\t</port>\n\t\t\t</output>",
                                         "<dim>6</dim>\n<dimension>1</dimension>\n\t\t\t\t</port>\n\t\t\t</output>"),
                           10, "dimension"),
    "rt_info_attribute_without_name": (
        lambda: _edit("\t\t\t<output>\n", '\t\t\t<rt_info><attribute version="0"/></rt_info>\n\t\t\t<output>\n'), 6,
        "'name' is required"),
    "something_else_in_layers": (lambda: _edit("\t<layers>\n", "\t<layers>\n<node id='3'/>\n"), 4, "node"),
}


@pytest.mark.parametrize("make,line,fragment", BROKEN.values(), ids=BROKEN.keys())
def test_broken_files_are_rejected_with_a_line_number(schemas, make, line, fragment):
    errors = _validate(schemas, make())
    assert errors, "schema accepted a broken file"
    assert errors[0].line == line, [f"{e.line}: {e.message}" for e in errors]
    assert fragment in errors[0].message, errors[0].message
