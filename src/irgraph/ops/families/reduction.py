"""Reductions (ReduceSum, ReduceMean, ReduceMax, ..., ReduceLogicalAnd/Or): one base, one function per member.

A member names its type, its element type rule and how it reduces a group of values::

    @register
    class ReduceProd(Reduction):
        type_name = "ReduceProd"
        reduce = staticmethod(product)

Inputs are ``data`` and ``axes`` (a scalar or 1-D integer tensor; its value is needed for static
shapes: without it the output is rank-only dynamic, as in OpenVINO's ``reduce_shape_infer``).
Axes may be negative; duplicates are accepted and count once (OpenVINO 2026.4.1 turns them into an
``AxisSet``); empty axes reduce nothing, yet every value still goes through the reduction (ReduceL1
gives ``|x|``, ReduceMax turns NaN into the lowest float). A scalar ``data`` accepts axis 0 or -1.

Values follow OpenVINO's reference kernels (``reduce_*.hpp``) as its constant folding runs them:

- f16 and bf16 are computed in f32 and rounded once (constant folding upcasts them).
- ReduceSum and ReduceMean use Kahan summation in the compute type: irgraph sums in f64 and rounds,
  which agrees within the ``sum_eps`` tolerance; a Kahan sum whose running total overflows stays
  infinite (``[3e38, 3e38, -3e38]`` is inf in f32), which irgraph reproduces from its f64 prefix sums.
- ReduceL1, ReduceL2 and ReduceProd accumulate sequentially in the compute type: irgraph does the
  same (``ufunc.accumulate`` over the group in row-major order), bit for bit.
- ReduceMax/ReduceMin start from the lowest float (max) or +inf (min) and ``std::max``/``std::min``
  never pick a NaN, so NaNs are ignored and an all-NaN or empty group gives that start value; of
  equal zeros the first in row-major order wins (its sign is kept).
- Integers wrap (C++ arithmetic in the element type); ReduceMean divides the wrapped sum truncating
  toward zero. An empty group gives 0 for Sum, Mean (not NaN), L1 and L2, 1 for Prod, True for
  LogicalAnd and False for LogicalOr.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import ml_dtypes
import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.families.elementwise import TypeRule
from irgraph.ops.memo import remembered, value_key
from irgraph.ops.numeric import convert, round_float
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check, integer_values, shape_text

NUMERIC_DATA = TypeRule(
    lambda t: t.is_real or t.is_integral, "Element type of data input must be numeric. Got: {type}"
)
BOOLEAN_DATA = TypeRule(lambda t: t is ElementType.BOOLEAN, "Element type of data input must be boolean.")
_AXES_TYPE = "Element type of axes input must be integer. Got: {type}"
_AXES_RANK = "Axes input must be a scalar or 1D input. Got: {shape}"
_F32_OVERFLOW = 2.0**128 - 2.0**103
"""The smallest magnitude that rounds to infinity in f32 (half an ULP above the largest float)."""

Reducer = Callable[[np.ndarray, tuple[int, ...]], np.ndarray]
"""(data, sorted unique axes) -> the values with those axes removed, in the data's dtype."""


# ------------------------------------------------------------------------------------ axes
def reduction_axes(values: Sequence[int], rank: int) -> tuple[int, ...]:
    """Sorted unique non-negative axes; OpenVINO's message for one out of range (a scalar takes 0 and -1)."""
    span = max(rank, 1)
    normalized = set()
    for axis in values:
        if not -span <= axis < span:
            raise OpError(f"Axis {axis} out of the tensor rank range [{-span}, {span - 1}].")
        normalized.add(axis + span if axis < 0 else axis)
    return tuple(sorted(normalized)) if rank else ()


def reduced_shape(shape: Sequence, axes: tuple[int, ...], keep_dims: bool, one: object) -> list:
    """``shape`` with ``axes`` set to ``one`` (keep_dims) or removed."""
    if keep_dims:
        return [one if i in axes else d for i, d in enumerate(shape)]
    return [d for i, d in enumerate(shape) if i not in axes]


