"""Sub-graph bodies a file must not be able to bend: a body nested past libxml2's 256 levels is parsed on its own,
and which body a branch runs comes from where the file holds it, never from anything the file says about it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run, ir_validate
from irgraph.control_flow.if_ import If
from irgraph.core.errors import IrParseError
from irgraph.graph import Body, OutputPort, PortMapEntry
from irgraph.ops.arithmetic.add import Add
from tests.helpers import line_of
from tests.hostile.conftest import EXIT_FAILURE, expect_cli_error, expect_error, save_npz

DEPTH = 128  # If layers, each in the then branch of the one outside it: ~3 elements per level, past 256


def _add(model: ir.Model, a: OutputPort, b: OutputPort) -> OutputPort:
    return OutputPort(model.add_node(Add(), None, [a, b]).id, 0)


def nested_ifs(depth: int) -> ir.Model:
    """``depth`` Ifs on one condition c: its then branch is the next If (the innermost adds 1), the else branch of
    level ``k`` adds 100 + k. So c true gives x + 1, c false x + 100 + (depth - 1)."""
    inner = ir.Model("then")
    v = inner.parameter("v", [2])
    inner_x, inner_y = v.node_id, inner.result(_add(inner, v, inner.const(np.float32(1))), name="r").id
    inner_c = None
    for level in range(depth):
        outer = ir.Model("net" if level == depth - 1 else "then")
        c, x = outer.parameter(f"c{level}", [], "boolean"), outer.parameter(f"x{level}", [2])
        node = outer.add_node(If(), f"if{level}", [c, x, c] if inner_c is not None else [c, x], num_outputs=1)
        otherwise = ir.Model("else")
        a = otherwise.parameter("a", [2])
        a_out = otherwise.result(_add(otherwise, a, otherwise.const(np.float32(100 + level))), name="e")
        then_map = (PortMapEntry(False, 1, inner_x), PortMapEntry(True, 0, inner_y))
        node.bodies = (
            Body("then_body", inner, then_map + ((PortMapEntry(False, 2, inner_c),) if inner_c is not None else ())),
            Body("else_body", otherwise, (PortMapEntry(False, 1, a.node_id), PortMapEntry(True, 0, a_out.id))),
        )
        result = outer.result(OutputPort(node.id, 0), name=f"y{level}")
        inner, inner_x, inner_y, inner_c = outer, x.node_id, result.id, c.node_id
    return inner


@pytest.fixture(scope="module")
def deep_text(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, bytes]:
    path = tmp_path_factory.mktemp("deep") / "model.xml"
    ir.write_model(nested_ifs(DEPTH), path)
    return path.read_text("utf-8"), path.with_suffix(".bin").read_bytes()


def _write(directory: Path, text: str, weights: bytes) -> Path:
    xml = directory / "model.xml"
    xml.write_text(text, "utf-8")
    xml.with_suffix(".bin").write_bytes(weights)
    return xml


def _outer_else_body(text: str) -> tuple[int, int]:
    """Where the outermost If's <else_body> element starts and ends (the last one in the file)."""
    start = text.rindex("\t\t\t<else_body>")
    return start, text.index("</else_body>", start) + len("</else_body>")


def _inputs(directory: Path, condition: bool) -> Path:
    top = DEPTH - 1
    return save_npz(directory / "inputs.npz", **{f"c{top}": np.bool_(condition), f"x{top}": np.float32([1, 2])})


@pytest.mark.parametrize(("condition", "expected"), [(True, [2, 3]), (False, [228, 229])])
def test_a_file_nested_past_the_parser_limit_runs_the_bodies_it_holds(condition, expected, deep_text, tmp_path,
                                                                      capsys):
    xml = _write(tmp_path, *deep_text)
    assert "Excessive depth" in _one_parse_error(xml)  # the cutter is what reads it
    output = tmp_path / "out.npz"
    assert ir_run.main([str(xml), "--inputs", str(_inputs(tmp_path, condition)), "--output", str(output)]) == 0
    with np.load(output) as saved:
        np.testing.assert_array_equal(saved[f"y{DEPTH - 1}"], np.float32(expected))
    assert ir_validate.main([str(xml)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs.npz", "model.bin", "model.xml", "out.npz"]


# The stub attribute an earlier irgraph (before 2026-07) put on cut-out bodies, and the body it named: the
# innermost then branch (x + 1), which the outer else branch does not hold.
FORGED = '<else_body irgraph-detached="127"/>'


@pytest.mark.parametrize("condition", [False, True])
def test_a_branch_cannot_name_a_body_it_does_not_hold(condition, deep_text, tmp_path, capsys):
    """openvino 2026.4.1 refuses this file too (read_model: "unordered_map::at")."""
    text, weights = deep_text
    start, end = _outer_else_body(text)
    forged = text[:start] + "\t\t\t" + FORGED + text[end:]
    xml = _write(tmp_path, forged, weights)
    line = line_of(forged, FORGED)
    message = "layer 2 'if127' (If): <else_body> has no <layers> section"
    expect_error(lambda: ir.read_model(xml), IrParseError, "<else_body> has no <layers> section", file=xml, line=line)
    outcome = expect_cli_error(ir_run.main, [xml, "--inputs", _inputs(tmp_path, condition)], capsys, EXIT_FAILURE,
                               message)
    assert outcome.error_lines == [f"error: {xml}:{line}: {message}"]
    outcome = expect_cli_error(ir_validate.main, [xml], capsys, EXIT_FAILURE, message)
    assert f"{xml}:{line}: error: [parse] {message}" in outcome.out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs.npz", "model.bin", "model.xml"]


def test_a_stub_attribute_on_a_body_that_holds_layers_changes_nothing(deep_text, tmp_path, capsys):
    text, weights = deep_text
    start, _ = _outer_else_body(text)
    forged = text[:start] + '\t\t\t<else_body irgraph-detached="127">' + text[start + len("\t\t\t<else_body>"):]
    xml = _write(tmp_path, forged, weights)
    output = tmp_path / "out.npz"
    assert ir_run.main([str(xml), "--inputs", str(_inputs(tmp_path, False)), "--output", str(output)]) == 0
    with np.load(output) as saved:
        np.testing.assert_array_equal(saved[f"y{DEPTH - 1}"], np.float32([228, 229]))


@pytest.mark.parametrize("hidden", ["<!-- </then_body></layer></layers></then_body> -->",
                                    "<![CDATA[ </then_body> ]]>"])
def test_body_tags_in_comments_and_cdata_do_not_move_bodies(hidden, deep_text, tmp_path, capsys):
    """libxml2 never sees a tag inside a comment or CDATA section; the cutter must not either."""
    text, weights = deep_text
    start, _ = _outer_else_body(text)
    layers = text.index("<layers>", start) + len("<layers>")
    xml = _write(tmp_path, text[:layers] + hidden + text[layers:], weights)
    output = tmp_path / "out.npz"
    assert ir_run.main([str(xml), "--inputs", str(_inputs(tmp_path, False)), "--output", str(output)]) == 0
    with np.load(output) as saved:
        np.testing.assert_array_equal(saved[f"y{DEPTH - 1}"], np.float32([228, 229]))


def _one_parse_error(xml: Path) -> str:
    from irgraph.io.xml.security import load_xml

    with pytest.raises(IrParseError) as caught:
        load_xml(xml)
    return caught.value.message
