"""ISTFT-16: the inverse short-time Fourier transform, back to a real signal."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.families.fft import FFT_TOLERANCE, as_complex, hermitian_extension, magnitude_axis, transform_axis
from irgraph.ops.numeric import round_float
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check, integer_values
from irgraph.ops.registry import register
from irgraph.ops.signals.stft import (
    check_computed,
    check_scalars,
    check_signal_types,
    check_window,
    frame_parameters,
    padded_window,
)

F32 = np.float32


def overlap_add(frames: np.ndarray, window: np.ndarray, step: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """``sum_f frame_f * window`` and ``sum_f window**2`` at each position of a ``length`` signal, frame after frame
    in the frames' dtype (the reference's order: each position's f32 sum rounds in frame order)."""
    frame_size = frames.shape[-1]
    total = np.zeros((*frames.shape[:-2], length), frames.dtype)
    weights = np.zeros(length, frames.dtype)
    squared = window * window
    for index in range(frames.shape[-2]):
        start = index * step
        total[..., start:start + frame_size] += frames[..., index, :] * window
        weights[start:start + frame_size] += squared
    return total, weights


@register
@dataclass(frozen=True)
class ISTFT(Op):
    """The inverse of STFT: ``data`` ``[batch?, frame_size // 2 + 1, frames, 2]`` to ``[batch?, length]``.

    As OpenVINO's reference: each frame's IRDFT (see irgraph.ops.families.fft) times the centred window,
    overlap-added frame after frame in f32, divided by the overlap-added squared window (0 where that is 0;
    ``normalized`` multiplies by ``sqrt(frame_size)`` first). The signal is ``(frames - 1) * frame_step +
    frame_size`` long; ``center`` drops ``frame_size // 2`` samples at the start and keeps ``frame_size & ~1``
    fewer; ``signal_length`` (when given and positive) sets the length, zero-padded. f16 and bf16 through
    f32; f64 in f64 with exact twiddles. Spec: ISTFT-16.
    """

    type_name = "ISTFT"
    introduced = 16
    cpu_plugin_differs = (
        "openvino 2026.4.1's plugin transforms frames with accurate twiddles (up to 0.44 frame_size eps x "
        "sum|terms| from the reference), corrupts its heap on a signal_length of 0 and crashes (SIGSEGV) on -1")
    inputs = Inputs.optional(4, InputSpec("data"), InputSpec("window"), InputSpec("frame_size"),
                             InputSpec("frame_step"), InputSpec("signal_length"))
    tolerance = Tolerance(ulp=FFT_TOLERANCE.ulp, sum_eps=2 * FFT_TOLERANCE.sum_eps)
    """The frames' IRDFT, then an f32 sum and quotient of the overlapping frames."""

    center: bool = attribute()
    normalized: bool = attribute()

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[batch?, length]``: ``signal_length`` when constant, else from the frames (intervals through)."""
        check_signal_types(inputs, "data")
        data = inputs[0]
        check(data.shape.rank_is_dynamic or data.shape.rank in (3, 4), f"The shape of data must be 3D or 4D. Got: "
              f"{data.shape}")
        check_scalars(inputs)
        frame_size = None if values[2] is None else integer_values(values[2], "frame_size")[0]
        frame_step = None if values[3] is None else integer_values(values[3], "frame_step")[0]
        if frame_size is not None:
            check(frame_size > 0, f"Provided frame size must be greater than zero, but got: {frame_size}")
            check_window(inputs[1].shape, frame_size)
            if not data.shape.rank_is_dynamic and data.shape.is_static:
                bins = data.shape[data.shape.rank - 3]
                check(bins.contains(frame_size // 2 + 1), f"The dimension at data_shape[-3] must be equal to: "
                      f"(frame_size // 2 + 1) = {frame_size // 2 + 1}. Got: {data.shape}")
        if frame_step is not None:
            check(frame_step > 0, f"Provided frame step must be greater than zero, but got: {frame_step}")
        element_type = data.element_type.merge(inputs[1].element_type) or data.element_type
        if data.shape.rank_is_dynamic:
            return [TensorType(element_type, DYNAMIC_RANK)]
        length = Dim.dynamic()
        if len(inputs) == 5:
            shape = inputs[4].shape
            check(shape.rank_is_dynamic or shape.rank == 0 or (shape.rank == 1 and shape[0].contains(1)),
                  f"The shape of 'signal_length' input must be a scalar or single element 1D tensor. Got: {shape}")
            if values[4] is not None:
                wanted = integer_values(values[4], "signal_length")[0]
                length = Dim.dynamic() if wanted == -1 else Dim.static(max(wanted, 0))  # as OpenVINO's Dimension
        elif frame_size is not None and frame_step is not None:
            frames = data.shape[data.shape.rank - 2]
            length = _signal_length(frames, frame_size, frame_step, self.center)
        batch = (data.shape[0],) if data.shape.rank == 4 else ()
        return [TensorType(element_type, Shape((*batch, length)))]

    def _plan(self, inputs: Sequence[np.ndarray]) -> tuple[int, int, int, int]:
        """Frame size and step, the overlap-added length and the output length."""
        data = np.asarray(inputs[0])
        check(data.ndim in (3, 4) and data.shape[-1] == 2,
              f"ISTFT data must be [batch?, bins, frames, 2] (real, imaginary). Got: {list(data.shape)}")
        frame_size, frame_step = frame_parameters(inputs)
        check(data.shape[-3] == frame_size // 2 + 1, f"The dimension at data_shape[-3] must be equal to: "
              f"(frame_size // 2 + 1) = {frame_size // 2 + 1}. Got: {list(data.shape)}")
        frames = data.shape[-2]
        check(frames > 0, f"ISTFT needs at least one frame. Got data {list(data.shape)}")
        full = (frames - 1) * frame_step + frame_size
        if len(inputs) == 5:
            check(np.size(inputs[4]) == 1, f"The shape of 'signal_length' input must be a scalar or single element "
                  f"1D tensor. Got: {list(np.shape(inputs[4]))}")
            wanted = integer_values(inputs[4], "signal_length")[0]
            check(wanted != -1, "ISTFT signal_length -1 gives no output shape (OpenVINO infers a dynamic dim)")
            return frame_size, frame_step, full, max(wanted, 0)
        return frame_size, frame_step, full, full - (frame_size & ~1) if self.center else full

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """``[batch?, length]``."""
        length = self._plan(inputs)[3]
        return [(*np.shape(inputs[0])[:-3], length)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """IRDFT of every frame, overlap-add, division by the squared window's overlap-add, the centre cut."""
        dtype = np.asarray(inputs[0]).dtype
        check_computed(dtype, "ISTFT")
        frame_size, frame_step, full, length = self._plan(inputs)
        wide = dtype == np.float64
        data = np.asarray(inputs[0])
        window = padded_window(np.asarray(inputs[1]).astype(np.float64 if wide else F32), frame_size)
        if wide:
            spectra = np.swapaxes(data[..., 0] + 1j * data[..., 1], -2, -1)
            frames = np.fft.irfft(spectra, n=frame_size, axis=-1)
        else:
            spectra = np.swapaxes(as_complex(data), -2, -1)  # [batch?, frames, bins]
            extended = hermitian_extension(spectra, spectra.ndim - 1, frame_size)
            frames = transform_axis(extended, extended.ndim - 1, True).real.astype(F32)
        total, weights = overlap_add(frames, window, frame_step, full)
        scale = np.sqrt(np.float64(frame_size)).astype(total.dtype)
        with np.errstate(all="ignore"):
            signal = np.where(weights != 0, (total * scale if self.normalized else total) / weights, 0).astype(
                total.dtype)
        return [round_float(self._cut(signal, frame_size, full, length), dtype)]

    def _cut(self, signal: np.ndarray, frame_size: int, full: int, length: int) -> np.ndarray:
        """The ``length`` samples from ``frame_size // 2`` on (``center``) or from 0, zero-padded at the end."""
        margin = frame_size // 2 if self.center else 0
        kept = min(length, full - margin)
        out = np.zeros((*signal.shape[:-1], length), signal.dtype)
        out[..., :kept] = signal[..., margin:margin + kept]
        return out

    def term_magnitudes(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Per output, the summed moduli of its frames' terms times ``|window|``, over the same divisor."""
        frame_size, frame_step, full, length = self._plan(inputs)
        pairs = np.abs(np.asarray(inputs[0], np.float64))
        spectra = np.swapaxes(pairs[..., 0] + pairs[..., 1], -2, -1)
        extended = hermitian_extension(spectra, spectra.ndim - 1, frame_size)
        frames = np.ascontiguousarray(magnitude_axis(extended, extended.ndim - 1, True))
        window = padded_window(np.asarray(inputs[1], np.float64), frame_size)
        total, _ = overlap_add(frames, np.abs(window), frame_step, full)
        _, weights = overlap_add(frames, window, frame_step, full)
        scale = math.sqrt(frame_size) if self.normalized else 1.0
        with np.errstate(all="ignore"):
            signal = np.where(weights != 0, total * scale / weights, 0)
        return [self._cut(signal, frame_size, full, length)]


def _signal_length(frames: Dim, frame_size: int, frame_step: int, center: bool) -> Dim:
    """``(frames - 1) * frame_step + frame_size``, less ``frame_size & ~1`` when centred, on each bound (frames
    less one is never below 0, as OpenVINO's interval arithmetic)."""
    cut = (frame_size & ~1) if center else 0
    return (frames - 1) * frame_step + frame_size - cut
