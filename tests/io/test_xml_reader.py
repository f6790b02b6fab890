"""read_model: ports by position, names, rt_info, weights checks, hostile input, exact error locations."""

from __future__ import annotations

import json
import os
import re
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irgraph as ir
from irgraph.core.errors import GraphError, IrIOError, IrParseError, OpError, ResourceLimitError, WeightsError
from irgraph.core.shapes import Dim, Shape
from irgraph.graph import RtEntry
from irgraph.io.xml import security as xml_security
from irgraph.io.xml.reader import read_ir
from irgraph.ops import Concat, Const, OpaqueOp, Split
from irgraph.ops.movement.reverse import Reverse
from tests.helpers import CORPUS, line_of

# The research document's example, as OpenVINO 2026.4 writes it (save_model, compress_to_fp16=False).
DEMO = """<?xml version="1.0"?>
<net name="demo" version="11">
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
		<layer id="1" name="vs/Constant_2" type="Const" version="opset1">
			<data element_type="i64" shape="" offset="0" size="8" />
			<output>
				<port id="0" precision="I64" />
			</output>
		</layer>
		<layer id="2" name="vs/Constant_3" type="Const" version="opset1">
			<data element_type="i64" shape="2" offset="8" size="16" />
			<output>
				<port id="0" precision="I64">
					<dim>2</dim>
				</port>
			</output>
		</layer>
		<layer id="3" name="vs" type="VariadicSplit" version="opset1">
			<input>
				<port id="0" precision="FP32">
					<dim>2</dim>
					<dim>6</dim>
				</port>
				<port id="1" precision="I64" />
				<port id="2" precision="I64">
					<dim>2</dim>
				</port>
			</input>
			<output>
				<port id="3" precision="FP32">
					<dim>2</dim>
					<dim>2</dim>
				</port>
				<port id="4" precision="FP32">
					<dim>2</dim>
					<dim>4</dim>
				</port>
			</output>
		</layer>
		<layer id="4" name="cat" type="Concat" version="opset1">
			<data axis="-1" />
			<input>
				<port id="0" precision="FP32">
					<dim>2</dim>
					<dim>4</dim>
				</port>
				<port id="1" precision="FP32">
					<dim>2</dim>
					<dim>2</dim>
				</port>
			</input>
			<output>
				<port id="2" precision="FP32" names="y">
					<dim>2</dim>
					<dim>6</dim>
				</port>
			</output>
		</layer>
		<layer id="5" name="y" type="Result" version="opset1" output_names="y">
			<input>
				<port id="0" precision="FP32">
					<dim>2</dim>
					<dim>6</dim>
				</port>
			</input>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="3" to-port="0" />
		<edge from-layer="1" from-port="0" to-layer="3" to-port="1" />
		<edge from-layer="2" from-port="0" to-layer="3" to-port="2" />
		<edge from-layer="3" from-port="4" to-layer="4" to-port="0" />
		<edge from-layer="3" from-port="3" to-layer="4" to-port="1" />
		<edge from-layer="4" from-port="2" to-layer="5" to-port="0" />
	</edges>
	<rt_info>
		<info name="OpenVINO Runtime" value="2026.4.1-22982-e213a147257-releases/2026/4" />
	</rt_info>
</net>
"""
DEMO_BIN = struct.pack("<qqq", 1, 2, -1)
X = np.arange(12, dtype=np.float32).reshape(2, 6)


def write(tmp_path, xml: str | bytes = DEMO, weights: bytes | None = DEMO_BIN, name: str = "model") -> str:
    path = tmp_path / f"{name}.xml"
    path.write_bytes(xml.encode("utf-8") if isinstance(xml, str) else xml)
    if weights is not None:
        (tmp_path / f"{name}.bin").write_bytes(weights)
    return str(path)


# ------------------------------------------------------------------------------------ structure
def test_demo_reads_and_runs(tmp_path):
    model = ir.read_model(write(tmp_path))
    assert model.name == "demo" and model.ir_version == 11 and model.source == str(tmp_path / "model.xml")
    assert [n.name for n in model] == ["x", "vs/Constant_2", "vs/Constant_3", "vs", "cat", "y"]
    assert [n.name for n in model.parameters] == ["x"] and [n.name for n in model.results] == ["y"]
    lengths = model.node(2).op
    assert isinstance(lengths, Const) and lengths.value.tolist() == [2, -1] and not lengths.value.flags.writeable
    out = ir.run(model, {"x": X})["y"]
    np.testing.assert_array_equal(out, np.concatenate([X[:, 2:], X[:, :2]], axis=1))


def test_nodes_carry_file_line_and_layer(tmp_path):
    model = ir.read_model(write(tmp_path))
    location = model.node(4).location
    assert (location.line, location.layer_id, location.layer_name, location.layer_type) == (
        line_of(DEMO, '<layer id="4"'), 4, "cat", "Concat",
    )
    assert str(location).startswith(f"{tmp_path / 'model.xml'}:{location.line}: layer 4 'cat' (Concat)")


