"""Op base class, attribute declarations and codecs, input specs and shared checks."""

from __future__ import annotations

import dataclasses
import math
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.integers import WHITESPACE, ascii_note, parse_int
from irgraph.core.records import Record
from irgraph.core.shapes import PartialValue, Shape, TensorType
from irgraph.ops.plan_step import PlanStep

BOUNDS_LIMIT = 4096
"""Largest tensor (in elements) whose bounds shape inference computes (shape vectors are small)."""

_OpT = TypeVar("_OpT", bound="Op")


class InputSpec(Record):
    """One input of an op: its name, and whether ``infer`` takes bounds where the exact value is unknown."""

    __slots__ = ("name", "bounds")

    name: str
    bounds: bool
    """True when ``infer`` also takes a :class:`PartialValue` (bounds) where the exact value is unknown."""

    def __init__(self, name: str, bounds: bool = False) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "bounds", bounds)


class Inputs(Record):
    """The inputs an op takes: a fixed list, or one repeated input with a minimum count."""

    __slots__ = ("fixed", "variadic", "minimum")

    fixed: tuple[InputSpec, ...]
    variadic: InputSpec | None
    minimum: int

    def __init__(self, fixed: tuple[InputSpec, ...] = (), variadic: InputSpec | None = None, minimum: int = 0) -> None:
        object.__setattr__(self, "fixed", fixed)
        object.__setattr__(self, "variadic", variadic)
        object.__setattr__(self, "minimum", minimum)

    @classmethod
    def of(cls, *specs: InputSpec) -> Inputs:
        """A fixed list of inputs."""
        return cls(fixed=specs, minimum=len(specs))

    @classmethod
    def optional(cls, required: int, *specs: InputSpec) -> Inputs:
        """A fixed list whose inputs after the first ``required`` may be left out (Squeeze's axes, Swish's beta)."""
        return cls(fixed=specs, minimum=required)

    @classmethod
    def repeated(cls, name: str, minimum: int) -> Inputs:
        """Any number (at least ``minimum``) of inputs of one kind."""
        return cls(variadic=InputSpec(name), minimum=minimum)

    def accepts(self, count: int) -> bool:
        """True when ``count`` inputs is a valid number for this op (fixed inputs past ``minimum`` are optional)."""
        return count >= self.minimum and (self.variadic is not None or count <= len(self.fixed))

    def spec(self, index: int) -> InputSpec:
        """The spec of input ``index``."""
        if index < len(self.fixed):
            return self.fixed[index]
        if self.variadic is None:
            raise IndexError(index)
        return self.variadic

    def describe(self) -> str:
        """``2 (data, axis)``, ``1 or 2 (data, beta)`` or ``at least 1``."""
        if self.variadic is not None:
            return f"at least {self.minimum}"
        if self.minimum < len(self.fixed):
            return f"{self.minimum} to {len(self.fixed)} ({', '.join(s.name for s in self.fixed)})"
        return f"{len(self.fixed)} ({', '.join(s.name for s in self.fixed)})" if self.fixed else "0"


# ------------------------------------------------------------------------------------ codecs
def _read_int(text: str) -> int:
    return parse_int(text)  # ASCII digits, whitespace around, int64 (see irgraph.core.integers)


def _read_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise ValueError("true or false")


def _read_float(text: str) -> float:
    if not text.isascii() or "_" in text:  # float() also reads other scripts' digits and '1_000'
        raise ValueError("a number" + ascii_note(text))
    try:
        return float(text)
    except ValueError:
        raise ValueError("a number") from None


_PLAIN_INTS = re.compile(r"-?[0-9]{1,18}(?:, ?-?[0-9]{1,18})*")
"""Integer lists as OpenVINO writes them ("1, 2, 3"): int() reads each exactly as parse_int would."""


def _read_int_tuple(text: str) -> tuple[int, ...]:
    if _PLAIN_INTS.fullmatch(text) is not None:  # the common case, four times faster (reading real networks)
        return tuple(map(int, text.split(",")))
    return tuple(parse_int(t) for t in text.split(",")) if text.strip(WHITESPACE) else ()


def _read_float_tuple(text: str) -> tuple[float, ...]:
    return tuple(_read_float(t.strip(WHITESPACE)) for t in text.split(",")) if text.strip(WHITESPACE) else ()


