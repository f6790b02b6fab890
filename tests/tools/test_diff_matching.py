"""diff_models matches a renamed layer by structure from its matched producer even when nothing consumes it;
constant values whose bytes differ are described, equal ones are not."""

from __future__ import annotations

import numpy as np

import irgraph as ir
from irgraph.tools.diff import diff_models


def _with_dead_layer(name: str) -> ir.Model:
    m = ir.Model("m")
    x = m.parameter("x", [2])
    m.result(m.concat([x], axis=0, name="keep"), name="out")
    m.concat([x, x], axis=0, name=name)  # consumed by nothing: only its producer places it
    return m


def test_a_renamed_layer_without_consumers_is_matched_through_its_producer() -> None:
    result = diff_models(_with_dead_layer("dead_a"), _with_dead_layer("dead_b"))
    assert [(d.kind, d.old, d.new) for d in result.differences] == [("renamed", "dead_a", "dead_b")]
    assert (result.matched_by_structure, result.matched_by_position) == (1, 0)


def _with_weight(values: np.ndarray) -> ir.Model:
    m = ir.Model("w")
    x = m.parameter("x", [3])
    m.result(m.concat([x, m.const(values, name="w")], axis=0, name="join"), name="out")
    return m


def test_a_changed_constant_names_how_many_elements_differ_and_the_largest_gap() -> None:
    before = _with_weight(np.array([1.0, 2.0, np.nan], np.float32))
    after = _with_weight(np.array([1.0, 2.5, np.nan], np.float32))
    (difference,) = diff_models(before, after).differences
    assert difference.kind == "value" and difference.detail.endswith("; max abs diff 0.5; 1 of 3 elements differ")
    assert diff_models(before, _with_weight(np.array([1.0, 2.0, np.nan], np.float32))).differences == []
