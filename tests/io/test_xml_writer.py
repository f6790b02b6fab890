"""write_model: OpenVINO's exact formatting, byte-identical round trips of the golden corpus, atomic files."""

from __future__ import annotations

import json
import os
import re
import socket
import stat
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irgraph as ir
from irgraph.analysis.shape_inference import ensure_shapes
from irgraph.core.errors import IrIOError, ShapeInferenceError
from irgraph.core.shapes import Shape, TensorType
from irgraph.graph import RtEntry
from irgraph.io.xml import text as xml_text
from irgraph.io.xml import writer as xml_writer
from irgraph.io.xml.names import join_key_first, join_names, split_names
from irgraph.io.xml.text import cxx_sort, escape_attribute
from irgraph.ops import Const, OpaqueOp
from tests.helpers import CORPUS, mode_of, record_fsync_and_replace, umask


def corpus_cases() -> list[str]:
    return sorted(p.name for p in CORPUS.iterdir() if (p / "case.json").is_file())


def written_by_openvino(name: str) -> bool:
    """Cases OpenVINO wrote as they are (no hand edits), which must round-trip byte for byte."""
    meta = json.loads((CORPUS / name / "case.json").read_text("utf-8"))
    return meta["expect"] == "ok" and "hand" not in meta["what"]


def golden_model() -> ir.Model:
    m = ir.Model("golden")
    x = m.parameter("x", [2, "1..8", 6], "f32")
    m.node(x.node_id).outputs[0].tensor_names += ["in,put", "B", "é"]
    axis = m.const(np.int64(2), name="axis")
    a, b, c = m.variadic_split(x, axis, m.const(np.array([1, -1, 3], np.int64), name="lengths"), name="vs")
    y = m.concat([c, a, b], axis=-1, name='cat & <co"py>')
    m.const(np.zeros((2, 0), np.float32), name="empty")
    m.result(y, name="y").result_names = ["y", "alias"]
    m.node(y.node_id).rt_info = (RtEntry("attribute", (("name", "fused_names"), ("version", "0"), ("value", "a, b"))),)
    m.node(x.node_id).outputs[0].rt_info = (
        RtEntry("attribute", (("name", "layout"), ("version", "0"), ("layout", "[N,C,H]"))),
    )
    m.rt_info = (
        RtEntry("info", (("name", "key with space"), ("value", "v\t1"))),
        RtEntry("nested", (), (RtEntry("inner", (("value", "1"),)),)),
    )
    return m


# ------------------------------------------------------------------------------------ formatting
def test_golden_model_is_written_exactly(tmp_path):
    ir.write_model(golden_model(), tmp_path / "g.xml")
    text = (tmp_path / "g.xml").read_text("utf-8")
    expected = (Path(__file__).parent / "data" / "golden_writer.xml").read_text("utf-8")
    assert text == expected
    # 2 (axis) | 1, -1, 3 (lengths) | one byte for the empty Const
    assert (tmp_path / "g.bin").read_bytes() == (
        np.array([2, 1, -1, 3], np.int64).tobytes() + b"\x00"
    )


def test_v10_drops_layer_port_rt_info_and_output_names(tmp_path):
    model = golden_model()
    ir.write_model(model, tmp_path / "g.xml", version=10)
    text = (tmp_path / "g.xml").read_text("utf-8")
    assert '<net name="golden" version="10">' in text
    assert "output_names" not in text and "fused_names" not in text and "layout" not in text
    assert '<info name="key with space" value="v&#09;1" />' in text  # net rt_info stays
    again = ir.read_model(tmp_path / "g.xml")
    assert again.ir_version == 10 and again.node(6).result_names is None


def test_model_version_is_the_default(tmp_path):
    model = golden_model()
    model.ir_version = 10
    ir.write_model(model, tmp_path / "g.xml")
    assert 'version="10">' in (tmp_path / "g.xml").read_text("utf-8").splitlines()[1]
    with pytest.raises(ValueError, match="IR version must be 10 or 11, got 12"):
        ir.write_model(model, tmp_path / "g.xml", version=12)


