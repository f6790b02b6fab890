"""Multinomial-13: class indices drawn from per-batch probabilities, with or without replacement.

openvino 2026.4.1 has no reference ``evaluate`` for Multinomial (its ``ov::reference::multinomial`` is not
wired to the op: ``Node.evaluate`` returns False and constant folding leaves it); the CPU plugin is the one
implementation that runs, and irgraph reproduces it bit for bit:

- the uniform samples come from C++'s ``std::mt19937`` seeded with ``std::seed_seq{global_seed, op_seed}``
  (each seed truncated to 32 bits, as ``seed_seq`` stores them), one per output in row-major order, as
  ``P(float(x) / float(2**32 - 1))`` in the probabilities' type ``P`` (not the RandomUniform stream the spec
  suggests);
- the CDF is the running sum of ``probs`` (of ``exp(probs)`` with ``log_probs``) in ``P``, divided by its
  last value (at least ``P``'s smallest normal); a sample takes the first class whose CDF value is >= it;
- without replacement, after each sample the chosen class's probability ``p`` is taken off the CDF from
  that class on and every value is divided by ``1 - p``, in ``P`` (f16 and bf16 round after every operation).

f16 probabilities are computed in f32 (as the CPU plugin does: the samples too); bf16 in bf16 (OpenVINO's
rounding) and f64 in f64 (the plugin would compute f32). ``exp`` is computed in f64 and rounded to ``P``:
glibc's ``expf`` (within 0.502 ULP) can differ from that in the last bit, which changes a class only when a
sample falls between the two values. Probabilities the spec rules out (negative, NaN, a zero or infinite sum)
and samples without a class left are refused: OpenVINO's CPU plugin leaves those outputs uninitialised.
Without replacement in bf16, rounding can exhaust the CDF (a 0/0) before the last sample: irgraph refuses, the
plugin returns indices read from that NaN/inf CDF. Both seeds 0: OpenVINO seeds from the clock; irgraph from
the operating system (random). Every run gives the same numbers (the plugin keeps no state between runs).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.numeric import round_float
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values, shape_text
from irgraph.ops.registry import register

_M32 = 0xFFFFFFFF
_STATE_SIZE = 624
_CHUNK = 1 << 22
"""Comparisons made at once when finding classes (batch rows x samples x classes)."""


def seed_sequence(seeds: Sequence[int], count: int = _STATE_SIZE) -> np.ndarray:
    """``std::seed_seq(seeds).generate`` of ``count`` uint32 (C++ [rand.util.seedseq]); a fixed-size loop over
    the generated state, not over data."""
    values = [s & _M32 for s in seeds]
    size = len(values)
    t = 11 if count >= 623 else 7 if count >= 68 else 5 if count >= 39 else 3 if count >= 7 else (count - 1) // 2
    p = (count - t) // 2
    q = p + t
    rounds = max(size + 1, count)
    state = [0x8B8B8B8B] * count

    def mix(x: int) -> int:
        return x ^ (x >> 27)

    for k in range(rounds):
        r1 = (1664525 * mix(state[k % count] ^ state[(k + p) % count] ^ state[(k - 1) % count])) & _M32
        r2 = (r1 + (size if k == 0 else (k % count + values[k - 1]) if k <= size else k % count)) & _M32
        state[(k + p) % count] = (state[(k + p) % count] + r1) & _M32
        state[(k + q) % count] = (state[(k + q) % count] + r2) & _M32
        state[k % count] = r2
    for k in range(rounds, rounds + count):
        r3 = (1566083941 * mix((state[k % count] + state[(k + p) % count] + state[(k - 1) % count]) & _M32)) & _M32
        r4 = (r3 - k % count) & _M32
        state[(k + p) % count] ^= r3
        state[(k + q) % count] ^= r4
        state[k % count] = r4
    return np.array(state, np.uint32)


def mt19937_seeded(seeds: Sequence[int], count: int) -> np.ndarray:
    """``count`` outputs of ``std::mt19937`` seeded with ``std::seed_seq(seeds)`` (NumPy's MT19937 from that state)."""
    key = seed_sequence(seeds)
    if not (key[0] & 0x80000000) and not key[1:].any():  # the standard's all-zero guard
        key[0] = 0x80000000
    generator = np.random.MT19937()
    generator.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _STATE_SIZE}}
    return generator.random_raw(count).astype(np.uint32)


