"""diff_models: each planted change in a real network is reported exactly, once; same models are equivalent.

The real network is tests/convnet.py's conv net written by openvino 2026.4.1 (``ov.convert_model``
of an ONNX model, saved with fp16 compression); each planted change edits its XML or .bin the way a
person or a tool would. The matching and derived-type rules are also checked on models built in code.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.graph import OutputPort
from irgraph.tools.diff import IGNORED_NET_RT_INFO, ModelDiff, diff_models
from tests.cli.helpers import SAMPLE_NAMES, SAMPLES


def lines(result: ModelDiff) -> list[str]:
    return [d.describe() for d in result.differences]


# ------------------------------------------------------------------------------------ the real network
@pytest.fixture(scope="module")
def convnet(tmp_path_factory) -> Path:
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    pytest.importorskip("onnx", reason="the test extra installs onnx")
    from tests.convnet import write_convnet

    return write_convnet(tmp_path_factory.mktemp("convnet"))


class Planted:
    """A copy of the conv net's text and weights to edit, written beside the original as ``NAME.xml``."""

    def __init__(self, original: Path) -> None:
        self.original = original
        self.text = original.read_text("utf-8")
        self.data = bytearray(original.with_suffix(".bin").read_bytes())

    def replace(self, old: str, new: str, count: int = 1) -> Planted:
        assert self.text.count(old) >= count, old
        self.text = self.text.replace(old, new, count)
        return self

    def const(self, name: str) -> tuple[int, int]:
        """(offset, size) of the Const called ``name``."""
        found = re.search(rf'name="{re.escape(name)}" type="Const".*?offset="(\d+)" size="(\d+)"', self.text, re.S)
        assert found is not None, name
        return int(found.group(1)), int(found.group(2))

    def layer_id(self, name: str) -> str:
        found = re.search(rf'<layer id="(\d+)" name="{re.escape(name)}"', self.text)
        assert found is not None, name
        return found.group(1)

    def write(self, name: str) -> Path:
        xml = self.original.with_name(f"{name}.xml")
        xml.write_text(self.text, "utf-8")
        xml.with_suffix(".bin").write_bytes(bytes(self.data))
        return xml


def diff_files(a: Path, b: Path) -> ModelDiff:
    return diff_models(ir.read_model(a), ir.read_model(b))


@pytest.mark.oracle
def test_a_changed_weight_is_one_difference_with_the_hashes_of_its_values(convnet):
    planted = Planted(convnet)
    offset, size = planted.const("w2_compressed")
    before = bytes(planted.data[offset:offset + size])
    planted.data[offset + 11] ^= 0x04  # one bit of the exponent of the 6th f16 weight
    after = bytes(planted.data[offset:offset + size])
    largest = float(np.max(np.abs(np.frombuffer(before, np.float16).astype(np.float64)
                                  - np.frombuffer(after, np.float16).astype(np.float64))))
    result = diff_files(convnet, planted.write("weight"))
    assert lines(result) == [
        f"~ layer 'w2_compressed' (Const): values differ (sha256 {hashlib.sha256(before).hexdigest()[:12]}.. -> "
        f"{hashlib.sha256(after).hexdigest()[:12]}..; max abs diff {largest:.6g}; 1 of 576 elements differ)"]
    assert result.derived == [] and not result.equivalent


@pytest.mark.oracle
def test_a_changed_attribute_is_one_difference(convnet):
    planted = Planted(convnet).replace(
        'type="Convolution" version="opset1">\n\t\t\t<data strides="1, 1" dilations="1, 1" pads_begin="1, 1"',
        'type="Convolution" version="opset1">\n\t\t\t<data strides="1, 1" dilations="1, 1" pads_begin="0, 1"', 1)
    result = diff_files(convnet, planted.write("attribute"))
    assert lines(result) == ["~ layer 'conv1/WithoutBiases' (Convolution): attribute pads_begin 1, 1 -> 0, 1"]
    assert result.derived == []