@pytest.mark.parametrize(
    ("value", "escaped"),
    [
        ("plain é 名前", "plain é 名前"),
        ('a&b<c>d"e\'f', "a&amp;b&lt;c>d&quot;e'f"),
        ("tab\tnl\ncr\r\x01", "tab&#09;nl&#10;cr&#13;&#01;"),
    ],
)
def test_attribute_escaping_matches_pugixml(value, escaped):
    assert escape_attribute(value) == escaped


def test_names_are_sorted_bytewise_and_commas_escaped():
    assert join_names(["é", "a b", "_z", "B", "a,b", "B"]) == "B,_z,a b,a\\,b,é"
    assert split_names(join_names(["x,", ",y", "z"])) == [",y", "x,", "z"]
    # an output's key (its first name) stays first, the others sorted; a sorted list is written as join_names writes it
    assert join_key_first(["é", "a b", "_z", "B", "a,b", "é"]) == "é,B,_z,a b,a\\,b"
    assert join_key_first(["b,", "a"]) == "b\\,,a" and join_key_first(["a", "b"]) == join_names(["a", "b"]) == "a,b"


def test_cxx_sort_is_libstdcxx_introsort_not_a_stable_sort():
    # 20 edges out of layer 0 and one out of layer 1: std::sort moves ties around; this order is
    # what OpenVINO 2026.4 (GCC libstdc++) writes for such a file.
    items = [(1, "last")] + [(0, i) for i in range(20)]
    result = cxx_sort(items, key=lambda item: item[0])
    assert [k for k, _ in result] == [0] * 20 + [1]
    assert [v for _, v in result[:20]] != list(range(20))
    assert cxx_sort([(2, "a"), (1, "b")], key=lambda item: item[0]) == [(1, "b"), (2, "a")]
    assert cxx_sort([], key=lambda item: item) == []


def test_cxx_sort_picks_the_median_of_three_as_libstdcxx_does_when_two_tie():
    # 20 items, first + 1 keyed 0, the middle and last - 1 keyed 1: of the tied two, libstdc++'s
    # __move_median_to_first moves last - 1 to the front. This order is what std::sort gives for these keys
    # (g++ 12.2.0, -O2, comparing the key only).
    keys = [1, 0] * 9 + [1, 1]
    assert cxx_sort(range(20), key=keys.__getitem__) == [1, 3, 5, 17, 7, 9, 15, 11, 13, 19, 0, 18, 16, 14, 12, 10,
                                                          8, 6, 4, 2]


# Keys built with McIlroy's quicksort adversary ("A killer adversary for quicksort", 1999) run against
# cxx_sort, then halved so that pairs tie: the partitions degenerate and introsort falls back to heap
# sort on 76 of the 100 elements. HEAP_SORT_ORDER is what libstdc++'s std::sort (g++ 12.2.0, -O2)
# gives for these keys, comparing the key only.
HEAP_SORT_KEYS = [46, 0, 35, 1, 42, 2, 34, 3, 50, 4, 33, 5, 41, 6, 32, 7, 45, 8, 31, 9, 40, 10, 12, 11, 49, 48, 47, 46,
                  45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 47, 39, 44, 38, 48, 37, 43, 36, 0, 1, 2, 3, 4,
                  5, 6, 7, 8, 9, 10, 11, 31, 29, 30, 28, 29, 27, 28, 26, 27, 25, 26, 24, 25, 23, 24, 22, 23, 21, 22, 20,
                  21, 19, 20, 18, 19, 17, 18, 16, 17, 15, 16, 14, 15, 13, 14, 12, 13, 30]
HEAP_SORT_ORDER = [1, 50, 3, 51, 5, 52, 7, 53, 9, 54, 11, 55, 13, 56, 15, 57, 17, 58, 19, 59, 21, 60, 23, 61, 97, 22,
                   98, 95, 93, 96, 94, 91, 89, 92, 87, 90, 85, 88, 83, 86, 84, 81, 79, 82, 77, 80, 75, 78, 73, 76, 71,
                   74, 69, 72, 67, 70, 65, 68, 63, 66, 99, 64, 18, 62, 14, 41, 10, 40, 39, 6, 2, 38, 49, 37, 47, 36, 45,
                   35, 43, 34, 20, 33, 12, 32, 31, 4, 48, 30, 44, 29, 16, 28, 27, 0, 42, 26, 25, 46, 24, 8]


