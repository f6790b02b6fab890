"""The harness's accounting of oracles: a configuration nothing judged fails unless listed with a reason, and the
wider carriers give OpenVINO's answers back bit for bit."""

from __future__ import annotations

from collections import Counter

import ml_dtypes
import numpy as np
import openvino.opset1 as ov1
import pytest

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.op import Tolerance
from tests.ops import differential
from tests.ops.differential import Outcome, carrier, higher_precision_tolerance, ov_convert, ov_widened


@pytest.fixture
def fresh_tally(monkeypatch: pytest.MonkeyPatch) -> Counter:
    tally: Counter = Counter()
    monkeypatch.setattr(differential, "TALLY", tally)
    monkeypatch.setattr(differential, "UNLISTED", [])
    return tally


F64 = [TensorType(ElementType.F64, Shape.static((2,)))] * 2


def test_a_configuration_nothing_judged_fails_and_is_named(fresh_tally, monkeypatch):
    monkeypatch.setattr(differential, "ALLOWED", [])
    with pytest.raises(AssertionError, match=r"no oracle judged Add-1 f64,f64 -> f64 \(a label\)"):
        differential._judged(Outcome(), Add(), F64, F64[:1], "a label")
    assert fresh_tally == {"unjudged": 1}
    assert differential.UNLISTED == [f"{differential.CURRENT_TEST}: Add-1 f64,f64 -> f64 (a label)"]


def test_a_listed_configuration_is_counted_as_listed(fresh_tally, monkeypatch):
    monkeypatch.setattr(differential, "ALLOWED", [("Add-1 f64,* -> f64", "a reason")])
    assert differential._judged(Outcome(), Add(), F64, F64[:1]).judge == "unjudged-listed"
    assert fresh_tally == {"unjudged-listed": 1}


def test_each_oracle_is_counted_once(fresh_tally):
    differential._judged(Outcome(judge="higher-precision"), Add(), F64, F64[:1])
    differential._judged(Outcome(refused=True), Add(), F64, [])
    assert fresh_tally == {"higher-precision": 1, "refused-by-both": 1}


def test_an_allowed_line_needs_its_reason(tmp_path):
    listed = tmp_path / "unjudged.txt"
    listed.write_text("# comment\nAdd-1 * | wraps\n\nSub-1 *\n")
    with pytest.raises(ValueError, match="unjudged.txt:4: an unjudged configuration needs its reason"):
        differential._read_allowed(listed)
    listed.write_text("Add-1 * | wraps\n")
    assert differential._read_allowed(listed) == [("Add-1 *", "wraps")]


def test_moved_values_travel_as_bits_and_come_back_exactly():
    """Transpose moves f64, bool and bf16 values (NaN payloads, -0.0) through OpenVINO's i64/i32 kernels."""
    order = np.array([1, 0], np.int64)
    for data in (np.array([[1.5, -0.0], [np.nan, 1e-310]]), np.array([[True, False], [False, True]]),
                 np.array([[1.0, -0.0], [np.inf, 3.0]], ml_dtypes.bfloat16)):
        types = [TensorType(ElementType.from_numpy(data.dtype), Shape.static((2, 2)))]
        (moved,) = ov_widened(ov1.transpose, [data, order], types, moved=(0,))
        assert moved.dtype == data.dtype
        assert moved.view(f"u{data.dtype.itemsize}").tolist() == data.T.view(f"u{data.dtype.itemsize}").tolist()


def test_narrow_integers_widen_and_wrap_back():
    """i8 127 + 1 computed in i32 comes back as the i8 kernel's -128."""
    a, b = np.array([127, -128], np.int8), np.array([1, -1], np.int8)
    wide = carrier([a, b], [TensorType(ElementType.I8, Shape.static((2,)))], None)
    assert [x.dtype for x in wide.inputs] == [np.int32, np.int32]
    assert ov_widened(ov1.add, [a, b], [TensorType(ElementType.I8, Shape.static((2,)))], None)[0].tolist() == [-128,
                                                                                                                127]


def test_bf16_rounds_as_openvino_does():
    """ov::bfloat16 truncates when the kept last bit is even (openvino 2026.4.1): 10.6640625 -> 10.625."""
    assert ov_convert(np.array([10.6640625, 10.71875], np.float32), np.dtype(ml_dtypes.bfloat16)).astype(
        np.float32).tolist() == [10.625, 10.75]


def test_formulation_tolerance_counts_f32_eps_for_narrow_floats():
    tolerance = higher_precision_tolerance(Tolerance(ulp=0, sum_eps=16), np.dtype(ml_dtypes.bfloat16))
    assert tolerance.ulp == 1 and tolerance.sum_eps == 16 * 2.0**-16
    exact = Tolerance()
    assert higher_precision_tolerance(exact, np.dtype(np.float16)) == exact


@pytest.mark.parametrize("mistake", [
    lambda a, b: ov1.no_such_op(a, b),  # a misspelt builder
    lambda a, b: ov1.add(a),  # a missing argument: a TypeError of Python's, not pybind's
])
def test_a_mistake_in_the_build_callable_is_a_test_bug_not_a_refusal(mistake) -> None:
    """Counted as OpenVINO refusing, a typo in ``build`` let a test pass while irgraph refused too and nothing was
    compared (an AttributeError and a TypeError here, where irgraph refuses f64 + i32 as OpenVINO would)."""
    mixed = [TensorType(ElementType.F64, Shape.static((2,))), TensorType(ElementType.I32, Shape.static((2,)))]
    with pytest.raises((AttributeError, TypeError)):
        differential.check_types(Add(), mixed, mistake)
    arrays = [np.zeros(2, np.float64), np.zeros(2, np.int32)]
    with pytest.raises((AttributeError, TypeError)):
        differential.check_op(Add(), arrays, mistake)
