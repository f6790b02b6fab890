"""RandomUniform-8: uniform random numbers in ``[min, max)``, OpenVINO's exact streams.

Two generators, chosen by ``alignment`` (OpenVINO 2026.4.1's reference ``philox_generator.cpp`` /
``philox_converter.cpp`` and the CPU plugin's ``random_uniform.cpp``):

- ``tensorflow`` (the default): Philox4x32-10 with key ``global_seed`` and counter
  ``(op_seed, n)``; block ``n`` gives four uint32. f32/f16/bf16 take one uint32 each (its low
  mantissa bits under a 1.0 exponent, minus 1), f64 and i64 two; integers are ``x % (max - min) +
  min`` in unsigned arithmetic.
- ``pytorch``: the MT19937 stream seeded with ``global_seed & 0xffffffff`` (op_seed ignored), the
  floats ``(x & mask) / 2**digits`` as torch.rand does, i64 from one uint32 unless min or max
  exceeds the uint32 range.

**State.** OpenVINO's compiled model keeps a Philox offset per RandomUniform: each inference of
one compiled model continues the stream (its CPU plugin advances ``n`` by ``256 * elements``, as
TensorFlow's ``ReserveRandomOutputs`` does), so two runs give different numbers. An
:class:`~irgraph.runtime.interpreter.Interpreter` does the same, from its first run on (the run-to-run state is
``(n, counter)``, :meth:`RandomUniform.evaluate_with_state`). OpenVINO's reference ``evaluate`` advances by
``256 * blocks`` instead (blocks of four values): a second reference evaluation differs from the
CPU plugin's second inference; irgraph follows the CPU plugin and TensorFlow there. The first run
is the same in all three. PyTorch alignment keeps no state (every run restarts the twister), and
neither does ``evaluate`` on its own.

When both seeds are 0 OpenVINO draws a seed from ``std::rand()`` (non-deterministic); irgraph draws
one from the operating system's entropy, so such outputs are random and match nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, PartialValue, Shape, TensorType
from irgraph.ops.numeric import round_float
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values, shape_text
from irgraph.ops.registry import register
from irgraph.ops.traits import OpTraits

OUTPUT_TYPES = (ElementType.F16, ElementType.BF16, ElementType.F32, ElementType.F64, ElementType.I32, ElementType.I64)
ALIGNMENTS = ("tensorflow", "pytorch")
SHAPE_TYPES = (ElementType.I32, ElementType.I64)
SKIP_PER_ELEMENT = 256
"""How far one element moves the Philox ``n`` between runs (OpenVINO's CPU plugin, TensorFlow)."""

_M32 = np.uint64(0xFFFFFFFF)
_ROUND_KEY_LOW, _ROUND_KEY_HIGH = 0x9E3779B9, 0xBB67AE85
_MULTIPLIER_N, _MULTIPLIER_COUNTER = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_U64_LIMIT = 2**64

PhiloxState = tuple[int, int]
"""``(n, counter)`` where the next run starts; ``(0, 0)`` at first (the counter then is op_seed)."""


def philox_blocks(global_seed: int, op_seed: int, blocks: int, state: PhiloxState = (0, 0)) -> np.ndarray:
    """``[blocks, 4]`` uint32: Philox4x32-10 as OpenVINO runs it, every block at once.

    Block ``i`` encrypts ``n = state.n + i`` (64 bits, carrying into the counter when it wraps) and
    the counter (``state.counter``, or ``op_seed`` while that is 0) under the key ``global_seed``.
    """
    start, counter = state[0] % _U64_LIMIT, (state[1] or op_seed) % _U64_LIMIT
    n = np.uint64(start) + np.arange(blocks, dtype=np.uint64)  # wraps modulo 2**64 as C++ does
    counters = np.uint64(counter) + (n < np.uint64(start)).astype(np.uint64)
    n_low, n_high = n & _M32, n >> np.uint64(32)
    c_low, c_high = counters & _M32, counters >> np.uint64(32)
    key_low, key_high = global_seed & 0xFFFFFFFF, (global_seed >> 32) & 0xFFFFFFFF
    for round_index in range(10):
        n_product = _MULTIPLIER_N * n_low  # < 2**64: no wrap
        c_product = _MULTIPLIER_COUNTER * c_low
        n_low, n_high, c_low, c_high = (
            (c_product >> np.uint64(32)) ^ n_high ^ np.uint64(key_low),
            c_product & _M32,
            (n_product >> np.uint64(32)) ^ c_high ^ np.uint64(key_high),
            n_product & _M32,
        )
        if round_index < 9:
            key_low, key_high = (key_low + _ROUND_KEY_LOW) & 0xFFFFFFFF, (key_high + _ROUND_KEY_HIGH) & 0xFFFFFFFF
    return np.stack([n_low, n_high, c_low, c_high], axis=-1).astype(np.uint32)


def mersenne_stream(global_seed: int, count: int) -> np.ndarray:
    """``count`` uint32 of MT19937 seeded with ``global_seed & 0xffffffff`` (init_genrand), as OpenVINO's
    PyTorch alignment draws them: NumPy's legacy MT19937 is that generator, and a full-range uint32 draw
    returns its raw outputs."""
    return np.random.RandomState(global_seed & 0xFFFFFFFF).randint(0, 2**32, size=count, dtype=np.uint32)


def _with_exponent(bits: np.ndarray, dtype: Any, one: int, mantissa_mask: int) -> np.ndarray:
    """Floats in [0, 1): ``mantissa_mask`` bits of each value under the exponent of 1.0, minus 1 (exact)."""
    width = np.dtype(dtype).itemsize * 8
    unsigned = np.dtype(f"u{width // 8}")
    raw = (bits.astype(unsigned) & unsigned.type(mantissa_mask)) | unsigned.type(one)
    return raw.view(dtype) - np.asarray(1, dtype)


def _scale(unit: np.ndarray, low: np.ndarray, high: np.ndarray, dtype: Any) -> np.ndarray:
    """``unit * (max - min) + min`` in ``dtype``, each operation rounded to it (f16 and bf16 go through f32
    and round after every operation, as OpenVINO's float16/bfloat16 operators do)."""
    if dtype in (np.float32, np.float64):
        return unit * (high - low) + low
    wide = np.float32
    span = round_float(high.astype(wide) - low.astype(wide), np.dtype(dtype))
    product = round_float(unit.astype(wide) * span.astype(wide), np.dtype(dtype))
    return round_float(product.astype(wide) + low.astype(wide), np.dtype(dtype))


def _modulo(values: np.ndarray, low: int, high: int, bits: int) -> np.ndarray:
    """``x % (max - min) + min`` in unsigned ``bits`` arithmetic, read back as signed (C++'s conversions)."""
    modulus = (high - low) % (1 << bits)  # min < max was checked: never 0
    unsigned = np.uint64 if bits == 64 else np.uint32
    wrapped = (values.astype(unsigned) % unsigned(modulus)) + unsigned(low % (1 << bits))
    return wrapped.view(np.int64 if bits == 64 else np.int32)


@register
@dataclass(frozen=True)
class RandomUniform(Op):
    """A ``shape``-shaped tensor of ``output_type`` uniform in ``[min_val, max_val)``. Spec: RandomUniform-8."""

    type_name = "RandomUniform"
    introduced = 8
    inputs = Inputs.of(InputSpec("shape", bounds=True), InputSpec("min_val"), InputSpec("max_val"))
    traits = OpTraits(keeps_run_state=True)

    output_type: ElementType = attribute()
    op_seed: int = attribute(0)
    global_seed: int = attribute(0)
    alignment: str = attribute("tensorflow")

    def __post_init__(self) -> None:
        check(self.output_type in OUTPUT_TYPES, f"RandomUniform: 'output_type' must be one of "
              f"{', '.join(t.ir_name for t in OUTPUT_TYPES)}. Got: {self.output_type}")
        for name in ("op_seed", "global_seed"):
            value = getattr(self, name)
            check(0 <= value < _U64_LIMIT, f"RandomUniform: '{name}' must be an unsigned 64-bit integer. Got: {value}")
        check(self.alignment.lower() in ALIGNMENTS, f"RandomUniform: 'alignment' must be tensorflow or pytorch. "
              f"Got: {self.alignment!r}")

    def infer(
        self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | PartialValue | None]
    ) -> list[TensorType]:
        """The output shape is the ``shape`` input's value (``-1`` a dynamic dim, bounds intervals, as OpenVINO
        reads shape inputs); ``[?] * len`` (dynamic rank when its length is unbounded) when that is unknown."""
        shape, low, high = inputs
        check(shape.element_type.is_dynamic or shape.element_type in SHAPE_TYPES,
              "Type of the input should be int32 or int64.")
        check(low.element_type == high.element_type, "'min_val' should have the same type as 'max_val'.")
        check(low.element_type == self.output_type,
              "'min_val' and 'max_val' should have the same type as 'out_type' attribute.")
        check(shape.shape.rank_is_dynamic or shape.shape.rank == 1,
              f"The rank of the tensor defining output shape must be equal to 1. Got: {shape.shape}")
        for tensor, name in ((low, "Min"), (high, "Max")):
            check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 0 or
                  (tensor.shape.rank == 1 and tensor.shape[0].contains(1)),
                  f"{name} value must be a scalar or one element 1D tensor. Got: {tensor.shape}")
        if isinstance(values[1], np.ndarray) and isinstance(values[2], np.ndarray):
            self._check_range(values[1], values[2])
        value = values[0]
        if isinstance(value, PartialValue):
            return [TensorType(self.output_type, Shape(tuple(value.dims())))]
        if value is not None:
            check(np.ndim(value) == 1, f"The rank of the tensor defining output shape must be equal to 1. Got: "
                  f"{shape_text(np.shape(value))}")
            entries = integer_values(value, "shape")
            check(all(d >= -1 for d in entries), f"RandomUniform: the output shape must not have negative dims "
                  f"(-1 is a dynamic one). Got: {entries}")
            return [TensorType(self.output_type, Shape(tuple(Dim.dynamic() if d == -1 else Dim.static(d)
                                                             for d in entries)))]
        if shape.shape.rank_is_dynamic or shape.shape[0].max is None:
            return [TensorType(self.output_type, Shape(None))]
        return [TensorType(self.output_type, Shape((Dim.dynamic(),) * shape.shape[0].max))]

    @staticmethod
    def _check_range(low: np.ndarray, high: np.ndarray) -> None:
        """OpenVINO's check, on the values as doubles (so i64 bounds 2**62 and 2**62 + 1 are refused as equal)."""
        minimum, maximum = (float(np.asarray(v).reshape(-1)[0]) for v in (low, high))
        check(minimum < maximum, f"Min value must be less than max value. Got min value: {minimum:g}, max value: "
              f"{maximum:g}")

    @staticmethod
    def _dims(value: np.ndarray) -> tuple[int, ...]:
        check(np.ndim(value) == 1, f"The rank of the tensor defining output shape must be equal to 1. Got: "
              f"{shape_text(np.shape(value))}")
        dims = tuple(integer_values(value, "shape"))
        check(all(d >= 0 for d in dims), f"RandomUniform: the output shape must not have negative dims. Got: "
              f"{list(dims)}")
        return dims

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The ``shape`` input's value."""
        return [self._dims(inputs[0])]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The first run's numbers (a fresh stream)."""
        return self.evaluate_with_state(inputs, None)[0]

    def evaluate_with_state(self, inputs: Sequence[np.ndarray], state: Any) -> tuple[list[np.ndarray], Any]:
        """The numbers from ``state`` (None: a fresh stream) and the state the next run starts from."""
        dims = self._dims(inputs[0])
        count = int(np.prod(dims, dtype=np.int64))
        dtype = self.output_type.numpy_dtype
        low, high = (np.asarray(x).reshape(-1)[:1].astype(dtype) for x in inputs[1:])
        check(low.size == 1 and high.size == 1, "Min value and max value must have one element each.")
        self._check_range(low, high)
        global_seed, philox_state = self._seeds(state)
        if self.alignment.lower() == "pytorch":
            values = self._pytorch(count, global_seed, low, high)
            next_state = (global_seed, philox_state)
        else:
            values = self._tensorflow(count, global_seed, philox_state, low, high)
            start, counter = philox_state
            moved = start + SKIP_PER_ELEMENT * count
            next_state = (global_seed, (moved % _U64_LIMIT, (counter + (moved >= _U64_LIMIT)) % _U64_LIMIT))
        return [values.astype(dtype, copy=False).reshape(dims)], next_state

    def _seeds(self, state: Any) -> tuple[int, PhiloxState]:
        if state is not None:
            return state
        global_seed = self.global_seed
        if global_seed == 0 and self.op_seed == 0:  # OpenVINO: non-deterministic (std::rand())
            global_seed = secrets.randbits(31)
        return global_seed, (0, 0)

    def _tensorflow(self, count: int, global_seed: int, state: PhiloxState, low: np.ndarray,
                    high: np.ndarray) -> np.ndarray:
        wide = self.output_type.bitwidth == 64
        per_block = 2 if wide else 4
        bits = philox_blocks(global_seed, self.op_seed, -(-count // per_block), state).reshape(-1)
        if wide:
            first, second = bits[0::2].astype(np.uint64), bits[1::2].astype(np.uint64)
            if self.output_type is ElementType.F64:
                unit = _with_exponent(((first & np.uint64(0xFFFFF)) << np.uint64(32)) | second, np.float64,
                                      1023 << 52, (1 << 52) - 1)
                return _scale(unit, low, high, np.float64)[:count]
            return _modulo((second << np.uint64(32)) | first, int(low[0]), int(high[0]), 64)[:count]
        bits = bits[:count]
        if self.output_type is ElementType.I32:
            return _modulo(bits, int(low[0]), int(high[0]), 32)
        layout = {ElementType.F32: (np.float32, 127 << 23, 0x7FFFFF), ElementType.F16: (np.float16, 15 << 10, 0x3FF),
                  ElementType.BF16: (ml_dtypes.bfloat16, 127 << 7, 0x7F)}
        dtype, one, mask = layout[self.output_type]
        return _scale(_with_exponent(bits, dtype, one, mask), low, high, dtype)

    def _pytorch(self, count: int, global_seed: int, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        output = self.output_type
        pairs = output is ElementType.F64 or (output is ElementType.I64 and max(int(low[0]), int(high[0])) > 0xFFFFFFFF)
        stream = mersenne_stream(global_seed, -(-count * (2 if pairs else 1) // 4) * 4)
        if pairs:
            joined = (stream[0::2].astype(np.uint64) << np.uint64(32)) | stream[1::2].astype(np.uint64)
            if output is ElementType.I64:
                return _modulo(joined[:count], int(low[0]), int(high[0]), 64)
            unit = (joined[:count] & np.uint64((1 << 53) - 1)).astype(np.float64) * np.float64(2.0**-53)
            return unit * (high - low) + low
        bits = stream[:count]
        if output is ElementType.I32:
            return _modulo(bits, int(low[0]), int(high[0]), 32)
        if output is ElementType.I64:  # signed 64-bit: (int64(x) % (max - min)) + min
            span = int(high[0]) - int(low[0])
            return np.fmod(bits.astype(np.int64), np.int64(span)) + np.int64(low[0])
        if output is ElementType.F32:
            unit = (bits & np.uint32(0xFFFFFF)).astype(np.float32) * np.float32(2.0**-24)
            return unit * (high - low) + low
        digits = 11 if output is ElementType.F16 else 8
        unit = (bits & np.uint32((1 << digits) - 1)).astype(np.float32) * np.float32(2.0**-digits)
        dtype = output.dtype
        width = round_float(high.astype(np.float32) - low.astype(np.float32), dtype)
        return round_float(unit * width.astype(np.float32) + low.astype(np.float32), dtype)
