"""Sub-graphs (TensorIterator-1, Loop-5, If-8) on files OpenVINO wrote: nothing of a body is lost.

The corpus is tests/data/ov-subgraphs (written by tests/oracle/generate_subgraph_goldens.py with
openvino 2026.4.1: opset13 builders and ONNX Loop/If/Scan conversions, IR v11 and v10, If inside
Loop inside TensorIterator, weights in bodies). For every file: reading then writing gives the same
bytes (.xml and .bin), ir-validate finds no error, ir-info exits 0, and the outer outputs' inferred
types are those OpenVINO gives after reading the file (case.json).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_convert, ir_info, ir_validate
from irgraph.control_flow.tensor_iterator import TensorIterator
from irgraph.graph import Body, OutputPort, PortMapEntry
from irgraph.io.xml.reader import _Reader
from irgraph.io.xml.security import load_xml
from irgraph.io.xml.writer import serialize

CORPUS = Path(__file__).resolve().parents[1] / "data" / "ov-subgraphs"
CASES = sorted(path.name for path in CORPUS.iterdir() if (path / "model.xml").exists())
V10_OF = {name: name[: -len("-v10")] for name in CASES if name.endswith("-v10")}


def test_the_corpus_has_every_kind_of_sub_graph() -> None:
    texts = {name: (CORPUS / name / "model.xml").read_text("utf-8") for name in CASES}
    everything = "".join(texts.values())
    for needle in ('type="TensorIterator"', 'type="Loop"', 'type="If"', "<back_edges>", 'purpose="current_iteration"',
                   'purpose="execution_condition"', "<then_body>", "<else_body>", 'stride="-2"', 'part_size="2"'):
        assert needle in everything, needle
    assert {"onnx-loop", "onnx-if", "onnx-scan", "nested-if-loop-ti"} <= set(CASES)
    assert len(V10_OF) >= 5


def _body_layer_count(model: ir.Model) -> int:
    count, pending = 0, [model]
    while pending:
        current = pending.pop()
        count += len(current)
        pending.extend(body.model for node in current for body in node.bodies)
    return count


@pytest.mark.parametrize("case", CASES)
def test_read_then_write_is_byte_identical(case: str) -> None:
    directory = CORPUS / case
    model = ir.read_model(directory / "model.xml")
    assert _body_layer_count(model) == (directory / "model.xml").read_text("utf-8").count("<layer ")
    xml, blobs = serialize(model)
    assert xml == (directory / "model.xml").read_bytes()
    assert blobs.getvalue() == (directory / "model.bin").read_bytes()


@pytest.mark.parametrize("case", CASES)
def test_inferred_outer_outputs_equal_openvinos(case: str) -> None:
    expected = json.loads((CORPUS / case / "case.json").read_text("utf-8"))["outputs"]
    model = ir.read_model(CORPUS / case / "model.xml")
    ir.infer_shapes(model)
    types = [model.output_type(model.input_sources(result)[0]) for result in model.results]
    assert [f"{t.element_type.ir_name}{t.shape}" for t in types] == [o["type"] + o["shape"] for o in expected]


@pytest.mark.parametrize("case", CASES)
def test_validate_finds_no_error_and_info_exits_0(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    xml = CORPUS / case / "model.xml"
    assert [str(d) for d in ir.validate_file(xml) if d.is_error] == []
    assert ir_validate.main([str(xml)]) == 0
    assert ir_info.main([str(xml)]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err


@pytest.mark.parametrize("case", sorted(V10_OF))
def test_ir_convert_to_v10_keeps_bodies_as_openvino_writes_them(case: str, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The v11 file converted with --ir-version 10 is the file OpenVINO wrote as IR v10 from the same model."""
    out = tmp_path / "model.xml"
    assert ir_convert.main([str(CORPUS / V10_OF[case] / "model.xml"), str(out), "--ir-version", "10"]) == 0
    capsys.readouterr()
    assert out.read_bytes() == (CORPUS / case / "model.xml").read_bytes()
    assert out.with_suffix(".bin").read_bytes() == (CORPUS / case / "model.bin").read_bytes()