def _write_float_list(values: tuple[float, ...]) -> str:
    """OpenVINO writes a float vector through std::ostream: 6 significant digits (``1e-07``, ``1.23457e+08``) of
    each float32 value."""
    return ", ".join(format(float(np.float32(v)), "g") for v in values)


def _read_str_tuple(text: str) -> tuple[str, ...]:
    return tuple(t.strip(WHITESPACE) for t in text.split(",")) if text.strip(WHITESPACE) else ()


class Codec(Record):
    """Text <-> value for one attribute type; ``read`` raises ValueError naming what it expected."""

    __slots__ = ("read", "write")

    read: Callable[[str], Any]
    write: Callable[[Any], str]

    def __init__(self, read: Callable[[str], Any], write: Callable[[Any], str]) -> None:
        object.__setattr__(self, "read", read)
        object.__setattr__(self, "write", write)


def _expecting(what: str, parse: Callable[[str], Any]) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        try:
            return parse(text)
        except Exception as err:
            raise ValueError(what) from err

    return read


CODECS: dict[Any, Codec] = {
    int: Codec(_read_int, str),
    bool: Codec(_read_bool, lambda v: "true" if v else "false"),
    float: Codec(_read_float, lambda v: f"{v:.17g}"),
    str: Codec(str, str),
    tuple[int, ...]: Codec(_read_int_tuple, lambda v: ", ".join(str(x) for x in v)),
    # OpenVINO writes float and string lists through std::ostream ("0.5, 1e-07", "sigmoid, tanh")
    tuple[float, ...]: Codec(_read_float_tuple, _write_float_list),
    tuple[str, ...]: Codec(_read_str_tuple, ", ".join),
    Shape: Codec(_expecting("a partial shape like 1,?,1..8", Shape.parse), Shape.to_ir),
    ElementType: Codec(_expecting("an IR element type like f32", ElementType.from_ir_name), lambda v: v.ir_name),
}


_ANNOTATED: dict[str, Any] = {
    "int": int, "bool": bool, "float": float, "str": str, "tuple[int, ...]": tuple[int, ...],
    "tuple[float, ...]": tuple[float, ...], "tuple[str, ...]": tuple[str, ...], "Shape": Shape,
    "ElementType": ElementType,
}
"""The codecs' types by the annotation texts ops write (``from __future__ import annotations`` leaves them text):
``typing.get_type_hints`` evaluates every annotation of the class and its bases, 0.1-0.2 ms per op class read."""


def attribute(default: Any = dataclasses.MISSING, *, ir_name: str | None = None) -> Any:
    """Declare an op attribute: one declaration drives XML read, XML write, equality and repr."""
    return dataclasses.field(default=default, metadata={"ir_name": ir_name, "attribute": True})


class AttributeField(Record):
    """A declared attribute of an op class."""

    __slots__ = ("name", "ir_name", "codec", "required")

    name: str
    ir_name: str
    codec: Codec
    required: bool

    def __init__(self, name: str, ir_name: str, codec: Codec, required: bool) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "ir_name", ir_name)
        object.__setattr__(self, "codec", codec)
        object.__setattr__(self, "required", required)


# ------------------------------------------------------------------------------------ tolerance
@dataclass(frozen=True)
class Tolerance:
    """How far an op's floating-point outputs may be from OpenVINO's reference implementation.

    A value passes when it is within ``ulp`` units in the last place of the output element type,
    or within ``eps`` machine epsilons of that type absolutely (for results near zero, where a
    ULP bound means nothing: sin(pi)), or within ``sum_eps`` machine epsilons times the magnitude
    of the terms the value sums (ops that accumulate: MatMul, convolutions, AvgPool). That
    magnitude is the op evaluated again in f64 on the absolute values of its floating-point inputs
    (``sum |a_i * b_i|`` for a dot product), or the op's own ``term_magnitudes(inputs)`` where that
    is not the sum (a DFT's terms are ``|x_n|`` times twiddles of modulus 1): a sum of terms of both
    signs may cancel to a value far smaller than its rounding errors, which any ULP bound on the
    result would reject. NaN
    matches NaN; infinities match exactly. Integer and boolean outputs are always compared
    exactly. The default is exact (bit for bit, -0.0 and 0.0 apart).
    """

    ulp: int = 0
    eps: float = 0.0
    sum_eps: float = 0.0

    @property
    def is_exact(self) -> bool:
        """True when outputs must be bit for bit OpenVINO's."""
        return self.ulp == 0 and self.eps == 0.0 and self.sum_eps == 0.0

    def describe(self) -> str:
        """``exact``, ``4 ULP``, ``4 ULP or 2 eps``, ``1 ULP or 16 eps x sum|terms|`` (docs/tolerances.md)."""
        if self.is_exact:
            return "exact"
        parts = [f"{self.ulp} ULP"] if self.ulp else []
        if self.eps:
            parts.append(f"{self.eps:g} eps")
        if self.sum_eps:
            parts.append(f"{self.sum_eps:g} eps x sum|terms|")
        return " or ".join(parts)


