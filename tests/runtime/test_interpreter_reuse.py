"""Interpreter: deferred Concat outputs (written once, when needed) and ``reuse_outputs``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irgraph as ir
import irgraph.runtime.deferred as deferred
from irgraph.core.errors import ResourceLimitError


def reversed_chain(shape=(2, 8, 3), stages=3, axis=1) -> ir.Model:
    """Split into 2 and join reversed, ``stages`` times, along ``axis``."""
    model = ir.Model("chain")
    value = model.parameter("x", list(shape))
    for _ in range(stages):
        value = model.concat(list(reversed(model.split(value, axis=axis, num_splits=2))), axis=axis)
    model.result(value, name="y")
    return model


def reference_chain(x: np.ndarray, stages=3, axis=1) -> np.ndarray:
    for _ in range(stages):
        x = np.concatenate(np.split(x, 2, axis=axis)[::-1], axis=axis)
    return x


X = np.arange(48, dtype=np.float32).reshape(2, 8, 3)


def test_a_chain_of_splits_and_concats_gives_the_composed_permutation():
    y = ir.run(reversed_chain(), {"x": X})["y"]
    assert y.tolist() == reference_chain(X).tolist()
    assert y.flags.c_contiguous and not np.shares_memory(y, X)


def test_concats_along_alternating_axes_nest_and_write_once():
    model = ir.Model("nested")
    x = model.parameter("x", [4, 6])
    a, b = model.split(x, axis=0, num_splits=2)
    rows = model.concat([b, a], axis=0)  # rows swapped
    c, d, e = model.variadic_split(rows, axis=1, lengths=[1, 2, 3])
    cols = model.concat([e, c, d], axis=1)  # a concat along axis 1 of parts of a concat along axis 0
    top, bottom = model.split(cols, axis=0, num_splits=2)
    model.result(model.concat([bottom, top, bottom], axis=1), name="y")
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    swapped = np.concatenate([data[2:], data[:2]], axis=0)
    joined = np.concatenate([swapped[:, 3:], swapped[:, :1], swapped[:, 1:3]], axis=1)
    expected = np.concatenate([joined[2:], joined[:2], joined[2:]], axis=1)
    assert ir.run(model, {"x": data})["y"].tolist() == expected.tolist()


def test_a_result_cut_from_a_concat_is_fresh_memory():
    model = ir.Model("cut")
    x = model.parameter("x", [4])
    a, b = model.split(x, axis=0, num_splits=2)
    first, _ = model.split(model.concat([b, a], axis=0), axis=0, num_splits=2)
    model.result(first, name="y")
    data = np.array([1, 2, 3, 4], np.float32)
    y = ir.run(model, {"x": data})["y"]
    assert y.tolist() == [3, 4]
    assert not np.shares_memory(y, data)


def test_two_results_of_one_concat_are_one_array():
    model = ir.Model("twice")
    x = model.parameter("x", [2])
    joined = model.concat([x, x], axis=0)
    model.result(joined, name="y")
    model.result(joined, name="z")
    outputs = ir.run(model, {"x": np.array([5, 6], np.float32)})
    assert outputs["y"].tolist() == [5, 6, 5, 6]
    assert outputs["y"] is outputs["z"]


def test_shape_inputs_computed_by_a_concat_are_written_for_the_op():
    model = ir.Model("lengths")
    x = model.parameter("x", [2, 6])
    lengths = model.concat([model.const([2]), model.const([-1])], axis=0)
    node = model.add_node(ir.ops.VariadicSplit(), "vs", [x, model.const(1), lengths], num_outputs=2)
    model.result(ir.OutputPort(node.id, 1), name="rest")
    data = np.arange(12, dtype=np.float32).reshape(2, 6)
    assert ir.run(model, {"x": data})["rest"].tolist() == [[2, 3, 4, 5], [8, 9, 10, 11]]


def test_zero_size_parts_and_empty_outputs():
    model = ir.Model("empty")
    x = model.parameter("x", [2, 3], "i64")
    empty, rest = model.variadic_split(x, axis=1, lengths=[0, 3])
    model.result(model.concat([empty, rest, empty], axis=1), name="y")
    model.result(model.concat([empty, empty], axis=1), name="nothing")
    data = np.arange(6, dtype=np.int64).reshape(2, 3)
    outputs = ir.run(model, {"x": data})
    assert outputs["y"].tolist() == data.tolist()
    assert outputs["nothing"].shape == (2, 0) and outputs["nothing"].dtype == np.int64


def test_strings_join_and_split():
    model = ir.Model("strings")
    x = model.parameter("x", [4], "string")
    a, b = model.split(x, axis=0, num_splits=2)
    model.result(model.concat([b, a], axis=0), name="y")
    assert ir.run(model, {"x": np.array(["a", "bc", "", "d"])})["y"].tolist() == ["", "d", "a", "bc"]


def test_too_many_parts_are_written_at_once(monkeypatch):
    monkeypatch.setattr(deferred, "MAX_PARTS", 3)
    monkeypatch.setattr(deferred, "MAX_DEPTH", 1)
    model = ir.Model("many")
    x = model.parameter("x", [8, 2])
    parts = model.split(x, axis=0, num_splits=8)
    joined = model.concat(list(reversed(parts)), axis=0)
    left, right = model.split(joined, axis=1, num_splits=2)
    model.result(model.concat([right, left], axis=0), name="y")
    data = np.arange(16, dtype=np.float32).reshape(8, 2)
    flipped = data[::-1]
    assert ir.run(model, {"x": data})["y"].tolist() == np.concatenate([flipped[:, 1:], flipped[:, :1]]).tolist()


def test_the_element_limit_applies_to_concat_outputs_before_they_are_written():
    model = ir.Model("big")
    x = model.parameter("x", [6])
    model.result(model.concat([x, x], axis=0), name="y")
    with pytest.raises(ResourceLimitError, match="output 0 has 12 elements, above the limit of 10") as caught:
        ir.Interpreter(model, element_limit=10).run({"x": np.zeros(6, np.float32)})
    assert caught.value.location.layer_type == "Concat"


# ------------------------------------------------------------------------------ reuse_outputs
def test_reuse_outputs_writes_the_same_array_every_run():
    interpreter = ir.Interpreter(reversed_chain(), reuse_outputs=True)
    first = interpreter.run({"x": X})["y"]
    assert first.tolist() == reference_chain(X).tolist()
    second = interpreter.run({"x": X + 100})["y"]
    assert second is first  # the documented aliasing: the previous result is overwritten
    assert second.tolist() == reference_chain(X + 100).tolist()


def test_without_reuse_every_run_returns_new_arrays():
    interpreter = ir.Interpreter(reversed_chain())
    first = interpreter.run({"x": X})["y"]
    second = interpreter.run({"x": X + 100})["y"]
    assert first is not second
    assert first.tolist() == reference_chain(X).tolist()
    assert second.tolist() == reference_chain(X + 100).tolist()


def test_reuse_outputs_with_an_output_fed_back_as_the_input():
    interpreter = ir.Interpreter(reversed_chain(stages=1), reuse_outputs=True)
    y = interpreter.run({"x": X})["y"]
    again = interpreter.run({"x": y})["y"]  # the kept array is the input: it must not be written over
    assert again.tolist() == X.tolist()
    assert again is not y
    assert y.tolist() == reference_chain(X, stages=1).tolist()


def test_reuse_outputs_follows_dynamic_shapes():
    interpreter = ir.Interpreter(reversed_chain(shape=(2, -1, 3)), reuse_outputs=True)
    small = interpreter.run({"x": X})["y"]
    wide = np.arange(96, dtype=np.float32).reshape(2, 16, 3)
    large = interpreter.run({"x": wide})["y"]
    assert large.tolist() == reference_chain(wide).tolist()
    assert small.tolist() == reference_chain(X).tolist()  # not reused: the shape changed
    assert interpreter.run({"x": wide + 1})["y"] is large


def test_reuse_outputs_returns_inputs_and_views_as_they_are():
    model = ir.Model("views")
    x = model.parameter("x", [4])
    a, _ = model.split(x, axis=0, num_splits=2)
    model.result(a, name="a")
    model.result(x, name="same")
    interpreter = ir.Interpreter(model, reuse_outputs=True)
    data = np.arange(4, dtype=np.float32)
    outputs = interpreter.run({"x": data})
    assert outputs["same"] is data and np.shares_memory(outputs["a"], data)
    assert outputs["a"].tolist() == [0, 1]


# ------------------------------------------------------------------------------ property
@st.composite
def graphs(draw):
    """A random graph of Split / VariadicSplit / Concat on a rank-3 tensor, with a NumPy reference."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=3, max_size=3)))
    model = ir.Model("random")
    x = model.parameter("x", list(shape), "i32")
    data = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    pool = [(x, data)]
    for _ in range(draw(st.integers(1, 8))):
        port, value = draw(st.sampled_from(pool))
        axis = draw(st.integers(0, 2))
        dim = value.shape[axis]
        choice = draw(st.sampled_from(["split", "variadic", "concat"]))
        if choice == "split":
            parts = draw(st.sampled_from([n for n in range(1, dim + 1) if dim % n == 0] or [1]))
            ports = model.split(port, axis=axis, num_splits=parts)
            pool += list(zip(ports, np.split(value, parts, axis=axis), strict=True))
        elif choice == "variadic":
            cuts = sorted(draw(st.lists(st.integers(0, dim), max_size=3)))
            ports = model.variadic_split(port, axis=axis, lengths=np.diff([0, *cuts, dim]).tolist())
            pool += list(zip(ports, np.split(value, cuts, axis=axis), strict=True))
        else:
            fits = [
                (p, v) for p, v in pool
                if v.shape[:axis] == value.shape[:axis] and v.shape[axis + 1:] == value.shape[axis + 1:]
            ]
            chosen = draw(st.lists(st.sampled_from(fits), min_size=1, max_size=4))
            joined = model.concat([p for p, _ in chosen], axis=axis)
            pool.append((joined, np.concatenate([v for _, v in chosen], axis=axis)))
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=3, unique=True))
    expected = {}
    for i in picks:
        model.result(pool[i][0], name=f"out{i}")
        expected[f"out{i}"] = pool[i][1]
    return model, data, expected


