"""irgraph.tools.feeds and irgraph.tools.compare as a library: shape specs, random feeds, comparison statistics."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import irgraph as ir
from irgraph.core.errors import FeedError
from irgraph.core.shapes import Shape
from irgraph.tools.compare import (
    TensorComparison,
    Tolerance,
    compare_arrays,
    compare_outputs,
    element_type_name,
    format_columns,
    format_comparison,
    format_histogram,
    format_stats_table,
    tensor_stats,
)
from irgraph.tools.feeds import parse_shape_specs, random_feeds, resolve_shapes


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


def test_detailed_json_has_every_statistic() -> None:
    item = compare_arrays("t", np.array([1.0, 3.0]), np.array([1.0, 1.0]), Tolerance(0.5, 0.25))
    assert item.to_json(detailed=True) == {
        "name": "t", "passed": False, "max_abs_error": 2.0, "max_rel_error": 2.0,
        "reason": "1 of 2 elements differ beyond the tolerance; first at flat index 1: 3 vs 1",
        "mean_abs_error": 1.0, "mean_rel_error": 1.0, "mismatches": 1, "size": 2,
        "histogram": [{"low": 2.0 * i / 8, "high": 2.0 * (i + 1) / 8, "count": int(i == 7)} for i in range(8)],
        "atol": 0.5, "rtol": 0.25}
    assert "atol" not in TensorComparison("t").to_json(detailed=True)


def test_every_key_is_compared_and_extra_reference_keys_fail() -> None:
    result = compare_outputs({"gone": np.zeros(1), "a": np.zeros(1)}, {"a": np.zeros(1), "extra": np.zeros(1)}, 0, 0)
    assert [(i.name, i.passed, i.reason) for i in result.items] == [
        ("gone", False, "missing from the reference"), ("a", True, ""),
        ("extra", False, "in the reference but not an output of the model")]
    assert [i.name for i in result.failed] == ["gone", "extra"] and not result.passed


def test_strings_empty_arrays_and_infinities() -> None:
    words = np.array(["a", "b"])
    assert compare_arrays("s", words, np.array(["a", "b"]), Tolerance(0, 0)).passed
    assert compare_arrays("s", words, np.array(["a", "c"]), Tolerance(0, 0)).reason == "1 of 2 strings differ"
    assert compare_arrays("s", words, np.zeros(2), Tolerance(0, 0)).reason == \
        "dtype <f8 in the reference, the model gives strings"
    empty = compare_arrays("e", np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32), Tolerance(0, 0))
    assert empty.passed and (empty.max_abs_error, empty.mean_rel_error, empty.mismatches) == (0.0, 0.0, 0)
    assert compare_arrays("x", np.array([1.0]), np.array([1.0]), Tolerance(0, 0)).histogram == []
    nan = compare_arrays("n", np.array([np.nan, 2.0]), np.array([1.0, 1.0]), Tolerance(0, 0))
    assert nan.histogram[-1] == (math.inf, math.inf, 1) and nan.max_abs_error == math.inf
    assert nan.mean_rel_error == math.inf  # NaN against 1 is an infinite error, counted where the reference is 1


def test_format_histogram_and_comparison() -> None:
    assert format_histogram([(0.0, 1.0, 4), (1.0, 2.0, 0), (2.0, 3.0, 1)], "") == [
        "[0, 1]  4  " + "#" * 30, "[1, 2]  0", "[2, 3]  1  " + "#" * 8]
    assert format_histogram([]) == []
    result = compare_outputs({"y": np.array([1.0, 2.0]), "z": np.array([1.0])},
                             {"y": np.array([1.0, 2.5]), "z": np.array([1.0])}, 0.1, 0.0)
    assert format_comparison(result, "ref.npz").splitlines() == [
        "compare with ref.npz (atol 0.1, rtol 0):",
        "  MISMATCH  y  max abs error 0.5  max rel error 0.2  (1 of 2 elements differ beyond the tolerance; first at "
        "flat index 1: 2 vs 2.5)",
        "  ok        z  max abs error 0  max rel error 0",
        "1 of 2 outputs match"]


def test_tensor_stats_rows() -> None:
    assert tensor_stats("i", np.array([3, -1], np.int32)) == {
        "name": "i", "element_type": "i32", "shape": [2], "min": -1, "max": 3, "mean": 1.0}
    assert tensor_stats("f", np.array([np.inf, 1.0], np.float32))["max"] == "inf"
    assert tensor_stats("f", np.array([np.inf, 1.0], np.float32))["min"] == 1.0
    assert tensor_stats("s", np.array(["b", "a"])) == {
        "name": "s", "element_type": "string", "shape": [2], "min": "a", "max": "b", "mean": None}
    assert tensor_stats("e", np.zeros((0,), np.float32))["min"] is None
    four = tensor_stats("q", np.array([7, -8], dtype=ml_dtypes.int4))
    assert (four["element_type"], four["min"], four["max"]) == ("i4", -8, 7)
    assert element_type_name(np.zeros(1, np.complex64)) == "complex64"
    assert format_columns([]) == []
    assert format_stats_table([tensor_stats("i", np.array([3, -1], np.int32))]).splitlines() == [
        "output  type  shape  min  max  mean", "i       i32   [2]    -1   3    1"]