def _rounded(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``values`` (f32 or f64) rounded to ``dtype`` as OpenVINO's float16/bfloat16 constructors round."""
    return round_float(values, dtype)


@register
@dataclass(frozen=True)
class Multinomial(Op):
    """``[batch, num_samples]`` class indices of ``convert_type`` sampled from ``probs`` ``[batch, classes]``.
    Spec: Multinomial-13."""

    type_name = "Multinomial"
    introduced = 13
    inputs = Inputs.of(InputSpec("probs"), InputSpec("num_samples"))

    convert_type: ElementType = attribute()
    with_replacement: bool = attribute()
    log_probs: bool = attribute()
    global_seed: int = attribute(0)
    op_seed: int = attribute(0)

    def __post_init__(self) -> None:
        check(self.convert_type.numpy_dtype is not None and not self.convert_type.is_packed
              and self.convert_type is not ElementType.STRING,
              f"Multinomial: 'convert_type' must be a numeric type. Got: {self.convert_type}")
        for name in ("global_seed", "op_seed"):
            value = getattr(self, name)
            check(0 <= value < 2**64, f"Multinomial: '{name}' must be an unsigned 64-bit integer. Got: {value}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[batch, num_samples]``; ``num_samples`` dynamic when not known or negative, the whole shape
        dynamic when ``probs``' rank is."""
        probs, samples = inputs
        check(probs.shape.rank_is_dynamic or probs.shape.rank == 2, f"Input probabilities must be a 2D tensor. "
              f"Got: {probs.shape}")
        check(samples.shape.rank_is_dynamic or samples.shape.rank == 0 or
              (samples.shape.rank == 1 and samples.shape[0].contains(1)),
              f"Number of samples must be a scalar or one element 1D tensor. Got: {samples.shape}")
        check(probs.element_type.is_dynamic or probs.element_type.is_real,
              f"Expected floating point type as element type for the 'probs' input. Got: {probs.element_type}")
        check(samples.element_type.is_dynamic or samples.element_type.is_integral,
              f"Expected integer type as element type for the 'num_samples' input. Got: {samples.element_type}")
        if probs.shape.rank_is_dynamic:
            return [TensorType(self.convert_type, Shape(None))]
        count = Dim.dynamic()
        if values[1] is not None:
            number = self._count(values[1])
            count = Dim.static(number) if number >= 0 else Dim.dynamic()
        return [TensorType(self.convert_type, Shape((probs.shape[0], count)))]

    @staticmethod
    def _count(value: np.ndarray) -> int:
        check(np.size(value) == 1, f"Number of samples must be a scalar or one element 1D tensor. Got shape "
              f"{shape_text(np.shape(value))}")
        return integer_values(value, "num_samples")[0]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """``[batch, num_samples]`` from the values."""
        count = self._count(inputs[1])
        check(count >= 0, f"Number of samples must be non-negative. Got number of samples: {count}")
        check(np.ndim(inputs[0]) == 2, f"Input probabilities must be a 2D tensor. Got shape "
              f"{shape_text(np.shape(inputs[0]))}")
        return [(int(np.shape(inputs[0])[0]), count)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The CPU plugin's sampling (module docstring), vectorised over the batch."""
        (shape,) = self.output_shapes(inputs)
        probs = np.asarray(inputs[0])
        if probs.dtype == np.float16:  # the CPU plugin computes f16 probabilities in f32
            probs = probs.astype(np.float32)
        dtype = probs.dtype
        batch, classes = probs.shape
        count = shape[1]
        if count == 0 or batch == 0:
            return [np.zeros(shape, self.convert_type.numpy_dtype)]
        # OpenVINO 2026.4.1's CPU plugin returns uninitialised memory here: there is no class to sample.
        check(classes > 0, f"Multinomial: {count} samples asked from probabilities with no class (shape "
              f"{shape_text(probs.shape)})")
        cdf = self._cdf(probs)
        check(bool(np.all(np.isfinite(cdf))) and bool(np.all(np.diff(cdf.astype(np.float64), axis=1) >= 0))
              and (classes == 0 or bool(np.all(cdf[:, :1] >= 0) and np.all(cdf[:, -1] > 0))),
              "Multinomial: probabilities must be non-negative and finite with a positive finite sum per batch")
        cdf = self._normalized(cdf)
        seeds = (self.global_seed, self.op_seed)
        if seeds == (0, 0):  # OpenVINO: seeded from the clock
            seeds = (secrets.randbits(32), secrets.randbits(32))
        raw = mt19937_seeded(seeds, batch * count)
        samples = _rounded(raw.astype(np.float32) / np.float32(_M32), dtype).reshape(batch, count)
        if self.with_replacement:
            chosen = self._first_classes(samples, cdf)
        else:
            chosen = np.empty((batch, count), np.int64)
            for index in range(count):  # each draw changes the CDF the next one reads
                chosen[:, index] = self._first_classes(samples[:, index:index + 1], cdf)[:, 0]
                cdf = self._without(cdf, chosen[:, index])
        check(not bool(np.any(chosen >= classes)), f"Multinomial: a sample found no class with probability left "
              f"(num_samples {count} for {classes} classes without replacement?)")
        return [chosen.astype(self.convert_type.numpy_dtype)]

    def _cdf(self, probs: np.ndarray) -> np.ndarray:
        """Running sums in the probabilities' type, in order: ``exp`` (with log_probs) is a float (f64 for f64)
        added to the previous sum before rounding, as ``std::exp(P) + cdf[k - 1]`` is in C++."""
        dtype = probs.dtype
        if self.log_probs:
            with np.errstate(over="ignore"):
                wide = np.exp(probs.astype(np.float64))
            terms = wide if dtype == np.float64 else wide.astype(np.float32)
        else:
            terms = probs
        if dtype == np.float32 or dtype == np.float64:
            return np.cumsum(terms.astype(dtype), axis=1)  # np.add.accumulate: one sum after another
        terms = terms.astype(np.float32)  # f16/bf16: each sum in float, rounded to the type
        columns = [_rounded(terms[:, 0], dtype)] if terms.shape[1] else []
        for column in range(1, terms.shape[1]):  # a loop over classes, vectorised over the batch
            columns.append(_rounded(terms[:, column] + columns[-1].astype(np.float32), dtype))
        return np.stack(columns, axis=1) if columns else probs.copy()

    @staticmethod
    def _normalized(cdf: np.ndarray) -> np.ndarray:
        """Each row over its last value (at least the type's smallest normal, as std::max leaves it)."""
        if cdf.shape[1] == 0:
            return cdf
        smallest = ml_dtypes.finfo(cdf.dtype).smallest_normal
        last = cdf[:, -1:]
        divisor = np.where(last < smallest, cdf.dtype.type(smallest), last)
        return _divide(cdf, divisor)

    @staticmethod
    def _first_classes(samples: np.ndarray, cdf: np.ndarray) -> np.ndarray:
        """Per row, for each sample the first class whose CDF value is >= it (``classes`` when none; a NaN never
        is, as in C++'s loop). Rows in chunks to bound the memory."""
        batch, count = samples.shape
        classes = cdf.shape[1]
        chosen = np.empty((batch, count), np.int64)
        rows = max(1, _CHUNK // max(1, count * classes))
        for start in range(0, batch, rows):
            part = slice(start, start + rows)
            covered = samples[part, :, None] <= cdf[part, None, :]
            chosen[part] = np.where(covered.any(axis=2), np.argmax(covered, axis=2), classes)
        return chosen

    @staticmethod
    def _without(cdf: np.ndarray, chosen: np.ndarray) -> np.ndarray:
        """The CDF after taking each row's chosen class out: ``p`` off from that class on, all over ``1 - p``."""
        rows = np.arange(cdf.shape[0])
        safe = np.minimum(chosen, cdf.shape[1] - 1)
        previous = np.where(safe > 0, cdf[rows, np.maximum(safe - 1, 0)], cdf.dtype.type(0))
        probability = _subtract(cdf[rows, safe], previous)  # cdf[0] - 0 is cdf[0] exactly
        divisor = _subtract(np.ones_like(probability), probability)
        after = np.arange(cdf.shape[1])[None, :] >= safe[:, None]
        lowered = np.where(after, _subtract(cdf, probability[:, None]), cdf)
        return _divide(lowered, divisor[:, None])


def _subtract(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a - b`` in their type; f16 and bf16 through f32, rounded once (OpenVINO's operators)."""
    if a.dtype.itemsize > 2:
        return a - b
    return _rounded(a.astype(np.float32) - b.astype(np.float32), a.dtype)


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a / b`` in their type; f16 and bf16 through f32, rounded once."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if a.dtype.itemsize > 2:
            return a / b
        return _rounded(a.astype(np.float32) / b.astype(np.float32), a.dtype)