def test_cxx_sort_falls_back_to_heap_sort_like_libstdcxx(monkeypatch):
    heap_sorted: list[int] = []
    heap_sort = xml_text._heap_sort

    def recording_heap_sort(keys, values, first, last):
        heap_sorted.append(last - first)
        heap_sort(keys, values, first, last)

    monkeypatch.setattr(xml_text, "_heap_sort", recording_heap_sort)
    assert cxx_sort(range(100), key=HEAP_SORT_KEYS.__getitem__) == HEAP_SORT_ORDER
    assert heap_sorted == [76]


def test_shared_and_empty_constants(tmp_path):
    m = ir.Model("consts")
    x = m.parameter("x", [2, 3], "i64")
    one = m.const(np.array([1, 2], np.int64), name="one")
    same = m.const(np.array([1, 2], np.int64), name="same")
    as_i32 = m.const(np.array([1, 0, 2, 0], np.int32), name="as_i32")
    empty = m.const(np.zeros((0,), np.int64), name="empty")
    m.result(m.concat([x, x], axis=0), name="y")
    for port in (one, same, as_i32, empty):
        m.result(port, name=f"r_{m.node(port.node_id).name}")
    ir.write_model(m, tmp_path / "c.xml")
    text = (tmp_path / "c.xml").read_text("utf-8")
    placements = re.findall(r'name="(\w+)" type="Const".*\n.*offset="(\d+)" size="(\d+)"', text)
    assert placements == [("one", "0", "16"), ("same", "0", "16"), ("as_i32", "0", "16"), ("empty", "16", "1")]
    assert (tmp_path / "c.bin").stat().st_size == 17


def test_opaque_ops_round_trip_with_their_attributes(tmp_path):
    m = ir.Model("opaque")
    x = m.parameter("x", [2], "f32")
    declared = (TensorType(ir.ElementType.F32, Shape.of([2])), TensorType(ir.ElementType.I64, Shape.dynamic_rank()))
    node = m.add_node(OpaqueOp(op_type="Fancy", op_version="opset99", attributes={"b": "1", "a": "x"},
                               declared_outputs=declared), "f", [x])
    m.result(m.concat([ir.OutputPort(node.id, 0), x], axis=0), name="y")
    ir.write_model(m, tmp_path / "o.xml")
    text = (tmp_path / "o.xml").read_text("utf-8")
    assert '<layer id="1" name="f" type="Fancy" version="opset99">\n\t\t\t<data b="1" a="x" />' in text
    assert '<port id="2" precision="I64" />' in text
    again = ir.read_model(tmp_path / "o.xml")
    assert again.node(1).op == m.node(node.id).op


def test_unconnected_input_of_a_built_model_cannot_be_written(tmp_path):
    m = ir.Model("broken")
    m.add_node(ir.ops.Result(), "r", [], num_inputs=1)
    with pytest.raises(ir.GraphError, match=r"input 0 \(data\) is not connected"):
        ir.write_model(m, tmp_path / "b.xml")
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------------------------------------ corpus
@pytest.mark.parametrize("name", [n for n in corpus_cases() if written_by_openvino(n)])
def test_openvino_files_round_trip_byte_for_byte(tmp_path, name):
    model = ir.read_model(CORPUS / name / "model.xml")
    ir.write_model(model, tmp_path / "model.xml")
    assert (tmp_path / "model.xml").read_bytes() == (CORPUS / name / "model.xml").read_bytes()
    assert (tmp_path / "model.bin").read_bytes() == (CORPUS / name / "model.bin").read_bytes()


@pytest.mark.parametrize("name", [n for n in corpus_cases() if not written_by_openvino(n)])
def test_hand_edited_and_invalid_files_write_or_fail_cleanly(tmp_path, name):
    try:
        model = ir.read_model(CORPUS / name / "model.xml")
        ir.write_model(model, tmp_path / "model.xml")
    except ir.IrError as err:
        assert name.startswith("err-"), f"{name} is a valid hand edit, refused: {err}"
        assert err.location.file
        assert not list(tmp_path.iterdir())
        return
    # The file written against the model read (it was once compared with a second read of itself, which any
    # writer passed): layers, ops, names, edges, inferred types, and each output's key.
    again = ir.read_model(tmp_path / "model.xml")
    assert_same_model(model, again, read=True)
    assert list(again.output_keys().values()) == list(model.output_keys().values())


