"""The reader's fast path (io/xml/_fast/reader.py) against its reference, the lxml path.

Every file read both ways must give the same model, or the same error, or the fast path must step
aside (return None) so the lxml path answers: on the golden corpus and samples, on hand-made
variations of the layout, and on 1,500 fuzz-damaged models.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irgraph as ir
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT
from irgraph.io.xml import reader as xml_reader
from irgraph.io.xml._fast import layers as fast_layers
from irgraph.io.xml._fast import patterns
from irgraph.io.xml._fast import reader as fast_reader
from irgraph.io.xml.reader import read_ir
from irgraph.io.xml.security import load_xml
from tests.helpers import CORPUS
from tests.hostile.test_fuzz import damaged_models

REPO = Path(__file__).resolve().parents[2]
MODELS = sorted(CORPUS.glob("*/model.xml")) + sorted((REPO / "samples").glob("*/model.xml"))

# Corpus files the fast path leaves to lxml, and why.
LEFT_TO_LXML = {
    "edit-unknown-elements": "an element IR does not have (the lxml path notes it)",
    "names-special": "a '&#09;' character reference in a name",
    "names-special-v10": "a '&#09;' character reference in a name",
    "rtinfo-layer-port-v10": "rt_info in an IR v10 file (the lxml path notes that it is ignored)",
    "err-const-offset-beyond-bin": "an error (the lxml path reports it)",
}


def describe(model: ir.Model) -> tuple:
    """Everything the reader puts in a model, comparable with ==."""
    nodes = []
    for node in model:
        op = node.op
        value = getattr(op, "value", None)
        if value is not None:
            op_key: object = (type(op), op.element_type, op.shape, value.dtype.str,
                              value.tolist() if value.dtype == object else value.tobytes())
        else:
            op_key = op
        nodes.append((
            node.id, node.name, op_key, node.result_names, node.rt_info, node.extra_attributes, node.location,
            [(port.node_id, port.index, port.declared_type, port.rt_info) for port in node.inputs],
            [(output.node_id, output.index, output.tensor_names, output.declared_type, output.type, output.rt_info)
             for output in node.outputs],
            tuple((body.tag, describe(body.model), body.port_map, body.back_edges) for body in node.bodies),
        ))
    return (model.name, model.ir_version, model.rt_info, model.legacy_sections, model.source, model.source_line,
            nodes, model.edges())


def read_both(path: Path) -> tuple[object, object, bool]:
    """(outcome with the fast path, outcome through lxml only, whether the fast path answered)."""
    outcomes = []
    for parse_first in (False, True):
        try:
            document = load_xml(path, parse=parse_first)
            result = read_ir(path, document=document)
            outcomes.append((describe(result.model), [str(f) for f in result.findings]))
        except ir.IrError as err:
            outcomes.append((type(err).__name__, str(err)))
    try:
        reader = xml_reader._Reader(load_xml(path, parse=False), None, DEFAULT_ELEMENT_LIMIT)
        answered = fast_reader.read_fast(reader) is not None
    except ir.IrError:
        answered = False
    return outcomes[0], outcomes[1], answered


@pytest.mark.parametrize("path", MODELS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_golden_files_read_the_same_both_ways(path):
    fast, reference, answered = read_both(path)
    assert fast == reference
    assert answered == (path.parent.name not in LEFT_TO_LXML)


BASE = (CORPUS / "dml-split-axis3-2" / "model.xml").read_text("utf-8")
"""The model the edited cases start from (its weights: :func:`write_case`)."""


def write_case(tmp_path: Path, content: str | bytes) -> Path:
    """``content`` as model.xml in ``tmp_path``, beside BASE's model.bin."""
    (tmp_path / "model.bin").write_bytes((CORPUS / "dml-split-axis3-2" / "model.bin").read_bytes())
    path = tmp_path / "model.xml"
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