def test_declared_port_types_are_kept(tmp_path):
    node = ir.read_model(write(tmp_path)).node(3)
    assert [str(port.declared_type) for port in node.inputs] == ["f32[2,6]", "i64[]", "i64[2]"]
    assert [str(output.declared_type) for output in node.outputs] == ["f32[2,2]", "f32[2,4]"]


def test_input_ports_are_mapped_by_position_not_id(tmp_path):
    # Listing Concat's input ports as id=1 then id=0 swaps its inputs (OpenVINO does the same).
    xml = DEMO.replace(
        '<port id="0" precision="FP32">\n\t\t\t\t\t<dim>2</dim>\n\t\t\t\t\t<dim>4</dim>\n\t\t\t\t</port>\n'
        '\t\t\t\t<port id="1" precision="FP32">\n\t\t\t\t\t<dim>2</dim>\n\t\t\t\t\t<dim>2</dim>\n\t\t\t\t</port>',
        '<port id="1" precision="FP32">\n\t\t\t\t\t<dim>2</dim>\n\t\t\t\t\t<dim>2</dim>\n\t\t\t\t</port>\n'
        '\t\t\t\t<port id="0" precision="FP32">\n\t\t\t\t\t<dim>2</dim>\n\t\t\t\t\t<dim>4</dim>\n\t\t\t\t</port>',
    )
    assert xml != DEMO
    out = ir.run(ir.read_model(write(tmp_path, xml)), {"x": X})["y"]
    np.testing.assert_array_equal(out, X)


def test_port_ids_are_labels_and_may_repeat_across_directions(tmp_path):
    xml = DEMO.replace('<port id="3" precision="FP32">', '<port id="0" precision="FP32">').replace(
        'from-layer="3" from-port="3"', 'from-layer="3" from-port="0"'
    )
    model = ir.read_model(write(tmp_path, xml))
    assert ir.run(model, {"x": X})["y"].shape == (2, 6)


def test_layer_order_and_ids_are_irrelevant(tmp_path):
    # Reverse the layers and renumber them sparsely: inputs/outputs stay in document order.
    ids = {0: 100, 1: 7, 2: 55, 3: 3, 4: 42, 5: 1000}
    xml = DEMO
    for old, new in ids.items():
        xml = xml.replace(f'<layer id="{old}"', f'<layer id="#{new}"')
        xml = xml.replace(f'from-layer="{old}"', f'from-layer="#{new}"')
        xml = xml.replace(f'to-layer="{old}"', f'to-layer="#{new}"')
    xml = xml.replace("#", "")
    head, rest = xml.split("\t<layers>\n")
    body, tail = rest.split("\t</layers>\n")
    layers = ["\t\t<layer" + chunk for chunk in body.split("\t\t<layer")[1:]]
    xml = head + "\t<layers>\n" + "".join(reversed(layers)) + "\t</layers>\n" + tail
    model = ir.read_model(write(tmp_path, xml))
    assert [n.id for n in model] == [1000, 42, 3, 55, 7, 100]
    np.testing.assert_array_equal(ir.run(model, {"x": X})["y"], np.concatenate([X[:, 2:], X[:, :2]], axis=1))


def test_tensor_names_split_on_unescaped_commas(tmp_path):
    xml = DEMO.replace('names="x"', 'names=" a , b ,x,a\\,b,,x"').replace(
        'names="y"', 'names="y,\\,lead,tail\\,"'
    )
    model = ir.read_model(write(tmp_path, xml))
    assert model.node(0).outputs[0].tensor_names == [" a ", " b ", "x", "a,b"]
    assert model.node(4).outputs[0].tensor_names == ["y", ",lead", "tail,"]
    assert ir.run(model, {"a,b": X})["y"].shape == (2, 6)


def test_v11_output_names_override_the_producer_names(tmp_path):
    xml = DEMO.replace('output_names="y"', 'output_names="out\\,1,alias"')
    model = ir.read_model(write(tmp_path, xml))
    assert model.node(5).result_names == ["out,1", "alias"]
    assert list(ir.run(model, {"x": X})) == ["out,1"]


def test_v10_ignores_output_names_and_layer_rt_info(tmp_path):
    xml = DEMO.replace('version="11"', 'version="10"').replace('output_names="y"', 'output_names="zz"').replace(
        '<data axis="-1" />', '<data axis="-1" />\n\t\t\t<rt_info>\n\t\t\t\t<attribute name="fused_names" '
        'version="0" value="a" />\n\t\t\t</rt_info>'
    )
    result = read_ir(write(tmp_path, xml))
    model = result.model
    assert model.ir_version == 10 and model.node(5).result_names is None and model.node(4).rt_info == ()
    assert list(ir.run(model, {"x": X})) == ["y"]
    assert sorted(f.message for f in result.findings) == [
        "IR v10 has no Result output_names; OpenVINO ignores it",
        "IR v10 has no layer or port rt_info; OpenVINO ignores it",
    ]