def test_corpus_covers_what_the_issue_asks():
    cases = set(corpus_cases())
    for needed in ("names-comma", "names-multi", "rtinfo-net", "rtinfo-layer-port", "const-dedup", "dyn-rank",
                   "dyn-interval-split", "edit-sparse-ids", "edit-reversed-layer-order"):
        assert needed in cases


# ------------------------------------------------------------------------------------ atomic files
def test_path_must_end_in_xml(tmp_path):
    with pytest.raises(IrIOError, match="must name a file ending in .xml"):
        ir.write_model(golden_model(), tmp_path / "model.txt")
    with pytest.raises(IrIOError, match="must name a file ending in .xml"):  # a name, not only the suffix
        ir.write_model(golden_model(), tmp_path / ".xml")
    assert not list(tmp_path.iterdir())


def test_parent_directories_are_created_and_bin_is_always_written(tmp_path):
    m = ir.Model("noconst")
    m.result(m.parameter("x", [1]), name="y")
    ir.write_model(m, tmp_path / "a" / "b" / "m.xml")
    assert (tmp_path / "a" / "b" / "m.bin").read_bytes() == b""
    mode = stat.S_IMODE(os.stat(tmp_path / "a" / "b" / "m.xml").st_mode)
    assert mode & 0o644 == 0o644 and not mode & 0o111


def test_explicit_weights_path(tmp_path):
    ir.write_model(golden_model(), tmp_path / "g.xml", weights=tmp_path / "w" / "weights.bin")
    assert not (tmp_path / "g.bin").exists()
    model = ir.read_model(tmp_path / "g.xml", weights=tmp_path / "w" / "weights.bin")
    assert model.node(2).op.value.tolist() == [1, -1, 3]


def test_a_failed_write_leaves_existing_files_untouched(tmp_path, monkeypatch):
    (tmp_path / "g.xml").write_bytes(b"old xml")
    (tmp_path / "g.bin").write_bytes(b"old bin")

    def broken(self, fileobj):
        fileobj.write(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(xml_writer.WeightsWriter, "write_to", broken)
    with pytest.raises(IrIOError, match="cannot write the model: No space left on device"):
        ir.write_model(golden_model(), tmp_path / "g.xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.bin", "g.xml"]
    assert (tmp_path / "g.xml").read_bytes() == b"old xml" and (tmp_path / "g.bin").read_bytes() == b"old bin"


def test_a_failed_serialization_touches_no_file(tmp_path):
    (tmp_path / "g.xml").write_bytes(b"old xml")
    m = ir.Model("bad")
    x = m.parameter("x", [6])
    m.add_node(ir.ops.Split(num_splits=4), "sp", [x, m.const(np.int64(0))])
    with pytest.raises(ShapeInferenceError, match="must be evenly divisible"):
        ir.write_model(m, tmp_path / "g.xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.xml"]


def test_a_directory_in_the_way_is_an_io_error(tmp_path):
    (tmp_path / "g.bin").mkdir()
    with pytest.raises(IrIOError, match="g.bin: is a directory, not a regular file; refusing to replace it"):
        ir.write_model(golden_model(), tmp_path / "g.xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.bin"]


def test_existing_file_permissions_are_kept(tmp_path):
    (tmp_path / "g.xml").write_bytes(b"old")
    os.chmod(tmp_path / "g.xml", 0o600)
    ir.write_model(golden_model(), tmp_path / "g.xml")
    assert stat.S_IMODE(os.stat(tmp_path / "g.xml").st_mode) == 0o600


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o077, 0o600)])
def test_new_files_get_the_umask_mode(mask, expected, tmp_path):
    with umask(mask):
        ir.write_model(golden_model(), tmp_path / "g.xml")
    assert (mode_of(tmp_path / "g.xml"), mode_of(tmp_path / "g.bin")) == (expected, expected)


