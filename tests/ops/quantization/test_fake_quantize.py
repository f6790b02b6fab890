"""FakeQuantize-1 against OpenVINO 2026.4.1 (reference evaluate and CPU plugin) on generated configurations,
and named cases with exact expected arrays."""

from __future__ import annotations

import numpy as np
import openvino as ov
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.quantization.fake_quantize import FakeQuantize
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, ov_constant, same_op


def _range_shape(draw, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Per-tensor, per-channel (NNCF's [1, C, 1, 1]) or a suffix of the data's shape."""
    kind = draw(st.sampled_from(["scalar", "one", "channel", "suffix"]))
    if kind == "scalar" or not shape:
        return ()
    if kind == "one":
        return (1,) * len(shape)
    if kind == "channel" and len(shape) >= 2:
        return (1, shape[1]) + (1,) * (len(shape) - 2)
    return shape[len(shape) - draw(st.integers(0, len(shape))):]


@OP_EXAMPLES
@given(data=st.data())
def test_fake_quantize_matches_openvino(data):
    # f32 only: openvino 2026.4.1 evaluates FakeQuantize on f32 alone (no f16/f64 reference; its CPU plugin
    # computes f64 as f32 and lands f16 ties one step away), so no oracle decides the other types exactly
    element_type = ElementType.F32
    shape = data.draw(S.shapes(max_rank=4, zero=False))
    levels = data.draw(st.sampled_from([2, 3, 16, 255, 256]))
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False, low=-4, high=4)
    lows = S.values(element_type, _range_shape(data.draw, shape), data.draw(S.seeds), specials=False, low=-3, high=0)
    spans = S.values(element_type, lows.shape, data.draw(S.seeds), specials=False, low=0.5, high=4)
    out_low = S.values(element_type, _range_shape(data.draw, shape), data.draw(S.seeds), specials=False, low=-2,
                       high=2)
    # out_high == out_low is left out: OpenVINO 2026.4.1's CPU plugin returns 0 there, its reference (and
    # irgraph) out_low (test_equal_output_range)
    out_high = out_low + S.values(element_type, out_low.shape, data.draw(S.seeds), specials=False, low=1, high=3)
    if data.draw(st.booleans()):
        out_low, out_high = out_high, out_low  # a descending output range (NNCF's for negative scales)
    inverted = data.draw(st.booleans())
    if inverted:  # an inverted input range: min/max of the two decide the clamps
        lows, highs = lows + spans, lows
    else:
        highs = lows + spans
    op = FakeQuantize(levels=levels)
    # ConstantFolding never folds FakeQuantize in openvino 2026.4.1, so check_op's reference compares nothing:
    # OpenVINO's evaluate is asked directly, exactly. The CPU plugin is not an oracle here: it quantizes
    # inverted input ranges differently (test_inverted_input_range) and lands up to a fifth of a step away
    # from its reference on per-element output ranges (levels 255, out ranges of shape [2] on [1, 1, 2] data).
    inputs = [x, lows, highs.astype(x.dtype), out_low, out_high]
    check_op(op, inputs, same_op(op), constant=(1, 2, 3, 4), cpu=False)
    np.testing.assert_array_equal(op.evaluate(inputs)[0], _ov_evaluate(op, inputs))


def _ov_evaluate(op: FakeQuantize, inputs: list[np.ndarray]) -> np.ndarray:
    """OpenVINO's reference FakeQuantize (``Node.evaluate`` on Constants, no plugin)."""
    node = same_op(op)(*[ov_constant(a) for a in inputs])
    result = ov.Tensor(ov.Type.f32, ov.Shape(list(inputs[0].shape)))
    assert node.evaluate([result], [ov.Tensor(np.ascontiguousarray(a)) for a in inputs])
    return result.data.copy()


@pytest.mark.parametrize(
    ("x", "levels", "ranges", "expected"),
    [
        ([-1.0, 0.0, 0.1, 0.125, 0.375, 0.5, 0.9, 1.0, 2.0], 5, (0.0, 1.0, -1.0, 1.0),
         [-1.0, -1.0, -1.0, -1.0, 0.0, 0.0, 1.0, 1.0, 1.0]),  # 0.5 step -> 0, 1.5 steps -> 2: half to even
        ([0.0, 0.3, 0.6, 1.0], 2, (0.0, 1.0, 0.0, 10.0), [0.0, 0.0, 10.0, 10.0]),
        # an inverted input range: x <= min -> out_low, x > max -> out_high, and in between the steps count
        # from input_low (2.0) down
        ([-1.0, 0.5, 1.5, 3.0], 3, (2.0, 0.0, 0.0, 1.0), [0.0, 1.0, 0.0, 1.0]),
    ],
    ids=["half-to-even", "binary", "inverted-range"],
)
def test_named_cases(x, levels, ranges, expected):
    arrays = [np.array(x, np.float32), *(np.float32(v) for v in ranges)]
    (got,) = FakeQuantize(levels=levels).evaluate(arrays)
    assert got.tolist() == expected


def test_per_channel_ranges():
    x = np.array([[[0.2]], [[0.2]]], np.float32).reshape(1, 2, 1, 1)
    low, high = np.zeros((1, 2, 1, 1), np.float32), np.array([1.0, 0.25], np.float32).reshape(1, 2, 1, 1)
    (got,) = FakeQuantize(levels=3).evaluate([x, low, high, low, high])
    assert got.ravel().tolist() == [0.0, 0.25]  # channel 0: 0.2 of 1 rounds to 0; channel 1: 0.2 of 0.25 -> top


def test_ranges_beyond_the_data_shape_are_refused():
    """OpenVINO 2026.4.1 keeps the data's shape [2, 1] for ranges of shape [1, 3] and reads them with zero
    strides; irgraph refuses the configuration."""
    data = TensorType(ElementType.F32, Shape.parse("2,1"))
    wide = TensorType(ElementType.F32, Shape.parse("1,3"))
    scalar = TensorType(ElementType.F32, Shape.parse(""))
    with pytest.raises(OpError, match=r"^input_low of shape \[1,3\] broadcasts beyond the data shape \[2,1\]"):
        FakeQuantize(levels=4).infer([data, wide, scalar, scalar, scalar], [None] * 5)


def test_attributes_are_checked():
    with pytest.raises(OpError, match="'levels' must be at least 1"):
        FakeQuantize(levels=0)
    with pytest.raises(OpError, match="'auto_broadcast' must be one of"):
        FakeQuantize(levels=2, auto_broadcast="full")


def test_equal_output_range():
    """out_low == out_high: every value is out_low, as OpenVINO 2026.4.1's reference evaluate says (its CPU
    plugin returns 0 for the values inside the input range)."""
    x = np.array([-2.0, 0.5, 1.1, 3.0], np.float32)
    (got,) = FakeQuantize(levels=16).evaluate([x, np.float32(-1.0), np.float32(1.5), np.float32(0.5), np.float32(0.5)])
    assert got.tolist() == [0.5, 0.5, 0.5, 0.5]


def test_inverted_input_range():
    """input_low > input_high: the steps count from input_low, as OpenVINO 2026.4.1's reference evaluate
    computes them (its CPU plugin gives 0.5478 here, the other end of the output range)."""
    x = np.array([[0.094573]], np.float32)
    (got,) = FakeQuantize(levels=2).evaluate([x, np.float32(1.6402509), np.float32(-1.0891149),
                                              np.float32(0.54784673), np.float32(2.5494914)])
    assert got.tolist() == [[np.float32(2.5494914)]]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("levels", [2, 3, 7, 256])
def test_integer_data_follow_the_references_truncating_divisions(dtype, levels):
    """OpenVINO's reference computes integer FakeQuantize in C++ integer arithmetic: (x - low) / (high - low) is 0
    inside the range and 1 only at high, so integer data land on out_low or out_high. openvino 2026.4.1 has no
    integer evaluate to compare with (its reference returns nothing, its CPU plugin computes in float): the
    expected values are the reference's formula worked by hand."""
    x = np.array([-50, -21, -20, -19, 0, 29, 30, 31, 50], dtype)
    (got,) = FakeQuantize(levels=levels).evaluate([x, dtype(-20), dtype(30), dtype(-5), dtype(100)])
    assert got.dtype == dtype
    assert got.tolist() == [-5, -5, -5, -5, -5, -5, 100, 100, 100]


def test_a_range_that_does_not_broadcast_is_refused():
    data, wrong = TensorType(ElementType.F32, Shape.parse("2")), TensorType(ElementType.F32, Shape.parse("3"))
    scalar = TensorType(ElementType.F32, Shape.parse(""))
    with pytest.raises(OpError, match=r"^Argument shapes are inconsistent: input_low of shape \[3\] does not "
                                      r"broadcast to the data shape \[2\]"):
        FakeQuantize(levels=4).infer([data, wrong, scalar, scalar, scalar], [None] * 5)