def test_rt_info_is_kept_verbatim_at_three_levels(tmp_path):
    xml = DEMO.replace(
        '<data axis="-1" />',
        '<data axis="-1" />\n\t\t\t<rt_info>\n\t\t\t\t<attribute name="fused_names" version="0" value="a, b" />'
        '\n\t\t\t</rt_info>',
    ).replace(
        '<dim>6</dim>\n\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>\n\t\t<layer id="1"',
        '<dim>6</dim>\n\t\t\t\t\t<rt_info>\n\t\t\t\t\t\t<attribute name="layout" version="0" layout="[N,C]" />'
        '\n\t\t\t\t\t</rt_info>\n\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>\n\t\t<layer id="1"',
    ).replace(
        '\t<rt_info>\n\t\t<info name="OpenVINO Runtime"',
        '\t<rt_info>\n\t\t<nested>\n\t\t\t<inner value="1" />\n\t\t</nested>\n\t\t<info name="OpenVINO Runtime"',
    )
    model = ir.read_model(write(tmp_path, xml))
    fused = RtEntry("attribute", (("name", "fused_names"), ("version", "0"), ("value", "a, b")))
    assert model.node(4).rt_info == (fused,)
    assert model.node(0).outputs[0].rt_info == (
        RtEntry("attribute", (("name", "layout"), ("version", "0"), ("layout", "[N,C]"))),
    )
    assert model.rt_info[0] == RtEntry("nested", (), (RtEntry("inner", (("value", "1"),)),))
    assert model.rt_info[1].attributes[0] == ("name", "OpenVINO Runtime")


def test_missing_net_rt_info_is_none(tmp_path):
    xml = DEMO.split("\t<rt_info>")[0] + "</net>\n"
    assert ir.read_model(write(tmp_path, xml)).rt_info is None


def test_unknown_attributes_and_ops_are_kept(tmp_path):
    xml = DEMO.replace('<data axis="-1" />', '<data axis="-1" colour="blue" />').replace(
        'type="VariadicSplit" version="opset1"', 'type="MySplit" version="custom_opset"'
    ).replace("<input>", '<data mode="fancy" />\n\t\t\t<input>', 1)
    result = read_ir(write(tmp_path, xml))
    model = result.model
    assert model.node(4).extra_attributes == {"colour": "blue"} and model.node(4).op == Concat(axis=-1)
    opaque = model.node(3).op
    assert isinstance(opaque, OpaqueOp) and (opaque.op_type, opaque.op_version) == ("MySplit", "custom_opset")
    assert opaque.attributes == {"mode": "fancy"}
    assert [str(t) for t in opaque.declared_outputs] == ["f32[2,2]", "f32[2,4]"]
    codes = sorted(d.code for d in ir.validate(model))
    assert codes == ["custom-op", "unknown-attribute"]
    with pytest.raises(ir.EvaluationError, match="op MySplit .version custom_opset. has no NumPy implementation"):
        ir.run(model, {"x": X})


def test_opaque_outputs_without_dims_are_of_unknown_rank(tmp_path):
    xml = DEMO.replace('type="VariadicSplit" version="opset1"', 'type="Mystery" version="opset99"').replace(
        '<port id="4" precision="FP32">\n\t\t\t\t\t<dim>2</dim>\n\t\t\t\t\t<dim>4</dim>\n\t\t\t\t</port>',
        '<port id="4" precision="FP32" />',
    )
    model = ir.read_model(write(tmp_path, xml))
    assert model.node(3).op.declared_outputs[1].shape == Shape.dynamic_rank()
    assert str(model.node(3).outputs[1].declared_type) == "f32[]"  # what the file says, literally
    ir.infer_shapes(model)
    assert model.node(4).outputs[0].type.shape.dims[1] == Dim(2, None)


def test_opset_alias_and_type_case(tmp_path):
    xml = DEMO.replace('type="Concat" version="opset1"', 'type="concat" version="opset13"')
    assert isinstance(ir.read_model(write(tmp_path, xml)).node(4).op, Concat)


def test_interval_and_dynamic_rank_parameters(tmp_path):
    xml = DEMO.replace('<data shape="2,6" element_type="f32" />', '<data shape="1..3,?" element_type="f32" />')
    model = ir.read_model(write(tmp_path, xml))
    assert model.node(0).op.shape == Shape((Dim(1, 3), Dim(0, None)))
    xml = DEMO.replace('<data shape="2,6" element_type="f32" />', '<data shape="..." element_type="f32" />')
    assert ir.read_model(write(tmp_path, xml)).node(0).op.shape.rank_is_dynamic