def test_both_files_are_fsynced_before_the_bin_then_the_xml_is_renamed(tmp_path, monkeypatch):
    calls = record_fsync_and_replace(monkeypatch)
    ir.write_model(golden_model(), tmp_path / "g.xml")
    assert [call[0] for call in calls] == ["fsync", "fsync", "replace", "replace", "fsync"]
    bin_temporary, xml_temporary = calls[0][1], calls[1][1]
    assert calls[2:] == [("replace", bin_temporary, str(tmp_path / "g.bin")),
                         ("replace", xml_temporary, str(tmp_path / "g.xml")),
                         ("fsync", str(tmp_path), "")]  # the directory, so the renames survive a crash
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.bin", "g.xml"]


@pytest.mark.parametrize("kind", ["fifo", "socket", "device"])
def test_a_special_file_in_the_way_is_refused_before_serializing(kind, tmp_path, monkeypatch):
    xml, weights = tmp_path / "g.xml", tmp_path / "g.bin"
    server = None
    if kind == "fifo":
        os.mkfifo(weights)
    elif kind == "socket":  # a relative bind: AF_UNIX paths are limited to 107 bytes
        monkeypatch.chdir(tmp_path)
        server = socket.socket(socket.AF_UNIX)
        server.bind("g.xml")
    else:
        weights = Path(os.devnull)
    target = weights if kind != "socket" else xml
    before = os.lstat(target)
    monkeypatch.setattr(xml_writer, "serialize", lambda *args: pytest.fail("serialized anyway"))
    expected = {"fifo": "a FIFO (named pipe)", "socket": "a socket", "device": "a character device"}[kind]
    try:
        with pytest.raises(IrIOError) as info:
            ir.write_model(golden_model(), xml, weights=weights)
    finally:
        if server is not None:
            server.close()
    assert str(info.value) == f"{target}: is {expected}, not a regular file; refusing to replace it"
    after = os.lstat(target)
    assert (after.st_ino, after.st_mode, after.st_rdev) == (before.st_ino, before.st_mode, before.st_rdev)
    assert not [name for name in os.listdir(target.parent) if name.startswith(f".{target.name}.")]


def test_weights_naming_the_xml_itself_are_refused(tmp_path):
    with pytest.raises(IrIOError, match="the weights file is the model file itself"):
        ir.write_model(golden_model(), tmp_path / "g.xml", weights=tmp_path / "." / "g.xml")
    assert list(tmp_path.iterdir()) == []


def test_a_model_written_over_its_own_files_is_replaced_whole(tmp_path):
    """The API may rewrite the files a model was read from: the renamed-over .bin stays mapped as it was."""
    ir.write_model(golden_model(), tmp_path / "g.xml")
    model = ir.read_model(tmp_path / "g.xml")
    values = model.node(2).op.value.copy()
    model.name = "renamed"
    ir.write_model(model, tmp_path / "g.xml")
    assert model.node(2).op.value.tolist() == values.tolist()
    again = ir.read_model(tmp_path / "g.xml")
    assert again.name == "renamed" and again.node(2).op.value.tolist() == values.tolist()


def test_a_symlink_to_the_models_own_xml_is_replaced_not_written_through(tmp_path):
    ir.write_model(golden_model(), tmp_path / "g.xml")
    original = (tmp_path / "g.xml").read_bytes(), (tmp_path / "g.bin").read_bytes()
    (tmp_path / "link.xml").symlink_to(tmp_path / "g.xml")
    (tmp_path / "link.bin").symlink_to(tmp_path / "g.bin")
    model = ir.read_model(tmp_path / "link.xml")
    model.name = "via-link"
    ir.write_model(model, tmp_path / "link.xml")
    assert ((tmp_path / "g.xml").read_bytes(), (tmp_path / "g.bin").read_bytes()) == original
    assert not (tmp_path / "link.xml").is_symlink() and not (tmp_path / "link.bin").is_symlink()
    assert ir.read_model(tmp_path / "link.xml").name == "via-link"