@pytest.mark.oracle
def test_a_changed_input_dim_is_one_difference_and_its_consequences_are_derived(convnet):
    planted = Planted(convnet).replace('<data shape="1,3,16,16" element_type="f32" />',
                                       '<data shape="1,3,16,32" element_type="f32" />')
    port_end = "</dim>\n\t\t\t\t</port>\n\t\t\t</output>"
    planted.replace(f"<dim>16{port_end}", f"<dim>32{port_end}")
    result = diff_files(convnet, planted.write("dim"))
    assert lines(result) == ["~ layer 'x' (Parameter): attribute shape 1,3,16,16 -> 1,3,16,32"]
    assert [d.describe() for d in result.derived] == [
        "~ layer 'x' (Parameter): output 0 type f32[1,3,16,16] -> f32[1,3,16,32]"]


@pytest.mark.oracle
def test_a_changed_declared_dim_in_the_middle_is_one_difference(convnet):
    planted = Planted(convnet)
    start = planted.text.index('name="conv1/WithoutBiases"')
    output = planted.text.index("<output>", start)
    end = planted.text.index("</output>", output)
    block = planted.text[output:end]
    assert block.count("<dim>16</dim>") == 2
    planted.text = planted.text[:output] + block.replace("<dim>16</dim>", "<dim>15</dim>", 1) + planted.text[end:]
    result = diff_files(convnet, planted.write("declared-dim"))
    assert lines(result) == [
        "~ layer 'conv1/WithoutBiases' (Convolution): output 0 type f32[1,8,16,16] -> f32[1,8,15,16]"]
    assert result.derived == []


@pytest.mark.oracle
def test_a_rewired_input_is_one_difference(convnet):
    planted = Planted(convnet)
    relu2, pool1, add2 = planted.layer_id("relu2"), planted.layer_id("pool1"), planted.layer_id("add2")
    planted.replace(f'<edge from-layer="{relu2}" from-port="1" to-layer="{add2}" to-port="0" />',
                    f'<edge from-layer="{pool1}" from-port="1" to-layer="{add2}" to-port="0" />')
    result = diff_files(convnet, planted.write("rewired"))
    assert lines(result) == ["~ layer 'add2' (Add): input 0 from 'relu2':0 -> 'pool1':0"]
    assert result.derived == []  # pool1 and relu2 both give f32[1,8,8,8]


@pytest.mark.oracle
def test_a_removed_edge_is_one_difference(convnet):
    planted = Planted(convnet)
    bias, add2 = planted.layer_id("bias3"), planted.layer_id("add2")
    planted.replace(f'\t\t<edge from-layer="{bias}" from-port="1" to-layer="{add2}" to-port="1" />\n', "")
    result = diff_files(convnet, planted.write("no-edge"))
    assert lines(result) == ["~ layer 'add2' (Add): input 1 from 'bias3':0 -> (none)"]


@pytest.mark.oracle
def test_a_renamed_layer_is_matched_by_its_place_and_reported_as_renamed(convnet):
    planted = Planted(convnet).replace('name="relu1"', 'name="relu1_renamed"')
    result = diff_files(convnet, planted.write("renamed"))
    assert lines(result) == ["~ layer 'relu1' (ReLU): renamed to 'relu1_renamed'"]
    assert result.matched_by_structure == 1 and result.matched_by_position == 0


@pytest.mark.oracle
def test_an_inserted_layer_is_added_and_its_consumer_rewired(convnet):
    planted = Planted(convnet)
    relu2, add2 = planted.layer_id("relu2"), planted.layer_id("add2")
    start = planted.text.index(f'<layer id="{relu2}" name="relu2"')
    end = planted.text.index("</layer>", start) + len("</layer>")
    extra = planted.text[start:end].replace(f'id="{relu2}" name="relu2"', 'id="500" name="extra_relu"')
    extra = extra.replace('names="r2"', 'names="extra"')
    planted.text = planted.text[:end] + "\n\t\t" + extra + planted.text[end:]
    planted.replace(f'<edge from-layer="{relu2}" from-port="1" to-layer="{add2}" to-port="0" />',
                    f'<edge from-layer="{relu2}" from-port="1" to-layer="500" to-port="0" />\n'
                    f'\t\t<edge from-layer="500" from-port="1" to-layer="{add2}" to-port="0" />')
    result = diff_files(convnet, planted.write("inserted"))
    assert lines(result) == ["~ layer 'add2' (Add): input 0 from 'relu2':0 -> 'extra_relu':0",
                             "+ layer 'extra_relu' (ReLU)"]
    assert result.derived == []
    removed = diff_files(planted.write("inserted"), convnet)  # the other way round: a removed layer
    assert lines(removed) == ["- layer 'extra_relu' (ReLU)",
                              "~ layer 'add2' (Add): input 0 from 'extra_relu':0 -> 'relu2':0"]