# ------------------------------------------------------------------------------------ weights
def test_weights_path_defaults_to_the_bin_beside_the_xml(tmp_path):
    path = write(tmp_path, weights=None)
    with pytest.raises(WeightsError, match="the model has Const layers but there is no weights file") as info:
        ir.read_model(path)
    assert info.value.location.line == line_of(DEMO, '<layer id="1"') and info.value.location.layer_id == 1
    other = tmp_path / "elsewhere.bin"
    other.write_bytes(DEMO_BIN)
    assert ir.read_model(path, weights=other).node(2).op.value.tolist() == [2, -1]


def test_explicit_weights_path_that_does_not_exist_is_an_io_error(tmp_path):
    with pytest.raises(IrIOError, match="cannot open the weights file") as info:
        ir.read_model(write(tmp_path), weights=tmp_path / "nope.bin")
    assert isinstance(info.value, OSError)


def test_a_model_without_consts_needs_no_bin(tmp_path):
    xml = DEMO.split("\t\t<layer id=\"1\"")[0] + "\t</layers>\n</net>\n"
    model = ir.read_model(write(tmp_path, xml, weights=None))
    assert [n.name for n in model] == ["x"]


def test_const_beyond_the_bin_is_located(tmp_path):
    with pytest.raises(WeightsError, match=r"Const bytes \[8, 24\) lie outside the weights file of 16 bytes") as info:
        ir.read_model(write(tmp_path, weights=DEMO_BIN[:16]))
    where = info.value.location
    assert (where.line, where.layer_name) == (line_of(DEMO, '<layer id="2"'), "vs/Constant_3")


def test_const_size_smaller_than_its_shape_needs(tmp_path):
    xml = DEMO.replace('offset="8" size="16"', 'offset="8" size="15"')
    with pytest.raises(WeightsError, match=r"Const i64 \[2\] needs 16 bytes but its size is 15"):
        ir.read_model(write(tmp_path, xml))


def test_const_size_larger_than_needed_reads_with_a_finding(tmp_path):
    xml = DEMO.replace('offset="0" size="8"', 'offset="0" size="16"')
    result = read_ir(write(tmp_path, xml))
    assert result.model.node(1).op.value.tolist() == 1
    assert [(f.code, f.location.layer_id) for f in result.findings] == [("const-size", 1)]


def test_const_element_limit_is_checked_before_touching_weights(tmp_path):
    xml = DEMO.replace('shape="2" offset="8" size="16"', 'shape="100000, 100000" offset="8" size="16"')
    with pytest.raises(ResourceLimitError, match="has 10000000000 elements; the limit is 1000") as info:
        ir.read_model(write(tmp_path, xml), element_limit=1000)
    assert info.value.location.layer_id == 2


@pytest.mark.parametrize(
    ("attribute", "message"),
    [
        ('offset="0x8"', "Const attribute 'offset' must be a non-negative integer. Got: '0x8'"),
        ('offset="-8"', "Const attribute 'offset' must be a non-negative integer. Got: '-8'"),
        ('offset="8.0"', "Const attribute 'offset' must be a non-negative integer. Got: '8.0'"),
    ],
)
def test_const_placement_is_parsed_strictly(tmp_path, attribute, message):
    xml = DEMO.replace('offset="8"', attribute)
    with pytest.raises(IrParseError, match=message):
        ir.read_model(write(tmp_path, xml))


def test_every_element_type_of_the_golden_corpus_reads():
    names = sorted(n for n in os.listdir(CORPUS) if n.startswith("type-"))
    assert len(names) >= 25
    seen = set()
    for name in names:
        model = ir.read_model(os.path.join(CORPUS, name, "model.xml"))
        seen.update(n.op.element_type.ir_name for n in model if isinstance(n.op, Const))
    assert {"string", "u1", "u3", "u6", "nf4", "f4e2m1", "bf16", "boolean", "f8e8m0"} <= seen


# ------------------------------------------------------------------------------------ strict attributes
@pytest.mark.parametrize("text", ["3.0", "abc", "+1", "", "0x3"])
def test_integer_attributes_are_strict(tmp_path, text):
    xml = DEMO.replace('<data axis="-1" />', f'<data axis="{text}" />')
    with pytest.raises(OpError, match=re.escape(f"attribute 'axis' must be an integer. Got: '{text}'")) as info:
        ir.read_model(write(tmp_path, xml))
    assert info.value.location.layer_id == 4 and info.value.location.line == line_of(DEMO, '<layer id="4"')


def test_op_rules_at_read_time_carry_the_location(tmp_path):
    xml = DEMO.replace('type="VariadicSplit" version="opset1">', 'type="Split" version="opset1">\n\t\t\t'
                       '<data num_splits="0" />')
    with pytest.raises(OpError, match="Attribute 'num_splits' must be greater than zero. Got: 0") as info:
        ir.read_model(write(tmp_path, xml))
    assert info.value.location.layer_type == "Split"
    assert Split(num_splits=2) == Split.from_attributes({"num_splits": "2"})