EXACT = Tolerance()


# ------------------------------------------------------------------------------------ base
@dataclass(frozen=True)
class Op(PlanStep):
    """Base of every op: typed attributes, an input spec, a pure shape rule and NumPy evaluation; ``traits``
    (from PlanStep) says what is special about it for the interpreter, the reader and the graph walk."""

    type_name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    introduced: ClassVar[int] = 0
    """The op version the class implements: OpenVINO's version id, the opset that introduced it (8 for
    MaxPool-8, 2 for LogicalXor although opset1 holds it too). Each registered class declares it."""
    opsets: ClassVar[tuple[int, ...]] = ()
    """The opsets containing this version: set by ``register`` from the catalogue, never declared."""
    inputs: ClassVar[Inputs] = Inputs()
    attribute_order: ClassVar[tuple[str, ...]] = ()
    """The attributes' XML order by field name when it is not their declaration order (see attribute_fields)."""
    tolerance: ClassVar[Tolerance] = EXACT
    """How far floating-point outputs may be from OpenVINO's reference (docs/tolerances.md lists it)."""
    reads_values: ClassVar[bool] = True
    """False for ops whose outputs depend only on their inputs' shapes (ShapeOf): a comparison with another
    runtime holds them exact whatever rounding their inputs carry."""
    cpu_plugin_differs: ClassVar[str] = ""
    """Where OpenVINO's CPU plugin computes otherwise than its reference, which irgraph follows: what the
    plugin does, naming the OpenVINO release (docs/tolerances.md lists it; empty when they agree)."""
    forwards_values: ClassVar[tuple[int, ...]] = ()
    """Inputs whose values output 0 holds, reshaped or converted but otherwise unchanged (Convert, Reshape,
    Squeeze, Unsqueeze): random data for a model input is chosen by what it reaches through them."""
    mask_inputs: ClassVar[tuple[int, ...]] = ()
    """Inputs read as masks (Select's condition): random integers for a model input reaching one are 0 or 1."""

    @property
    def version(self) -> str:
        """The IR ``version`` written for this op: the opset that introduced it."""
        return f"opset{self.introduced}"

    @classmethod
    def title(cls) -> str:
        """``Split-1``: the type and the op version (:attr:`introduced`)."""
        return f"{cls.type_name}-{cls.introduced}"

    @classmethod
    def attribute_fields(cls) -> tuple[AttributeField, ...]:
        """The declared attributes in XML order: declaration order, or ``attribute_order`` where a class
        extends a base and OpenVINO writes the added attributes between the inherited ones."""
        cached = cls.__dict__.get("_attribute_fields")
        if cached is not None:
            return cached
        declared = [f for f in dataclasses.fields(cls) if f.metadata.get("attribute")]
        types = [_ANNOTATED.get(f.type) if isinstance(f.type, str) else f.type for f in declared]
        if not all(t in CODECS for t in types):  # an annotation spelt otherwise: evaluate them all
            hints = typing.get_type_hints(cls)
            types = [hints[f.name] for f in declared]
        found = tuple(
            AttributeField(
                name=f.name,
                ir_name=f.metadata.get("ir_name") or f.name,
                codec=CODECS[t],
                required=f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
            )
            for f, t in zip(declared, types, strict=True)
        )
        if cls.attribute_order:
            found = tuple(sorted(found, key=lambda field: cls.attribute_order.index(field.name)))
        setattr(cls, "_attribute_fields", found)  # noqa: B010 - frozen dataclass: cache on the class
        return found

    @classmethod
    def from_attributes(cls: type[_OpT], attributes: Mapping[str, str], **values: Any) -> _OpT:
        """Build the op from attribute texts (as read from ``<data>``); unknown keys are ignored.

        Missing attributes take their defaults; a missing required one is an error.
        """
        kwargs: dict[str, Any] = dict(values)
        for spec in cls.attribute_fields():
            text = attributes.get(spec.ir_name)
            if text is None:
                if spec.required:
                    raise OpError(f"{cls.title()} needs the attribute '{spec.ir_name}'; it is missing")
                continue
            try:
                kwargs[spec.name] = spec.codec.read(text)
            except ValueError as err:
                raise OpError(f"attribute '{spec.ir_name}' must be {err}. Got: {text!r}") from None
        return cls(**kwargs)

    def to_attributes(self) -> dict[str, str]:
        """Attribute texts in declaration order (what ``<data>`` holds)."""
        return {spec.ir_name: spec.codec.write(getattr(self, spec.name)) for spec in self.attribute_fields()}

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int | None:
        """How many outputs the op has given its input values (None when unknown). Default 1."""
        return 1

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Check the inputs and compute the output types. ``values[i]`` is known for constant inputs."""
        raise NotImplementedError

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Compute the outputs with NumPy. (Ops whose traits say ``writes_in_place`` also have
        ``evaluate_into(inputs, target)``: see :class:`~irgraph.ops.traits.WritesInPlace`.)"""
        raise NotImplementedError

    def for_outputs(self, used: Sequence[bool]) -> Op:
        """The op to run when only the outputs marked ``used`` are read (the interpreter asks once, when it
        schedules). Ops that can skip work for an unread output return a copy that puts a placeholder there
        (MaxPool-8's indices); the default is the op itself."""
        return self

    def infer_layer(
        self, layer: Any, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None],
        infer_body: Callable[[Any, dict[int, TensorType]], None],
    ) -> list[TensorType]:
        """The output types of ``layer``, the graph node holding this op (typed loosely: ops do not see the
        graph). Ops defined by sub-graph bodies (``irgraph.control_flow``) infer through them, inferring each
        body Model with ``infer_body(model, parameter_types)``; every other op is its ``infer``."""
        return self.infer(inputs, values)

    def plan_step(self, layer: Any, prepare_body: Callable[[Any], Any]) -> PlanStep:
        """What the interpreter runs for ``layer``, the graph node holding this op: the op itself. Ops defined
        by sub-graph bodies (``irgraph.control_flow``) return a runner (a ``PlanStep``) holding what
        ``prepare_body(model)`` prepared for each body Model (an Interpreter)."""
        return self

    bound_inputs: ClassVar[tuple[int, ...] | None] = ()
    """Inputs whose bounds flow through ``evaluate`` unchanged in order (data movement: Gather's data,
    every Concat input; None for every input); the others must be known exactly. Ops that set it
    propagate bounds as OpenVINO's ``default_bound_evaluator`` does: ``evaluate`` on the lower bounds,
    then on the upper bounds. ``()`` (the default) means the op does not propagate bounds."""

    def bounds(
        self, inputs: Sequence[TensorType], values: Sequence[PartialValue | None]
    ) -> list[PartialValue | None] | None:
        """Bounds of the outputs from the input types and the inputs' bounds (None where unknown).

        Called by shape inference for integer tensors it cannot compute exactly (shape sub-graphs
        of dynamic models). The default evaluates the op on the lower and the upper bounds of the
        ``bound_inputs``, the other inputs exact; None when the op does not propagate bounds.
        """
        movable = self.bound_inputs
        known = [v for v in values if v is not None]
        if movable == () or not values or len(known) < len(values):
            return None
        indices = range(len(known)) if movable is None else movable
        if any(not known[i].is_exact for i in range(len(known)) if i not in indices):
            return None
        try:
            shapes = self.output_shapes([v.lower for v in known])
            if shapes is not None and any(math.prod(shape) > BOUNDS_LIMIT for shape in shapes):
                return None
            lower = self.evaluate([v.lower for v in known])
            upper = self.evaluate([v.upper for v in known])
        except (OpError, ValueError, IndexError):
            return None
        return [PartialValue(low, high) for low, high in zip(lower, upper, strict=True)]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]] | None:
        """The shapes ``evaluate`` would produce, computed without allocating (None when unknown): the
        interpreter checks them, and ``infer``'s checks pass, before the op allocates.

        The default is ``infer`` on the arrays' static types, no value known: the op's one shape rule. Ops
        whose output shapes depend on input values (Reshape's target, Range's bounds) override it; the
        interpreter remembers the default's answers per input shapes and dtypes (``irgraph.runtime``).
        """
        inferred = self.infer(static_types(inputs), [None] * len(inputs))
        if not all(t.shape.is_static for t in inferred):
            return None  # the values decide (NonZero's count)
        return [t.shape.to_tuple() for t in inferred]

    @classmethod
    def shapes_read_values(cls) -> bool:
        """True when the class overrides ``output_shapes`` because its output shapes depend on input values:
        answers for one set of input shapes and dtypes may not hold for another set of values."""
        return cls.output_shapes is not Op.output_shapes

    def index_count(self, port: int, inputs: Sequence[TensorType | None], values: Sequence[np.ndarray | None]
                    ) -> int | None:
        """How many valid values input ``port`` has when it indexes another input (Gather's indices: the size
        of data's axis), from the inputs' types and constant values; None when it indexes nothing or the
        size is unknown. Random data for a model input that reaches it stays within."""
        return None

    @property
    def cannot_run_reason(self) -> str | None:
        """Why the op has no NumPy implementation (None when it can run)."""
        return None

    @property
    def can_run(self) -> bool:
        """True when the op has a NumPy implementation."""
        return self.cannot_run_reason is None