@pytest.mark.oracle
def test_an_output_added_with_irgraph_is_the_only_difference(convnet, tmp_path):
    model = ir.read_model(convnet)
    relu1 = next(node for node in model if node.name == "relu1")
    model.result(OutputPort(relu1.id, 0), name="extra_out")
    ir.write_model(model, tmp_path / "more.xml")
    result = diff_files(convnet, tmp_path / "more.xml")
    assert lines(result) == ["+ layer 'extra_out' (Result)"]
    back = diff_files(tmp_path / "more.xml", convnet)
    assert lines(back) == ["- layer 'extra_out' (Result)"]


@pytest.mark.oracle
def test_changed_rt_info_is_one_difference_per_entry(convnet):
    planted = Planted(convnet)
    planted.replace('<attribute name="decompression" version="0" />', '<attribute name="decompression" version="1" />')
    result = diff_files(convnet, planted.write("rt-info"))
    assert lines(result) == ["~ layer 'w1' (Convert): rt_info decompression version=0 -> version=1"]
    planted = Planted(convnet).replace('\t\t\t<rt_info>\n\t\t\t\t<attribute name="decompression" version="0" />\n'
                                       '\t\t\t</rt_info>\n', "", 1)
    result = diff_files(convnet, planted.write("rt-info-removed"))
    assert lines(result) == ["~ layer 'w1' (Convert): rt_info decompression version=0 -> (none)"]


@pytest.mark.oracle
def test_net_rt_info_differences_are_reported_but_not_the_openvino_version_stamp(convnet):
    planted = Planted(convnet)
    version = re.search(r'<Runtime_version value="([^"]*)"', planted.text)
    assert version is not None and {"OpenVINO Runtime", "Runtime_version"} == IGNORED_NET_RT_INFO
    planted.replace(version.group(1), "2099.1.0", 2)
    assert diff_files(convnet, planted.write("version")).equivalent
    planted.replace('<is_python_object value="False" />', '<is_python_object value="True" />')
    result = diff_files(convnet, planted.write("conversion"))
    assert lines(result) == ["~ model: rt_info conversion_parameters/is_python_object False -> True"]


# ------------------------------------------------------------------------------------ equivalence
@pytest.mark.oracle
def test_what_openvino_and_irgraph_write_for_the_conv_net_is_equivalent(convnet, tmp_path):
    from tests.convnet import ov_resave

    ir.write_model(ir.read_model(convnet), tmp_path / "irgraph.xml")
    ov_resave(tmp_path / "irgraph.xml", tmp_path / "openvino.xml")
    for path in (tmp_path / "irgraph.xml", tmp_path / "openvino.xml"):
        result = diff_files(convnet, path)
        assert result.equivalent, lines(result)
        assert result.summary() == "equivalent (34 layers matched)"


@pytest.mark.oracle
@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_each_sample_and_its_rewrites_by_irgraph_and_openvino_are_equivalent(name, tmp_path):
    sample = SAMPLES / name / "model.xml"
    model = ir.read_model(sample)
    ir.write_model(model, tmp_path / "irgraph.xml")
    assert diff_files(sample, tmp_path / "irgraph.xml").equivalent
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    from tests.convnet import ov_resave

    ov_resave(tmp_path / "irgraph.xml", tmp_path / "openvino.xml")
    result = diff_files(sample, tmp_path / "openvino.xml")
    assert result.equivalent, lines(result)


@pytest.mark.oracle
def test_a_model_irgraph_builds_and_writes_is_equivalent_to_openvinos_rewrite(tmp_path):
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    from tests.convnet import ov_resave

    ir.write_model(chain(), tmp_path / "irgraph.xml")
    ov_resave(tmp_path / "irgraph.xml", tmp_path / "openvino.xml")
    irgraph_text, openvino_text = (tmp_path / "irgraph.xml").read_text(), (tmp_path / "openvino.xml").read_text()
    # openvino 2026.4.1 adds its version stamp to the net rt_info and output_names to every Result.
    assert '<info name="OpenVINO Runtime"' in openvino_text and '<info name="OpenVINO Runtime"' not in irgraph_text
    assert 'output_names="left"' in openvino_text and 'output_names="left"' not in irgraph_text
    result = diff_files(tmp_path / "irgraph.xml", tmp_path / "openvino.xml")
    assert result.equivalent, lines(result)


