"""Interpreter(model, mark=...) and ir-run --mark: intermediate tensors returned besides the outputs.

Marked values are checked against arrays computed by hand; marking must not change the outputs, and
the tensors that are views (Split parts) stay views: marking keeps a tensor alive, nothing more.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.runtime.marking import computed_layers, resolve_marks

X = np.arange(24, dtype=np.float32).reshape(2, 12)


def split_concat() -> ir.Model:
    """x f32[2,12] -> Split(axis 1, 3) -> Concat(part 2, part 0) -> Relu-free chain -> y (a deferred Concat)."""
    m = ir.Model("sc")
    x = m.parameter("x", [2, 12])
    parts = m.split(x, axis=1, num_splits=3, name="split")
    joined = m.concat([parts[2], parts[0]], axis=1, name="join")
    again = m.split(joined, axis=1, num_splits=2, name="split2")
    m.result(m.concat([again[1], parts[1]], axis=1, name="out"), name="y")
    return m


def test_mark_all_returns_every_computed_tensor_in_topological_order() -> None:
    model = split_concat()
    plain = ir.Interpreter(model).run({"x": X})
    runner = ir.Interpreter(model, mark="all")
    got = runner.run({"x": X})
    assert [mark.key for mark in runner.marks] == ["split:0", "split:1", "split:2", "join:0", "split2:0", "split2:1"]
    assert list(got) == ["y", "split:0", "split:1", "split:2", "join:0", "split2:0", "split2:1"]
    np.testing.assert_array_equal(got["split:1"], X[:, 4:8])
    np.testing.assert_array_equal(got["join:0"], np.concatenate([X[:, 8:], X[:, :4]], axis=1))
    np.testing.assert_array_equal(got["split2:1"], X[:, :4])
    np.testing.assert_array_equal(got["y"], plain["y"])
    np.testing.assert_array_equal(got["y"], np.concatenate([X[:, :4], X[:, 4:8]], axis=1))
    assert np.shares_memory(got["split:0"], X)  # still a view: marking copies nothing that was not copied


def test_a_marked_deferred_concat_is_written_for_the_mark_only() -> None:
    model = split_concat()
    runner = ir.Interpreter(model, mark=["join:0"])
    got = runner.run({"x": X})
    assert list(got) == ["y", "join:0"]
    assert not np.shares_memory(got["join:0"], X) and not np.shares_memory(got["join:0"], got["y"])
    # The unmarked path still writes y once, from the parts: y's first half is a view chain into x.
    np.testing.assert_array_equal(got["y"], X[:, :8])


def test_marks_by_tensor_name_layer_name_and_id() -> None:
    model = split_concat()
    split = next(node for node in model if node.name == "split")
    split.outputs[1].tensor_names = ["middle"]
    runner = ir.Interpreter(model, mark=["middle", f"{split.id}:2", "join"])
    assert [mark.key for mark in runner.marks] == ["middle", "split:2", "join:0"]


def test_a_mark_that_is_an_output_is_returned_once_under_the_output_key() -> None:
    model = split_concat()
    assert resolve_marks(model, ["out:0", "y"]) == []


def test_unknown_and_unreachable_marks_are_input_errors() -> None:
    model = split_concat()
    with pytest.raises(ir.InputError, match="no tensor is called 'jion'; close matches: 'join'"):
        ir.Interpreter(model, mark=["jion"])
    dead = model.node(model.result(model.parameter("z", [1]), name="dead").id)
    model.remove_node(dead.id)
    with pytest.raises(ir.InputError, match="cannot mark 'z': no Result needs layer 'z'"):
        ir.Interpreter(model, mark=["z"])


def test_all_leaves_out_constants_and_folded_layers() -> None:
    m = ir.Model("w")
    x = m.parameter("x", [2, 12])
    m.result(m.concat([x, m.concat([m.const(np.zeros((2, 1), np.float32)), m.const(np.ones((2, 1), np.float32))],
                                   axis=1, name="folded")], axis=1, name="c"), name="y")
    assert [node.name for node in computed_layers(m)] == ["c"]


# ------------------------------------------------------------------------------------ ir-run --mark
def test_ir_run_mark_all_saves_and_shows_the_marked_tensors(tmp_path: Path, capsys) -> None:
    xml = tmp_path / "m.xml"
    ir.write_model(split_concat(), str(xml))
    np.savez(tmp_path / "in.npz", x=X)
    out = tmp_path / "out.npz"
    assert ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--mark", "all", "--output", str(out)]) == 0
    table = capsys.readouterr().out
    assert [line.split()[0] for line in table.splitlines()] == ["output", "y", "split:0", "split:1", "split:2",
                                                                "join:0", "split2:0", "split2:1"]
    with np.load(out) as saved:
        assert sorted(saved.files) == sorted(["y", "split:0", "split:1", "split:2", "join:0", "split2:0", "split2:1"])
        np.testing.assert_array_equal(saved["split2:0"], X[:, 8:])
    assert ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--mark", "join", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in summary["outputs"]] == ["y"]
    assert summary["marked"] == [{"name": "join:0", "element_type": "f32", "shape": [2, 8], "min": 0.0, "max": 23.0,
                                  "mean": 11.5}]


def test_ir_run_unknown_mark_is_one_error_line(tmp_path: Path, capsys) -> None:
    xml = tmp_path / "m.xml"
    ir.write_model(split_concat(), str(xml))
    assert ir_run.main([str(xml), "--mark", "nope"]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == f"error: {xml}: no tensor is called 'nope'"


def test_all_and_names_together_and_clashing_keys() -> None:
    model = split_concat()
    keys = [mark.key for mark in resolve_marks(model, ["all", "x"])]
    assert keys == ["x", "split:0", "split:1", "split:2", "join:0", "split2:0", "split2:1"]
    join = next(node for node in model if node.name == "join")
    split = next(node for node in model if node.name == "split")
    split.outputs[0].tensor_names = ["join:0"]  # a tensor name that is another layer's LAYER:PORT
    assert [mark.key for mark in resolve_marks(model, ["split:0", "join"])] == ["join:0", f"{join.id}:0"]
    split2 = next(node for node in model if node.name == "split2")
    split2.name = "split"  # two layers called 'split': LAYER:PORT would be ambiguous, the id is used
    assert [mark.key for mark in resolve_marks(model, [f"{split2.id}:1"])] == [f"{split2.id}:1"]
    assert [mark.spec for mark in resolve_marks(model, [f"{split2.id}:1"])] == ["split:1"]


def test_a_reference_may_name_a_tensor_by_any_of_its_names_or_polygraphy_s_spellings_but_its_key():
    from irgraph.ops.arithmetic.add import Add
    from irgraph.runtime.marking import reference_names

    model = ir.Model("aliases")
    x = model.parameter("x", [2])
    node = model.add_node(Add(), "add", [x, x])
    node.outputs[0].tensor_names = ["sum"]
    total = ir.OutputPort(node.id, 0)
    model.result(total, name="y")
    assert reference_names(model, {"sum": total, "x": x}) == {
        "sum": ["y", "add:0", "sum:0", "y:0", "add"],  # the Result's name, LAYER:PORT, then NAME:0 and NAME
        "x": ["x:0"]}
