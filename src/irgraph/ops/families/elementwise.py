"""Element-wise families: binary ops with auto_broadcast, comparisons, logical ops and unary ops.

A member names its type, the NumPy function and (when it differs from the family's) the element
types it takes and its tolerance::

    @register
    class Add(BinaryArithmetic):
        type_name = "Add"
        compute = staticmethod(np.add)

Shapes follow OpenVINO's ``eltwise_shape_infer``: ``none`` merges the two shapes, ``numpy``
right-aligns them and broadcast-merges each dim pair (intervals too), ``pdpd`` broadcasts input 1
into input 0 from axis 0 (its dims may not exceed input 0's). f16 and bf16 are computed in f32 and rounded to the
element type once, as OpenVINO's reference does; f64 is computed in f64 and integers in their own
width (wrapping on overflow, as C++ does).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import ml_dtypes
import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, PartialValue, Shape, TensorType
from irgraph.ops.families.array_broadcast import INCONSISTENT_SHAPES, broadcast_arrays
from irgraph.ops.memo import remembered
from irgraph.ops.numeric import convert, f16_through_f32, round_float, round_half_away
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.traits import OpTraits, UfuncCall

AUTO_BROADCAST_MODES = ("none", "numpy", "pdpd")
INCONSISTENT_TYPES = "Argument element types are inconsistent."

_WIDENED = {np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)}
"""Dtypes computed in f32 and rounded back (OpenVINO's reference computes f16/bf16 through float)."""


# ------------------------------------------------------------------------------------ element types
@dataclass(frozen=True)
class TypeRule:
    """Which input element types an op takes, and OpenVINO's message when it gets another."""

    accepts: Callable[[ElementType], bool]
    message: str
    """Formatted with ``{type}``, the element type received."""

    def check(self, element_type: ElementType) -> None:
        """Raise OpError unless ``element_type`` is dynamic or accepted."""
        if not element_type.is_dynamic and not self.accepts(element_type):
            raise OpError(self.message.format(type=element_type))


ANY_TYPE = TypeRule(lambda t: t is not ElementType.STRING, "Arguments cannot have element type {type}.")
NUMERIC = TypeRule(
    lambda t: t is not ElementType.BOOLEAN and t is not ElementType.STRING,
    "Arguments cannot have boolean element type (argument element type: {type}).",
)
BOOLEAN = TypeRule(
    lambda t: t is ElementType.BOOLEAN,
    "Operands for logical operators must have boolean element type but have element type {type}.",
)
INTEGER_OR_BOOLEAN = TypeRule(
    lambda t: t.is_integral or t is ElementType.BOOLEAN,
    "The element type of the input tensor must be integer or boolean. Got: {type}.",
)
REAL = TypeRule(lambda t: t.is_real, "Input element type must be float. Got: {type}.")


def merge_element_types(types: Sequence[ElementType]) -> ElementType:
    """The one element type of ``types`` (dynamic merges with anything); OpenVINO's message otherwise."""
    merged = ElementType.DYNAMIC
    for element_type in types:
        both = merged.merge(element_type)
        if both is None:
            raise OpError(f"{INCONSISTENT_TYPES} Got: {', '.join(str(t) for t in types)}")
        merged = both
    return merged


# ------------------------------------------------------------------------------------ shapes
def broadcast_dim(a: Dim, b: Dim) -> Dim | None:
    """OpenVINO's ``Dimension::broadcast_merge``: a dim that may be 1 yields to the other; two that
    may both be 1 give their hull; otherwise the intersection (None when empty)."""
    a_has_1, b_has_1 = a.contains(1), b.contains(1)
    if a_has_1 and b_has_1:
        return Dim(min(a.min, b.min), None if a.max is None or b.max is None else max(a.max, b.max))
    if a_has_1:
        return b
    if b_has_1:
        return a
    return a.merge(b)


def broadcast_shapes(a: Shape, b: Shape, mode: str) -> Shape:
    """The output shape of a binary element-wise op (OpenVINO's ``eltwise_shape_infer``)."""
    if mode == "none":
        merged = a.merge(b)
        if merged is None:
            raise OpError(f"{INCONSISTENT_SHAPES} auto_broadcast 'none' needs equal shapes. Got: {a} and {b}")
        return merged
    if mode == "numpy":
        if a.rank_is_dynamic or b.rank_is_dynamic:
            return DYNAMIC_RANK
        rank = max(a.rank, b.rank)
        one = Dim.static(1)
        left = (one,) * (rank - a.rank) + tuple(a)
        right = (one,) * (rank - b.rank) + tuple(b)
        dims = []
        for x, y in zip(left, right, strict=True):
            dim = broadcast_dim(x, y)
            if dim is None:
                raise OpError(f"{INCONSISTENT_SHAPES} numpy broadcast of {a} and {b}: {x} and {y} differ")
            dims.append(dim)
        return Shape(tuple(dims))
    # pdpd: input 1 is broadcast into input 0 from axis 0 (the IR has no axis; OpenVINO reads it as 0).
    if a.rank_is_dynamic or b.rank_is_dynamic:
        return DYNAMIC_RANK
    if b.rank > a.rank:
        raise OpError(f"{INCONSISTENT_SHAPES} pdpd broadcast needs rank(b) <= rank(a). Got: {a} and {b}")
    dims = list(a)
    for i, source in enumerate(b):
        target = dims[i]
        dim = broadcast_dim(target, source)
        if dim is None or (target.is_static and source.is_static and source.value > target.value):
            raise OpError(f"{INCONSISTENT_SHAPES} pdpd broadcast of {b} into {a}: {source} does not fit {target}")
        if target.is_static and source.is_static and dim != target:
            # OpenVINO 2026.4.1 accepts [1] + [0] (output [0]) but its reference then writes input 0's
            # shape past the end of the output (heap corruption): irgraph refuses.
            raise OpError(f"{INCONSISTENT_SHAPES} pdpd broadcast must keep input 0's shape; {b} into {a} "
                          f"turns {target} into {dim}")
        dims[i] = dim
    return Shape(tuple(dims))


def widened(compute: Callable[..., np.ndarray], arrays: Sequence[np.ndarray], dtype: np.dtype) -> np.ndarray:
    """``compute(*arrays)``; f16 and bf16 through f32, rounded back once (OpenVINO's reference)."""
    with np.errstate(all="ignore"):
        if dtype in _WIDENED:
            result = np.asarray(compute(*(x.astype(np.float32) for x in arrays)))
            return round_float(result, dtype) if result.dtype.kind == "f" else result
        return np.asarray(compute(*arrays))


def fits(target: np.ndarray, shape: tuple[int, ...], dtype: np.dtype) -> bool:
    """True when an output of ``shape`` and ``dtype`` can be written into ``target`` as it is."""
    return target.shape == shape and target.dtype == dtype and target.flags.writeable


# ------------------------------------------------------------------------------------ binary
@dataclass(frozen=True)
class BinaryElementwise(Op):
    """Two inputs of one element type, broadcast by ``auto_broadcast``; one output.

    Members set ``type_name`` and ``compute`` (a NumPy function of two arrays of the input dtype
    returning the output values); ``type_rule`` says which element types the op takes and
    ``output_element_type`` what it makes (the input type unless overridden).
    """

    inputs = Inputs.of(InputSpec("a"), InputSpec("b"))
    type_rule: ClassVar[TypeRule] = ANY_TYPE
    # (a, b) -> values. Typed `...`: mypy binds a Callable ClassVar to self, and NumPy's stubs type a ufunc
    # such as np.add by its scalar overload, which a precise Callable of ndarrays would reject.
    compute: ClassVar[Callable[..., Any]]

    auto_broadcast: str = attribute("numpy")

    def __post_init__(self) -> None:
        check(
            self.auto_broadcast in AUTO_BROADCAST_MODES,
            f"Attribute 'auto_broadcast' must be one of {', '.join(AUTO_BROADCAST_MODES)}. Got: "
            f"{self.auto_broadcast!r}",
        )

    def output_element_type(self, element_type: ElementType) -> ElementType:
        """The output element type for inputs of ``element_type``."""
        return element_type

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Merge the element types (checking the family's rule) and broadcast the shapes."""
        a, b = inputs
        element_type = merge_element_types([a.element_type, b.element_type])
        self.type_rule.check(element_type)
        shape = broadcast_shapes(a.shape, b.shape, self.auto_broadcast)
        return [TensorType(self.output_element_type(element_type), shape)]

    traits = OpTraits(writes_in_place=True)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``compute`` over the broadcast inputs."""
        return self._evaluate(inputs, None)

    def evaluate_into(self, inputs: Sequence[np.ndarray], target: np.ndarray) -> list[np.ndarray]:
        """``evaluate`` written into ``target`` (input 0's array, which nothing else sees: see
        ``OpTraits.writes_in_place``) when the output fits it and ``compute`` is a ufunc; else a new array."""
        return self._evaluate(inputs, target)

    def _evaluate(self, inputs: Sequence[np.ndarray], target: np.ndarray | None) -> list[np.ndarray]:
        a, b = inputs
        if a.dtype != b.dtype:
            raise OpError(f"{INCONSISTENT_TYPES} Got: {a.dtype} and {b.dtype}")
        # the checks and the broadcast shape depend on the shapes and the dtype alone: worked out once per those
        # (a decoder runs its element-wise layers on the same shapes at every step, through the general path)
        shape, aligned, expected, ufunc = remembered(self, (a.shape, b.shape, a.dtype), lambda: self._planned(a, b))
        if aligned is not None:
            b = b.reshape(aligned)
        if target is not None and ufunc is not None and fits(target, shape, a.dtype):
            with np.errstate(all="ignore"):
                ufunc(a, b, out=target)
            return [target]
        if a.dtype == np.float16 and expected == a.dtype and a.shape == shape and a.ndim and \
                (wide_ufunc := self.in_place_ufunc()) is not None:
            # written a block at a time: not over a target that b's values may still be read from
            out = target if target is not None and fits(target, shape, a.dtype) and \
                not np.may_share_memory(target, b) else np.empty(shape, a.dtype)
            return [f16_through_f32(wide_ufunc, a, b, out)]
        result = widened(self.compute_values, (a, b), a.dtype)
        if result.dtype != expected:
            result = result.astype(expected)
        return [result if result.shape == shape else np.broadcast_to(result, shape).copy()]

    def _planned(self, a: np.ndarray, b: np.ndarray
                 ) -> tuple[tuple[int, ...], tuple[int, ...] | None, np.dtype | None, np.ufunc | None]:
        """(output shape, the shape ``b`` is aligned to when pdpd reshapes it, the output dtype, the ufunc that
        writes the output into input 0's array when it may), or OpError for inputs the op refuses."""
        self.type_rule.check(ElementType.from_numpy(a.dtype))
        _, aligned, shape = broadcast_arrays(a, b, self.auto_broadcast)
        expected = self.output_element_type(ElementType.from_numpy(a.dtype)).numpy_dtype
        ufunc = self.in_place_ufunc()
        writes_over = ufunc is not None and expected == a.dtype and a.dtype not in _WIDENED
        return shape, aligned.shape if aligned is not b else None, expected, ufunc if writes_over else None

    def compute_values(self, a: np.ndarray, b: np.ndarray) -> Any:
        """The values; members with attributes override this instead of setting ``compute``."""
        return type(self).compute(a, b)

    float_ufunc: ClassVar[np.ufunc | None] = None
    """The ufunc ``compute_values`` calls as it is on floats, in members that compute other types otherwise (Power,
    Divide): a step of static float types then runs as that one call too (``ufunc_call``)."""

    def ufunc_call(self, inputs: Sequence[TensorType]) -> UfuncCall | None:
        """``compute`` itself when ``evaluate`` would call it as it is on such inputs: static shapes (numpy
        broadcast, or none on equal shapes), one element type computed in its own width, a result of the output
        element type and rank (a ufunc of 0-d arrays returns a scalar)."""
        ufunc = self.in_place_ufunc()
        a, b = inputs
        if (ufunc is None and self.float_ufunc is None) or not (a.shape.is_static and b.shape.is_static) or \
                a.element_type != b.element_type:
            return None
        if self.auto_broadcast == "pdpd" or (self.auto_broadcast == "none" and a.shape != b.shape):
            return None
        dtype = a.element_type.numpy_dtype if not a.element_type.is_dynamic else None
        if dtype is None or dtype.kind not in "biuf" or dtype in _WIDENED or max(a.shape.rank, b.shape.rank) == 0:
            return None
        if ufunc is None:  # a member computing floats by one ufunc and other types otherwise
            ufunc = self.float_ufunc if dtype.kind == "f" else None
            if ufunc is None:
                return None
        try:
            made = ufunc.resolve_dtypes((dtype, dtype, None))[-1]
        except (TypeError, ValueError):  # no loop for this dtype: evaluate says so at run time
            return None
        return UfuncCall(ufunc) if made == self.output_element_type(a.element_type).numpy_dtype else None

    @classmethod
    def in_place_ufunc(cls) -> np.ufunc | None:
        """``compute`` when it is a NumPy ufunc used as it is (it can then write into an ``out`` array)."""
        compute = getattr(cls, "compute", None)
        if isinstance(compute, np.ufunc) and cls.compute_values is BinaryElementwise.compute_values:
            return compute
        return None


@dataclass(frozen=True)
class BinaryArithmetic(BinaryElementwise):
    """Binary arithmetic (Add, Divide, ...): any element type but boolean; output of the input type."""

    type_rule = NUMERIC
    bounds_at_corners: ClassVar[bool] = False
    """True when the op's extremes over input intervals lie at the intervals' corners (Add, Subtract, Multiply,
    Maximum, Minimum): bounds propagate."""
    bounds_by_positive_divisor: ClassVar[bool] = False
    """True when bounds propagate once the divisor is known exactly and positive (Divide, FloorMod, Mod; Swin's
    ``(window - width % window) % window`` pads): a quotient grows with the dividend, a remainder does within one
    period of the divisor."""
    remainder: ClassVar[bool] = False
    """True for a remainder (FloorMod, Mod): its bounds span ``[0, divisor - 1]`` where the dividend crosses a
    multiple of the divisor."""
    bounds_of_negative_dividend: ClassVar[bool] = False
    """True when a divisor's bounds hold for a negative dividend too (FloorMod: its remainder takes the positive
    divisor's sign; Mod's takes the dividend's, Divide may truncate it)."""

    def bounds(
        self, inputs: Sequence[TensorType], values: Sequence[PartialValue | None]
    ) -> list[PartialValue | None] | None:
        """OpenVINO's ``interval_bound_evaluator``: the op on the four (lower/upper, lower/upper) input
        pairs, the smallest and largest result; where an input bound is its type's maximum (unknown) the
        output is ``[0, max]``. Right for ops monotonic in each input (Add, Subtract, Multiply of
        non-negative shape values, Maximum, Minimum), so only those propagate, and Divide, FloorMod
        and Mod by an exact positive divisor (``bounds_by_positive_divisor``): the others (Power, ...)
        leave their outputs without bounds rather than claim wrong ones. Where a remainder's dividend
        crosses a multiple of the divisor the bounds are ``[0, divisor - 1]``, not OpenVINO's corners
        (its ``[7, 14] % 7`` is exactly 0)."""
        a, b = values
        if a is None or b is None or a.lower.dtype != b.lower.dtype or a.lower.dtype.kind not in "iu":
            return None
        if self.bounds_by_positive_divisor:
            if not (b.is_exact and bool(np.all(b.lower > 0))):
                return None
            if not self.bounds_of_negative_dividend and bool(np.any(a.lower < 0)):
                return None
        elif not self.bounds_at_corners:
            return None
        try:
            corners = [self.evaluate([x, y])[0] for x in (a.lower, a.upper) for y in (b.lower, b.upper)]
        except (OpError, ValueError):
            return None
        unknown = np.iinfo(a.lower.dtype).max
        dynamic = ((a.lower == unknown) | (a.upper == unknown))
        dynamic_b = ((b.lower == unknown) | (b.upper == unknown))
        dynamic = broadcast_arrays(dynamic, dynamic_b, self.auto_broadcast)[0] | \
            broadcast_arrays(dynamic, dynamic_b, self.auto_broadcast)[1]
        lower, upper = np.minimum.reduce(corners), np.maximum.reduce(corners)
        if self.remainder:
            low, divisor, _ = broadcast_arrays(a.lower, b.lower, self.auto_broadcast)
            high = broadcast_arrays(a.upper, b.lower, self.auto_broadcast)[0]
            crossing = np.floor_divide(low, divisor) != np.floor_divide(high, divisor)
            lower = np.where(crossing, 0, lower)
            upper = np.where(crossing, divisor - 1, upper)
        lower = np.where(dynamic, 0, lower).astype(corners[0].dtype)
        upper = np.where(dynamic, unknown, upper).astype(corners[0].dtype)
        return [PartialValue(lower, upper)]


@dataclass(frozen=True)
class Comparison(BinaryElementwise):
    """Comparisons (Equal, Less, ...): inputs of one element type, boolean output.

    OpenVINO 2026.4.1's type inference takes string inputs in every comparison, but nothing of it
    computes one (its reference has no string kernel, its CPU plugin refuses string inputs). Equal
    and NotEqual compare strings by value, as ONNX's Equal does; the ordered comparisons refuse them
    at evaluation.
    """

    type_rule = TypeRule(lambda t: True, "")
    compares_strings: ClassVar[bool] = False
    """True when the op evaluates string inputs (Equal, NotEqual)."""

    def output_element_type(self, element_type: ElementType) -> ElementType:
        """Always boolean."""
        return ElementType.BOOLEAN

    def _evaluate(self, inputs: Sequence[np.ndarray], target: np.ndarray | None) -> list[np.ndarray]:
        """The comparison; strings (object arrays of str) only for the ops that compare them by value."""
        a, b = inputs
        if a.dtype.kind != "O" and b.dtype.kind != "O":
            return super()._evaluate(inputs, target)
        check(a.dtype.kind == b.dtype.kind, f"{INCONSISTENT_TYPES} Got: {a.dtype} and {b.dtype}")
        check(self.compares_strings, f"{self.type_name} on strings: OpenVINO 2026.4.1 computes it nowhere (no "
                                     "reference kernel; its CPU plugin refuses string inputs)")
        a, b, shape = broadcast_arrays(a, b, self.auto_broadcast)
        result = np.asarray(self.compute_values(a, b), dtype=bool)
        return [result if result.shape == shape else np.broadcast_to(result, shape).copy()]


@dataclass(frozen=True)
class BinaryLogical(BinaryElementwise):
    """Logical ops (LogicalAnd, ...): boolean inputs and output."""

    type_rule = BOOLEAN


# ------------------------------------------------------------------------------------ unary
def plain_float(tensor: TensorType) -> bool:
    """A static shape of rank 1 or more holding f32 or f64 (computed in its own precision)."""
    element_type = tensor.element_type
    return (tensor.shape.is_static and tensor.shape.rank > 0 and not element_type.is_dynamic
            and element_type.numpy_dtype in (np.float32, np.float64))


@dataclass(frozen=True)
class UnaryElementwise(Op):
    """One input, one output of the same element type and shape; ``compute`` maps the values.

    ``type_rule`` says which element types the op takes (any numeric type by default; ``REAL``
    for the float-only activations).
    """

    inputs = Inputs.of(InputSpec("data"))
    type_rule: ClassVar[TypeRule] = NUMERIC
    compute: ClassVar[Callable[..., Any]]  # data -> values; `...` as in BinaryElementwise.compute

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input type, once the family's rule accepts its element type."""
        (data,) = inputs
        self.type_rule.check(data.element_type)
        return [data]

    traits = OpTraits(writes_in_place=True)
    compute_into: ClassVar[Callable[..., None] | None] = None  # (data, target); `...`: see compute
    """``compute_into(data, target)`` writes ``compute(data)`` into ``target`` (same shape and dtype, possibly
    ``data`` itself), for members whose ``compute`` is not a ufunc (Relu); it must give the same values."""

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``compute`` of the input, in the input's dtype."""
        (data,) = inputs
        self.type_rule.check(ElementType.from_numpy(data.dtype))
        return self._computed(data)

    def evaluate_into(self, inputs: Sequence[np.ndarray], target: np.ndarray) -> list[np.ndarray]:
        """``evaluate`` written into ``target`` (input 0's array, which nothing else sees: see
        ``OpTraits.writes_in_place``) when the output fits it and the op can write there; else a new array."""
        (data,) = inputs
        self.type_rule.check(ElementType.from_numpy(data.dtype))
        if fits(target, data.shape, data.dtype):
            into = self.in_place_function(data.dtype)
            if into is not None:
                with np.errstate(all="ignore"):
                    into(data, target)
                return [target]
        return self._computed(data)

    def ufunc_call(self, inputs: Sequence[TensorType]) -> UfuncCall | None:
        """``compute`` itself when ``evaluate`` would call it as it is: a float of its own precision and a static
        shape of rank 1 or more (a ufunc of a 0-d array returns a scalar)."""
        (data,) = inputs
        compute = getattr(type(self), "compute", None)
        if not isinstance(compute, np.ufunc) or not plain_float(data) or type(self).compute_into is not None:
            return None
        if type(self).compute_values not in (UnaryElementwise.compute_values, UnaryMath.compute_values):
            return None
        try:
            made = compute.resolve_dtypes((data.element_type.numpy_dtype, None))[-1]
        except (TypeError, ValueError):
            return None
        return UfuncCall(compute) if made == data.element_type.numpy_dtype else None

    def _computed(self, data: np.ndarray) -> list[np.ndarray]:
        result = widened(self.compute_values, (data,), data.dtype)
        return [result if result.dtype == data.dtype else result.astype(data.dtype)]

    def compute_values(self, data: np.ndarray) -> Any:
        """The values; members with attributes override this instead of setting ``compute``."""
        return type(self).compute(data)

    @classmethod
    def in_place_function(cls, dtype: np.dtype) -> Callable[[np.ndarray, np.ndarray], Any] | None:
        """How to write the values of ``dtype`` data into a target: ``compute_into``, else ``compute`` when
        it is a ufunc applied as it is (floats computed in their own precision), else None."""
        if cls.compute_into is not None:
            return cls.compute_into
        compute = getattr(cls, "compute", None)
        if not isinstance(compute, np.ufunc) or dtype.kind != "f" or dtype in _WIDENED:
            return None
        if cls.compute_values not in (UnaryElementwise.compute_values, UnaryMath.compute_values):
            return None
        return lambda data, target: compute(data, out=target)


@dataclass(frozen=True)
class UnaryMath(UnaryElementwise):
    """Unary arithmetic (Sqrt, Exp, Sin, ...): floats computed in their own precision (f16 and bf16 in
    f32); ``integers`` says how integer inputs are computed:

    - ``"trunc"``: in f64, then ``static_cast`` back (toward zero: OpenVINO's integer Sin, Log, Exp);
    - ``"round"``: in f64, rounded half away from zero (``std::round``) and cast back (its integer
      Sqrt, Cos, Tan, Erf, ...);
    - ``"native"``: by ``compute`` on the integers themselves (Abs, Negative: wrapping);
    - ``"identity"``: passed through (Floor, Ceiling).
    """

    integers: ClassVar[str] = "trunc"

    def compute_values(self, data: np.ndarray) -> Any:
        """The values, with the member's integer rule."""
        compute = type(self).compute
        if data.dtype.kind not in "iu":
            return compute(data)
        if self.integers == "native":
            return compute(data)
        if self.integers == "identity":
            return data.copy()
        result = compute(data.astype(np.float64))
        if self.integers == "round":
            result = round_half_away(result)
        return convert(result, ElementType.F64, ElementType.from_numpy(data.dtype))