NAME = 'name="input"'
SPLIT_DATA = '<data num_splits="2" />'
INPUT_PORT = '<input>\n\t\t\t\t<port id="0" precision="FP32"'


@pytest.mark.parametrize(
    ("name", "edit", "fast"),
    [
        ("as written", lambda t: t, True),
        ("one line, no indentation", lambda t: "".join(line.strip() for line in t.splitlines()), True),
        ("single-quoted declaration", lambda t: t.replace('<?xml version="1.0"?>', "<?xml version='1.0'?>"), True),
        ("no declaration", lambda t: t.split("\n", 1)[1], True),
        ("carriage returns", lambda t: t.replace("\n", "\r\n"), False),
        ("a comment", lambda t: t.replace("<layers>", "<layers><!-- note -->"), False),
        ("a comment in rt_info", lambda t: t.replace("<rt_info />", "<rt_info><!-- x --></rt_info>"), True),
        ("attributes reordered", lambda t: t.replace('id="0" name="input"', 'name="input" id="0"'), False),
        ("single-quoted attribute", lambda t: t.replace(NAME, "name='x'"), False),
        ("escaped name", lambda t: t.replace(NAME, 'name="&amp;&lt;b&gt; &quot;&apos;"'), True),
        ("character reference", lambda t: t.replace(NAME, 'name="&#65;"'), False),
        ("tab in a value", lambda t: t.replace(NAME, 'name="a\tb"'), False),
        ("repeated attribute", lambda t: t.replace('<data num_splits="', '<data num_splits="2" num_splits="'), False),
        ("namespace declaration", lambda t: t.replace("<data num_splits=", '<data xmlns="urn:x" num_splits='), False),
        ("escaped tensor names", lambda t: t.replace('names="input"', 'names="a&amp;b,c\\,d,a&amp;b"'), True),
        ("names on an input port", lambda t: t.replace(INPUT_PORT, INPUT_PORT + ' names="i"'), True),
        ("layer rt_info", lambda t: t.replace(SPLIT_DATA, SPLIT_DATA + '<rt_info><a name="a" /></rt_info>'), True),
        ("names in rt_info", lambda t: t.replace(SPLIT_DATA, SPLIT_DATA + '<rt_info><a names="a" /></rt_info>'), False),
        ("control character", lambda t: t.replace(NAME, 'name="a\x01"'), False),
        ("U+FFFF", lambda t: t.replace(NAME, 'name="a\uffff"'), False),
        ("a mismatched end tag", lambda t: t.replace("</input>", "</inputs>", 1), False),
        ("a duplicate layer id", lambda t: t.replace('<layer id="1"', '<layer id="0"', 1), False),
        ("leading zeros in an id", lambda t: t.replace('<layer id="1"', '<layer id="01"', 1), False),
        ("text between layers", lambda t: t.replace("</layer>", "</layer>text", 1), False),
    ],
)
def test_layout_variations_read_the_same_both_ways(tmp_path, name, edit, fast):
    fast_outcome, reference, answered = read_both(write_case(tmp_path, edit(BASE)))
    assert fast_outcome == reference
    assert answered == fast, name


def _chain(tmp_path: Path) -> Path:
    """x -> 3 x (Split in 2 on axis 1, Concat reversed) -> Result, written by irgraph: repeated layer bodies."""
    model = ir.Model()
    value = model.parameter("x", [4, 6])
    for _ in range(3):
        value = model.concat(list(reversed(model.split(value, 1, 2))), 1)
    model.result(value, "y")
    ir.write_model(model, tmp_path / "chain.xml")
    return tmp_path / "chain.xml"