@pytest.mark.parametrize(
    ("old", "new", "error", "message"),
    [
        ('<dim>6</dim>', "<dim>?</dim>", IrParseError, "port <dim> must be an integer >= -1. Got: '?'"),
        ('<dim>6</dim>', "<dim>-2</dim>", IrParseError, "port <dim> must be an integer >= -1. Got: '-2'"),
        ('precision="FP32" names="x"', 'precision="float32" names="x"', IrParseError,
         "port precision 'float32' is not an IR precision"),
        ('<port id="3"', '<port id="x3"', IrParseError, "port id 'x3' must be a non-negative integer"),
        ('<port id="4"', '<port id="3"', IrParseError, r"port id '3' is used twice \(output ports\)"),
        ('<layer id="3"', '<layer id="3.0"', IrParseError, "layer 'id' must be a non-negative integer. Got: '3.0'"),
        (' name="cat"', "", IrParseError, "<layer> is missing the attribute 'name'"),
        (' version="opset1">\n\t\t\t<data axis', ">\n\t\t\t<data axis", IrParseError,
         "<layer> is missing the attribute 'version'"),
        ('<data shape="2,6" element_type="f32" />', "", IrParseError,
         "a Parameter layer needs <data> with 'shape' and 'element_type'"),
        ('element_type="f32"', 'element_type="FP32"', OpError, "attribute 'element_type' must be an IR element type"),
    ],
)
def test_malformed_layers_are_refused_with_their_line(tmp_path, old, new, error, message):
    xml = DEMO.replace(old, new, 1)
    with pytest.raises(error, match=message) as info:
        ir.read_model(write(tmp_path, xml))
    assert info.value.location.file == str(tmp_path / "model.xml") and info.value.location.line


def test_input_port_precision_is_tolerated_like_openvino(tmp_path):
    xml = DEMO.replace('<port id="1" precision="I64" />', '<port id="1" precision="Q78" />')
    result = read_ir(write(tmp_path, xml))
    assert result.model.node(3).inputs[1].declared_type is None
    assert [f.code for f in result.findings] == ["declared-type"]


VS_INPUT = '<layer id="3" name="vs" type="VariadicSplit" version="opset1">\n\t\t\t<input>\n\t\t\t\t<port id="0" '
RESULT_INPUT = 'output_names="y">\n\t\t\t<input>\n\t\t\t\t<port id="0" '


def test_unknown_precision_on_an_output_is_refused_after_an_input_declared_it(tmp_path):
    # Both ports declare Q78 with dims 2,6: the input's tolerance must not leak to the output.
    xml = DEMO.replace(VS_INPUT + 'precision="FP32"', VS_INPUT + 'precision="Q78"').replace(
        '<port id="2" precision="FP32" names="y">', '<port id="2" precision="Q78" names="y">'
    )
    with pytest.raises(IrParseError, match="Q78") as info:
        read_ir(write(tmp_path, xml))
    assert info.value.location.line == line_of(xml, 'precision="Q78" names="y"')


def test_every_input_port_with_an_unknown_precision_is_noted(tmp_path):
    xml = DEMO.replace(VS_INPUT + 'precision="FP32"', VS_INPUT + 'precision="Q78"').replace(
        RESULT_INPUT + 'precision="FP32"', RESULT_INPUT + 'precision="Q78"'
    )
    result = read_ir(write(tmp_path, xml))
    assert [(f.code, f.location.line) for f in result.findings] == [
        ("declared-type", line_of(xml, VS_INPUT) + 2),
        ("declared-type", line_of(xml, RESULT_INPUT) + 2),
    ]


# ------------------------------------------------------------------------------------ graph errors
def test_duplicate_layer_ids_name_both_lines(tmp_path):
    xml = DEMO.replace('<layer id="4"', '<layer id="2"')
    first, second = line_of(DEMO, '<layer id="2"'), line_of(DEMO, '<layer id="4"')
    with pytest.raises(GraphError, match=f"layer id 2 is used twice: by the layer at line {first} and the layer at "
                                         f"line {second}") as info:
        ir.read_model(write(tmp_path, xml))
    assert info.value.location.line == second


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('from-layer="4" from-port="2"', 'from-layer="9" from-port="2"', "there is no layer with id 9"),
        ('from-layer="4" from-port="2"', 'from-layer="4" from-port="7"',
         r"layer 4 'cat' \(Concat\) has no output port with id 7 \(its output port ids: 2\)"),
        ('to-layer="5" to-port="0"', 'to-layer="5" to-port="1"',
         r"layer 5 'y' \(Result\) has no input port with id 1 \(its input port ids: 0\)"),
        ('from-layer="3" from-port="3" to-layer="4" to-port="1"', 'from-layer="3" from-port="3" to-layer="4" '
         'to-port="0"', r"input port 0 of layer 4 'cat' \(Concat\) has two producers: layer 3 port 4 \(edge at line "),
        ('from-layer="3" from-port="3"', 'from-layer="3" from-port="three"',
         "'from-port' must be a non-negative integer. Got: 'three'"),
        (' to-port="0" />\n\t</edges>', " />\n\t</edges>", "<edge> is missing the attribute 'to-port'"),
    ],
)
def test_broken_edges_are_refused_with_the_edge_line(tmp_path, old, new, message):
    xml = DEMO.replace(old, new)
    assert xml != DEMO
    with pytest.raises((GraphError, IrParseError), match=message) as info:
        ir.read_model(write(tmp_path, xml))
    edge_line = line_of(xml, new.split(" to-layer")[0] if "from" in new else new.strip())
    assert info.value.location.line == edge_line