# ------------------------------------------------------------------------------------ checks
def static_types(arrays: Sequence[np.ndarray]) -> list[TensorType]:
    """The static tensor types of run-time arrays (strings, held as object arrays, are ``string``)."""
    return [TensorType(ElementType.STRING if np.asarray(x).dtype == object else ElementType.from_numpy(
        np.asarray(x).dtype), Shape.static(np.shape(x))) for x in arrays]


def check(condition: bool, message: str) -> None:
    """Raise OpError(message) unless ``condition`` holds."""
    if not condition:
        raise OpError(message)


_T = TypeVar("_T")

UNSETTLED = "the output shapes depend on values the inputs' shapes do not settle"
"""``checked``'s message where an op's ``evaluate`` asks its own ``output_shapes``, which cannot be None there."""


def checked(value: _T | None, message: str) -> _T:
    """``value``, or OpError(message) when it is None (a merge that failed): a ``check`` a type checker follows."""
    if value is None:
        raise OpError(message)
    return value


def normalize_axis(axis: int, rank: int) -> int:
    """Map ``axis`` in ``[-rank, rank-1]`` to ``[0, rank-1]``; OpenVINO's message otherwise."""
    if not -rank <= axis < rank:
        raise OpError(f"Axis {axis} out of the tensor rank range [{-rank}, {rank - 1}].")
    return axis + rank if axis < 0 else axis


def shape_text(shape: Sequence[int] | Shape) -> str:
    """``[2,3]`` for a concrete or partial shape."""
    if isinstance(shape, Shape):
        return str(shape)
    return "[" + ",".join(str(int(s)) for s in shape) + "]"


def integer_values(array: np.ndarray, what: str) -> list[int]:
    """The values of an axis or lengths tensor as Python ints (floats truncate, as OpenVINO does)."""
    flat = np.asarray(array).reshape(-1)
    kind = flat.dtype.kind
    if kind == "f" and not np.all(np.isfinite(flat)):
        raise OpError(f"'{what}' input must hold finite numbers. Got: {flat.tolist()}")
    if kind not in "iubf":  # message built only on failure: formatting a dtype is slow
        raise OpError(f"'{what}' input must be numeric. Got dtype {flat.dtype}")
    return [int(v) for v in flat.tolist()]


def scalar_integer(value: np.ndarray, what: str) -> int:
    """The first value of an axis input as a Python int: ``int()`` for an integer scalar (the
    common case, checked once per run), else :func:`integer_values` with its checks."""
    if isinstance(value, np.ndarray | np.generic) and value.ndim == 0 and value.dtype.kind in "iu":
        return int(value)
    return integer_values(value, what)[0]