# ------------------------------------------------------------------------------------ properties
@st.composite
def split_concat_graphs(draw) -> tuple[ir.Model, dict[str, np.ndarray]]:
    """A random small graph of Split / VariadicSplit / Concat on one 3-D input (static dims)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = ir.Model("random")
    dims = [draw(st.integers(1, 4)) * 2 for _ in range(3)]
    kind = draw(st.sampled_from(["f32", "i64", "u8", "boolean"]))
    x = m.parameter("x", dims, kind)
    values = [x]
    for step in range(draw(st.integers(1, 6))):
        source = values[draw(st.integers(0, len(values) - 1))]
        shape = m.node(source.node_id)
        ir.infer_shapes(m)
        sizes = shape.outputs[source.index].type.shape.to_tuple()
        axis = draw(st.integers(-3, 2))
        op = draw(st.sampled_from(["split", "vsplit", "concat"]))
        if op == "split" and sizes[axis] % 2 == 0:
            values += m.split(source, axis, 2, name=f"split {step}")
        elif op == "vsplit":
            first = draw(st.integers(0, sizes[axis]))
            values += m.variadic_split(source, axis, [first, -1], name=f"vsplit,{step}")
        else:
            values.append(m.concat([source, source], axis, name=f"cat{step}"))
    for index in sorted(set(draw(st.lists(st.integers(0, len(values) - 1), min_size=1, max_size=3)))):
        m.result(values[index], name=f"out{index}")
    feed = rng.integers(0, 100, dims).astype(ir.ElementType.from_ir_name(kind).numpy_dtype)
    return m, {"x": feed}


def assert_same_model(a: ir.Model, b: ir.Model, version: int = 11, read: bool = False) -> None:
    """``b``, read from what was written of ``a``, holds a's layers. ``read``: ``a`` was read from a file too, so both
    sides' inferred types are compared (a hand-made invalid file can declare what no inference gives)."""
    order_a = [*a.parameters, *[n for n in a.topological_order() if n.op.type_name not in ("Parameter", "Result")],
               *a.results]
    nodes_b = list(b)
    result_names = (lambda n: n.result_names or None) if version >= 11 else (lambda n: None)
    assert [(n.name, n.op, [o.tensor_names for o in n.outputs], result_names(n)) for n in order_a] == [
        (n.name, n.op, [o.tensor_names for o in n.outputs], n.result_names) for n in nodes_b
    ]
    position_a = {n.id: i for i, n in enumerate(order_a)}
    position_b = {n.id: i for i, n in enumerate(nodes_b)}
    edges_a = sorted((position_a[s.node_id], s.index, position_a[t.node_id], t.index) for s, t in a.edges())
    edges_b = sorted((position_b[s.node_id], s.index, position_b[t.node_id], t.index) for s, t in b.edges())
    assert edges_a == edges_b
    if read:
        ensure_shapes(b)
    types_b = [[o.type if read else o.declared_type for o in n.outputs] for n in nodes_b]
    assert [[o.type for o in n.outputs] for n in order_a] == types_b


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=split_concat_graphs(), version=st.sampled_from([10, 11]))
def test_write_then_read_gives_an_equal_model(tmp_path, graph, version):
    model, feed = graph
    ir.write_model(model, tmp_path / "m.xml", version=version)
    again = ir.read_model(tmp_path / "m.xml")
    assert_same_model(model, again, version)
    expected, got = ir.run(model, feed), ir.run(again, feed)
    if version == 11:  # v10 has no output_names: the keys may fall back to the producers' names
        assert list(expected) == list(got)
    for want, have in zip(expected.values(), got.values(), strict=True):
        np.testing.assert_array_equal(want, have)
    ir.write_model(again, tmp_path / "again.xml", version=version)
    assert (tmp_path / "again.xml").read_bytes() == (tmp_path / "m.xml").read_bytes()


def test_const_values_of_every_element_type_survive_a_round_trip(tmp_path):
    rng = np.random.default_rng(7)
    m = ir.Model("types")
    for element_type in ir.ElementType:
        if element_type.is_dynamic:
            continue
        if element_type is ir.ElementType.STRING:
            value = np.array(["", "a,b", "é名", "x" * 9], dtype=object)
        elif element_type.is_packed or element_type.numpy_dtype == np.uint8:
            value = rng.integers(0, 2 ** min(element_type.bitwidth, 8), 7).astype(np.uint8)
            value = value.astype(element_type.numpy_dtype) if element_type.ir_name != "i4" else (
                value.astype(np.int8) - 8).astype(element_type.numpy_dtype)
        elif element_type is ir.ElementType.BOOLEAN:
            value = rng.integers(0, 2, 5).astype(bool)
        else:
            value = rng.integers(0, 7, 5).astype(element_type.numpy_dtype)
        node = m.add_node(Const.of(value, element_type), f"c_{element_type.ir_name}")
        m.result(ir.OutputPort(node.id, 0), name=f"r_{element_type.ir_name}")
    ir.write_model(m, tmp_path / "t.xml")
    again = ir.read_model(tmp_path / "t.xml")
    for before, after in zip([n for n in m if isinstance(n.op, Const)], [n for n in again if isinstance(n.op, Const)],
                             strict=True):
        assert before.op == after.op, before.name