def test_result_without_input_and_model_without_results_read_then_validate(tmp_path):
    xml = DEMO.replace('\t\t<edge from-layer="4" from-port="2" to-layer="5" to-port="0" />\n', "")
    model = ir.read_model(write(tmp_path, xml))
    assert [d.code for d in ir.validate(model) if d.is_error] == ["graph"]
    head, tail = DEMO.split('\t\t<layer id="5"')
    xml = head + "\t</layers>" + tail.split("\t</layers>")[1]
    xml = xml.replace('\t\t<edge from-layer="4" from-port="2" to-layer="5" to-port="0" />\n', "")
    model = ir.read_model(write(tmp_path, xml))
    assert "no-results" in [d.code for d in ir.validate(model)]


def test_unknown_sections_and_children_are_ignored_with_findings(tmp_path):
    xml = DEMO.replace("\t<edges>", "\t<statistics />\n\t<edges>").replace(
        '<data axis="-1" />', '<data axis="-1" />\n\t\t\t<blob />'
    )
    result = read_ir(write(tmp_path, xml))
    assert [(f.code, f.message, f.location.line) for f in result.findings] == [
        ("ignored", "element <statistics> in <net> is not part of IR; it is ignored", line_of(xml, "<statistics")),
        ("ignored", "element <blob> in a layer is not part of IR; it is ignored", line_of(xml, '<layer id="4"')),
    ]


# ------------------------------------------------------------------------------------ hostile files
def test_missing_path_and_directory_are_io_errors(tmp_path):
    with pytest.raises(IrIOError, match="cannot read the file: No such file or directory") as info:
        ir.read_model(tmp_path / "missing.xml")
    assert isinstance(info.value, OSError) and info.value.location.file == str(tmp_path / "missing.xml")
    with pytest.raises(IrIOError, match="is a directory"):
        ir.read_model(tmp_path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"   \n", "the file is empty"),
        ("<net>".encode("utf-16"), "the file is not UTF-8"),
        (b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<net version="11"><layers/></net>',
         "the XML declaration says encoding 'ISO-8859-1'"),
        (b'<net version="11" name="\xff\xfe"><layers/></net>', "the file is not valid UTF-8"),
        (b'<net version="11"><layers>', "not well-formed XML"),
        (b'<model version="11"><layers/></model>', "the root element is <model>; an IR file has <net> at its root"),
        (b'<net version="12"><layers/></net>', "IR version '12' is not supported"),
        (b'<net><layers/></net>', "<net> has no 'version' attribute"),
        (b'<net version="11"><edges/></net>', "<net> has no <layers> section"),
    ],
)
def test_malformed_files_are_parse_errors(tmp_path, content, message):
    with pytest.raises(IrParseError, match=message) as info:
        ir.read_model(write(tmp_path, content, weights=None))
    assert info.value.location.file == str(tmp_path / "model.xml")