def test_layers_with_one_body_share_ops_but_nothing_mutable(tmp_path):
    path = _chain(tmp_path)
    assert read_both(path)[2]
    model = ir.read_model(path)
    lines = path.read_text("utf-8").splitlines()
    for node in model:
        assert f'<layer id="{node.id}"' in lines[node.location.line - 1]
    concats = [node for node in model if node.type_name == "Concat"]
    consts = [node for node in model if node.type_name == "Const"]
    assert len(concats) == 3 and concats[0].op is concats[1].op
    assert len(consts) == 3 and consts[0].op is consts[2].op  # one .bin placement, one op
    concats[0].outputs[0].tensor_names.append("changed")
    concats[0].outputs[0].declared_type = None
    concats[0].extra_attributes["new"] = "1"
    assert concats[1].outputs[0].tensor_names == [] and concats[1].outputs[0].declared_type is not None
    assert concats[1].extra_attributes == {}


@settings(max_examples=1500, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(case=damaged_models())
def test_damaged_models_read_the_same_both_ways(tmp_path, case):
    _name, xml, weights = case
    path = tmp_path / "model.xml"
    path.write_bytes(xml)
    bin_path = tmp_path / "model.bin"
    if weights is None:
        bin_path.unlink(missing_ok=True)
    else:
        bin_path.write_bytes(weights)
    fast, reference, _ = read_both(path)
    assert fast == reference


@given(data=st.binary(max_size=60).map(lambda raw: raw.replace(b"\x00", b"<")), limit=st.integers(1, 12))
def test_long_runs_without_a_tag_are_found_exactly(data, limit):
    """The fast path's size guard agrees with its definition: some ``limit`` bytes in a row hold no '<'."""
    longest = max(len(run) for run in data.split(b"<"))
    original = patterns.MAX_RUN
    patterns.MAX_RUN = limit
    try:
        assert patterns.has_long_run(data) == (longest >= limit)
    finally:
        patterns.MAX_RUN = original


def test_the_fast_paths_constructors_make_what_the_classes_make():
    """Locations and port types are made through their slots (``fast_constructor``): equal, same hash. (Ports are
    plain slotted classes whose own ``__init__`` is cheaper than that.)"""
    from irgraph.core.element_types import ElementType
    from irgraph.core.errors import Location
    from irgraph.core.shapes import Dim, Shape, TensorType

    cases = [
        (fast_reader._location, Location, ("model.xml", 7, 3, "conv", "Convolution")),
        (fast_layers.new_tensor_type, TensorType, (ElementType.F32, Shape.static((1, 3)))),
        (fast_layers.new_shape, Shape, ((Dim.of(2), Dim.of(3)),)),
    ]
    for fast, cls, values in cases:
        assert fast is not cls  # the fields are as fast_constructor expects (else it falls back to cls)
        made, reference = fast(*values), cls(*values)
        assert type(made) is cls and made == reference
        assert hash(made) == hash(reference) and repr(made) == repr(reference)


def test_the_fast_paths_nodes_are_what_the_node_constructor_makes():
    """A layer's Node is made by slot stores (``_fast.layers.new_node``): every slot as ``Node.__init__`` sets it."""
    from irgraph.core.errors import Location
    from irgraph.graph import Input, Node, Output, RtEntry
    from irgraph.ops import Relu

    assert fast_layers.new_node is fast_layers._new_node  # Node's slots are those it sets (else it falls back)
    location = Location("model.xml", 7, 3, "relu", "Relu")
    for extras, result_names, rt_info in ((None, None, ()), ({"a": "1"}, ["y"], (RtEntry("attribute"),))):
        values = (3, "relu", Relu(), [Input(3, 0)], [Output(3, 0)])
        made = fast_layers.new_node(*values, result_names, rt_info, extras, location)
        reference = Node(*values, result_names=result_names, rt_info=rt_info, extra_attributes=extras,
                         location=location)
        assert type(made) is Node
        assert {slot: getattr(made, slot) for slot in Node.__slots__} == {
            slot: getattr(reference, slot) for slot in Node.__slots__}


def test_consts_made_without_their_checks_equal_checked_ones(tmp_path):
    """The reader makes Const ops without ``__post_init__`` (_fast.layers.checked_tensor_constructor): every field
    as the checked constructor sets it."""
    import numpy as np

    from irgraph.ops import Const

    model = ir.Model()
    x = model.parameter("x", [2, 3])
    weights = model.const(np.arange(6, dtype=np.float32).reshape(2, 3))
    model.result(model.concat([x, weights, model.const(np.ones((1, 3), np.float32))], 0), "y")
    ir.write_model(model, tmp_path / "m.xml")
    consts = [node.op for node in ir.read_model(tmp_path / "m.xml") if isinstance(node.op, Const)]
    assert len(consts) == 2
    for op in consts:
        checked = Const(element_type=op.element_type, shape=op.shape, value=op.value)
        assert vars(op) == vars(checked) and op == checked and repr(op) == repr(checked)


def test_cutting_dims_out_takes_linear_time_on_hostile_runs():
    """The loose dims pattern stops at every '<': 200,000 unclosed '<dim>' are cut in ~5 ms, and such a file is
    left to the lxml path. A hang check, not a speed test: a greedy class over '<' took quadratic time (~0.5 s for
    3,000, so ~2,000 s for these), the bound tells apart from a loaded machine's linear pass with room to spare."""
    import time

    hostile = "<dim>" * 200_000
    started = time.perf_counter()
    assert patterns.DIMS_CUT.split(hostile) == [hostile]
    assert time.perf_counter() - started < 30


def _nested(levels: int) -> str:
    return "<d>" * levels + "</d>" * levels


PORT_DIMS = '<port id="2" precision="FP32" names="output0">\n' + "".join(f"\t\t\t\t\t<dim>{d}</dim>\n" for d in "1161")


@pytest.mark.parametrize(("place", "edit"), [
    # libxml2 allows 256 nested elements (huge_tree off). Above a net's <rt_info>: <net>; a layer's: <net>
    # <layers> <layer>; a port's: those, <output> and <port>.
    ("net", lambda levels: BASE.replace("<rt_info />\n</net>", f"<rt_info>{_nested(levels - 2)}</rt_info>\n</net>")),
    ("layer", lambda levels: BASE.replace(SPLIT_DATA, SPLIT_DATA + f"<rt_info>{_nested(levels - 4)}</rt_info>", 1)),
    ("port", lambda levels: BASE.replace(PORT_DIMS, PORT_DIMS + f"<rt_info>{_nested(levels - 6)}</rt_info>", 1)),
])
def test_rt_info_at_libxml2s_depth_limit_is_read_by_the_fast_path_and_past_it_refused_alike(
        tmp_path, place, edit, deep_recursion):
    """The fast path parses each rt_info alone, padded to the depth it has in the file: a tree reaching
    element 256 is its to read (one level too many of padding would hand it to lxml), 257 is refused."""
    assert edit(256).count("<d>") == 256 - {"net": 2, "layer": 4, "port": 6}[place]
    fast, reference, answered = read_both(write_case(tmp_path, edit(256)))
    assert fast == reference and answered, place
    assert len(str(fast)) > 256 * len("RtEntry")  # the tree was read, not dropped
    fast, reference, answered = read_both(write_case(tmp_path, edit(257)))
    assert fast == reference and not answered
    assert reference[0] == "IrParseError" and "Excessive depth in document" in reference[1]


def test_a_parsed_document_is_read_from_its_tree_never_by_the_fast_path(tmp_path, monkeypatch):
    """read_both's reference is the lxml path only because a parsed document skips the fast reader."""
    path = write_case(tmp_path, BASE)
    document = load_xml(path, parse=False)
    assert document.parsed is False
    document.root  # noqa: B018 (parses)
    assert document.parsed is True
    assert load_xml(path, parse=True).parsed is True
    monkeypatch.setattr(fast_reader, "read_fast", lambda _: pytest.fail("the fast reader was asked"))
    assert read_ir(path, document=load_xml(path, parse=True)).model.name == "dml_split_axis3"
