"""Read what OpenVINO 2026.4.1 reads, and keep it: each case with OpenVINO's own verdict on the same file.

- white space before the ``<?xml ...?>`` declaration (pugixml accepts it, libxml2 does not);
- unknown elements inside a port's ``<rt_info>`` (OpenVINO ignores them; irgraph keeps them);
- the legacy ``<meta_data>`` / ``<quantization_parameters>`` sections, which OpenVINO turns into
  rt_info when the file has no ``<rt_info>``: kept on rewrite, and read as OpenVINO reads them.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import irgraph as ir
from irgraph.io.xml.rt_info import openvino_rt_info, write_rt_info
from tests.cli.helpers import SAMPLES

SAMPLE = SAMPLES / "openvino-split" / "model.xml"
BASE = SAMPLE.read_text("utf-8")

LEGACY = """\t<meta_data>
\t\t<MO_version value="2022.1.0-7019-cdb9bec7210-releases/2022/1" />
\t\t<cli_parameters>
\t\t\t<input_shape value="[6,12,10,24]" />
\t\t\t<caffe_parser_path value="DIR" />
\t\t\t<unset unset_cli_parameters="counts, disable_fusing" />
\t\t</cli_parameters>
\t</meta_data>
\t<quantization_parameters>
\t\t<config>{ 'compression': { 'algorithms': [ { 'name': 'DefaultQuantization' } ] } } &amp; &lt;x&gt;</config>
\t\t<version value="1.0" />
\t\t<cli_params value="{'quantize': None}" />
\t</quantization_parameters>
"""
PORT_RT_INFO = """\t<rt_info>
\t\t\t\t\t\t<custom name="a" value="b" />
\t\t\t\t\t\t<foo bar="1">
\t\t\t\t\t\t\t<baz />
\t\t\t\t\t\t</foo>
\t\t\t\t\t\t<attribute name="layout" version="0" layout="[N,C,H,W]" />
\t\t\t\t\t</rt_info>
\t\t\t\t"""


def write(tmp_path, text: str, name: str = "model"):
    xml = tmp_path / f"{name}.xml"
    xml.write_text(text, "utf-8")
    shutil.copyfile(SAMPLE.with_suffix(".bin"), xml.with_suffix(".bin"))
    return xml


def with_legacy(rt_info: str = "") -> str:
    return BASE.replace("\t<rt_info />\n", LEGACY + rt_info)


def with_port_rt_info() -> str:
    port = BASE.index('<port id="0" precision="FP32" names="data">')
    end = BASE.index("</port>", port)
    return BASE[:end] + PORT_RT_INFO + BASE[end:]


def openvino_reads(path) -> bool:
    import openvino as ov

    try:
        ov.Core().read_model(str(path))
    except RuntimeError:
        return False
    return True


@pytest.mark.parametrize("prefix", ["\n", "  \n\t", "\r\n"], ids=["newline", "spaces-and-tab", "crlf"])
def test_white_space_before_the_declaration_reads_as_in_openvino(tmp_path, prefix):
    xml = write(tmp_path, prefix + BASE)
    model = ir.read_model(xml)
    assert [d for d in ir.validate_file(xml) if d.is_error] == []
    (parameter,) = model.parameters
    assert parameter.location.line == BASE.count("\n", 0, BASE.index('name="data"')) + 1 + prefix.count("\n")
    data = np.arange(17280, dtype=np.float32).reshape(6, 12, 10, 24)
    np.testing.assert_array_equal(ir.run(model, {"data": data})["part1"], data[:, 4:8])


@pytest.mark.oracle
def test_openvino_2026_4_1_reads_white_space_before_the_declaration(tmp_path):
    assert openvino_reads(write(tmp_path, "\n" + BASE))


def test_unknown_port_rt_info_elements_validate_and_are_kept(tmp_path):
    xml = write(tmp_path, with_port_rt_info())
    assert ir.validate_file(xml) == []
    ir.write_model(ir.read_model(xml), tmp_path / "copy.xml")
    assert (tmp_path / "copy.xml").read_text("utf-8") == with_port_rt_info()


@pytest.mark.oracle
def test_openvino_2026_4_1_reads_unknown_port_rt_info_elements(tmp_path):
    assert openvino_reads(write(tmp_path, with_port_rt_info()))


@pytest.mark.parametrize("rt_info", ["", "\t<rt_info>\n\t\t<x value=\"1\" />\n\t</rt_info>\n"],
                         ids=["without-rt_info", "with-rt_info"])
def test_legacy_sections_are_kept_on_rewrite(tmp_path, rt_info):
    text = with_legacy(rt_info)
    xml = write(tmp_path, text)
    assert ir.validate_file(xml) == []
    model = ir.read_model(xml)
    assert [section.tag for section in model.legacy_sections] == ["meta_data", "quantization_parameters"]
    for version in (11, 10):
        ir.write_model(model, tmp_path / f"v{version}.xml", version=version)
    assert (tmp_path / "v11.xml").read_text("utf-8") == text
    assert (tmp_path / "v10.xml").read_text("utf-8") == text.replace('version="11"', 'version="10"', 1).replace(
        ' output_names="part0"', "").replace(' output_names="part1"', "").replace(' output_names="part2"', "")


def _rt_info_text(entries) -> str:
    out: list[str] = []
    write_rt_info(out, entries, 1, always=True)
    return "".join(out)


@pytest.mark.oracle
@pytest.mark.parametrize("rt_info", ["", "\t<rt_info>\n\t\t<x value=\"1\" />\n\t</rt_info>\n"],
                         ids=["without-rt_info", "with-rt_info"])
def test_legacy_sections_read_as_openvino_2026_4_1_reads_them(tmp_path, rt_info):
    import openvino as ov

    xml = write(tmp_path, with_legacy(rt_info))
    ov.serialize(ov.Core().read_model(str(xml)), str(tmp_path / "ov.xml"))
    theirs = (tmp_path / "ov.xml").read_text("utf-8")
    theirs = theirs[theirs.index("\t<rt_info"):theirs.index("</net>")]
    model = ir.read_model(xml)
    assert _rt_info_text(openvino_rt_info(model.rt_info, model.legacy_sections)) == theirs
    # and OpenVINO reads irgraph's rewrite to the same rt_info
    ir.write_model(model, tmp_path / "copy.xml")
    ov.serialize(ov.Core().read_model(str(tmp_path / "copy.xml")), str(tmp_path / "ov-copy.xml"))
    again = (tmp_path / "ov-copy.xml").read_text("utf-8")
    assert again[again.index("\t<rt_info"):again.index("</net>")] == theirs


_DATA_RESULT = ('\t\t<layer id="6" name="copy" type="Result" version="opset1">\n\t\t\t<input>\n'
                '\t\t\t\t<port id="0" precision="FP32">\n'
                + "".join(f"\t\t\t\t\t<dim>{d}</dim>\n" for d in (6, 12, 10, 24))
                + "\t\t\t\t</port>\n\t\t\t</input>\n\t\t</layer>\n\t</layers>")
_DATA_EDGE = '\t\t<edge from-layer="0" from-port="0" to-layer="6" to-port="0" />\n\t</edges>'
"""A Result reading the input directly (layer 6) and its edge, for the v10 cases."""


# IR v10: OpenVINO 2026.4.1 names a v10 model's inputs and outputs after their layers too, and refuses the file
# when such a name is already another edge tensor's name. Each case: the change to the sample, and whether
# OpenVINO 2026.4.1 reads the file (tests/io/test_openvino_reads.py::test_openvino_2026_4_1_v10_verdicts).
V10_NAME_CASES = {
    "own-names": ((), True),
    "output-tensor-named-like-another-layer": ((('names="part0"', 'names="axis"'),), True),
    "input-tensor-named-like-a-layer": ((('names="data"', 'names="split"'),), True),
    "two-outputs-share-a-tensor-name": ((('names="part1"', 'names="part0"'),), True),
    "output-tensor-named-like-the-input-layer": ((('names="data"', 'names="x"'), ('names="part1"', 'names="data"')),
                                                 False),
    "input-tensor-named-like-an-output": ((('names="data"', 'names="split.1"'),), False),
    "unnamed-input-and-an-output-named-like-it": (((' names="data"', ""), ('names="part2"', 'names="data"')), False),
    "output-tensor-named-like-another-output": ((('names="part2"', 'names="split.0"'),), False),
    # an input layer named as an output is named (port 1 of "split")
    "input-layer-named-like-an-output": ((('name="data"', 'name="split.1"'),), False),
    # a Result reading the input: its output tensor takes the input's tensor names, on a tensor of its own
    "input-read-by-a-result-too": ((("\t</layers>", _DATA_RESULT), ("\t</edges>", _DATA_EDGE)), False),
    "input-named-x-read-by-a-result-too": ((('names="data"', 'names="x"'), ("\t</layers>", _DATA_RESULT),
                                            ("\t</edges>", _DATA_EDGE)), False),
    "unnamed-input-read-by-a-result-too": (((' names="data"', ""), ("\t</layers>", _DATA_RESULT),
                                            ("\t</edges>", _DATA_EDGE)), True),
}


def v10_case(tmp_path, name: str):
    text = BASE.replace('version="11"', 'version="10"', 1)
    for old, new in V10_NAME_CASES[name][0]:
        assert old in text
        text = text.replace(old, new, 1)
    return write(tmp_path, text, name)


@pytest.mark.parametrize("name", V10_NAME_CASES)
def test_v10_operation_and_tensor_name_collisions_are_refused_as_openvino_refuses_them(tmp_path, name):
    xml = v10_case(tmp_path, name)
    errors = [d for d in ir.validate_file(xml) if d.is_error]
    if V10_NAME_CASES[name][1]:
        assert errors == []
    else:
        (error,) = errors
        assert error.code == "name-collision"
        if "read-by-a-result" in name:  # OpenVINO's check of tensor names, before the operation names'
            assert error.message == ("IR v10: output tensor 'data' is also an input's tensor, so OpenVINO refuses the "
                                     "model (\"Model tensor names have collisions\"); write it as IR v11").replace(
                                         "'data'", "'x'" if "named-x" in name else "'data'")
            return
        assert error.message.startswith("IR v10: ") and error.message.endswith(
            "is also the name of another input or output tensor, so OpenVINO refuses the model (\"Model operation "
            "names have collisions with tensor names\"); write it as IR v11")


@pytest.mark.oracle
@pytest.mark.parametrize("name", V10_NAME_CASES)
def test_openvino_2026_4_1_v10_verdicts(tmp_path, name):
    assert openvino_reads(v10_case(tmp_path, name)) == V10_NAME_CASES[name][1]


def test_ir_convert_never_writes_a_v10_file_openvino_refuses(tmp_path):
    from irgraph.cli.ir_convert import main

    source = write(tmp_path, BASE.replace('names="part1"', 'names="data"').replace('names="data">', 'names="x">', 1))
    assert [d.code for d in ir.validate_file(source)] == []  # as IR v11 the names are fine
    assert main([str(source), str(tmp_path / "v10.xml"), "--ir-version", "10"]) == 1
    assert not (tmp_path / "v10.xml").exists()


def test_a_core_type_in_an_unknown_opset_is_an_error_as_openvino_refuses_it(tmp_path):
    xml = write(tmp_path, BASE.replace('type="Parameter" version="opset1"', 'type="Parameter" version="wrongOpset"'))
    (error,) = ir.validate_file(xml)
    assert (error.code, error.is_error, error.location.line) == ("invalid-op", True, 4)
    assert error.message == ("Cannot create Parameter layer from unsupported opset: wrongOpset (Parameter-1 in opsets "
                             "1-16); OpenVINO refuses the model")


@pytest.mark.oracle
def test_openvino_2026_4_1_refuses_a_core_type_in_an_unknown_opset(tmp_path):
    xml = write(tmp_path, BASE.replace('type="Parameter" version="opset1"', 'type="Parameter" version="wrongOpset"'))
    assert not openvino_reads(xml)
