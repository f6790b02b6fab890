"""extract: a cut input's new Parameter never takes the name of a Parameter the cut keeps."""

from __future__ import annotations

import numpy as np

import irgraph as ir
from irgraph.tools.extract import extract


def test_a_new_parameter_does_not_take_a_kept_parameters_name() -> None:
    m = ir.Model("net")
    x, y = m.parameter("x", [2]), m.parameter("y", [2])
    m.node(y.node_id).outputs[0].tensor_names = ["y_t"]
    joined = m.concat([x, y], axis=0, name="join")
    m.node(joined.node_id).outputs[0].tensor_names = ["y"]  # the kept Parameter's layer name
    m.result(m.concat([joined, y], axis=0, name="tail"), name="out")
    sub = extract(m, ["join:0", "y_t"], ["out"])
    assert [p.name for p in sub.parameters] == ["join:0", "y"]
    got = ir.run(sub, {"join:0": np.array([1, 2, 3, 4], np.float32), "y_t": np.array([5, 6], np.float32)})
    assert got["out"].tolist() == [1, 2, 3, 4, 5, 6]


def test_a_layer_reached_twice_does_not_end_the_walk_back() -> None:
    """out = r(q, p, p): p is reached twice before q; q and its input must still be kept."""
    m = ir.Model("diamond")
    x, y = m.parameter("x", [1]), m.parameter("y", [1])
    p, q = m.concat([x], axis=0, name="p"), m.concat([y], axis=0, name="q")
    m.result(m.concat([q, p, p], axis=0, name="r"), name="out")
    sub = extract(m, None, ["out"])
    assert sorted(node.name for node in sub) == ["out", "p", "q", "r", "x", "y"]
    got = ir.run(sub, {"x": np.array([1.0], np.float32), "y": np.array([2.0], np.float32)})
    assert got["out"].tolist() == [2.0, 1.0, 1.0]