@pytest.mark.oracle
def test_ids_document_order_and_bin_layout_do_not_matter(convnet):
    planted = Planted(convnet)
    # Every Const 64 bytes further into the .bin; ids renumbered; layers in reverse document order.
    planted.data[0:0] = bytes(64)
    planted.text = re.sub(r'offset="(\d+)"', lambda m: f'offset="{int(m.group(1)) + 64}"', planted.text)
    planted.text = re.sub(r'(<layer id="|from-layer="|to-layer=")(\d+)"',
                          lambda m: f'{m.group(1)}{int(m.group(2)) + 7}"', planted.text)
    blocks = re.findall(r"\t\t<layer .*?\n\t\t</layer>\n", planted.text, re.S)
    assert len(blocks) == 34
    start = planted.text.index(blocks[0])
    end = planted.text.index(blocks[-1]) + len(blocks[-1])
    planted.text = planted.text[:start] + "".join(reversed(blocks)) + planted.text[end:]
    result = diff_files(convnet, planted.write("shuffled"))
    assert result.equivalent, lines(result)
    assert result.matched_by_name == 34


def test_const_values_are_compared_decoded():
    def model(value: np.ndarray) -> ir.Model:
        m = ir.Model("consts")
        x = m.parameter("x", [2, 3])
        m.result(m.concat([x, m.const(value, name="w")], axis=0), name="y")
        return m

    same = diff_models(model(np.arange(6, dtype=np.float32).reshape(2, 3)),
                       model(np.arange(6, dtype=np.float32).reshape(2, 3).copy()))
    assert same.equivalent
    changed = np.arange(6, dtype=np.float32).reshape(2, 3)
    changed[1, 2] = 7.5
    result = diff_models(model(np.arange(6, dtype=np.float32).reshape(2, 3)), model(changed))
    old = hashlib.sha256(np.arange(6, dtype=np.float32).tobytes()).hexdigest()[:12]
    new = hashlib.sha256(changed.tobytes()).hexdigest()[:12]
    assert lines(result) == [f"~ layer 'w' (Const): values differ (sha256 {old}.. -> {new}..; max abs diff 2.5; "
                             "1 of 6 elements differ)"]


# ------------------------------------------------------------------------------------ matching rules
def chain(names: dict[str, str] | None = None, lengths: tuple[int, ...] = (2, 1, 3)) -> ir.Model:
    """x -> VariadicSplit -> Concat (reordered) -> Split -> two Results; layer names overridable."""
    names = names or {}
    m = ir.Model("chain")
    x = m.parameter("x", [1, 6, 4])
    a, b, c = m.variadic_split(x, axis=1, lengths=list(lengths), name=names.get("vsplit", "vsplit"))
    joined = m.concat([c, a, b], axis=1, name=names.get("concat", "concat"))
    left, right = m.split(joined, axis=2, num_splits=2, name=names.get("split", "split"))
    m.result(left, name="left")
    m.result(right, name="right")
    return m


def test_auto_named_layers_are_matched_by_structure():
    # The Consts are named by id (Const_1, ...): other ids, other names, same graph.
    first, second = chain(), chain()
    second_consts = [node for node in second if node.type_name == "Const"]
    for node in second_consts:
        node.name = f"other_{node.id}"
    result = diff_models(first, second)
    assert lines(result) == [f"~ layer '{node.name}' (Const): renamed to 'other_{node.id}'"
                             for node in first.topological_order() if node.type_name == "Const"]
    assert result.matched_by_structure == 3


def test_unmatched_layers_fall_back_to_position_among_their_type():
    first = chain()
    second = chain({"vsplit": "parts", "concat": "join", "split": "halves"})
    for node in second:  # detach the layers from every name-matched neighbour: only positions are left
        if node.type_name == "Const":
            node.name = f"c{node.id}"
    result = diff_models(first, second)
    assert result.matched == 9 and not result.added and not result.removed
    assert "~ layer 'vsplit' (VariadicSplit): renamed to 'parts'" in lines(result)


