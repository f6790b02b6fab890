"""DFT-7, IDFT-7, RDFT-9 and IRDFT-9: discrete Fourier transforms over some axes of a tensor.

Complex tensors are real tensors with a trailing dim of 2 (real, imaginary). OpenVINO's reference
(``reference/fft.cpp``, reached through the template plugin: 2026.4.1 neither folds nor evaluates
these ops in its core) computes in ``std::complex<float>``: f16 and bf16 go to f32 and are rounded
once at the end. It zero-pads or trims every transformed axis to its signal size, then transforms
one axis at a time, the highest axis first, storing f32 between axes. A length that is a power of
two takes a radix-2 FFT; any other length the naive O(n^2) sum with twiddles ``exp(-2 pi i n k / L)``
whose angle is computed in f32 from ``float(n * k)`` -- up to ``2 pi L`` radians, so those twiddles
are off by up to ``L`` f32 ulps of the angle. A line (or block) of zeros is left as it is.

irgraph keeps the reference's structure (pad/trim, axis order, f32 between axes, the zero rule, the
inverse's division by ``L`` in f32) and vectorises each axis: a power-of-two length is NumPy's FFT in
f64 (the reference's radix-2 twiddles are accurate), any other length the reference's own f32
twiddles applied in f64 by one matrix product. Each axis is rounded to f32 once, where the reference
rounds at every product and sum: the difference stays within ``FFT_TOLERANCE`` of the sum of the
moduli of the terms (``term_magnitudes``). Plain ``numpy.fft`` for every length would differ from the
reference by up to ``0.2 L`` machine epsilons of that sum (measured: 18 at L = 100), because of those
twiddles. NaN and infinities spread over their transformed block, but not to the same positions as
the reference's complex arithmetic puts them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, PartialValue, Shape, TensorType
from irgraph.ops.numeric import round_float
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, check, integer_values
from irgraph.ops.traits import OpTraits

F32 = np.float32
FFT_TOLERANCE = Tolerance(ulp=2, sum_eps=4)
"""f32 rounding of each product and sum in the reference against one rounding per axis here."""
TWIDDLE_CHUNK = 1 << 21
"""Twiddles (complex128) built at a time for a naive-length axis: 32 MiB, whatever the length."""
_DATA_TYPES = (ElementType.F32, ElementType.F16, ElementType.BF16)
_INDEX_TYPES = (ElementType.I32, ElementType.I64)
AxisStep = Callable[[np.ndarray, int, bool], np.ndarray]
"""``transform_axis`` or ``magnitude_axis``: one axis of the pipeline, values or term magnitudes."""
_TWO_PI = F32(-2.0) * F32(math.pi)  # the reference's ``-2.0f * pi``: the f32 pi, doubled exactly


# ------------------------------------------------------------------------------------ one axis
def is_power_of_two(length: int) -> bool:
    """True for 1, 2, 4, ... (the reference's radix-2 lengths)."""
    return length > 0 and length & (length - 1) == 0


def reference_twiddles(length: int, columns: np.ndarray, inverse: bool) -> np.ndarray:
    """``exp(-+2 pi i n k / L)`` for n in ``range(length)`` and k in ``columns``, as the reference's naive DFT
    computes them: the angle ``(-2f * pi) * float(n * k) / float(L)`` in f32, its cosine and sine rounded to
    f32 (glibc's ``sinf``/``cosf`` are within 1 ulp of that), conjugated for the inverse. complex128 [n, k]."""
    products = np.multiply.outer(np.arange(length, dtype=np.int64), columns.astype(np.int64)).astype(F32)
    angle = _TWO_PI * products / F32(length)
    wide = angle.astype(np.float64)
    sine = np.sin(wide).astype(F32).astype(np.float64)
    return np.cos(wide).astype(F32).astype(np.float64) + 1j * (-sine if inverse else sine)


def transform_axis(data: np.ndarray, axis: int, inverse: bool, keep: int | None = None) -> np.ndarray:
    """One axis of complex64 ``data`` transformed as the reference does, rounded to complex64; only the first
    ``keep`` outputs of that axis (RDFT's half spectrum) when given."""
    length = data.shape[axis]
    keep = length if keep is None else keep
    lines = np.moveaxis(data, axis, -1)
    if lines.size == 0 or keep == 0:
        return np.moveaxis(np.zeros(lines.shape[:-1] + (keep,), np.complex64), -1, axis)
    wide = lines.astype(np.complex128)
    if is_power_of_two(length):
        full = np.fft.ifft(wide, axis=-1) * length if inverse else np.fft.fft(wide, axis=-1)
        result = full[..., :keep].astype(np.complex64)
    else:
        result = np.empty(lines.shape[:-1] + (keep,), np.complex64)
        step = max(1, TWIDDLE_CHUNK // length)
        with np.errstate(all="ignore"):
            for start in range(0, keep, step):
                columns = np.arange(start, min(keep, start + step))
                result[..., columns[0]:columns[-1] + 1] = wide @ reference_twiddles(length, columns, inverse)
    if inverse:  # the reference divides each part by float(L) in f32 after summing
        result.real /= F32(length)
        result.imag /= F32(length)
    zero = ~np.any(lines != 0, axis=-1, keepdims=True)
    if zero.any():  # a line of zeros is left as it is (its -0.0 stay)
        result = np.where(zero, lines[..., :keep], result)
    return np.moveaxis(result, -1, axis)


def magnitude_axis(data: np.ndarray, axis: int, inverse: bool, keep: int | None = None) -> np.ndarray:
    """``transform_axis`` for term magnitudes: every output sums the moduli of the whole line (a twiddle has
    modulus 1), divided by ``L`` for the inverse."""
    length = data.shape[axis]
    total = data.sum(axis=axis, keepdims=True) / (length if inverse and length else 1)
    shape = list(data.shape)
    shape[axis] = length if keep is None else keep
    return np.broadcast_to(total, shape)


def resized(data: np.ndarray, lengths: Sequence[int]) -> np.ndarray:
    """``data`` trimmed or zero-padded at the end of each axis to ``lengths`` (the reference reads zeros past the
    input)."""
    if tuple(lengths) == data.shape:
        return data
    out = np.zeros(tuple(lengths), data.dtype)
    common = tuple(slice(0, min(a, b)) for a, b in zip(data.shape, lengths, strict=True))
    out[common] = data[common]
    return out


def as_complex(data: np.ndarray) -> np.ndarray:
    """A ``[..., 2]`` float tensor as complex64 ``[...]`` (f16 and bf16 widened to f32 exactly)."""
    pairs = np.ascontiguousarray(data, dtype=F32)
    return pairs.view(np.complex64)[..., 0] if pairs.size else np.zeros(pairs.shape[:-1], np.complex64)


def as_pairs(data: np.ndarray) -> np.ndarray:
    """complex64 ``[...]`` as f32 ``[..., 2]``."""
    return np.stack([data.real, data.imag], axis=-1).astype(F32)


# ------------------------------------------------------------------------------------ the ops
@dataclass(frozen=True)
class FourierTransform(Op):
    """A DFT family member: data, 1D ``axes``, an optional 1D ``signal_size`` (one length per axis; -1 keeps the
    axis' length, a longer one pads with zeros, a shorter one trims). Subclasses set ``inverse``,
    ``real_input`` (RDFT) and ``real_output`` (IRDFT)."""

    traits = OpTraits(calls_blas=True)

    inputs = Inputs.optional(
        2, InputSpec("data"), InputSpec("axes"),
        InputSpec("signal_size", bounds=True),
    )
    tolerance = FFT_TOLERANCE
    inverse: ClassVar[bool] = False
    real_input: ClassVar[bool] = False
    real_output: ClassVar[bool] = False

    # -------------------------------------------------------------------------------- shapes
    @property
    def complex_input(self) -> bool:
        """True when the data's last dim holds (real, imaginary)."""
        return not self.real_input

    def _check_types(self, inputs: Sequence[TensorType]) -> None:
        data, axes = inputs[0], inputs[1]
        check(data.element_type.is_dynamic or data.element_type in _DATA_TYPES,
              f"FFT op input element type must be f32, f16, or bf16. Got: {data.element_type}")
        check(axes.element_type.is_dynamic or axes.element_type in _INDEX_TYPES,
              f"FFT op axes element type must be i32 or i64. Got: {axes.element_type}")
        if len(inputs) == 3:
            check(inputs[2].element_type.is_dynamic or inputs[2].element_type in _INDEX_TYPES,
                  f"FFT op signal_size element type must be i32 or i64. Got: {inputs[2].element_type}")

    def _check_shapes(self, inputs: Sequence[TensorType]) -> None:
        data, axes = inputs[0].shape, inputs[1].shape
        minimum = 2 if self.complex_input else 1
        if not data.rank_is_dynamic:
            check(data.rank >= minimum, f"The input rank must be greater or equal to {minimum}. Got: {data}")
            if self.complex_input:
                check(data[data.rank - 1].contains(2), f"The last dimension of input data must be 2. Got: {data}")
            if not axes.rank_is_dynamic and axes.rank == 1 and axes[0].is_static:
                check(data.rank >= axes[0].value + (1 if self.complex_input else 0),
                      f"The input rank must be greater than {'' if self.complex_input else 'or equal to '}"
                      f"the number of axes. Got: data {data}, axes {axes}")
        check(axes.rank_is_dynamic or axes.rank == 1, f"Axes input must be 1D tensor. Got: {axes}")
        if len(inputs) == 3:
            sizes = inputs[2].shape
            check(sizes.rank_is_dynamic or sizes.rank == 1, f"Signal size input must be 1D tensor. Got: {sizes}")
            if not axes.rank_is_dynamic and not sizes.rank_is_dynamic and axes.rank == 1 and sizes.rank == 1:
                check(axes[0].compatible(sizes[0]),
                      f"Sizes of inputs 'axes' and 'signal_size' must be equal. Got: axes {axes}, signal_size {sizes}")

    def canonical_axes(self, axes: Sequence[int], data_rank: int) -> list[int]:
        """Axes counted from 0 over the transformed rank (the complex rank for complex data), checked unique."""
        rank = data_rank - 1 if self.complex_input else data_rank
        for axis in axes:
            check(-rank <= axis < rank, f"Axis {axis} out of the tensor rank range [{-rank}, {rank - 1}].")
        found = [axis + rank if axis < 0 else axis for axis in axes]
        check(len(set(found)) == len(found), f"Each axis must be unique. Got: {list(axes)}")
        return found

    def infer(
        self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | PartialValue | None]
    ) -> list[TensorType]:
        """OpenVINO's shape rule of the family member (``fft_base``, ``rdft`` and ``irdft`` shape inference)."""
        self._check_types(inputs)
        self._check_shapes(inputs)
        data = inputs[0]
        axes_value = values[1]
        assert not isinstance(axes_value, PartialValue)  # only signal_size is a `bounds` input
        axes = None if axes_value is None else integer_values(axes_value, "axes")
        if axes is not None and not data.shape.rank_is_dynamic:
            axes = self.canonical_axes(axes, data.shape.rank)
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        sizes = self._signal_dims(values[2]) if len(inputs) == 3 else None
        if axes is not None and not axes and (self.real_input or self.real_output):
            raise OpError(f"{self.type_name} needs at least one axis. Got: []")  # OpenVINO 2026.4.1 crashes
        return [TensorType(data.element_type, self.output_shape(data.shape, axes, len(inputs) == 3, sizes))]

    def _signal_dims(self, value: np.ndarray | PartialValue | None) -> list[Dim | None] | None:
        """Per axis: the dim the signal size gives, None for -1 (keep the axis); None when unknown. DFT and IDFT
        take bounds (a computed size ``2..7``); RDFT and IRDFT only a known value, as OpenVINO 2026.4.1."""
        if isinstance(value, PartialValue) and value.is_exact:
            value = value.lower
        if value is None or (isinstance(value, PartialValue) and (self.real_input or self.real_output)):
            return None
        if isinstance(value, PartialValue):
            lows, highs = value.lower.reshape(-1).tolist(), value.upper.reshape(-1).tolist()
            dims: list[Dim | None] = []
            for low, high, dim in zip(lows, highs, value.dims(), strict=True):
                dims.append(None if low == high == -1 else dim)
            return dims
        return [None if v == -1 else Dim.static(max(v, 0)) for v in integer_values(value, "signal_size")]

    def output_shape(self, shape: Shape, axes: list[int] | None, has_sizes: bool,
                     sizes: list[Dim | None] | None) -> Shape:
        """DFT and IDFT: the data's shape with each transformed axis at its signal size."""
        dims = list(shape)
        if not has_sizes:
            return shape
        if axes is None:
            return Shape(tuple(Dim.dynamic() for _ in dims[:-1]) + (dims[-1],))
        for index, axis in enumerate(axes):
            if sizes is None:
                dims[axis] = Dim.dynamic()
            elif (size := sizes[index]) is not None:
                dims[axis] = size
        return Shape(tuple(dims))

    # -------------------------------------------------------------------------------- values
    def plan(self, inputs: Sequence[np.ndarray]) -> tuple[list[int], list[int]]:
        """The canonical axes and the transform lengths (the complex shape, signal sizes applied)."""
        data = np.asarray(inputs[0])
        check(np.ndim(inputs[1]) == 1, f"Axes input must be 1D tensor. Got shape {list(np.shape(inputs[1]))}")
        minimum = 2 if self.complex_input else 1
        check(data.ndim >= minimum, f"The input rank must be greater or equal to {minimum}. Got shape "
              f"{list(data.shape)}")
        check(not self.complex_input or data.shape[-1] == 2,
              f"The last dimension of input data must be 2. Got shape {list(data.shape)}")
        axes = self.canonical_axes(integer_values(inputs[1], "axes"), data.ndim)
        lengths = list(data.shape[:-1] if self.complex_input else data.shape)
        if len(inputs) == 3:
            sizes = integer_values(inputs[2], "signal_size")
            check(np.ndim(inputs[2]) == 1 and len(sizes) == len(axes),
                  f"Sizes of inputs 'axes' and 'signal_size' must be equal. Got: axes {len(axes)}, signal_size "
                  f"{list(np.shape(inputs[2]))}")
            for axis, size in zip(axes, sizes, strict=True):
                if size != -1:
                    lengths[axis] = max(size, 0)
        return axes, lengths

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """DFT and IDFT: the transform lengths and the trailing 2."""
        _, lengths = self.plan(inputs)
        return [(*lengths, 2)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """DFT and IDFT: every axis transformed, the highest first."""
        axes, lengths = self.plan(inputs)
        data = resized(as_complex(inputs[0]), lengths)
        for axis in sorted(axes, reverse=True):
            data = transform_axis(data, axis, self.inverse)
        return [round_float(as_pairs(data), np.asarray(inputs[0]).dtype)]

    def term_magnitudes(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Per output, the sum of the moduli of the terms it sums (the ``sum_eps`` scale of ``FFT_TOLERANCE``):
        the transform with every twiddle replaced by 1, on ``|re| + |im|``."""
        axes, lengths = self.plan(inputs)
        pairs = np.abs(np.asarray(inputs[0], np.float64))
        data = resized(pairs[..., 0] + pairs[..., 1], lengths)
        for axis in sorted(axes, reverse=True):
            data = magnitude_axis(data, axis, self.inverse)
        return [np.repeat(data[..., None], 2, axis=-1)]


def half_spectrum(length: Dim) -> Dim:
    """RDFT's last axis: ``n // 2 + 1`` of each bound (0 stays 0)."""
    def bound(value: int) -> int:
        return value // 2 + 1 if value > 0 else value

    return Dim(bound(length.min), None if length.max is None else bound(length.max))


def hermitian_length(length: Dim) -> Dim:
    """IRDFT's default last axis: ``2 * (n - 1)`` of each bound, never below 0."""
    return (length - 1) * 2


@dataclass(frozen=True)
class RealForward(FourierTransform):
    """RDFT: real data, the complex DFT over the axes with the last listed axis cut to ``n // 2 + 1``."""

    real_input = True

    def output_shape(self, shape: Shape, axes: list[int] | None, has_sizes: bool,
                     sizes: list[Dim | None] | None) -> Shape:
        """The data's shape with each signal size applied, the last listed axis halved, and a trailing 2."""
        dims = list(shape)
        if axes is None:
            return Shape(tuple(Dim.dynamic() for _ in dims) + (Dim.static(2),))
        last = axes[-1]
        if has_sizes and sizes is None:
            dims[last] = Dim.dynamic()
            return Shape((*dims, Dim.static(2)))
        for index, axis in enumerate(axes):
            if sizes is not None and (size := sizes[index]) is not None:
                dims[axis] = size
        dims[last] = half_spectrum(dims[last])
        return Shape((*dims, Dim.static(2)))

    def plan(self, inputs: Sequence[np.ndarray]) -> tuple[list[int], list[int]]:
        """The canonical axes (at least one) and the transform lengths."""
        axes, lengths = super().plan(inputs)
        check(bool(axes), "RDFT needs at least one axis. Got: []")
        return axes, lengths

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The transform lengths, the last listed axis halved, and a trailing 2."""
        axes, lengths = self.plan(inputs)
        lengths[axes[-1]] = lengths[axes[-1]] // 2 + 1 if lengths[axes[-1]] > 0 else 0
        return [(*lengths, 2)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The complex DFT of ``(x, 0)``; the last listed axis keeps its first ``n // 2 + 1`` outputs (cut
        when that axis is transformed: the other axes' lines never mix its positions)."""
        axes, lengths = self.plan(inputs)
        data = resized(np.asarray(inputs[0], F32).astype(np.complex64), lengths)
        for axis in sorted(axes, reverse=True):
            keep = lengths[axis] // 2 + 1 if axis == axes[-1] and lengths[axis] > 0 else None
            data = transform_axis(data, axis, inverse=False, keep=keep)
        return [round_float(as_pairs(data), np.asarray(inputs[0]).dtype)]

    def term_magnitudes(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Sums of ``|x|`` over the transformed block (see ``FourierTransform.term_magnitudes``)."""
        axes, lengths = self.plan(inputs)
        data = resized(np.abs(np.asarray(inputs[0], np.float64)), lengths)
        for axis in sorted(axes, reverse=True):
            keep = lengths[axis] // 2 + 1 if axis == axes[-1] and lengths[axis] > 0 else None
            data = magnitude_axis(data, axis, False, keep)
        return [np.repeat(data[..., None], 2, axis=-1)]


@dataclass(frozen=True)
class RealInverse(FourierTransform):
    """IRDFT: the inverse of RDFT. The last listed axis holds the first ``m`` values of a Hermitian-symmetric
    spectrum of length ``n`` (``2 (m - 1)`` unless the signal size says): the reference runs the inverse
    transform over the other axes, extends the last axis to ``n`` with the conjugates mirrored, runs the
    inverse over it and keeps the real part."""

    inverse = True
    real_output = True

    def output_shape(self, shape: Shape, axes: list[int] | None, has_sizes: bool,
                     sizes: list[Dim | None] | None) -> Shape:
        """The complex shape with each signal size applied; the last listed axis ``2 (m - 1)`` by default."""
        dims = list(shape)[:-1]
        if axes is None:
            return Shape(tuple(Dim.dynamic() for _ in dims))
        last = axes[-1]
        if not has_sizes:
            dims[last] = hermitian_length(dims[last])
            return Shape(tuple(dims))
        if sizes is None:
            dims[last] = Dim.dynamic()
            return Shape(tuple(dims))
        for index, axis in enumerate(axes):
            if (size := sizes[index]) is not None:
                dims[axis] = size
        if sizes[-1] is None:
            dims[last] = hermitian_length(shape[last])
        return Shape(tuple(dims))

    def plan(self, inputs: Sequence[np.ndarray]) -> tuple[list[int], list[int]]:
        """The canonical axes and the output lengths (the last listed axis ``2 (m - 1)`` by default)."""
        axes, lengths = super().plan(inputs)
        check(bool(axes), "IRDFT needs at least one axis. Got: []")
        sizes = integer_values(inputs[2], "signal_size") if len(inputs) == 3 else [-1]
        if sizes[-1] == -1:
            lengths[axes[-1]] = max(0, 2 * (np.shape(inputs[0])[axes[-1]] - 1))
        return axes, lengths

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The output lengths."""
        return [tuple(self.plan(inputs)[1])]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Inverse over the other axes, the Hermitian extension, inverse over the last listed axis, real part."""
        data = self._run(as_complex(inputs[0]), inputs, transform_axis)
        return [round_float(data.real.astype(F32), np.asarray(inputs[0]).dtype)]

    def term_magnitudes(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Sums of the moduli through the same steps (see ``FourierTransform.term_magnitudes``)."""
        pairs = np.abs(np.asarray(inputs[0], np.float64))
        return [np.ascontiguousarray(self._run(pairs[..., 0] + pairs[..., 1], inputs, magnitude_axis))]

    def _run(self, data: np.ndarray, inputs: Sequence[np.ndarray], along: AxisStep) -> np.ndarray:
        axes, lengths = self.plan(inputs)
        last = axes[-1]
        outer = list(lengths)
        outer[last] = data.shape[last]  # the last axis is resized by the extension, not before
        data = resized(data, outer)
        for axis in sorted(axes[:-1], reverse=True):
            data = along(data, axis, True)
        data = hermitian_extension(data, last, lengths[last])
        return along(data, last, True)


def hermitian_extension(data: np.ndarray, axis: int, length: int) -> np.ndarray:
    """The reference's ``extend_to_hermitian_symmetric``: positions ``j < n // 2 + 1`` take the input (zeros past
    its end), positions ``n - j`` for ``0 < j < n - n // 2`` its conjugate; the rest stay zero."""
    lines = np.moveaxis(data, axis, -1)
    bound = length // 2 + 1
    out = np.zeros(lines.shape[:-1] + (length,), lines.dtype)
    taken = min(bound, lines.shape[-1], length)
    out[..., :taken] = lines[..., :taken]
    mirrored = range(1, min(bound, length - bound + 1))
    if len(mirrored):
        source = np.arange(mirrored.start, mirrored.stop)
        out[..., length - source] = np.conj(out[..., source])
    return np.moveaxis(out, -1, axis)
