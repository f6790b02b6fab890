"""STFT-15: the short-time Fourier transform of a real signal."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.families.fft import FFT_TOLERANCE, magnitude_axis, transform_axis
from irgraph.ops.numeric import round_float
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values
from irgraph.ops.registry import register

F32 = np.float32
COMPUTED_TYPES = (ElementType.F32, ElementType.F16, ElementType.BF16, ElementType.F64)
"""Element types STFT and ISTFT run: OpenVINO's reference kernels take f32, f16 and bf16 (computed in f32);
f64, which its shape inference accepts and no kernel runs, is computed in f64 with exact twiddles."""
_INDEX_TYPES = (ElementType.I32, ElementType.I64)


def check_signal_types(inputs: Sequence[TensorType], data: str) -> None:
    """A floating-point data input, a window of the same type, i32/i64 frame size and step (and signal length)."""
    signal, window = inputs[0].element_type, inputs[1].element_type
    check(signal.is_dynamic or (signal.is_real and signal is not ElementType.NF4),
          f"Expected floating point type of the '{data}' input. Got: {signal}")
    check(window.is_dynamic or signal.is_dynamic or window is signal,
          f"Expected floating point type of the 'window' input, matching the type of `{data}` input. Got: "
          f"{window} and {signal}")
    for port in range(2, len(inputs)):
        found = inputs[port].element_type
        check(found.is_dynamic or found in _INDEX_TYPES, f"Expected i32 or i64 type of the input at port: {port}. "
              f"Got: {found}")


def check_scalars(inputs: Sequence[TensorType]) -> None:
    """A 1D window, scalar frame size and step."""
    check(inputs[1].shape.rank_is_dynamic or inputs[1].shape.rank == 1,
          f"The shape of window must be 1D [window_size]. Got: {inputs[1].shape}")
    for port, name in ((2, "frame_size"), (3, "frame_step")):
        check(inputs[port].shape.rank_is_dynamic or inputs[port].shape.rank == 0,
              f"The shape of {name} must be a scalar. Got: {inputs[port].shape}")


def check_window(window: Shape, frame_size: int) -> None:
    """A static window length in ``[1, frame_size]``."""
    if not window.rank_is_dynamic and window.is_static:
        check(0 < window[0].value <= frame_size,
              f"Window input dimension must be in range [1, {frame_size}]. Got: {window}")


def padded_window(window: np.ndarray, frame_size: int) -> np.ndarray:
    """The window centred in ``frame_size`` zeros (offset ``(frame_size - len) // 2``), as the reference pads it."""
    padded = np.zeros(frame_size, window.dtype)
    start = (frame_size - window.shape[0]) // 2
    padded[start:start + window.shape[0]] = window
    return padded


def frame_parameters(inputs: Sequence[np.ndarray]) -> tuple[int, int]:
    """Frame size and step, positive; the window no longer than a frame."""
    frame_size = integer_values(inputs[2], "frame_size")[0]
    frame_step = integer_values(inputs[3], "frame_step")[0]
    check(frame_size > 0, f"Provided frame size must be greater than zero, but got: {frame_size}")
    check(frame_step > 0, f"Provided frame step must be greater than zero, but got: {frame_step}")
    check(np.ndim(inputs[1]) == 1 and 0 < np.shape(inputs[1])[0] <= frame_size,
          f"Window input dimension must be in range [1, {frame_size}]. Got: {list(np.shape(inputs[1]))}")
    return frame_size, frame_step


def check_computed(dtype: np.dtype, op: str) -> None:
    """Refuse element types no reference kernel runs (f8: OpenVINO's shape inference takes them)."""
    check(ElementType.from_numpy(dtype) in COMPUTED_TYPES,
          f"{op} runs f32, f16, bf16 and f64 data (OpenVINO's reference has no kernel for {dtype})")


@register
@dataclass(frozen=True)
class STFT(Op):
    """The half spectrum of each windowed frame of a real ``signal``: ``[batch?, frames, bins, 2]``.

    ``bins`` is ``frame_size // 2 + 1``, the window is centred in the frame, and ``transpose_frames`` swaps
    frames and bins. As OpenVINO's reference: frames at ``i * frame_step`` while they fit, the window product
    in f32, each frame's RDFT computed as RDFT-9's (see irgraph.ops.families.fft), f16 and bf16 through f32.
    f64 uses exact twiddles. Spec: STFT-15.
    """

    type_name = "STFT"
    introduced = 15
    cpu_plugin_differs = (
        "openvino 2026.4.1's plugin transforms frames with accurate twiddles: up to 0.7 frame_size eps x "
        "sum|terms| from the reference for frame sizes that are not powers of two")
    inputs = Inputs.of(InputSpec("signal"), InputSpec("window"), InputSpec("frame_size"),
                       InputSpec("frame_step"))
    tolerance = FFT_TOLERANCE

    transpose_frames: bool = attribute()

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[batch?, frames, bins, 2]`` (``[batch?, bins, frames, 2]`` transposed), intervals through frames."""
        check_signal_types(inputs, "signal")
        signal = inputs[0]
        element_type = signal.element_type.merge(inputs[1].element_type) or signal.element_type
        check(signal.shape.rank_is_dynamic or signal.shape.rank in (1, 2),
              f"The shape of signal must be 1D [signal_size] or 2D [batch, signal_size]. Got: {signal.shape}")
        check_scalars(inputs)
        if signal.shape.rank_is_dynamic:
            return [TensorType(element_type, DYNAMIC_RANK)]
        batch = tuple(signal.shape)[:-1]
        if values[2] is None or values[3] is None:
            return [TensorType(element_type, Shape((*batch, Dim.dynamic(), Dim.dynamic(), Dim.static(2))))]
        frame_size = integer_values(values[2], "frame_size")[0]
        frame_step = integer_values(values[3], "frame_step")[0]
        length = signal.shape[signal.shape.rank - 1]
        check(0 < frame_size and (length.max is None or frame_size <= length.max),
              f"Provided frame size is {frame_size} but must be in range [1, {length}].")
        check(frame_step > 0, f"Provided frame step is {frame_step} but must be greater than zero.")
        check_window(inputs[1].shape, frame_size)
        frames = (length - frame_size).floor_div(frame_step) + 1
        bins = Dim.static(frame_size // 2 + 1)
        pair = (bins, frames) if self.transpose_frames else (frames, bins)
        return [TensorType(element_type, Shape((*batch, *pair, Dim.static(2))))]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """``[batch?, frames, bins, 2]`` (bins and frames swapped when ``transpose_frames``)."""
        signal = np.asarray(inputs[0])
        check(signal.ndim in (1, 2), f"The shape of signal must be 1D [signal_size] or 2D [batch, signal_size]. "
              f"Got: {list(signal.shape)}")
        frame_size, frame_step = frame_parameters(inputs)
        check(frame_size <= signal.shape[-1],
              f"Provided frame size is {frame_size} but must be in range [1, {signal.shape[-1]}].")
        frames, bins = (signal.shape[-1] - frame_size) // frame_step + 1, frame_size // 2 + 1
        return [(*signal.shape[:-1], *((bins, frames) if self.transpose_frames else (frames, bins)), 2)]

    def _frames(self, inputs: Sequence[np.ndarray], dtype: type) -> tuple[np.ndarray, int]:
        """The windowed frames ``[batch?, frames, frame_size]`` in ``dtype`` (the product rounded there)."""
        self.output_shapes(inputs)
        frame_size, frame_step = frame_parameters(inputs)
        signal: np.ndarray = np.asarray(inputs[0]).astype(dtype)
        frames = np.lib.stride_tricks.sliding_window_view(signal, frame_size, axis=-1)[..., ::frame_step, :]
        return frames * padded_window(np.asarray(inputs[1]).astype(dtype), frame_size), frame_size

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each windowed frame's half spectrum; f64 by numpy.fft, the others as RDFT-9 in f32."""
        dtype = np.asarray(inputs[0]).dtype
        check_computed(dtype, "STFT")
        wide = dtype == np.float64
        frames, frame_size = self._frames(inputs, np.float64 if wide else F32)
        if wide:
            spectrum = np.fft.rfft(frames, axis=-1)
        else:
            spectrum = transform_axis(frames.astype(np.complex64), frames.ndim - 1, False, frame_size // 2 + 1)
        pairs = np.stack([spectrum.real, spectrum.imag], axis=-1)
        if self.transpose_frames:
            pairs = np.swapaxes(pairs, -3, -2)
        return [round_float(np.ascontiguousarray(pairs, np.float64 if wide else F32), dtype)]

    def term_magnitudes(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Per output, the sum of ``|signal * window|`` over its frame (``sum_eps`` of the tolerance)."""
        frames, frame_size = self._frames([np.abs(np.asarray(x, np.float64)) if i < 2 else x
                                           for i, x in enumerate(inputs)], np.float64)
        total = magnitude_axis(frames, frames.ndim - 1, False, frame_size // 2 + 1)
        pairs = np.repeat(np.asarray(total)[..., None], 2, axis=-1)
        return [np.swapaxes(pairs, -3, -2) if self.transpose_frames else pairs]