@settings(max_examples=200, deadline=None)
@given(graphs(), st.booleans())
def test_random_split_concat_graphs_match_numpy(graph, reuse):
    model, data, expected = graph
    interpreter = ir.Interpreter(model, reuse_outputs=reuse)
    for offset in (0, 1000):  # the second run writes into the kept arrays when reusing
        outputs = interpreter.run({"x": data + offset})
        assert sorted(outputs) == sorted(expected)
        for name, array in expected.items():
            assert outputs[name].dtype == np.int32
            assert outputs[name].shape == array.shape
            assert outputs[name].tolist() == (array + offset).tolist()


def test_splitting_a_deferred_concat_cuts_its_parts_without_copying(monkeypatch):
    writes: list[list[np.ndarray]] = []
    write = deferred.Joined.write

    def recording_write(self, target):
        writes.append(list(self.parts))
        write(self, target)

    monkeypatch.setattr(deferred.Joined, "write", recording_write)
    data = np.arange(48, dtype=np.float32).reshape(2, 8, 3)
    y = ir.run(reversed_chain(), {"x": data})["y"]
    assert y.tolist() == reference_chain(data).tolist()
    # One write, of the output, straight from two views of the feed: no split copied its input.
    assert len(writes) == 1
    assert [part.shape for part in writes[0]] == [(2, 4, 3), (2, 4, 3)]
    assert all(type(part) is np.ndarray and np.shares_memory(part, data) for part in writes[0])


# ------------------------------------------------------------------------------ deferred joins, inside
LIMIT = 2**31


def test_a_join_lists_its_parts_and_counts_them():
    a, b, c = np.zeros((2, 2)), np.ones((2, 2)), np.full((4, 1), 2.0)
    rows = deferred.join(ir.ops.Concat(axis=0), [a, b], LIMIT)
    assert (rows.parts[0] is a, rows.parts[1] is b, rows.count, rows.depth, rows.shape) == (True, True, 2, 1, (4, 2))
    nested = deferred.join(ir.ops.Concat(axis=1), [rows, c], LIMIT)  # along another axis: nests
    assert (nested.parts[0] is rows, nested.count, nested.depth, nested.shape) == (True, 3, 2, (4, 3))
    flat = deferred.join(ir.ops.Concat(axis=0), [rows, a, rows], LIMIT)  # along the same axis: flattens
    assert ([p is a for p in flat.parts], flat.count, flat.depth) == ([True, False, True, True, False], 5, 1)
    deeper = deferred.join(ir.ops.Concat(axis=0), [nested, np.zeros((1, 3))], LIMIT)
    assert (deeper.count, deeper.depth) == (4, 3)
    empty = deferred.join(ir.ops.Concat(axis=0), [np.zeros((0, 2)), a], LIMIT)
    assert (len(empty.parts), empty.count, empty.shape) == (1, 1, (2, 2))


def test_slicing_a_join_cuts_only_the_parts_it_covers():
    a, b = np.arange(4.0).reshape(2, 2), np.arange(4.0, 8.0).reshape(2, 2)
    rows = deferred.join(ir.ops.Concat(axis=0), [a, b], LIMIT)
    second = rows[2:4]  # exactly part b: the empty cut of a is not kept
    assert (len(second.parts), second.count, second.depth, second.shape) == (1, 1, 1, (2, 2))
    assert np.shares_memory(second.parts[0], b) and second.parts[0].tolist() == b.tolist()
    middle = rows[1:3, 1:]
    assert (middle.count, middle.shape, [p.tolist() for p in middle.parts]) == (2, (2, 1), [[[3.0]], [[5.0]]])
    nested = deferred.join(ir.ops.Concat(axis=1), [rows, rows], LIMIT)
    cut = nested[:, 1:3]
    assert (cut.count, cut.depth, cut.shape) == (4, 2, (4, 2))
    assert np.asarray(cut).tolist() == [[1, 0], [3, 2], [5, 4], [7, 6]]
    # Anything but basic slices with step 1 writes the join first.
    assert rows[1].tolist() == [2, 3] and rows[::3].tolist() == [[0, 1], [6, 7]] and rows.array is not None
    assert rows[1:2].tolist() == [[2, 3]] and np.shares_memory(rows[1:2], rows.array)
    assert (rows.count, rows.depth, len(rows.parts)) == (1, 1, 1)
    assert rows.__array__() is rows.array and rows.__array__(np.float64) is rows.array
    assert rows.__array__(np.int64).dtype == np.int64 and np.asarray(rows, dtype=np.int64).tolist()[0] == [0, 1]
    fresh = deferred.join(ir.ops.Concat(axis=0), [a, b], LIMIT)
    assert type(fresh[0:2:1]) is deferred.Joined and fresh.array is None  # an explicit step 1 cuts too


def test_a_join_sees_through_a_cut_with_one_part():
    a, b = np.zeros((2, 2)), np.ones((2, 2))
    rows = deferred.join(ir.ops.Concat(axis=0), [a, b], LIMIT)
    nested = deferred.join(ir.ops.Concat(axis=1), [rows, rows], LIMIT)
    left = nested[:, 0:2]  # one part along axis 1: rows itself, cut
    assert (left.axis, len(left.parts), left.depth) == (1, 1, 2)
    joined = deferred.join(ir.ops.Concat(axis=0), [left, a], LIMIT)
    assert (joined.count, joined.depth, len(joined.parts)) == (3, 1, 3)


def test_a_nested_join_with_array_parts_writes_each_once(monkeypatch):
    a, b, c = np.zeros((2, 1)), np.ones((2, 1)), np.full((1, 2), 2.0)
    cols = deferred.join(ir.ops.Concat(axis=1), [a, b], LIMIT)
    joined = deferred.join(ir.ops.Concat(axis=0), [cols, c], LIMIT)
    assert joined.depth == 2
    assert joined.materialize().tolist() == [[0, 1], [0, 1], [2, 2]]


def test_joins_with_too_many_parts_or_too_deep_are_written_at_once(monkeypatch):
    monkeypatch.setattr(deferred, "MAX_PARTS", 3)
    a = np.zeros((1, 1))
    assert type(deferred.join(ir.ops.Concat(axis=0), [a, a, a], LIMIT)) is deferred.Joined
    assert type(deferred.join(ir.ops.Concat(axis=0), [a, a, a, a], LIMIT)) is np.ndarray
    monkeypatch.setattr(deferred, "MAX_PARTS", 100)
    monkeypatch.setattr(deferred, "MAX_DEPTH", 2)
    nested = deferred.join(ir.ops.Concat(axis=1), [a, a], LIMIT)
    two = deferred.join(ir.ops.Concat(axis=0), [nested, np.zeros((1, 2))], LIMIT)
    assert type(two) is deferred.Joined and two.depth == 2
    three = deferred.join(ir.ops.Concat(axis=1), [two, np.zeros((2, 1))], LIMIT)
    assert type(three) is np.ndarray and three.tolist() == [[0, 0, 0], [0, 0, 0]]


def test_the_element_limit_allows_outputs_of_exactly_the_limit():
    model = ir.Model("edge")
    x = model.parameter("x", [6])
    model.result(model.concat([x, x], axis=0), name="y")
    (part,) = model.split(x, axis=0, num_splits=1)
    model.result(part, name="z")
    outputs = ir.Interpreter(model, element_limit=12).run({"x": np.zeros(6, np.float32)})
    assert outputs["y"].shape == (12,) and outputs["z"].shape == (6,)
    feed_only = ir.Model("feed")
    feed_only.result(feed_only.parameter("x", [6]), name="y")
    assert ir.Interpreter(feed_only, element_limit=6).run({"x": np.zeros(6, np.float32)})["y"].shape == (6,)
    assert ir.Interpreter(model).element_limit == 2**31


def test_reuse_outputs_keeps_two_results_of_one_concat_one_array():
    model = ir.Model("twice")
    x = model.parameter("x", [2])
    y = model.concat([x, x], axis=0)
    model.result(y, name="a")
    model.result(y, name="b")
    interpreter = ir.Interpreter(model, reuse_outputs=True)
    first = interpreter.run({"x": np.array([1, 2], np.float32)})
    second = interpreter.run({"x": np.array([3, 4], np.float32)})
    assert second["a"] is second["b"] and second["a"].tolist() == [3, 4, 3, 4]
    assert first["a"] is second["a"]
