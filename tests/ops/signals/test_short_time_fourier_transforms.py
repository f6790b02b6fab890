"""STFT-15 and ISTFT-16 against OpenVINO 2026.4.1.

As for the DFT family (test_fourier_transforms), 2026.4.1 neither folds nor evaluates these ops: the values are
judged by the ported reference (``fft_reference.stft``/``istft``, from ``reference/stft.cpp`` and ``istft.cpp``)
within the op's tolerance for f32, f16 and bf16, and by the CPU plugin (f32, f16), whose per-frame transforms use
more accurate twiddles than the reference's naive DFT: against it the bound adds ``8 * frame_size`` eps of the
summed moduli for a frame size that is not a power of two (measured over 80 configurations: up to 0.7
``frame_size`` for STFT, 0.44 for ISTFT). The plugin's ISTFT corrupts its heap on a ``signal_length`` of 0 and
crashes on a negative one: those are checked against OpenVINO's shape inference only.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import openvino.opset16 as ov16
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.families.fft import is_power_of_two
from irgraph.ops.numeric import round_to_bf16
from irgraph.ops.op import Tolerance
from irgraph.ops.signals.istft import ISTFT
from irgraph.ops.signals.stft import STFT
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, port
from tests.ops.helpers import infer, tt
from tests.ops.signals import fft_reference


def in_type(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """f32 ``values`` rounded as the reference's ``fft_postprocessing``."""
    return round_to_bf16(values) if dtype == np.dtype(ml_dtypes.bfloat16) else values.astype(dtype)


def cpu_tolerance(op_tolerance: Tolerance, frame_size: int) -> Tolerance:
    """The plugin's frames use accurate twiddles: the reference's own error, 8 L eps x sum|terms|, is added."""
    extra = 0 if is_power_of_two(frame_size) else 8 * frame_size
    return Tolerance(ulp=2, eps=1, sum_eps=op_tolerance.sum_eps + extra)


@st.composite
def framings(draw: st.DrawFn) -> tuple[int, int, int, int]:
    """Frame size, step, window length (at most the frame size) and signal length (at least a frame)."""
    frame_size = draw(st.integers(1, 12))
    return (frame_size, draw(st.integers(1, 6)), draw(st.integers(1, frame_size)),
            frame_size + draw(st.integers(0, 16)))


ELEMENT_TYPES = st.sampled_from([ElementType.F32, ElementType.F32, ElementType.F16, ElementType.BF16])


# ------------------------------------------------------------------------------------ STFT
@OP_EXAMPLES
@given(data=st.data())
def test_stft_matches_the_reference_algorithm_and_the_cpu_plugin(data):
    frame_size, step, window_length, length = data.draw(framings())
    element_type = data.draw(ELEMENT_TYPES)
    batch = data.draw(st.sampled_from([(), (1,), (3,)]))
    signal = S.values(element_type, (*batch, length), data.draw(S.seeds), specials=False, low=-4, high=4)
    window = S.values(element_type, (window_length,), data.draw(S.seeds), specials=False, low=0, high=1)
    transpose = data.draw(st.booleans())
    op = STFT(transpose_frames=transpose)
    inputs = [signal, window, np.array(frame_size, np.int32), np.array(step, np.int32)]
    expected = in_type(fft_reference.stft(signal, window, frame_size, step, transpose), signal.dtype)
    # the port judges every configuration, the CPU plugin f32 and f16 too
    outcome = check_op(op, inputs, lambda *xs: ov16.stft(*xs, transpose), constant={2, 3},
                       cpu_tolerance=cpu_tolerance(op.tolerance, frame_size),
                       independent=port(lambda op, arrays, types: [expected]))
    assert outcome.cpu or signal.dtype == np.dtype(ml_dtypes.bfloat16)


def test_stft_in_f64_is_the_exact_transform():
    """No reference kernel runs f64 (OpenVINO's shape inference takes it): irgraph computes it in f64."""
    signal = np.random.default_rng(1).uniform(-1, 1, (2, 30))
    window = np.hanning(9)[1:-1]
    (mine,) = STFT(transpose_frames=False).evaluate([signal, window, np.array(10), np.array(4)])
    padded = np.zeros(10)
    padded[1:8] = window
    frames = np.stack([signal[:, i * 4:i * 4 + 10] * padded for i in range(6)], axis=1)
    exact = np.fft.rfft(frames, axis=-1)
    assert mine.dtype == np.float64 and mine.shape == (2, 6, 6, 2)
    np.testing.assert_allclose(mine[..., 0] + 1j * mine[..., 1], exact, rtol=0, atol=1e-14)


