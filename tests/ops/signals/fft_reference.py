"""A literal, scalar port of OpenVINO's reference Fourier transforms, the oracle the differential tests lack.

OpenVINO 2026.4.1 neither folds nor evaluates DFT, IDFT, RDFT, IRDFT, STFT and ISTFT in its core: its
reference kernels (``src/core/reference/src/op/fft.cpp``, ``rdft.cpp``, ``irdft.cpp``, ``stft.cpp``,
``istft.cpp``) run only in the template plugin, which the wheel does not ship, and its CPU plugin has
kernels of its own. This module follows those reference files statement by statement in
``std::complex<float>`` arithmetic (every product and sum rounded to f32, no fused multiply-add, as
GCC compiles them for x86-64), one element at a time, so irgraph's vectorised implementation can be
checked against the reference's own algorithm: the radix-2 FFT for power-of-two lengths, the naive
O(n^2) DFT with f32 twiddle angles otherwise, the axis order, the zero-line rule and the inverse's
division. Twiddles come from the C library's ``sinf``/``cosf`` when it can be loaded (glibc, which
OpenVINO's Linux wheels call), else from f64 rounded to f32. Slow: small tensors only.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from collections.abc import Callable, Sequence

import numpy as np

F = np.float32
Complex = tuple[np.float32, np.float32]
PI = F(3.141592653589793238462643)


def _libm_functions() -> tuple[Callable[[float], float], Callable[[float], float]]:
    name = ctypes.util.find_library("m")
    try:
        library = ctypes.CDLL(name) if name else None
    except OSError:
        library = None
    if library is None:
        return (lambda x: float(F(math.sin(x))), lambda x: float(F(math.cos(x))))
    for function in (library.sinf, library.cosf):
        function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float]
    return library.sinf, library.cosf


SINF, COSF = _libm_functions()


def twiddle(k: int, length: int, inverse: bool) -> Complex:
    """``std::exp(complex(0, -2f * pi * float(k) / float(length)))``, conjugated for the inverse (glibc's cexpf
    takes sin(x) = x for |x| <= FLT_MIN, which keeps the angle's -0.0)."""
    angle = F(F(F(-2.0) * PI) * F(k)) / F(length)
    sine = angle if abs(angle) <= F(np.finfo(F).tiny) else F(SINF(float(angle)))
    cosine = F(COSF(float(angle)))
    return (cosine, -sine) if inverse else (cosine, sine)


def multiply(a: Complex, b: Complex) -> Complex:
    """``(a.re b.re - a.im b.im, a.re b.im + a.im b.re)``, each product rounded to f32."""
    return (F(a[0] * b[0]) - F(a[1] * b[1]), F(a[0] * b[1]) + F(a[1] * b[0]))


def fft1d(line: list[Complex], inverse: bool) -> list[Complex]:
    """The reference's ``fft1d``: radix-2 for powers of two, else the naive sum; a line of zeros unchanged."""
    length = len(line)
    if all(re == 0 and im == 0 for re, im in line):
        return list(line)
    if length & (length - 1) == 0:
        buffer: list[Complex] = [*line, *([(F(0), F(0))] * length)]
        in_base, out_base, blocks = length, 0, 1
        while blocks < length:
            in_base, out_base = out_base, in_base
            twiddles = [twiddle(k, 2 * blocks, inverse) for k in range(blocks)]
            block_size = length // blocks
            for block in range(blocks):
                in_offset = in_base + block * block_size
                out_offset = out_base + block * (block_size // 2)
                for pair in range(block_size // 2):
                    even = buffer[in_offset + pair]
                    odd = multiply(twiddles[block], buffer[in_offset + block_size // 2 + pair])
                    buffer[out_offset + pair] = (even[0] + odd[0], even[1] + odd[1])
                    buffer[out_offset + length // 2 + pair] = (even[0] - odd[0], even[1] - odd[1])
            blocks *= 2
        result = buffer[out_base:out_base + length]
    else:
        result = []
        for k in range(length):
            total = (F(0), F(0))
            for n in range(length):
                term = multiply(line[n], twiddle(n * k, length, inverse))
                total = (total[0] + term[0], total[1] + term[1])
            result.append(total)
    if inverse:
        result = [(re / F(length), im / F(length)) for re, im in result]
    return result


def fft(data: np.ndarray, axes: Sequence[int], lengths: Sequence[int], inverse: bool) -> np.ndarray:
    """The reference's ``fft``: complex ``data`` (f32 ``[..., 2]``) padded or trimmed to ``lengths`` (the complex
    shape), then transformed over the canonical ``axes``, the highest first, stored in f32 between axes."""
    rank = data.ndim - 1
    block = np.zeros((*lengths, 2), F)
    common = tuple(slice(0, min(a, b)) for a, b in zip(data.shape[:-1], lengths, strict=True))
    block[common] = data[common]
    for axis in sorted(axes, reverse=True):
        moved = np.moveaxis(block, axis, -2)
        for index in np.ndindex(*moved.shape[:-2]):
            line = [(F(re), F(im)) for re, im in moved[index]]
            moved[index] = np.array(fft1d(line, inverse), F).reshape(-1, 2)
    assert block.ndim == rank + 1
    return block


def rdft(data: np.ndarray, axes: Sequence[int], lengths: Sequence[int]) -> np.ndarray:
    """The reference's ``rdft``: the forward ``fft`` of ``(x, 0)``, the last listed axis clipped to ``n // 2 + 1``."""
    pairs = np.stack([data.astype(F), np.zeros(data.shape, F)], axis=-1)
    full = fft(pairs, axes, lengths, inverse=False)
    last = axes[-1]
    return np.take(full, range(lengths[last] // 2 + 1 if lengths[last] else 0), axis=last)


def irdft(data: np.ndarray, axes: Sequence[int], lengths: Sequence[int]) -> np.ndarray:
    """The reference's ``irdft``: the inverse ``fft`` over the other axes, the Hermitian extension of the last listed
    axis to its length ``n``, the inverse ``fft`` over it, the real part."""
    last = axes[-1]
    outer = list(lengths)
    outer[last] = data.shape[last]
    partial = fft(data.astype(F), axes[:-1], outer, inverse=True)
    length, size = lengths[last], partial.shape[last]
    bound = length // 2 + 1
    moved = np.moveaxis(partial, last, -2)
    extended = np.zeros((*moved.shape[:-2], length, 2), F)
    for index in np.ndindex(*moved.shape[:-2]):
        for j in range(bound):
            value = moved[index][j] if j < size else np.zeros(2, F)
            if j < length:
                extended[index][j] = value
            if 0 < j < length - bound + 1:
                extended[index][length - j] = (value[0], -value[1])
    extended = np.moveaxis(extended, -2, last)
    return fft(extended, [last], lengths, inverse=True)[..., 0]


def padded_window(window: np.ndarray, frame_size: int) -> np.ndarray:
    """``pad_window``: the window copied to offset ``(frame_size - len) / 2`` of ``frame_size`` zeros."""
    padded = np.zeros(frame_size, F)
    start = (frame_size - min(window.shape[0], frame_size)) // 2
    padded[start:start + window.shape[0]] = window
    return padded


def stft(signal: np.ndarray, window: np.ndarray, frame_size: int, frame_step: int,
         transpose_frames: bool) -> np.ndarray:
    """The reference's ``stft``: each frame times the padded window (f32 products), its ``rdft``."""
    batched = signal.astype(F).reshape(-1, signal.shape[-1])
    pad = padded_window(window.astype(F), frame_size)
    frames = (batched.shape[1] - frame_size) // frame_step + 1
    out = np.zeros((batched.shape[0], frames, frame_size // 2 + 1, 2), F)
    for batch in range(batched.shape[0]):
        for frame in range(frames):
            start = frame * frame_step
            piece = np.array([F(v * w) for v, w in zip(batched[batch, start:start + frame_size], pad, strict=True)], F)
            out[batch, frame] = rdft(piece, [0], [frame_size])
    if transpose_frames:
        out = out.transpose(0, 2, 1, 3)
    return out.reshape(signal.shape[:-1] + out.shape[1:])


def istft(data: np.ndarray, window: np.ndarray, frame_size: int, frame_step: int, length: int, center: bool,
          normalized: bool) -> np.ndarray:
    """The reference's ``istft``: each frame's ``irdft`` times the padded window, overlap-added frame after frame with
    the squared window, divided (``* sqrt(frame_size)`` first when normalized), the centre cut."""
    batched = data.astype(F).reshape((-1,) + data.shape[-3:])
    frames = batched.shape[2]
    full = (frames - 1) * frame_step + frame_size
    final = length if length > 0 else (full - (frame_size & ~1) if center else full)
    pad = padded_window(window.astype(F), frame_size)
    squared = [F(w * w) for w in pad]
    root = F(math.sqrt(frame_size))
    out = np.zeros((batched.shape[0], final), F)
    for batch in range(batched.shape[0]):
        total = [F(0)] * full
        weights = [F(0)] * full
        for frame in range(frames):
            signal = irdft(batched[batch, :, frame, :], [0], [frame_size])
            start = frame * frame_step
            for i in range(frame_size):
                total[start + i] = total[start + i] + F(signal[i] * pad[i])
                weights[start + i] = weights[start + i] + squared[i]
        result = [(F(a * root) if normalized else a) / b if b != 0 else F(0) for a, b in zip(total, weights,
                                                                                             strict=True)]
        margin = frame_size // 2 if center else 0
        kept = min(final, full - margin)
        out[batch, :kept] = result[margin:margin + kept]
    return out.reshape(data.shape[:-3] + (final,))
