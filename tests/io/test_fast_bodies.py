"""The fast reader inside sub-graph bodies (io/xml/_fast/bodies.py) against the plain path.

OpenVINO 2026.4.1 writes a TensorIterator, Loop or If with its port maps before its ports and its bodies
after them; the fast reader reads such files itself (bodies nested in bodies too) and must give exactly what
the plain path gives, or step aside (return None) so that the plain path answers or says what is wrong.
"""

from __future__ import annotations

import itertools
import re
import shutil
from functools import partial
from pathlib import Path

import pytest

from irgraph.core.errors import Location
from irgraph.graph import Model
from irgraph.io.xml._fast.bodies import _TAGS, TagScan, read_sub_graphs
from irgraph.io.xml._fast.patterns import attributes
from tests.io.test_fast_reader import read_both

SUB_GRAPHS = Path(__file__).resolve().parents[1] / "data" / "ov-subgraphs"
WRITTEN_BY_OPENVINO = sorted(SUB_GRAPHS.glob("*/model.xml"))
NESTED = SUB_GRAPHS / "nested-if-loop-ti"  # a TensorIterator holding a Loop holding an If


def _case(tmp_path: Path, edit, source: Path = NESTED) -> Path:
    shutil.copy(source / "model.bin", tmp_path / "model.bin")
    path = tmp_path / "model.xml"
    path.write_text(edit((source / "model.xml").read_text("utf-8")), "utf-8")
    return path


@pytest.mark.parametrize("path", WRITTEN_BY_OPENVINO, ids=lambda p: p.parent.name)
def test_openvinos_sub_graph_files_are_read_by_the_fast_reader_alike(path):
    fast, plain, answered = read_both(path)
    assert fast == plain
    assert answered


def _move_port_map_after_outputs(text: str) -> str:
    start, end = text.index("\t\t\t<port_map>"), text.index("</port_map>\n") + len("</port_map>\n")
    block = text[start:end]
    text = text[:start] + text[end:]
    at = text.index("\t\t\t<body>")
    return text[:at] + block + text[at:]


def _drop_first(tag: str):
    def edit(text: str) -> str:
        start = text.index(f"<{tag}>")
        start = text.rindex("\n", 0, start) + 1
        end = text.index(f"</{tag}>", start) + len(f"</{tag}>\n")
        return text[:start] + text[end:]
    return edit


@pytest.mark.parametrize(
    ("name", "edit", "fast"),
    [
        ("as written", lambda t: t, True),
        ("one line, no indentation", lambda t: "".join(line.strip() for line in t.splitlines()), True),
        ("a body rt_info entry", lambda t: t.replace("\t\t\t\t<rt_info />\n\t\t\t</body>",
                                                    '\t\t\t\t<rt_info><a name="b" /></rt_info>\n\t\t\t</body>'), True),
        ("no body rt_info", lambda t: t.replace("\t\t\t\t<rt_info />\n\t\t\t</body>", "\t\t\t</body>"), True),
        ("layer rt_info in a nested body", lambda t: t.replace(
            '<data auto_broadcast="numpy" />', '<data auto_broadcast="numpy" />\n<rt_info><c name="d" /></rt_info>'),
         True),
        ("a port map after the ports", _move_port_map_after_outputs, False),
        ("a body with a name", lambda t: t.replace("<body>", '<body name="inner">', 1), False),
        ("an empty body", lambda t: t.replace("<then_body>", "<then_body />\n<then_body>", 1), False),
        ("an unknown port map attribute", lambda t: t.replace('internal_layer_id="1" />',
                                                              'internal_layer_id="1" extra="x" />', 1), False),
        ("a port map without its body", _drop_first("then_body"), False),
        ("a second back edge", lambda t: t.replace(
            "<back_edges>", '<back_edges>\n<edge from-layer="1" to-layer="1" />', 1), True),
        ("no port maps", _drop_first("port_map"), True),
        ("a port map entry naming no port", lambda t: t.replace('external_port_id="1" internal_layer_id="1"',
                                                                'external_port_id="9" internal_layer_id="1"', 1),
         True),
        ("a negative internal layer id", lambda t: t.replace('internal_layer_id="1" />', 'internal_layer_id="-1" />',
                                                             1), False),
        ("two port maps", lambda t: t.replace("<port_map>", "<port_map></port_map>\n<port_map>", 1), False),
        ("a stray element in a port map", lambda t: t.replace("<port_map>", "<port_map><x />", 1), False),
        ("a mismatched body end tag", lambda t: t.replace("</body>", "</then_body>", 1), False),
        ("an unclosed body", lambda t: t.replace("</body>", "", 1), False),
        ("text after a body", lambda t: t.replace("</else_body>", "</else_body>text", 1), False),
        ("a duplicate id in a body", lambda t: t.replace('<layer id="1" name="t_h"', '<layer id="0" name="t_h"'),
         False),
    ],
)
def test_sub_graph_layout_variations_read_the_same_both_ways(tmp_path, name, edit, fast):
    fast_outcome, plain, answered = read_both(_case(tmp_path, edit))
    assert fast_outcome == plain
    assert answered == fast, name


def test_slicing_port_maps_read_alike(tmp_path):
    """A TensorIterator's port map entries carry axis, start, end, stride and part_size."""
    path = _case(tmp_path, lambda t: t, SUB_GRAPHS / "ti")
    fast, plain, answered = read_both(path)
    assert fast == plain and answered
    assert "axis=" in path.read_text()