@pytest.mark.parametrize(("signal", "transpose", "expected"), [
    ("56", False, "[16,6,2]"), ("56", True, "[6,16,2]"), ("3,56", False, "[3,16,6,2]"), ("3,56", True, "[3,6,16,2]"),
])
def test_stft_spec_examples(signal, transpose, expected):
    """stft-15.rst: window 7, frame_size 11, frame_step 3."""
    types = [tt(signal), tt("7"), tt("", "i64"), tt("", "i64")]
    values = [None, None, np.array(11), np.array(3)]
    assert infer(STFT(transpose_frames=transpose), types, values) == [expected]
    check_types(STFT(transpose_frames=transpose), types, lambda *xs: ov16.stft(*xs, transpose), values)


@st.composite
def stft_partial(draw: st.DrawFn) -> tuple[list, list]:
    signal = draw(st.sampled_from(["20", "3,20", "?", "?,?", "2..30", "3,5..9", "...", "3,20,2", "", "4"]))
    window = draw(st.sampled_from(["7", "?", "2..12", "0", "13", "...", "1,7"]))
    frame_size = draw(st.sampled_from([None, 0, 4, 8, 13, 25]))
    frame_step = draw(st.sampled_from([None, -1, 0, 3]))
    types = [tt(signal, draw(st.sampled_from(["f32", "f16", "f64", "i32", "dynamic"]))),
             tt(window, draw(st.sampled_from(["f32", "f32", "f16"]))),
             tt(draw(st.sampled_from(["", "", "1"])), draw(st.sampled_from(["i64", "i32", "u8"]))), tt("", "i32")]
    return types, [None, None, typed(frame_size, types[2]), typed(frame_step, types[3])]


def typed(value: int | None, tensor_type) -> np.ndarray | None:
    """A constant of the input's type and shape (``check_types`` builds OpenVINO's Constant from the array)."""
    if value is None:
        return None
    return np.full(tensor_type.shape.to_tuple(), max(value, 0) if tensor_type.element_type.ir_name[0] == "u" else value,
                   tensor_type.element_type.numpy_dtype)


@pytest.mark.parametrize("transpose", [False, True])
@OP_EXAMPLES
@given(data=st.data())
def test_stft_partial_shapes_and_refusals(transpose, data):
    types, values = data.draw(stft_partial())
    check_types(STFT(transpose_frames=transpose), types, lambda *xs: ov16.stft(*xs, transpose), values)


def test_stft_refusals_name_the_rule():
    with pytest.raises(OpError, match=r"^Provided frame size is 11 but must be in range \[1, 10\]."):
        infer(STFT(transpose_frames=False), [tt("10"), tt("7"), tt("", "i64"), tt("", "i64")],
              [None, None, 11, 3])
    with pytest.raises(OpError, match=r"^Window input dimension must be in range \[1, 8\]. Got: \[9\]"):
        STFT(transpose_frames=False).evaluate([np.ones(20, np.float32), np.ones(9, np.float32), np.array(8),
                                              np.array(2)])
    with pytest.raises(OpError, match="^STFT runs f32, f16, bf16 and f64 data"):
        STFT(transpose_frames=False).evaluate([np.ones(20, ml_dtypes.float8_e4m3fn),
                                              np.ones(4, ml_dtypes.float8_e4m3fn), np.array(8), np.array(2)])


def test_stft_of_an_impulse_window():
    """A one-value window at the start of each frame (frame 2: offset (2 - 1) // 2 = 0) picks the frame's first
    sample: both bins are that sample, exactly."""
    signal = np.arange(1, 11, dtype=np.float32)
    (out,) = STFT(transpose_frames=False).evaluate([signal, np.ones(1, np.float32), np.array(2), np.array(3)])
    assert out.shape == (3, 2, 2)  # frames at 0, 3 and 6
    assert out.tolist() == [[[1.0, 0.0]] * 2, [[4.0, 0.0]] * 2, [[7.0, 0.0]] * 2]
    (transposed,) = STFT(transpose_frames=True).evaluate([signal, np.ones(1, np.float32), np.array(2), np.array(3)])
    assert transposed[..., 0].tolist() == [[1.0, 4.0, 7.0]] * 2