def test_doctype_and_entities_are_refused_without_leaking_files(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    xxe = (f'<?xml version="1.0"?>\n<!DOCTYPE net [<!ENTITY xxe SYSTEM "file://{secret}">]>\n'
           '<net name="&xxe;" version="11"><layers/></net>')
    with pytest.raises(IrParseError, match="DOCTYPE") as info:
        ir.read_model(write(tmp_path, xxe, weights=None))
    assert "TOP-SECRET" not in str(info.value)
    laughs = '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><net version="11"/>'
    with pytest.raises(IrParseError, match="DOCTYPE"):
        ir.read_model(write(tmp_path, laughs, weights=None))
    undefined = DEMO.replace('name="demo"', 'name="&xxe;"')
    with pytest.raises(IrParseError, match="Entity 'xxe' not defined") as info:
        ir.read_model(write(tmp_path, undefined))
    assert info.value.location.line == 2


def test_xinclude_is_never_processed(tmp_path):
    secret = tmp_path / "secret.xml"
    secret.write_text("<layer>TOP-SECRET</layer>")
    xml = DEMO.replace(
        "\t<layers>", f'\t<layers xmlns:xi="http://www.w3.org/2001/XInclude"><xi:include href="{secret}" />', 1
    )
    with pytest.raises(IrParseError, match="the file uses XInclude") as info:
        read_ir(write(tmp_path, xml))
    assert "TOP-SECRET" not in str(info.value) and info.value.location.line == 3


def test_size_and_element_bounds_are_checked_before_parsing(tmp_path, monkeypatch):
    path = write(tmp_path)
    monkeypatch.setattr(xml_security, "MAX_XML_BYTES", 100)
    with pytest.raises(IrParseError, match="irgraph reads IR .xml files of at most 100 bytes"):
        ir.read_model(path)
    monkeypatch.setattr(xml_security, "MAX_XML_BYTES", 2**31)
    monkeypatch.setattr(xml_security, "MAX_XML_ELEMENTS", 10)
    with pytest.raises(IrParseError, match="irgraph reads at most 10"):
        ir.read_model(path)


def test_every_read_error_is_an_ir_error_with_a_file(tmp_path):
    for content in (b"\x00\x01\x02", b"<net version='11'><layers><layer/></layers></net>", b"<<<"):
        with pytest.raises(ir.IrError) as info:
            ir.read_model(write(tmp_path, content, weights=None))
        assert info.value.location.file


# ------------------------------------------------------------------------------------ big files
def _chain_xml(layers: int, comment: bool) -> str:
    """A Parameter and ``layers`` Results on it, padded to pass libxml2's 65535-line counter."""
    head = '<?xml version="1.0"?>\n<net name="big" version="11">\n\t<layers>\n'
    parameter = (
        '\t\t<layer id="0" name="x" type="Parameter" version="opset1">\n\t\t\t<data shape="1" element_type="f32" />'
        '\n\t\t\t<output>\n\t\t\t\t<port id="0" precision="FP32" names="x">\n\t\t\t\t\t<dim>1</dim>\n\t\t\t\t</port>'
        "\n\t\t\t</output>\n\t\t</layer>\n"
    )
    padding = ("<!--" + "\n<layer id='fake'/>" * 70000 + "-->\n") if comment else "\n" * 70000
    results = "".join(
        f'\t\t<layer id="{i}" name="r{i}" type="Result" version="opset1">\n\t\t\t<input>\n'
        '\t\t\t\t<port id="0" precision="FP32">\n\t\t\t\t\t<dim>1</dim>\n\t\t\t\t</port>\n'
        "\t\t\t</input>\n\t\t</layer>\n"
        for i in range(1, layers + 1)
    )
    edges = "".join(
        f'\t\t<edge from-layer="0" from-port="0" to-layer="{i}" to-port="0" />\n' for i in range(1, layers + 1)
    )
    return head + parameter + padding + results + "\t</layers>\n\t<edges>\n" + edges + "\t</edges>\n</net>\n"


@pytest.mark.parametrize("comment", [False, True])
def test_lines_past_65535_are_exact(tmp_path, comment):
    xml = _chain_xml(3, comment)
    model = ir.read_model(write(tmp_path, xml, weights=None))
    assert [n.location.line for n in model] == [
        line_of(xml, '<layer id="0"'), line_of(xml, '<layer id="1"'), line_of(xml, '<layer id="2"'),
        line_of(xml, '<layer id="3"'),
    ]
    assert model.node(3).location.line > 70000
    broken = xml.replace('to-layer="3" to-port="0"', 'to-layer="3" to-port="5"')
    with pytest.raises(GraphError) as info:
        ir.read_model(write(tmp_path, broken, weights=None))
    assert info.value.location.line == line_of(broken, 'to-layer="3" to-port="5"')


# ------------------------------------------------------------------------------------ golden corpus

def load_arrays(path: str, types: dict[str, ir.ElementType]) -> dict[str, np.ndarray]:
    """An .npz of the corpus in irgraph's in-memory dtypes (ml_dtypes items are stored as raw |V bytes)."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    for key, array in arrays.items():
        if array.dtype.kind == "V":
            arrays[key] = array.view(types[key].numpy_dtype)
    return arrays


def same_array(got: np.ndarray, want: np.ndarray) -> bool:
    if want.dtype.kind == "U":
        return got.shape == want.shape and got.tolist() == want.tolist()
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def corpus_ok_cases() -> list[str]:
    names = []
    for name in sorted(os.listdir(CORPUS)):
        with open(os.path.join(CORPUS, name, "case.json"), encoding="utf-8") as file:
            if json.load(file)["expect"] == "ok":
                names.append(name)
    return names


@pytest.mark.parametrize("name", corpus_ok_cases())
def test_corpus_reads_and_runs_like_openvino(name):
    """Every golden case, hand edits included: irgraph's outputs equal OpenVINO's (expected.npz)."""
    model = ir.read_model(os.path.join(CORPUS, name, "model.xml"))
    ir.infer_shapes(model)
    inputs = load_arrays(
        os.path.join(CORPUS, name, "inputs.npz"), {p.name: p.op.element_type for p in model.parameters}
    )
    types = {}
    for result in model.results:
        source = model.input_sources(result)[0]
        types[model.output_key(result)] = model.node(source.node_id).outputs[source.index].type.element_type
    expected = load_arrays(os.path.join(CORPUS, name, "expected.npz"), types)
    got = ir.run(model, inputs)
    assert list(got) == list(expected)
    for key, want in expected.items():
        assert same_array(got[key], want), key


def test_control_character_references_openvino_writes_are_read_and_rewritten(tmp_path):
    # pugixml writes every control character as &#NN;, which XML 1.0 (and libxml2) refuses for
    # all but tab, newline and carriage return; irgraph reads them all and writes them back.
    xml = DEMO.replace('name="cat"', 'name="c&#01;a&#09;t&#31;"').replace('names="y"', 'names="y&#x1F;,z&#10;"')
    model = ir.read_model(write(tmp_path, xml))
    assert model.node(4).name == "c\x01a\tt\x1f" and model.node(4).location.layer_name == "c\x01a\tt\x1f"
    assert model.node(4).outputs[0].tensor_names == ["y\x1f", "z\n"]
    ir.write_model(model, tmp_path / "again.xml")
    text = (tmp_path / "again.xml").read_text("utf-8")
    assert 'name="c&#01;a&#09;t&#31;"' in text and 'names="y&#31;,z&#10;"' in text


# ------------------------------------------------------------------------------------ fuzzing
@st.composite
def mutated_demo(draw) -> tuple[bytes, bytes]:
    """DEMO with a few random edits: slices cut, duplicated or replaced, bytes flipped, the .bin cut."""
    data = bytearray(DEMO.encode("utf-8"))
    for _ in range(draw(st.integers(1, 4))):
        start = draw(st.integers(0, len(data)))
        end = min(len(data), start + draw(st.integers(0, 40)))
        action = draw(st.sampled_from(["cut", "copy", "replace", "flip"]))
        if action == "cut":
            del data[start:end]
        elif action == "copy":
            data[start:start] = data[start:end]
        elif action == "replace":
            data[start:end] = draw(st.sampled_from([b"-1", b"99999999999999999999", b"&#01;", b"\xff", b"<", b'"',
                                                    b"a,b", b"..", b"?", b"", b"<dim>3</dim>", b"</port>"]))
        elif data:
            position = min(start, len(data) - 1)
            data[position] ^= draw(st.integers(1, 255))
    weights = DEMO_BIN[: draw(st.integers(0, len(DEMO_BIN)))]
    return bytes(data), weights


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=mutated_demo())
def test_damaged_files_raise_only_located_ir_errors(tmp_path, case):
    xml, weights = case
    path = write(tmp_path, xml, weights)
    assert all(d.location.file for d in ir.validate_file(path))  # reports, never raises
    try:
        model = ir.read_model(path)
    except ir.IrError as err:
        assert err.location.file, err
        return
    ir.validate(model)  # whatever was read can be validated without raising
    try:
        ir.write_model(model, tmp_path / "again.xml")
    except ir.IrError as err:
        assert err.location.file, err


# ------------------------------------------------------------------------------------ op versions
READ_REVERSE = """
import sys
import irgraph as ir
from irgraph.ops import known_ops

if sys.argv[2] == "known_ops":
    known_ops()  # imports every op module, as any opaque op's error message does
model = ir.read_model(sys.argv[1])
flip = next(node for node in model.nodes if node.name == "flip")
print(type(flip.op).__name__, sorted({d.code for d in ir.validate(model) if d.is_error}))
"""


@pytest.mark.parametrize("before", ["nothing", "known_ops"])
@pytest.mark.parametrize(("version", "expected"), [("opset1", "Reverse []"), ("opset8", "OpaqueOp ['invalid-op']")])
def test_an_op_version_reads_the_same_whatever_was_imported_before(tmp_path, before, version, expected):
    """Reverse is in opset1 only (OpenVINO 2026.4.1's tables): version="opset8" is an invalid-op error in a fresh
    process and after every op module was imported (it once validated and ran after known_ops())."""
    import subprocess
    import sys

    model = ir.Model("reverse")
    data = model.parameter("x", Shape.parse("2,3"))
    reverse = model.add_node(Reverse(mode="index"), "flip", [data, model.const(np.array([1], np.int64))])
    model.result(ir.OutputPort(reverse.id, 0), name="y")
    path = tmp_path / "reverse.xml"
    ir.write_model(model, path)
    path.write_text(path.read_text().replace('type="Reverse" version="opset1"', f'type="Reverse" version="{version}"'))
    done = subprocess.run([sys.executable, "-c", READ_REVERSE, str(path), before], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected
