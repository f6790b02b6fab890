"""random_feeds: index inputs take the range their consumer can index, and a static model's note says nothing
about dynamic dims."""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrIOError
from irgraph.graph import OutputPort
from irgraph.ops.movement.gather import Gather8
from irgraph.ops.type.convert import Convert
from irgraph.tools.feeds import open_sources, random_array, random_feeds


def test_gather_indices_are_drawn_within_the_gathered_axis_and_the_note_says_why() -> None:
    m = ir.Model("g")
    x = m.parameter("x", [5])
    indices = m.parameter("idx", [3], "i64")
    gather = m.add_node(Gather8(batch_dims=0), "g", [x, indices, m.const(np.int64(0))])
    m.result(OutputPort(gather.id, 0), name="y")
    ir.infer_shapes(m)
    feeds, note = random_feeds(m, {}, 1, 100)
    assert note == ("no input data given: every input is filled with random data (seed 1): x f32[5], "
                    "idx i64[3] in [0, 4] (indices of Gather 'g', 5 entries)")
    assert 0 <= feeds[1].array.min() and feeds[1].array.max() <= 4


def test_gather_indices_are_traced_back_through_a_convert() -> None:
    """Convert forwards its input's values (Op.forwards_values): i64 ids converted to i32 still index the table."""
    m = ir.Model("g")
    x = m.parameter("x", [5])
    ids = m.parameter("ids", [3], "i64")
    narrowed = m.add_node(Convert(destination_type=ElementType.I32), "c", [ids])
    gather = m.add_node(Gather8(batch_dims=0), "g", [x, OutputPort(narrowed.id, 0), m.const(np.int64(0))])
    m.result(OutputPort(gather.id, 0), name="y")
    ir.infer_shapes(m)
    _, note = random_feeds(m, {}, 1, 100)
    assert note.endswith("ids i64[3] in [0, 4] (indices of Gather 'g', 5 entries)")


def test_gather_indices_are_traced_back_through_a_reshape() -> None:
    """Reshape forwards its input's values (Op.forwards_values): ids [1,3] reshaped to [3] still index the table."""
    from irgraph.ops.shape.reshape import Reshape

    m = ir.Model("g")
    x = m.parameter("x", [5])
    ids = m.parameter("ids", [1, 3], "i64")
    flat = m.add_node(Reshape(special_zero=False), "r", [ids, m.const(np.array([3], np.int64))])
    gather = m.add_node(Gather8(batch_dims=0), "g", [x, OutputPort(flat.id, 0), m.const(np.int64(0))])
    m.result(OutputPort(gather.id, 0), name="y")
    ir.infer_shapes(m)
    _, note = random_feeds(m, {}, 1, 100)
    assert note.endswith("ids i64[1,3] in [0, 4] (indices of Gather 'g', 5 entries)")


def test_gather_indices_are_traced_back_through_an_unsqueeze() -> None:
    """Unsqueeze forwards its input's values: ids [3] made [1,3] still index the table."""
    from irgraph.ops.shape.unsqueeze import Unsqueeze

    m = ir.Model("g")
    x = m.parameter("x", [5])
    ids = m.parameter("ids", [3], "i64")
    wide = m.add_node(Unsqueeze(), "u", [ids, m.const(np.array([0], np.int64))])
    gather = m.add_node(Gather8(batch_dims=0), "g", [x, OutputPort(wide.id, 0), m.const(np.int64(0))])
    m.result(OutputPort(gather.id, 0), name="y")
    ir.infer_shapes(m)
    _, note = random_feeds(m, {}, 1, 100)
    assert note.endswith("ids i64[3] in [0, 4] (indices of Gather 'g', 5 entries)")


def test_random_booleans_take_both_values_unless_a_range_holds_one_only() -> None:
    rng = np.random.default_rng(0)
    drawn = random_array(rng, ir.ElementType.BOOLEAN, (64,))
    assert drawn.dtype == np.bool_ and set(drawn.tolist()) == {False, True}
    assert random_array(rng, ir.ElementType.BOOLEAN, (8,), (1, 5)).tolist() == [True] * 8


def test_a_polygraphy_json_file_without_iterations_is_refused_by_name(tmp_path) -> None:
    path = tmp_path / "empty.json"
    path.write_text("[]")
    with pytest.raises(IrIOError, match=r"cannot read the Polygraphy JSON file: it holds no iteration") as caught:
        open_sources([], [], 1000, [str(path)])
    assert caught.value.location.file == str(path)