def test_rewriting_a_model_in_place_keeps_it_valid(tmp_path):
    # The Consts of a read model are views of the mapped .bin; replacing the files by rename leaves
    # the mapped (old) file intact, so the model still runs and can be written again.
    m = ir.Model("inplace")
    x = m.parameter("x", [1, 40000])
    big = m.const(np.arange(40000, dtype=np.float32).reshape(1, 40000), name="big")  # > 64 KiB: written as a view
    m.result(m.concat([x, big], axis=0), name="y")
    ir.write_model(m, tmp_path / "m.xml")
    model = ir.read_model(tmp_path / "m.xml")
    before = (tmp_path / "m.bin").read_bytes()
    ir.write_model(model, tmp_path / "m.xml")
    ir.write_model(model, tmp_path / "m.xml")
    assert (tmp_path / "m.bin").read_bytes() == before
    out = ir.run(model, {"x": np.zeros((1, 40000), np.float32)})["y"]
    assert out[1, -1] == 39999


# ------------------------------------------------------------------------------------ gaps found by mutation testing
def test_an_exception_that_is_not_an_os_error_propagates_and_removes_the_temporaries(tmp_path, monkeypatch):
    (tmp_path / "g.xml").write_bytes(b"old xml")

    def broken(self, fileobj):
        fileobj.write(b"partial")
        raise RuntimeError("interrupted while writing")

    monkeypatch.setattr(xml_writer.WeightsWriter, "write_to", broken)
    with pytest.raises(RuntimeError, match="^interrupted while writing$"):
        ir.write_model(golden_model(), tmp_path / "g.xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.xml"]
    assert (tmp_path / "g.xml").read_bytes() == b"old xml"


def test_extra_data_attributes_are_written_after_the_declared_ones_which_win(tmp_path):
    m = ir.Model("extra")
    x = m.parameter("x", [4], "f32")
    left, right = m.split(x, axis=0, num_splits=2, name="sp")
    m.node(left.node_id).extra_attributes = {"hint": "a<b", "num_splits": "7"}
    m.result(m.concat([right, left], axis=0), name="y")
    ir.write_model(m, tmp_path / "e.xml")
    text = (tmp_path / "e.xml").read_text("utf-8")
    assert '<layer id="2" name="sp" type="Split" version="opset1">\n\t\t\t<data num_splits="2" hint="a&lt;b" />' in text
    assert ir.read_model(tmp_path / "e.xml").node(2).extra_attributes == {"hint": "a<b"}


def test_input_port_rt_info_is_written_in_v11_only(tmp_path):
    m = ir.Model("port_rt")
    x = m.parameter("x", [2], "f32")
    y = m.result(x, name="y")
    y.inputs[0].rt_info = (RtEntry("attribute", (("name", "layout"), ("version", "0"), ("layout", "[N]"))),)
    ir.write_model(m, tmp_path / "v11.xml")
    expected = (
        '\t\t<layer id="1" name="y" type="Result" version="opset1" output_names="y">\n'
        "\t\t\t<input>\n"
        '\t\t\t\t<port id="0" precision="FP32">\n'
        "\t\t\t\t\t<dim>2</dim>\n"
        "\t\t\t\t\t<rt_info>\n"
        '\t\t\t\t\t\t<attribute name="layout" version="0" layout="[N]" />\n'
        "\t\t\t\t\t</rt_info>\n"
        "\t\t\t\t</port>\n"
        "\t\t\t</input>\n"
        "\t\t</layer>\n"
    )
    assert expected in (tmp_path / "v11.xml").read_text("utf-8")
    assert ir.read_model(tmp_path / "v11.xml").node(1).inputs[0].rt_info == y.inputs[0].rt_info
    ir.write_model(m, tmp_path / "v10.xml", version=10)
    assert "rt_info" not in (tmp_path / "v10.xml").read_text("utf-8").split("</layers>")[0]