# ------------------------------------------------------------------------------------ helpers
def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype OpenVINO's constant folding computes in: f32 for f16/bf16, else the dtype itself."""
    if dtype == np.float16 or dtype == np.dtype(ml_dtypes.bfloat16):
        return np.dtype(np.float32)
    return dtype


def grouped(data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """``data`` as (outputs, group): each row holds one output's values in row-major order of the
    reduced coordinates (the order OpenVINO's reference visits them). A view when it can be."""
    kept = [i for i in range(data.ndim) if i not in axes]
    outer = math.prod(data.shape[i] for i in kept)
    group = math.prod(data.shape[i] for i in axes)
    return data.transpose(kept + list(axes)).reshape(outer, group)


def output_of(rows: np.ndarray, data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """One value per row, shaped as ``data`` without ``axes``."""
    return rows.reshape(reduced_shape(data.shape, axes, False, 1))


def sequential(ufunc: np.ufunc, data: np.ndarray, axes: tuple[int, ...], empty: float,
               prepare: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """``ufunc`` folded over each group left to right in the compute type (bit for bit OpenVINO's
    ``out[i] op= x`` loop); ``prepare`` maps the values first (abs, square); ``empty`` for empty groups."""
    compute = compute_dtype(data.dtype)
    rows = grouped(data, axes).astype(compute)  # a copy: accumulated in place
    with np.errstate(all="ignore"):
        if prepare is not None:
            rows = prepare(rows)
        if rows.shape[1] == 0:
            return output_of(np.full(rows.shape[0], empty, compute), data, axes)
        ufunc.accumulate(rows, axis=1, out=rows)
    return output_of(rows[:, -1].copy(), data, axes)


def kahan_sum(data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """The sum in the compute type as OpenVINO's Kahan loop gives it (within rounding): f64, rounded."""
    compute = compute_dtype(data.dtype)
    if compute.kind != "f":
        return np.add.reduce(data, axis=axes, dtype=data.dtype)
    with np.errstate(all="ignore"):
        total = np.add.reduce(data, axis=axes, dtype=np.float64) + 0.0  # +0.0: the loop starts at +0, never -0
        if compute != np.float32:
            return total.astype(compute)
        result = total.astype(np.float32)
        group = math.prod(data.shape[i] for i in axes)
        if data.size and group > 1:
            largest = max(float(np.max(data, initial=0)), -float(np.min(data, initial=0)))
            if not np.isfinite(largest) or largest * group >= _F32_OVERFLOW:
                result = _sticky_overflow(result, data, axes)
    return result


def _sticky_overflow(result: np.ndarray, data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Where a group's running f32 total overflows, OpenVINO's loop stays at that infinity (plain adds
    from then on): +-inf, or NaN once an infinity of the other sign (or a NaN) follows."""
    rows = grouped(data, axes).astype(np.float64)
    np.add.accumulate(rows, axis=1, out=rows)
    over = np.isfinite(rows) & (np.abs(rows) >= _F32_OVERFLOW)
    hit = over.any(axis=1)
    if not hit.any():
        return result
    first = np.argmax(over, axis=1)
    sign = np.sign(rows[np.arange(rows.shape[0]), first])
    last = rows[:, -1]
    tail = np.where(np.isfinite(last), 0.0, last)  # only infinities and NaNs after the overflow matter
    overflowed = (sign * np.inf + tail).astype(np.float32)
    return np.where(hit, overflowed, result.reshape(-1)).reshape(result.shape)


def _first_zero_sign(result: np.ndarray, data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Zeros of a max/min result take the sign of the group's first zero (``std::max`` keeps the first of
    equal values)."""
    zero = result == 0
    if not zero.any():
        return result
    rows = grouped(data, axes).astype(result.dtype, copy=False)
    first = np.argmax(rows == 0, axis=1)
    negative = np.signbit(rows[np.arange(rows.shape[0]), first]).reshape(result.shape)
    return np.where(zero, np.where(negative, -0.0, 0.0).astype(result.dtype), result)


# ------------------------------------------------------------------------------------ reducers
def total(data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceSum."""
    return kahan_sum(data, axes)


def mean(data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceMean: the sum divided by the group size in the compute type; integers truncate toward zero;
    an empty group gives 0."""
    summed = kahan_sum(data, axes)
    count = math.prod(data.shape[i] for i in axes)
    if count == 0:
        return np.zeros_like(summed)
    if summed.dtype.kind == "f":
        with np.errstate(all="ignore"):
            return summed / summed.dtype.type(count)
    if summed.dtype.kind == "u":
        return summed // summed.dtype.type(count)
    wide = summed.astype(np.int64)
    quotient = wide // count
    quotient += (wide - quotient * count != 0) & (wide < 0)  # C++ division truncates toward zero
    return quotient.astype(summed.dtype)


def _extremum(pick: np.ufunc, integer_pick: np.ufunc, lowest: bool) -> Reducer:
    def reduce(data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        compute = compute_dtype(data.dtype)
        if compute.kind != "f":
            info = np.iinfo(data.dtype)
            return integer_pick.reduce(data, axis=axes, initial=info.min if lowest else info.max)
        start = ml_dtypes.finfo(compute).min if lowest else np.inf
        result = pick.reduce(data.astype(compute, copy=False), axis=axes, initial=start)
        return _first_zero_sign(np.asarray(result, dtype=compute), data, axes)

    return reduce


maximum = _extremum(np.fmax, np.maximum, lowest=True)
"""ReduceMax: NaNs ignored; an all-NaN or empty group gives the lowest finite value of the compute type."""
minimum = _extremum(np.fmin, np.minimum, lowest=False)
"""ReduceMin: NaNs ignored; an all-NaN or empty group gives +inf (integers: the type's maximum)."""


def product(data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceProd: a sequential product; integers wrap."""
    if compute_dtype(data.dtype).kind != "f":
        return np.multiply.reduce(data, axis=axes, dtype=data.dtype)
    return sequential(np.multiply, data, axes, 1.0)


def l1(data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceL1: a sequential sum of absolute values; integers wrap (abs of the minimum stays negative)."""
    if compute_dtype(data.dtype).kind != "f":
        with np.errstate(all="ignore"):
            return np.add.reduce(np.abs(data), axis=axes, dtype=data.dtype)
    return sequential(np.add, data, axes, 0.0, np.abs)


def l2(data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceL2: the square root of a sequential sum of squares; integers square and sum with wrapping,
    then take ``static_cast<T>(std::sqrt(sum))``."""
    if compute_dtype(data.dtype).kind != "f":
        squares = np.add.reduce(np.multiply(data, data, dtype=data.dtype), axis=axes, dtype=data.dtype)
        with np.errstate(all="ignore"):
            roots = np.sqrt(squares.astype(np.float64))
        element_type = ElementType.from_numpy(data.dtype)
        return convert(roots, ElementType.F64, element_type)
    summed = sequential(np.add, data, axes, 0.0, np.square)
    with np.errstate(all="ignore"):
        return np.sqrt(summed)


def logical_and(data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceLogicalAnd: True for an empty group."""
    return np.logical_and.reduce(data, axis=axes)


def logical_or(data: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ReduceLogicalOr: False for an empty group."""
    return np.logical_or.reduce(data, axis=axes)


# ------------------------------------------------------------------------------------ the base
SUM_TOLERANCE = Tolerance(ulp=1, sum_eps=3)
"""Kahan summation errs by up to 2 eps x sum|x| (more than any ULP bound where terms cancel); irgraph's
f64 sum adds half an ULP of rounding, and f16/bf16 results one more rounding."""


@dataclass(frozen=True)
class Reduction(Op):
    """``data`` reduced over the ``axes`` input; ``keep_dims`` keeps them as 1s."""

    inputs = Inputs.of(InputSpec("data"), InputSpec("axes"))
    type_rule: ClassVar[TypeRule] = NUMERIC_DATA
    if TYPE_CHECKING:  # members set a staticmethod Reducer; a Callable ClassVar would be bound to self by mypy
        @staticmethod
        def reduce(data: np.ndarray, axes: tuple[int, ...], /) -> np.ndarray: ...

    keep_dims: bool = attribute(False)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """OpenVINO's ``reduce_shape_infer``: static with a constant axes value, else rank-only dynamic."""
        data, axes = inputs
        self.type_rule.check(data.element_type)
        check(axes.element_type.is_integral or axes.element_type.is_dynamic,
              _AXES_TYPE.format(type=axes.element_type))
        check(axes.shape.rank_is_dynamic or axes.shape.rank <= 1, _AXES_RANK.format(shape=axes.shape))
        axes_value = values[1] if len(values) > 1 else None
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        rank = data.shape.rank
        if axes_value is None:
            if self.keep_dims:
                return [TensorType(data.element_type, Shape.dynamic(rank))]
            single = axes.shape.is_static and math.prod(axes.shape.to_tuple()) == 1
            return [TensorType(data.element_type, Shape.dynamic(rank - 1) if single and rank else DYNAMIC_RANK)]
        axes_list = reduction_axes(integer_values(axes_value, "axes"), rank)
        self._check_scalar(rank, axes_value)
        dims = reduced_shape(tuple(data.shape), axes_list, self.keep_dims, Dim.static(1))
        return [TensorType(data.element_type, Shape(tuple(dims)))]

    def _check_scalar(self, rank: int, axes: np.ndarray) -> None:
        # OpenVINO 2026.4.1 throws "Accessing out-of-range dimension" for a scalar with keep_dims and an axis.
        check(rank > 0 or not self.keep_dims or np.size(axes) == 0,
              "keep_dims needs data of rank >= 1 to keep an axis of. Got a scalar")

    def _axes(self, data: np.ndarray, axes: np.ndarray) -> tuple[int, ...]:
        """The normalized axes, remembered per the data's rank and the axes' values (asked at every run)."""
        key = value_key(axes)
        if key is None:
            return self._normalized_axes(data.ndim, axes)
        return remembered(self, (data.ndim, key), lambda: self._normalized_axes(data.ndim, axes))

    def _normalized_axes(self, rank: int, axes: np.ndarray) -> tuple[int, ...]:
        element_type = ElementType.from_numpy(axes.dtype)
        if not element_type.is_integral:  # messages formatted only on failure
            raise OpError(_AXES_TYPE.format(type=element_type))
        if axes.ndim > 1:
            raise OpError(_AXES_RANK.format(shape=shape_text(axes.shape)))
        self._check_scalar(rank, axes)
        return reduction_axes(integer_values(axes, "axes"), rank)

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The reduced shape (an empty reduced axis may make it larger than the data)."""
        data, axes = inputs
        return [tuple(reduced_shape(data.shape, self._axes(data, axes), self.keep_dims, 1))]

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """``evaluate`` with the type check and the axes worked out once: data of a static shape and type, constant
        axes (an RMSNorm's mean at every decode step)."""
        data = inputs[0]
        if type(self).evaluate is not Reduction.evaluate or len(constants) < 2 or constants[1] is None or \
                not data.shape.is_static or data.element_type.is_dynamic:
            return None
        dtype = data.element_type.numpy_dtype
        if dtype is None:
            return None
        try:
            self.type_rule.check(data.element_type)
            axes = self._normalized_axes(data.shape.rank, constants[1])
        except OpError:
            return None  # evaluate says why, at run time
        shape, reduce = tuple(reduced_shape(data.shape.to_tuple(), axes, self.keep_dims, 1)), type(self).reduce
        floats = dtype.kind in "fV"

        def reduced(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
            result = np.asarray(reduce(arrays[0], axes))
            if result.dtype != dtype:
                result = round_float(result, dtype) if floats else result.astype(dtype)
            return [result.reshape(shape)]

        return reduced

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The member's reduction, rounded to the data's element type, keep_dims applied."""
        data, axes = inputs
        self.type_rule.check(ElementType.from_numpy(data.dtype))
        axis_list = self._axes(data, axes)
        result = np.asarray(type(self).reduce(data, axis_list))
        if result.dtype != data.dtype:
            result = round_float(result, data.dtype) if data.dtype.kind in "fV" else result.astype(data.dtype)
        return [result.reshape(reduced_shape(data.shape, axis_list, self.keep_dims, 1))]


@dataclass(frozen=True)
class LogicalReduction(Reduction):
    """ReduceLogicalAnd/Or: boolean data."""

    type_rule = BOOLEAN_DATA