# ------------------------------------------------------------------------------------ ISTFT
@OP_EXAMPLES
@given(data=st.data())
def test_istft_matches_the_reference_algorithm_and_the_cpu_plugin(data):
    frame_size, step, window_length, _ = data.draw(framings())
    element_type = data.draw(ELEMENT_TYPES)
    frames = data.draw(st.integers(1, 6))
    batch = data.draw(st.sampled_from([(), (1,), (2,)]))
    spectrum = S.values(element_type, (*batch, frame_size // 2 + 1, frames, 2), data.draw(S.seeds),
                        specials=False, low=-4, high=4)
    window = S.values(element_type, (window_length,), data.draw(S.seeds), specials=False, low=0, high=1)
    if data.draw(st.integers(0, 4)) == 0:
        window[0] = 0  # positions no window covers divide by 0 and give 0
    center, normalized = data.draw(st.booleans()), data.draw(st.booleans())
    length = data.draw(st.sampled_from([None, 1, 5, 17, 40]))
    op = ISTFT(center=center, normalized=normalized)
    inputs = [spectrum, window, np.array(frame_size, np.int32), np.array(step, np.int32)]
    inputs += [] if length is None else [np.array(length, np.int32)]
    expected = in_type(fft_reference.istft(spectrum, window, frame_size, step, length or -1, center, normalized),
                       spectrum.dtype)
    # the port judges every configuration, the CPU plugin f32 and f16 too
    outcome = check_op(op, inputs, lambda *xs: ov16.istft(*xs[:4], center, normalized, *xs[4:]),
                       constant={2, 3, 4}, cpu_tolerance=cpu_tolerance(op.tolerance, frame_size),
                       independent=port(lambda op, arrays, types: [expected]))
    assert outcome.cpu or spectrum.dtype == np.dtype(ml_dtypes.bfloat16)


def test_istft_undoes_stft_with_a_window_that_overlaps():
    signal = np.random.default_rng(5).uniform(-1, 1, (2, 40)).astype(np.float32)
    window = np.hanning(9)[:-1].astype(np.float32)  # 8 values from 0, frames 4 apart
    spectrum = STFT(transpose_frames=True).evaluate([signal, window, np.array(8), np.array(4)])[0]
    (back,) = ISTFT(center=False, normalized=False).evaluate([spectrum, window, np.array(8), np.array(4)])
    assert back.shape == (2, 40)
    np.testing.assert_allclose(back[:, 1:], signal[:, 1:], atol=4e-7)
    assert back[:, 0].tolist() == [0.0, 0.0]  # only the window's 0 covers sample 0: nothing to divide by


@pytest.mark.parametrize(("data", "center", "length", "expected"), [
    ("6,16,2", False, None, "[56]"), ("6,16,2", True, None, "[46]"), ("2,6,16,2", True, 40, "[2,40]"),
    ("2,6,16,2", True, 0, "[2,0]"), ("2,6,16,2", False, -1, "[2,?]"), ("6,16,2", False, -3, "[0]"),
    ("6,2..9,2", True, None, "[4..25]"),
    ("6,0,2", False, None, "[11]"),
])
def test_istft_lengths(data, center, length, expected):
    """istft-16.rst with window 7, frame_size 11, frame_step 3; openvino 2026.4.1 infers a constant negative
    ``signal_length`` of -1 as a dynamic dim, other negative ones as 0, and (frames - 1) never below 0."""
    op = ISTFT(center=center, normalized=False)
    types = [tt(data), tt("7"), tt("", "i64"), tt("", "i64")] + ([] if length is None else [tt("", "i64")])
    values = [None, None, np.array(11), np.array(3)] + ([] if length is None else [np.array(length)])
    assert infer(op, types, values) == [expected]
    check_types(op, types, lambda *xs: ov16.istft(*xs[:4], center, False, *xs[4:]), values)


def test_istft_length_zero_is_empty_and_minus_one_is_refused():
    """OpenVINO 2026.4.1 infers [0] for 0 and -3 (its CPU plugin then corrupts its heap) and no shape for -1."""
    inputs = [np.ones((5, 3, 2), np.float32), np.ones(8, np.float32), np.array(8), np.array(2)]
    (empty,) = ISTFT(center=False, normalized=False).evaluate([*inputs, np.array(0)])
    assert empty.shape == (0,)
    assert ISTFT(center=False, normalized=False).evaluate([*inputs, np.array(-3)])[0].shape == (0,)
    with pytest.raises(OpError, match="^ISTFT signal_length -1 gives no output shape"):
        ISTFT(center=False, normalized=False).evaluate([*inputs, np.array(-1)])


@st.composite
def istft_partial(draw: st.DrawFn) -> tuple[list, list]:
    data = draw(st.sampled_from(["6,16,2", "2,6,16,2", "7,16,2", "6,?,2", "?,?,?", "?,6,2..9,2", "...", "6,16",
                                 "6,16,3", "1,2,3,4,5"]))
    window = draw(st.sampled_from(["7", "?", "12", "0", "1,7"]))
    frame_size = draw(st.sampled_from([None, 0, 10, 11]))
    frame_step = draw(st.sampled_from([None, 0, 3]))
    types = [tt(data, draw(st.sampled_from(["f32", "f16", "i32"]))), tt(window),
             tt("", draw(st.sampled_from(["i64", "i32", "i8"]))), tt("", "i64")]
    values = [None, None, typed(frame_size, types[2]), typed(frame_step, types[3])]
    if draw(st.booleans()):
        types.append(tt(draw(st.sampled_from(["", "1", "2"])), draw(st.sampled_from(["i64", "i32", "f32"]))))
        values.append(None if draw(st.booleans()) else typed(draw(st.sampled_from([-3, -1, 0, 30])), types[4]))
    return types, values


@pytest.mark.parametrize("center", [False, True])
@OP_EXAMPLES
@given(data=st.data())
def test_istft_partial_shapes_and_refusals(center, data):
    types, values = data.draw(istft_partial())
    check_types(ISTFT(center=center, normalized=False), types,
                lambda *xs: ov16.istft(*xs[:4], center, False, *xs[4:]), values)


def test_istft_refusals_name_the_rule():
    with pytest.raises(OpError, match=r"^The dimension at data_shape\[-3\] must be equal to: \(frame_size // 2 \+ 1\) "
                       r"= 6\. Got: \[7,16,2\]$"):
        infer(ISTFT(center=False, normalized=False), [tt("7,16,2"), tt("7"), tt("", "i64"), tt("", "i64")],
              [None, None, 11, 3])
    with pytest.raises(OpError, match="^ISTFT needs at least one frame"):
        ISTFT(center=False, normalized=False).evaluate([np.ones((6, 0, 2), np.float32), np.ones(7, np.float32),
                                                       np.array(11), np.array(3)])
    with pytest.raises(OpError, match=r"^ISTFT data must be \[batch\?, bins, frames, 2\]"):
        ISTFT(center=False, normalized=False).evaluate([np.ones((6, 4, 3), np.float32), np.ones(7, np.float32),
                                                       np.array(11), np.array(3)])


def test_istft_data_of_unknown_element_type_takes_the_windows():
    """openvino 2026.4.1 merges the two element types: data of a dynamic type with an f32 window gives f32."""
    types = [tt("6,16,2", "dynamic"), tt("10"), tt("", "i64"), tt("", "i64")]
    values = [None, None, np.array(10), np.array(3)]
    check_types(ISTFT(center=False, normalized=False), types, lambda *xs: ov16.istft(*xs, False, False), values)
    (out,) = ISTFT(center=False, normalized=False).infer(types, values)
    assert out.element_type is ElementType.F32 and str(out.shape) == "[55]"


def test_stft_refuses_at_run_time_a_frame_longer_than_the_signal():
    """Batched [2, 10] signal, frame 11: the message names the signal's last dim (10), not the batch."""
    with pytest.raises(OpError, match=r"^Provided frame size is 11 but must be in range \[1, 10\]\.$"):
        STFT(transpose_frames=False).evaluate([np.ones((2, 10), np.float32), np.ones(7, np.float32), np.array(11),
                                              np.array(3)])


@pytest.mark.parametrize("element_type", ["i32", "u8", "boolean"])
def test_stft_refuses_integer_signals_as_openvino_refuses_them(element_type):
    types = [tt("10", element_type), tt("7", element_type), tt("", "i64"), tt("", "i64")]
    values = [None, None, np.array(4), np.array(3)]
    assert check_types(STFT(transpose_frames=False), types, lambda *xs: ov16.stft(*xs, False), values).refused
    with pytest.raises(OpError, match=f"^Expected floating point type of the 'signal' input. Got: {element_type}"):
        STFT(transpose_frames=False).infer(types, values)


def test_an_empty_window_is_refused():
    """openvino 2026.4.1's opset16.stft refuses it too ("Window input dimension must be in range [1, 8].")."""
    with pytest.raises(OpError, match=r"^Window input dimension must be in range \[1, 8\]. Got: \[0\]$"):
        infer(STFT(transpose_frames=False), [tt("20"), tt("0"), tt("", "i64"), tt("", "i64")], [None, None, 8, 2])