def test_a_changed_length_is_one_difference_and_the_types_after_it_are_derived():
    result = diff_models(chain(), chain(lengths=(1, 2, 3)))
    assert lines(result) == [
        "~ layer 'Const_2' (Const): values differ (sha256 "
        f"{hashlib.sha256(np.array([2, 1, 3], np.int64).tobytes()).hexdigest()[:12]}.. -> "
        f"{hashlib.sha256(np.array([1, 2, 3], np.int64).tobytes()).hexdigest()[:12]}..; max abs diff 1; "
        "2 of 3 elements differ)"]
    assert [d.describe() for d in result.derived] == [
        "~ layer 'vsplit' (VariadicSplit): output 0 type f32[1,2,4] -> f32[1,1,4]",
        "~ layer 'vsplit' (VariadicSplit): output 1 type f32[1,1,4] -> f32[1,2,4]",
    ]
    assert result.summary() == ("1 difference: 1 layer changed, 0 added, 0 removed (9 layers matched); "
                                "by kind: 1 value; 2 more type differences follow from them")


def test_a_changed_op_type_is_one_difference():
    first = chain()
    second = ir.Model("chain")
    x = second.parameter("x", [1, 6, 4])
    a, b, c = second.variadic_split(x, axis=1, lengths=[2, 1, 3], name="vsplit")
    joined = second.concat([c, a, b], axis=1, name="concat")
    parts = second.variadic_split(joined, axis=2, lengths=[2, 2], name="split")
    second.result(parts[0], name="left")
    second.result(parts[1], name="right")
    result = diff_models(first, second)
    assert lines(result) == [
        "~ layer 'split' (Split): type Split opset1 -> VariadicSplit opset1",  # not its attributes and ports too
        "+ layer 'Const_6' (Const)",
    ]


def test_names_from_files_are_escaped():
    (line,) = lines(diff_models(chain(), chain({"concat": "join\x1b[31m\n"})))
    assert line == "~ layer 'concat' (Concat): renamed to 'join\\x1b[31m\\n'"


def test_a_model_is_equivalent_to_itself_and_its_copy(tmp_path):
    model = chain()
    assert diff_models(model, model).equivalent
    ir.write_model(model, tmp_path / "copy.xml")
    assert diff_models(model, ir.read_model(tmp_path / "copy.xml")).equivalent
    shutil.copy(tmp_path / "copy.xml", tmp_path / "again.xml")
    shutil.copy(tmp_path / "copy.bin", tmp_path / "again.bin")
    assert diff_files(tmp_path / "copy.xml", tmp_path / "again.xml").summary() == "equivalent (9 layers matched)"


def test_string_bool_and_nan_values_are_compared_by_content():
    def one_const(value: np.ndarray) -> ir.Model:
        m = ir.Model("c")
        m.result(m.const(value, name="c"), name="r")
        return m

    def digest(value: np.ndarray) -> str:
        return hashlib.sha256(value.tobytes()).hexdigest()[:12]

    strings = diff_models(one_const(np.array(["a", "b"])), one_const(np.array(["a", "c"])))
    old, new = (hashlib.sha256(text).hexdigest()[:12] for text in (b"a\0b", b"a\0c"))  # items joined by NUL
    assert lines(strings) == [f"~ layer 'c' (Const): values differ (sha256 {old}.. -> {new}..; 1 of 2 elements differ)"]
    flags = diff_models(one_const(np.array([True, False])), one_const(np.array([True, True])))
    assert lines(flags) == [f"~ layer 'c' (Const): values differ (sha256 {digest(np.array([True, False]))}.. -> "
                            f"{digest(np.array([True, True]))}..; 1 of 2 elements differ)"]
    nan = np.array([np.nan, 1], np.float32)
    assert diff_models(one_const(nan), one_const(nan.copy())).equivalent  # the same bits: equal
    with_nan = diff_models(one_const(np.array([0, 1], np.float32)), one_const(nan))
    assert lines(with_nan)[0].endswith("; max abs diff nan; 1 of 2 elements differ)")


def test_an_extra_input_is_one_difference():
    def joined(count: int) -> ir.Model:
        m = ir.Model("j")
        x = m.parameter("x", [1, 2])
        m.result(m.concat([x] * count, axis=1, name="join"), name="y")
        return m

    result = diff_models(joined(2), joined(3))
    assert lines(result) == ["~ layer 'join' (Concat): inputs 2 -> 3"]
    assert [d.describe() for d in result.derived] == ["~ layer 'join' (Concat): output 0 type f32[1,4] -> f32[1,6]"]