def test_the_fast_reader_reads_files_with_bodies_itself() -> None:
    """Nested bodies included (tests/io/test_fast_bodies.py: alike with the plain path)."""
    from irgraph.io.xml._fast.reader import read_fast

    document = load_xml(str(CORPUS / "nested-if-loop-ti" / "model.xml"), parse=False)
    assert read_fast(_Reader(document, None, 10**6)) is not None


def test_nested_bodies_keep_their_weights() -> None:
    model = ir.read_model(CORPUS / "nested-if-loop-ti" / "model.xml")
    (ti,) = [node for node in model if node.bodies]
    (loop,) = [node for node in ti.bodies[0].model if node.bodies]
    (branch,) = [node for node in loop.bodies[0].model if node.bodies]
    assert [type(n.op).__name__ for n in (ti, loop, branch)] == ["TensorIterator", "Loop", "If"]
    then_weights = next(n for n in branch.bodies[0].model if n.name == "if_then_w").op.value
    else_weights = next(n for n in branch.bodies[1].model if n.name == "if_else_w").op.value
    np.testing.assert_array_equal(then_weights, np.full((2, 3), 0.25, np.float32))
    np.testing.assert_array_equal(else_weights, np.full((2, 3), 0.5, np.float32))


def test_onnx_export_writes_bodies_as_loop_graphs() -> None:
    """The Loop's body becomes the ONNX Loop's body graph (its values: tests/io/test_onnx_export_sub_graphs.py)."""
    pytest.importorskip("onnx")
    model = ir.read_model(CORPUS / "loop-static-trip" / "model.xml")
    (loop,) = [node for node in ir.export_onnx(model).graph.node if node.op_type == "Loop"]
    assert loop.name == "Loop_184"
    assert [attribute.name for attribute in loop.attribute] == ["body"]
    assert loop.attribute[0].g.node


# ------------------------------------------------------------------------------------ depth
def nested_tensor_iterators(depth: int) -> ir.Model:
    """``depth`` TensorIterators, each in the body of the one outside it; the innermost body holds weights."""
    inner = ir.Model("body")
    p = inner.parameter("p", [2])
    weights = inner.const(np.array([0.5, 1.5], np.float32), name="w")
    first, _ = inner.split(inner.concat([weights, p], axis=0), axis=0, num_splits=2)
    inner.result(first, name="r")
    for level in range(depth):
        outer = ir.Model("body" if level < depth - 1 else "deep")
        x = outer.parameter(f"x{level}", [2])
        node = outer.add_node(TensorIterator(), f"ti{level}", [x], num_outputs=1)
        ports = (PortMapEntry(False, 0, inner.parameters[0].id), PortMapEntry(True, 0, inner.results[0].id))
        node.bodies = (Body("body", inner, ports),)
        outer.result(OutputPort(node.id, 0), name=f"y{level}")
        inner = outer
    return inner


def test_a_hundred_nested_bodies_validate_infer_and_write(tmp_path: Path) -> None:
    model = nested_tensor_iterators(100)
    assert [d for d in ir.validate(model) if d.is_error] == []
    ir.infer_shapes(model)
    assert model.output_type(model.input_sources(model.results[0])[0]) == ir.TensorType(
        ir.ElementType.F32, ir.Shape.parse("2"))
    path = tmp_path / "deep.xml"
    ir.write_model(model, path)
    assert path.read_text("utf-8").count("<body>") == 100
    weights = np.array([0.5, 1.5], np.float32).tobytes() + np.int64(0).tobytes()  # w, then Split's axis
    assert path.with_suffix(".bin").read_bytes() == weights


@pytest.mark.parametrize("depth", [80, 100])
def test_bodies_nested_past_the_xml_parsers_depth_limit_read_back_byte_for_byte(depth: int, tmp_path: Path) -> None:
    """libxml2 refuses documents deeper than 256 elements (huge_tree stays off): deep bodies are parsed one by one."""
    path = tmp_path / "deep.xml"
    ir.write_model(nested_tensor_iterators(depth), path)
    again = ir.read_model(path)
    assert _body_layer_count(again) == depth * 3 + 6
    xml, blobs = serialize(again)
    assert xml == path.read_bytes()
    assert blobs.getvalue() == path.with_suffix(".bin").read_bytes()
    diagnostics = [d for d in ir.validate_file(path) if d.is_error or d.code == "schema"]
    if depth == 100:  # past libxml2's limit: the XSD needs the whole tree in one parse
        assert [d.message for d in diagnostics] == [
            "sub-graph bodies nest deeper than one XML parse allows (256 elements): the schema pass is skipped"]
        assert not diagnostics[0].is_error
    else:
        assert diagnostics == []