def test_a_layer_without_data_or_ports_is_one_empty_element(tmp_path):
    m = ir.Model("portless")
    m.add_node(OpaqueOp(op_type="Marker", op_version="extension"), "mark", [])
    m.result(m.parameter("x", [1], "f32"), name="y")
    ir.write_model(m, tmp_path / "p.xml")
    text = (tmp_path / "p.xml").read_text("utf-8")
    assert '\t\t<layer id="1" name="mark" type="Marker" version="extension" />\n' in text
    assert ir.read_model(tmp_path / "p.xml").node(1).num_outputs == 0


def test_a_model_without_layers_or_edges_writes_empty_elements():
    text, blobs = xml_writer.serialize(ir.Model("empty"))
    assert text == (b'<?xml version="1.0"?>\n<net name="empty" version="11">\n'
                    b"\t<layers />\n\t<edges />\n\t<rt_info />\n</net>\n")
    assert blobs.getvalue() == b""
    lone = ir.Model("lone")
    lone.parameter("x", [1], "f32")
    assert b"\t</layers>\n\t<edges />\n\t<rt_info />\n</net>\n" in xml_writer.serialize(lone)[0]


def test_const_blobs_up_to_64_kib_are_copied_and_larger_ones_are_views():
    small = Const.of(np.zeros(2**16, np.uint8))
    large = Const.of(np.zeros(2**16 + 1, np.uint8))
    assert type(xml_writer._blob(small)) is bytes and len(xml_writer._blob(small)) == 2**16
    assert type(xml_writer._blob(large)) is memoryview and np.shares_memory(np.asarray(xml_writer._blob(large)),
                                                                             large.value)


def test_an_xml_path_that_is_a_directory_leaves_the_existing_bin_untouched(tmp_path):
    (tmp_path / "g.xml").mkdir()
    (tmp_path / "g.bin").write_bytes(b"old bin")
    with pytest.raises(IrIOError, match="is a directory, not a regular file; refusing to replace it") as caught:
        ir.write_model(golden_model(), tmp_path / "g.xml")
    assert caught.value.location.file == str(tmp_path / "g.xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.bin", "g.xml"]
    assert (tmp_path / "g.bin").read_bytes() == b"old bin"


def test_a_const_whose_weights_were_never_loaded_cannot_be_written(tmp_path):
    m = ir.Model("unloaded")
    const = m.add_node(Const(element_type=ir.ElementType.F32, shape=(2,)), "w", [])
    m.result(ir.OutputPort(const.id, 0), name="y")
    with pytest.raises(ir.WeightsError, match=r"^Const has no value \(its weights were never loaded\); it cannot be"):
        ir.write_model(m, tmp_path / "u.xml")
    assert not list(tmp_path.iterdir())


def test_a_shared_op_keeps_each_layers_extra_attributes():
    m = ir.Model("shared")
    x = m.parameter("x", [4], "f32")
    axis = m.const(np.int64(0), name="axis")
    split = ir.ops.Split(num_splits=2)
    plain = m.add_node(split, "plain", [x, axis])
    extra = m.add_node(split, "extra", [x, axis])
    extra.extra_attributes = {"hint": "1"}
    after = m.add_node(split, "after", [x, axis])
    for node in (plain, extra, after):
        m.result(m.concat([ir.OutputPort(node.id, 1), ir.OutputPort(node.id, 0)], axis=0), name=f"y_{node.name}")
    text = xml_writer.serialize(m)[0].decode()
    assert 'name="plain" type="Split" version="opset1">\n\t\t\t<data num_splits="2" />' in text
    assert 'name="extra" type="Split" version="opset1">\n\t\t\t<data num_splits="2" hint="1" />' in text
    assert 'name="after" type="Split" version="opset1">\n\t\t\t<data num_splits="2" />' in text


def test_without_proc_the_umask_is_read_and_restored(monkeypatch):
    def no_proc(*args, **kwargs):
        raise OSError(2, "No such file or directory")

    from irgraph.io import atomic

    monkeypatch.setattr(atomic, "open", no_proc, raising=False)
    previous = os.umask(0o027)
    try:
        assert atomic._umask() == 0o027
        assert os.umask(0o027) == 0o027
    finally:
        os.umask(previous)
