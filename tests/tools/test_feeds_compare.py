"""irgraph.tools.feeds and irgraph.tools.compare as a library: shape specs, random feeds, comparison statistics."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import irgraph as ir
from irgraph.core.element_types import ElementType
from irgraph.core.errors import FeedError
from irgraph.core.shapes import Shape
from irgraph.graph import OutputPort
from irgraph.ops.activation.relu import Relu
from irgraph.ops.matrix.mat_mul import MatMul
from irgraph.runtime.marking import reference_names
from irgraph.tools.compare import (
    ErrorBound,
    TensorComparison,
    TensorTolerance,
    ToleranceOverride,
    compare_arrays,
    compare_outputs,
    element_type_name,
    error_bounds,
    format_columns,
    format_comparison,
    format_histogram,
    format_stats_table,
    precision_tolerance,
    tensor_stats,
)
from irgraph.tools.feeds import parse_shape_specs, random_feeds, resolve_shapes

EPS32 = float(np.finfo(np.float32).eps)
EPS_BF16 = 2.0 ** -7


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
    item = compare_arrays("t", got, want, TensorTolerance(0.1, 0.0))
    assert not item.passed and item.mismatches == 2 and item.size == 5
    assert item.max_abs_error == 0.5 and item.mean_abs_error == pytest.approx(0.75 / 5)
    assert item.max_rel_error == math.inf and item.mean_rel_error == pytest.approx(0.25 / 4)
    assert item.reason == "2 of 5 elements differ beyond the tolerance; first at flat index 1: 2.5 vs 2"
    # Only the unequal elements are binned: 0.25 and 0.5 over [0, 0.5] in 8 bins.
    assert [count for _, _, count in item.histogram] == [0, 0, 0, 0, 1, 0, 0, 1]
    assert format_histogram(item.histogram, "")[4].split() == ["[0.25,", "0.312]", "1", "#" * 30]
    assert compare_arrays("t", got, want, TensorTolerance(0.5, 0.0)).passed


def test_per_output_tolerances_override_the_default() -> None:
    outputs = {"a": np.array([1.0]), "b": np.array([1.0])}
    reference = {"a": np.array([1.1]), "b": np.array([1.1])}
    result = compare_outputs(outputs, reference, 0.0, 0.0, {"b": TensorTolerance(0.2, 0.0)})
    assert [item.passed for item in result.items] == [False, True]
    assert result.to_json()["outputs"][1] == {"name": "b", "passed": True, "max_abs_error": pytest.approx(0.1),
                                              "max_rel_error": pytest.approx(0.1 / 1.1)}


def test_detailed_json_has_every_statistic() -> None:
    item = compare_arrays("t", np.array([1.0, 3.0]), np.array([1.0, 1.0]), TensorTolerance(0.5, 0.25))
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
    assert compare_arrays("s", words, np.array(["a", "b"]), TensorTolerance(0, 0)).passed
    assert compare_arrays("s", words, np.array(["a", "c"]), TensorTolerance(0, 0)).reason == "1 of 2 strings differ"
    assert compare_arrays("s", words, np.zeros(2), TensorTolerance(0, 0)).reason == \
        "dtype <f8 in the reference, the model gives strings"
    empty = compare_arrays("e", np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32), TensorTolerance(0, 0))
    assert empty.passed and (empty.max_abs_error, empty.mean_rel_error, empty.mismatches) == (0.0, 0.0, 0)
    assert compare_arrays("x", np.array([1.0]), np.array([1.0]), TensorTolerance(0, 0)).histogram == []
    nan = compare_arrays("n", np.array([np.nan, 2.0]), np.array([1.0, 1.0]), TensorTolerance(0, 0))
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


# ------------------------------------------------------------------------------------ names (issue 23)
def test_an_output_is_found_under_another_of_its_names_and_says_which() -> None:
    value = np.array([1.0, 2.0], np.float32)
    result = compare_outputs({"322": value}, {"last_hidden_state": value}, names={"322": ["last_hidden_state"]})
    assert result.passed and [(i.name, i.reference_name) for i in result.items] == [("322", "last_hidden_state")]
    assert "ok        322  max abs error 0  max rel error 0  (as 'last_hidden_state' in the reference)" in \
        format_comparison(result, "ref.npz")
    assert result.to_json()["outputs"][0]["reference_name"] == "last_hidden_state"


def test_an_output_key_is_never_taken_by_another_outputs_alias() -> None:
    one, two = np.ones(1, np.float32), np.full(1, 2, np.float32)
    result = compare_outputs({"a": one, "b": two}, {"a": two, "b": one}, names={"a": ["b"], "b": ["a"]})
    assert [(i.name, i.reference_name, i.passed) for i in result.items] == [("a", "a", False), ("b", "b", False)]


def test_reference_names_include_result_names_layer_port_and_polygraphys_spelling() -> None:
    m = ir.Model("m")
    x = m.parameter("x", [2])
    node = m.add_node(Relu(), "relu", [x])
    node.outputs[0].tensor_names = ["322", "last_hidden_state"]
    m.result(OutputPort(node.id, 0), name="out")
    names = reference_names(m, {"out": OutputPort(node.id, 0), "x": x})
    assert names["out"] == ["322", "last_hidden_state", "relu:0", "out:0", "322:0", "last_hidden_state:0", "relu"]
    assert names["x"] == ["x:0"]  # its own layer's LAYER:PORT and Polygraphy's spelling are the same


def test_nothing_compared_fails_and_names_the_closest_reference_names() -> None:
    result = compare_outputs({"logits": np.zeros(2, np.float32)}, {"logits:1": np.zeros(2, np.float32)})
    assert not result.passed
    assert [i.reason for i in result.items] == [
        "missing from the reference; closest reference names: 'logits:1'",
        "in the reference but not an output of the model; closest outputs: 'logits'"]
    assert not compare_outputs({}, {}).passed  # nothing at all to compare is no match either


# ------------------------------------------------------------------------------------ tolerances (issue 23)
def _matmul_relu_split() -> tuple[ir.Model, dict[str, OutputPort]]:
    """x f32[2,4] -> MatMul(w) -> Relu -> Split(2) -> y0, y1, and x -> Split -> z0, z1 (data movement only)."""
    m = ir.Model("m")
    x = m.parameter("x", [2, 4])
    product = m.add_node(MatMul(), "mm", [x, m.const(np.ones((4, 4), np.float32))])
    relu = m.add_node(Relu(), "relu", [OutputPort(product.id, 0)])
    y0, _ = m.split(OutputPort(relu.id, 0), 1, 2, name="ys")
    z0, _ = m.split(x, 1, 2, name="zs")
    return m, {"mm": OutputPort(product.id, 0), "relu": OutputPort(relu.id, 0), "y0": y0, "z0": z0}


def test_error_bounds_add_up_the_ops_on_the_way() -> None:
    model, ports = _matmul_relu_split()
    bounds = error_bounds(model)
    # MatMul: 1 ULP or 16 eps x sum|terms| (at least 4 ULP); Relu: exact, but the CPU plugin may fuse it (2 ULP or
    # 1 eps); Split only moves data.
    assert bounds[ports["mm"].node_id] == ErrorBound(4, 16.0)
    assert bounds[ports["relu"].node_id] == ErrorBound(4, 17.0)
    assert bounds[ports["y0"].node_id] == ErrorBound(4, 17.0)
    assert bounds[ports["z0"].node_id] == ErrorBound()


def test_precision_tolerances_scale_with_the_precision_and_the_ops() -> None:
    bound = ErrorBound(4, 17.0)
    assert precision_tolerance(ElementType.F32, bound) == TensorTolerance(0.0, 4 * EPS32, (4 * 17 + 16) * EPS32,
                                                                    "f32 rounding")
    # OpenVINO's bf16 inference rounds every layer's inputs to bf16 and sums in f32
    assert precision_tolerance(ElementType.F32, bound, ElementType.BF16) == TensorTolerance(
        0.0, 4 * EPS_BF16, 4 * 17 * EPS32 + 16 * EPS_BF16, "bf16 rounding")
    assert precision_tolerance(ElementType.F64, bound, ElementType.F32).basis == "f32 rounding"  # CPU: f64 as f32
    assert precision_tolerance(ElementType.F64, bound).rtol == 4 * float(np.finfo(np.float64).eps)
    assert precision_tolerance(ElementType.F32, ErrorBound()) == TensorTolerance(
        0.0, 0.0, basis="exact (f32, only exact ops on the way)")
    assert precision_tolerance(ElementType.BF16, ErrorBound(), ElementType.F32).scaled_atol == 0.0  # bf16 moved: exact
    assert precision_tolerance(ElementType.I64, ErrorBound(), ElementType.BF16) == TensorTolerance(0.0, 0.0,
                                                                                              basis="exact (i64)")
    # an index or a comparison of rounded floats: a tie may fall either way (MaxPool's indices on SqueezeNet)
    assert precision_tolerance(ElementType.I64, bound).discrete
    assert not precision_tolerance(ElementType.I64, bound).overridden(atol=0.0).discrete  # given: exact again
    assert precision_tolerance(ElementType.F32, bound, ElementType.BF16).overridden(atol=1e-3) == TensorTolerance(
        1e-3, 4 * EPS_BF16)  # a given atol replaces the whole absolute part
    assert ToleranceOverride(rtol=0.0).applied_to(TensorTolerance(0.5, 0.5, 0.5, "f32 rounding")) == \
        TensorTolerance(0.5, 0.0, 0.5)


def test_a_difference_within_f32_rounding_of_a_large_sum_passes_by_default_and_says_so() -> None:
    """Issue 23: at 1e8 the f32 spacing is 8, so an element near zero of a sum of 1e8-sized terms carries errors
    of that size; atol = rtol = 1e-5 called that the first divergence."""
    want = np.array([1.0e8, -3.0e7, 1.5], np.float32)
    got = want + np.array([8.0, 0.0, 16.0], np.float32)  # 16 at 1.5: 2 eps x max|ref|, rounding of the terms
    default = precision_tolerance(ElementType.F32, ErrorBound(4, 16.0))
    item = compare_arrays("conv", got, want, default, precision=default)
    assert item.passed and item.within_precision and item.note == "within f32 rounding"
    strict = compare_arrays("conv", got, want, TensorTolerance(1e-5, 1e-5), precision=default)
    assert not strict.passed and strict.within_precision
    assert strict.note == ("within f32 rounding: atol 9.54e-06 x max|ref|, rtol 4.77e-07: the given tolerance is "
                           "tighter")
    wrong = want + np.array([0.0, 0.0, 1.0e5], np.float32)  # 1e-3 of the largest magnitude: no rounding does that
    item = compare_arrays("conv", wrong, want, default, precision=default)
    assert not item.passed and item.within_precision is False and item.note == ""


def test_indices_of_rounded_floats_that_differ_are_noted_not_failed() -> None:
    discrete = precision_tolerance(ElementType.I64, ErrorBound(4, 16.0))
    item = compare_arrays("pool:1", np.array([3, 5, 7]), np.array([3, 6, 7]), discrete, precision=discrete)
    assert item.passed and item.mismatches == 1
    assert item.note == "1 of 3 differ: i64 from rounded floats: ties and thresholds may fall either way"