def test_layers_inside_detached_bodies_keep_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "deep.xml"
    ir.write_model(nested_tensor_iterators(100), path)
    text = path.read_text("utf-8")
    model = ir.read_model(path)
    for _ in range(100):
        model = next(node for node in model if node.bodies).bodies[0].model
    weights = next(node for node in model if node.name == "w")
    assert weights.location.line == text[: text.index('name="w"')].count("\n") + 1


def test_nesting_deeper_than_the_limit_is_refused_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each level of bodies costs Python frames: past MAX_BODY_DEPTH (128) reading and inference refuse cleanly."""
    import irgraph.control_flow.inference
    import irgraph.io.xml.sub_graphs
    from irgraph.core.errors import ResourceLimitError, ShapeInferenceError
    from irgraph.core.limits import MAX_BODY_DEPTH

    assert MAX_BODY_DEPTH == 128
    path = tmp_path / "deep.xml"
    ir.write_model(nested_tensor_iterators(4), path)
    ir.write_model(nested_tensor_iterators(3), tmp_path / "three.xml")
    monkeypatch.setattr(irgraph.io.xml.sub_graphs, "MAX_BODY_DEPTH", 3)
    assert _body_layer_count(ir.read_model(tmp_path / "three.xml")) == 3 * 3 + 6
    with pytest.raises(ResourceLimitError, match=r"sub-graph bodies nest more than 3 levels deep; irgraph reads at "
                                                 r"most 3"):
        ir.read_model(path)
    monkeypatch.setattr(irgraph.control_flow.inference, "MAX_BODY_DEPTH", 3)
    with pytest.raises(ShapeInferenceError) as caught:
        ir.infer_shapes(nested_tensor_iterators(5))
    assert str(caught.value) == ("layer 1 'ti1' (TensorIterator): in <body>: sub-graph bodies nest more than 3 levels "
                                 "deep; irgraph infers at most 3")


def test_ir_info_counts_the_layers_inside_bodies(capsys: pytest.CaptureFixture[str]) -> None:
    xml = CORPUS / "nested-if-loop-ti" / "model.xml"
    assert ir_info.main([str(xml)]) == 0
    out = capsys.readouterr().out
    assert "layers     4 (3 edges), 30 more in 4 sub-graph bodies" in out
    assert ir_info.main([str(xml), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["layers"], info["bodies"], info["body_layers"]) == (4, 4, 30)
    assert (info["ops"]["TensorIterator-1"], info["ops"]["Loop-5"], info["ops"]["If-8"]) == (1, 1, 1)
    assert sum(info["ops"].values()) == 34 == xml.read_text("utf-8").count("<layer ")


@pytest.mark.parametrize(("value", "message"), [
    ("9223372036854775807", "<port_map> port map input (external_port_id 9223372036854775807, internal_layer_id 1) "
                            "names outer input 9223372036854775807; the layer has 2 inputs"),
    ("2", "<port_map> port map input (external_port_id 2, internal_layer_id 1) names outer input 2; the layer has "
          "2 inputs"),
    (None, "<input> is missing the attribute 'external_port_id'"),
    ("9223372036854775808", "<input> attribute 'external_port_id' must be an integer in the int64 range. "
                            "Got: '9223372036854775808'"),
    ("1.0", "<input> attribute 'external_port_id' must be an integer. Got: '1.0'"),
    ("\u0661", "<input> attribute 'external_port_id' must be an integer (ASCII digits 0-9 only). Got: '\u0661'"),
])
def test_port_map_numbers_are_int64_ascii_digits(value: str | None, message: str, tmp_path: Path) -> None:
    text = (CORPUS / "ti" / "model.xml").read_text("utf-8")
    xml = tmp_path / "model.xml"
    replacement = "<input" if value is None else f'<input external_port_id="{value}"'
    xml.write_text(text.replace('<input external_port_id="1"', replacement, 1), "utf-8")
    xml.with_suffix(".bin").write_bytes((CORPUS / "ti" / "model.bin").read_bytes())
    assert message in [d.message for d in ir.validate_file(xml) if d.is_error]


@pytest.mark.parametrize(("text", "message"), [
    (b"<net><layers></layers></body></net>", "</body> does not close the open body element"),
    (b"<net><body><layers></then_body></body></net>", "</then_body> does not close the open body element"),
    (b"<net><layers><layer><body><layers></layers></layer></layers></net>", "<body> is never closed"),
])
def test_detaching_bodies_refuses_unbalanced_body_tags(text: bytes, message: str) -> None:
    from irgraph.core.errors import IrParseError, Location
    from irgraph.io.xml.sub_graphs import detach_bodies

    with pytest.raises(IrParseError, match=message):
        detach_bodies(text, Location(file="m.xml"))


def test_detached_bodies_are_parsed_apart_with_their_lines() -> None:
    from irgraph.core.errors import Location
    from irgraph.io.xml.sub_graphs import detach_bodies

    text = b"<net>\n<layers>\n<layer>\n<body>\n<layers>\n<layer>\n<then_body>\n<x/>\n</then_body>\n</layer>\n" \
           b"</layers>\n</body>\n</layer>\n</layers>\n<after/>\n</net>"
    root, bodies = detach_bodies(text, Location(file="m.xml"))
    stub = root.find("layers/layer/body")
    assert len(stub) == 0 and dict(stub.attrib) == {}  # the stub's marker is gone once found
    assert root.find("after").sourceline == 15
    body = bodies[stub]
    assert body.tag == "body" and body.sourceline == 4
    inner_stub = body.find("layers/layer/then_body")
    assert bodies[inner_stub].tag == "then_body" and bodies[inner_stub].find("x").sourceline == 8
    assert len(bodies) == 2


@pytest.mark.parametrize("markup", [
    b"<!-- <body> -->", b"<!-- </then_body> -->", b"<![CDATA[ <else_body> ]]>", b"<?pi <body> ?>",
])
def test_body_tags_inside_comments_cdata_and_processing_instructions_are_not_cut(markup: bytes) -> None:
    from irgraph.core.errors import Location
    from irgraph.io.xml.sub_graphs import detach_bodies

    text = b"<net><layers><layer><body a='>'><layers>" + markup + b"<layer/></layers></body></layer></layers></net>"
    root, bodies = detach_bodies(text, Location(file="m.xml"))
    stub = root.find("layers/layer/body")
    assert dict(stub.attrib) == {"a": ">"}
    assert [element.tag for element in bodies[stub].iter()] == ["body", "layers", "layer"]


@pytest.mark.parametrize(("text", "message"), [
    (b"<net><body><layers><!-- x </layers></body></net>", "<!-- is never closed"),
    (b"<net><body a='1' <layers/></body></net>", "the <body> tag is not well-formed"),
])
def test_detaching_refuses_markup_it_cannot_follow(text: bytes, message: str) -> None:
    from irgraph.core.errors import IrParseError, Location
    from irgraph.io.xml.sub_graphs import detach_bodies

    with pytest.raises(IrParseError, match=message):
        detach_bodies(text, Location(file="m.xml"))


def test_ir_convert_to_onnx_refuses_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnx")
    target = tmp_path / "model.onnx"
    assert ir_convert.main([str(CORPUS / "loop-dynamic-trip" / "model.xml"), str(target)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "1 layer cannot be exported to ONNX: Loop x1 (layer 3 'Loop_238': port map output" in err
    assert not target.exists()


def test_an_edit_inside_a_body_makes_the_writer_infer_again(tmp_path: Path) -> None:
    from irgraph.core.errors import ShapeInferenceError
    from irgraph.ops import Const

    model = nested_tensor_iterators(2)
    ir.write_model(model, tmp_path / "before.xml")  # inferred and stamped
    inner = model.nodes[1].bodies[0].model.nodes[1].bodies[0].model
    weights = next(node for node in inner if node.name == "w")
    weights.op = Const.of(np.zeros(3, np.float32))  # Concat gives 5 rows now: Split by 2 fails
    with pytest.raises(ShapeInferenceError, match="Dimension of data input shape along 'axis': 5 must be evenly "
                                                  "divisible by 'num_splits' attribute value: 2"):
        ir.write_model(model, tmp_path / "after.xml")
    assert not (tmp_path / "after.xml").exists()


def test_past_the_line_budget_detached_bodies_count_lines_from_themselves(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each body is parsed behind as many newlines as precede it, until those add up to the budget (64 MiB of
    newlines in all); the bodies after that count their lines from their own start tag (line 1)."""
    import irgraph.io.xml.sub_graphs
    from irgraph.core.errors import Location
    from irgraph.io.xml.sub_graphs import detach_bodies

    text = b"<net>\n<layers>\n<layer>\n<body>\n<x/>\n</body>\n</layer>\n<layer>\n<body>\n<y/>\n</body>\n</layer>\n" \
           b"<layer>\n<body>\n<z/>\n</body>\n</layer>\n</layers>\n</net>"
    lines = {}
    for budget in (1 << 26, 3 + 8, 3):
        monkeypatch.setattr(irgraph.io.xml.sub_graphs, "_LINE_PREFIX_BUDGET", budget)
        _, bodies = detach_bodies(text, Location(file="m.xml"))
        lines[budget] = [(body.sourceline, body[0].sourceline) for body in bodies.values()]
    assert lines[1 << 26] == [(4, 5), (9, 10), (14, 15)]
    assert lines[3 + 8] == [(4, 5), (9, 10), (1, 2)]  # 3 newlines before the first body, 8 before the second
    assert lines[3] == [(4, 5), (1, 2), (1, 2)]


