"""irgraph.feeds and irgraph.compare as a library: shape specs, random feeds, tensor comparison statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest

import irgraph as ir
from irgraph.compare import Tolerance, compare_arrays, compare_outputs, format_histogram
from irgraph.feeds import FeedError, parse_shape_specs, random_feeds, resolve_shapes
from irgraph.shapes import Shape


def _model() -> ir.Model:
    m = ir.Model("m")
    x = m.parameter("x", [1, "?", 4], "f32")
    m.result(m.concat([x, x], axis=2), name="y")
    return m


def test_shape_specs_resolve_against_the_model() -> None:
    model = _model()
    shapes = resolve_shapes(model, parse_shape_specs(["x[1,3,4]"]))
    assert shapes == {model.parameters[0].id: Shape.parse("1,3,4")}
    with pytest.raises(FeedError, match=r"--shape names 'z', but the model has no such input; inputs: 'x'"):
        resolve_shapes(model, parse_shape_specs(["z[1]"]))
    with pytest.raises(FeedError, match=r"--shape expects NAME\[d0,d1,...\]"):
        parse_shape_specs(["x"])


def test_random_feeds_are_seeded_and_say_what_was_chosen() -> None:
    model = _model()
    feeds, note = random_feeds(model, {}, 3, 100)
    again, _ = random_feeds(model, {}, 3, 100)
    assert [f.name for f in feeds] == ["x"] and feeds[0].array.shape == (1, 1, 4) and feeds[0].source == "random"
    np.testing.assert_array_equal(feeds[0].array, again[0].array)
    assert note == ("no input data given: every input is filled with random data (seed 3): x f32[1,1,4]; dynamic "
                    "dims take their smallest size >= 1 (set them with --shape)")


def test_compare_arrays_statistics() -> None:
    want = np.array([1.0, 2.0, 0.0, 4.0, np.nan], np.float32)
    got = np.array([1.0, 2.5, 0.25, 4.0, np.nan], np.float32)
    item = compare_arrays("t", got, want, Tolerance(0.1, 0.0))
    assert not item.passed and item.mismatches == 2 and item.size == 5
    assert item.max_abs_error == 0.5 and item.mean_abs_error == pytest.approx(0.75 / 5)
    assert item.max_rel_error == math.inf and item.mean_rel_error == pytest.approx(0.25 / 4)
    assert item.reason == "2 of 5 elements differ beyond the tolerance; first at flat index 1: 2.5 vs 2"
    # Only the unequal elements are binned: 0.25 and 0.5 over [0, 0.5] in 8 bins.
    assert [count for _, _, count in item.histogram] == [0, 0, 0, 0, 1, 0, 0, 1]
    assert format_histogram(item.histogram, "")[4].split() == ["[0.25,", "0.312]", "1", "#" * 30]
    assert compare_arrays("t", got, want, Tolerance(0.5, 0.0)).passed


def test_per_output_tolerances_override_the_default() -> None:
    outputs = {"a": np.array([1.0]), "b": np.array([1.0])}
    reference = {"a": np.array([1.1]), "b": np.array([1.1])}
    result = compare_outputs(outputs, reference, 0.0, 0.0, {"b": Tolerance(0.2, 0.0)})
    assert [item.passed for item in result.items] == [False, True]
    assert result.to_json()["outputs"][1] == {"name": "b", "passed": True, "max_abs_error": pytest.approx(0.1),
                                              "max_rel_error": pytest.approx(0.1 / 1.1)}