def _asks_alike(scan: TagScan, text: str, start: int) -> None:
    expected = [(m.start(), m.end(), *m.groups()) for m in _TAGS.finditer(text, start)]
    assert list(itertools.islice(scan.tags(start), 2)) == expected[:2]  # a scan stopped early leaves a sound record
    assert list(scan.tags(start)) == expected


@pytest.mark.parametrize("order", ["outermost first", "innermost first"])
def test_the_tag_scan_gives_what_a_fresh_scan_gives_at_each_section(order):
    # Sections are scanned outermost first when reading; the record must hold for any order of asks too.
    text = (NESTED / "model.xml").read_text("utf-8")
    starts = [match.end() for match in re.finditer(r"<layers>", text)]
    scan = TagScan(text)
    for start in starts if order == "outermost first" else starts[::-1]:
        _asks_alike(scan, text, start)


@pytest.mark.parametrize("step", [1, -1])
def test_the_tag_scan_gives_what_a_fresh_scan_gives_from_every_position(step):
    # Inside a recorded tag a fresh scan finds other tags ('<body>' within the first tag's attribute): asked afresh.
    text = '<layers a="<body>"> <body><layers>\n</layers></body>\n<then_body x><layers></layers></then_body></layers> '
    scan = TagScan(text)
    for start in range(len(text) + 1)[::step]:
        _asks_alike(scan, text, start)


def test_a_port_map_is_read_once_per_text_and_port_labels():
    # Layers repeating a body repeat its port map (a detection network's per-level If layers): read once, shared.
    content = ('\n<input external_port_id="1" internal_layer_id="0" />'
               '\n<output external_port_id="2" internal_layer_id="3" />\n')
    body = Model("then_body")
    cache: dict = {}

    def read(inputs: dict[str, int], outputs: dict[str, int]):
        (made,) = read_sub_graphs([("then_port_map", content)], [("then_body", 0, 0)], inputs, outputs,
                                  partial(attributes, escaped=False), lambda *span: body, Location("x"), cache)
        return made.port_map

    first = read({"0": 0, "1": 1}, {"2": 0})
    assert read({"0": 0, "1": 1}, {"2": 0}) is first
    assert [(entry.external_port, entry.internal_layer_id) for entry in first] == [(1, 0), (0, 3)]
    swapped = read({"1": 0, "0": 1}, {"2": 0})  # the same text, other port labels: read again
    assert [(entry.external_port, entry.internal_layer_id) for entry in swapped] == [(0, 0), (0, 3)]


def test_port_map_starts_are_each_tag_found_on_its_own():
    # Two passes (the port maps found by their common end) find what one str.find pass per tag finds.
    from irgraph.io.xml._fast.bodies import _all, _map_starts

    tags = ("port_map", "then_port_map", "else_port_map", "back_edges")
    pieces = ["<", "</", "port_map>", "<port_map>", "<then_port_map>", "<else_port_map>", "then_", "<then_",
              "<else_", "<back_edges>", "<thenport_map>", "_port_map>", "x"]
    for section in ["".join(combination) for combination in itertools.product(pieces, repeat=3)]:
        expected = sorted((position, tag) for tag in tags for position in _all(section, f"<{tag}>"))
        assert _map_starts(section) == expected


def _nested_rt_info(indent: str, levels: int):
    """An edit giving the ``<rt_info />`` at ``indent`` before ``</net>`` or a ``</body>`` a tree ``levels`` deep."""
    def edit(text: str) -> str:
        closing = "</net>" if indent == "\t" else "</body>"
        empty = f"\n{indent}<rt_info />\n{indent[:-1]}{closing}"
        assert empty in text, empty
        tree = "<d>" * levels + "</d>" * levels
        return text.replace(empty, f"\n{indent}<rt_info>{tree}</rt_info>\n{indent[:-1]}{closing}", 1)
    return edit


def test_the_nets_rt_info_after_bodies_is_read_at_its_depth_in_the_file(tmp_path, deep_recursion):
    """Reading bodies leaves the fast reader's depth where it was: the net's rt_info (below <net> alone) reaching
    element 256 is read, one reaching 257 is refused by libxml2 on both paths (no body to parse apart)."""
    fast, plain, answered = read_both(_case(tmp_path, _nested_rt_info("\t", 256 - 2)))
    assert fast == plain and answered
    fast, plain, answered = read_both(_case(tmp_path, _nested_rt_info("\t", 257 - 2)))
    assert fast == plain and not answered
    assert plain[0] == "IrParseError" and "Excessive depth in document" in plain[1]


def test_a_bodys_own_rt_info_is_read_at_its_depth_in_the_file(tmp_path, deep_recursion):
    """The outer body's rt_info sits below <net> <layers> <layer> <body>: reaching element 256 the fast reader
    reads it; at 257 it steps aside and the plain path parses the body apart from the net (and reads it)."""
    fast, plain, answered = read_both(_case(tmp_path, _nested_rt_info("\t\t\t\t", 256 - 5)))
    assert fast == plain and answered
    # read_both's reference parses the whole file first, which libxml2 refuses: only the lazy read detaches bodies
    fast, _, answered = read_both(_case(tmp_path, _nested_rt_info("\t\t\t\t", 257 - 5)))
    assert not answered
    assert str(fast).count("RtEntry(tag='d'") == 252