def _tensor_iterator_over(outer_shape: str, declared: str) -> ir.Model:
    """x (``outer_shape``) -> TensorIterator whose body Parameter declares ``declared`` -> y (one iteration)."""
    inner = ir.Model("body")
    inner.result(inner.parameter("p", ir.Shape.parse(declared)), name="r")
    outer = ir.Model("m")
    x = outer.parameter("x", ir.Shape.parse(outer_shape))
    node = outer.add_node(TensorIterator(), "ti", [x], num_outputs=1)
    ports = (PortMapEntry(False, 0, inner.parameters[0].id), PortMapEntry(True, 0, inner.results[0].id))
    node.bodies = (Body("body", inner, ports),)
    outer.result(OutputPort(node.id, 0), name="y")
    return outer


@pytest.mark.parametrize(("outer_shape", "declared", "written"), [
    ("?,2", "1..5,2", "1..5,2"),  # narrower bounds of a dim dynamic both ways: kept (OpenVINO's tighter inference)
    ("?,2", "1..,2", "1..,2"),
    ("?,2", "..5,2", "..5,2"),
    ("2..6,2", "3..5,2", "3..5,2"),
    ("2..6,2", "1..5,2", "2..6,2"),  # below the outer minimum: the outer type
    ("2..6,2", "3..,2", "2..6,2"),  # unbounded where the outer input is bounded
    ("2..6,2", "3..7,2", "2..6,2"),
    ("?,2", "3,2", "?,2"),  # a static dim where the outer one is dynamic
    ("3,2", "?,2", "3,2"),
    ("?,2", "1..5,3", "?,2"),  # a static dim that differs
    ("?,2", "1..5", "?,2"),  # another rank
])
def test_a_body_parameter_keeps_a_declared_shape_only_when_it_narrows_the_outer_bounds(
        outer_shape: str, declared: str, written: str, tmp_path: Path) -> None:
    ir.write_model(_tensor_iterator_over(outer_shape, declared), tmp_path / "m.xml")
    text = (tmp_path / "m.xml").read_text("utf-8")
    assert re.findall(r'name="p" type="Parameter" version="opset1">\s*<data shape="([^"]*)"', text) == [written]
