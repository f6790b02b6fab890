"""Dim (static / interval / dynamic) and Shape (partial shape, possibly of dynamic rank).

Dims follow OpenVINO's interval model: a dim is ``[min, max]`` with ``max = None`` meaning
unbounded; ``?`` is ``[0, None]`` and a static dim ``n`` is ``[n, n]``.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import FrozenInstanceError
from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrParseError
from irgraph.core.integers import INT64_MAX, UNSIGNED, WHITESPACE, ascii_note, parse_int

_INTERVAL = re.compile(r"([0-9]*)\.\.([0-9]*)", re.ASCII)


# Dim, Shape, TensorType and PartialValue were frozen dataclasses: they are plain slotted classes with what the
# dataclasses gave them written out (equality and hash by fields, no assignment, pickling), because compiling a
# dataclass's methods when the module is imported cost 0.3-0.6 ms each (slots=True builds the class twice), paid
# by every cold start (issue 28 item 5).
class _Frozen:
    """Refuses assignment after ``__init__`` (``object.__setattr__`` sets the slots) and pickles and copies by its
    slots, as a frozen slotted dataclass does."""

    __slots__: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self.__slots__, state, strict=True):
            object.__setattr__(self, name, value)


class Dim(_Frozen):
    """One dimension: the interval ``[min, max]``; ``max is None`` means no upper bound."""

    __slots__ = ("min", "max")

    min: int
    max: int | None

    def __init__(self, min: int = 0, max: int | None = None) -> None:  # noqa: A002 - the fields' names
        if min < 0 or (max is not None and max < min):
            raise ValueError(f"invalid dimension interval [{min}, {max}]")
        object.__setattr__(self, "min", min)
        object.__setattr__(self, "max", max)

    def __eq__(self, other: object) -> bool:
        if type(other) is Dim:
            return self.min == other.min and self.max == other.max
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.min, self.max))

    @classmethod
    def static(cls, size: int) -> Dim:
        """A dimension of exactly ``size``."""
        return cls(size, size)

    @classmethod
    def dynamic(cls) -> Dim:
        """A fully dynamic dimension (``?``)."""
        return _DYNAMIC

    @classmethod
    def of(cls, value: Dim | int | str | None) -> Dim:
        """Coerce an int (``-1`` is dynamic), a string like ``"1..8"``, ``None`` or a Dim."""
        if isinstance(value, Dim):
            return value
        if value is None:
            return _DYNAMIC
        if isinstance(value, str):
            return cls.parse(value)
        # int() would make 2.5 a 2 and True a 1 without a word: a dim is an integer, whatever gave it.
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
            raise IrParseError(f"a dimension is an int, None, '?' or a range like '1..8', got {value!r}")
        value = int(value)
        if value == -1:
            return _DYNAMIC
        if value < 0:
            raise IrParseError(f"dimension must be >= -1, got {value}")
        return cls(value, value)

    @classmethod
    def parse(cls, text: str) -> Dim:
        """Parse ``6``, ``?``, ``-1``, ``1..8``, ``..8`` or ``2..`` (XML whitespace around allowed).

        Stricter than OpenVINO 2026.4.1, which reads ``-0``, ``-2`` and ``-`` as 0, ``1-`` as 1 and
        wraps numbers above int64 around: those are refused. Digits are ASCII only (see :mod:`irgraph.core.integers`).
        """
        token = text.strip(WHITESPACE)
        if token in ("?", "-1"):
            return _DYNAMIC
        match = _INTERVAL.fullmatch(token)
        try:
            if match is None:
                size = parse_int(token, 0, syntax=UNSIGNED)
                return cls(size, size)
            low = parse_int(match.group(1), 0, syntax=UNSIGNED) if match.group(1) else 0
            high = parse_int(match.group(2), 0, syntax=UNSIGNED) if match.group(2) else None
        except ValueError as err:
            if str(err).startswith("at most"):
                raise IrParseError(f"dimension {token!r} is above {INT64_MAX}") from None
            raise IrParseError(
                f"cannot parse dimension {token!r} (expected N, ?, -1, lo..hi, ..hi or lo..){ascii_note(token)}"
            ) from None
        if high is not None and high < low:
            raise IrParseError(f"dimension interval {token!r} has its maximum below its minimum")
        return cls(low, high)

    @property
    def is_static(self) -> bool:
        """True when the dimension has one value."""
        return self.max == self.min

    @property
    def is_dynamic(self) -> bool:
        """True when the dimension is not static (interval or ``?``)."""
        return self.max != self.min

    @property
    def value(self) -> int:
        """The size of a static dimension."""
        if self.max != self.min:
            raise ValueError(f"dimension {self} is not static")
        return self.min

    def contains(self, size: int) -> bool:
        """True when ``size`` lies inside the interval."""
        return self.min <= size and (self.max is None or size <= self.max)

    def compatible(self, other: Dim) -> bool:
        """True when the two intervals intersect (OpenVINO's ``compatible``)."""
        return self.merge(other) is not None

    def merge(self, other: Dim) -> Dim | None:
        """Intersection of the two intervals, or None when they do not intersect."""
        low = max(self.min, other.min)
        if self.max is None:
            high = other.max
        elif other.max is None:
            high = self.max
        else:
            high = min(self.max, other.max)
        if high is not None and high < low:
            return None
        return Dim(low, high)

    # Interval arithmetic after OpenVINO's ``Dimension``/``Interval`` (core/src/dimension.cpp, interval.cpp):
    # bounds stay at least 0, an unbounded max stays unbounded, and a max of 0 bounds a product at 0. An int
    # operand is a static dim. Each result holds every value the operation can give on members of the operands.
    def __add__(self, other: Dim | int) -> Dim:
        """The interval sum: ``[min + other.min, max + other.max]``."""
        other = _as_dim(other)
        high = None if self.max is None or other.max is None else self.max + other.max
        return Dim(self.min + other.min, high)

    __radd__ = __add__

    def __sub__(self, other: Dim | int) -> Dim:
        """OpenVINO's clamped interval difference ``[min - other.max, max - other.min]``, each bound at least 0
        (the low bound is 0 when ``other`` is unbounded)."""
        other = _as_dim(other)
        low = 0 if other.max is None else max(0, self.min - other.max)
        return Dim(low, None if self.max is None else max(0, self.max - other.min))

    def __mul__(self, other: Dim | int) -> Dim:
        """The interval product ``[min * other.min, max * other.max]``; a max of 0 on either side makes the
        product's max 0, even against an unbounded one (OpenVINO's ``clip_times``)."""
        other = _as_dim(other)
        if self.max == 0 or other.max == 0:
            high: int | None = 0
        else:
            high = None if self.max is None or other.max is None else self.max * other.max
        return Dim(self.min * other.min, high)

    __rmul__ = __mul__

    def shifted(self, amount: int) -> Dim:
        """``self + amount`` for a signed ``amount`` (a crop when negative): each bound moved, clamped at 0."""
        return self + amount if amount >= 0 else self - (-amount)

    def floor_div(self, divisor: int) -> Dim:
        """Each bound divided by ``divisor`` (> 0) and floored (OpenVINO's Split rule for intervals)."""
        return Dim(self.min // divisor, None if self.max is None else self.max // divisor)

    def ceil_div(self, divisor: int) -> Dim:
        """Each bound divided by ``divisor`` (> 0) and rounded up."""
        return Dim(-(-self.min // divisor), None if self.max is None else -(-self.max // divisor))

    def divided(self, divisor: int) -> Dim:
        """OpenVINO's ``Dimension / divisor`` (> 0): the quotients of the multiples of ``divisor`` inside the
        interval, ``[ceil(min / divisor), floor(max / divisor)]``. ValueError when it holds no multiple (5..7 / 4):
        OpenVINO's result is then an empty interval, which a Dim cannot be."""
        return Dim(-(-self.min // divisor), None if self.max is None else self.max // divisor)

    def padded(self, amount: int) -> Dim:
        """OpenVINO's ``dim::padded`` (convolution and pooling shape rules): each bound plus a signed ``amount``;
        a bound that falls below 0 becomes unknown (0 for the min, unbounded for the max), unlike :meth:`shifted`."""
        if amount == 0:
            return self
        high = None if self.max is None or self.max + amount < 0 else self.max + amount
        if self.is_static:
            return _DYNAMIC if high is None else Dim(high, high)
        return Dim(max(self.min + amount, 0), high)

    def __str__(self) -> str:
        if self.max == self.min:
            return str(self.min)
        if self.min == 0 and self.max is None:
            return "?"
        low = str(self.min) if self.min else ""
        high = "" if self.max is None else str(self.max)
        return f"{low}..{high}"

    def __repr__(self) -> str:
        return f"Dim({self})"

    def to_json(self) -> int | str:
        """The dim in the tools' JSON: its size when static, ``-1`` when fully dynamic, else ``"lo..hi"``
        (``"2.."``, ``"..8"``) as OpenVINO writes an interval."""
        if self.max == self.min:
            return self.min
        return -1 if self.min == 0 and self.max is None else str(self)

    def to_port_dim(self) -> int:
        """The IR port ``<dim>`` value: the size when static, else ``-1`` (bounds are lost)."""
        return self.min if self.max == self.min else -1


_DYNAMIC = Dim(0, None)


def _as_dim(value: Dim | int) -> Dim:
    """An operand of Dim arithmetic: an int is a static dim."""
    return value if isinstance(value, Dim) else Dim(value, value)


class Shape(_Frozen):
    """A partial shape: a tuple of Dims, or ``dims is None`` for a shape of dynamic rank."""

    __slots__ = ("dims",)

    dims: tuple[Dim, ...] | None

    def __init__(self, dims: tuple[Dim, ...] | None) -> None:
        object.__setattr__(self, "dims", dims)

    def __eq__(self, other: object) -> bool:
        if type(other) is Shape:
            return self.dims == other.dims
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.dims,))

    @classmethod
    def of(cls, value: Shape | Iterable[Dim | int | str | None] | str | None) -> Shape:
        """Coerce a Shape, a sequence of dims (``-1``/None dynamic) or a string like ``"1,?,1..8"``."""
        if isinstance(value, Shape):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        if value is None:
            return DYNAMIC_RANK
        return cls(tuple(Dim.of(d) for d in value))

    @classmethod
    def static(cls, sizes: Iterable[int]) -> Shape:
        """A fully static shape."""
        return cls(tuple(Dim(int(s), int(s)) for s in sizes))

    @classmethod
    def dynamic_rank(cls) -> Shape:
        """A shape whose rank is unknown (``...``)."""
        return DYNAMIC_RANK

    @classmethod
    def dynamic(cls, rank: int) -> Shape:
        """A shape of known rank with every dim ``?``."""
        return cls((_DYNAMIC,) * rank)

    @classmethod
    def parse(cls, text: str) -> Shape:
        """Parse the Parameter ``shape`` syntax: ``2,6,4``, ``[1,?,1..8]``, ``...``, ``""`` (scalar)."""
        body = text.strip(WHITESPACE)
        if body.startswith("[") and body.endswith("]"):
            body = body[1:-1].strip(WHITESPACE)
        if body == "...":
            return DYNAMIC_RANK
        if not body:
            return SCALAR
        return cls(tuple(Dim.parse(token) for token in body.split(",")))

    @property
    def rank_is_dynamic(self) -> bool:
        """True when the rank is unknown."""
        return self.dims is None

    @property
    def rank(self) -> int:
        """The number of dimensions (the shape must have a static rank)."""
        if self.dims is None:
            raise ValueError("shape has a dynamic rank")
        return len(self.dims)

    @property
    def is_static(self) -> bool:
        """True when the rank and every dim are static."""
        return self.dims is not None and all(d.max == d.min for d in self.dims)

    def to_tuple(self) -> tuple[int, ...]:
        """The sizes of a static shape."""
        if not self.is_static:
            raise ValueError(f"shape {self} is not static")
        return tuple(d.min for d in self.dims or ())

    def element_count_bound(self) -> int | None:
        """The largest element count this shape allows (None if unbounded)."""
        if self.dims is None:
            return None
        maxima = [d.max for d in self.dims]
        if 0 in maxima:
            return 0
        bounded = [bound for bound in maxima if bound is not None]
        return math.prod(bounded) if len(bounded) == len(maxima) else None

    def accepts(self, sizes: Sequence[int]) -> bool:
        """True when a concrete shape fits this partial shape."""
        if self.dims is None:
            return True
        return len(sizes) == len(self.dims) and all(d.contains(s) for d, s in zip(self.dims, sizes, strict=True))

    def compatible(self, other: Shape) -> bool:
        """True when the two partial shapes can describe the same tensor."""
        return self.merge(other) is not None

    def merge(self, other: Shape) -> Shape | None:
        """The partial shape both allow (intervals intersected), or None when they contradict."""
        if self.dims is None:
            return other
        if other.dims is None:
            return self
        if len(self.dims) != len(other.dims):
            return None
        dims = []
        for a, b in zip(self.dims, other.dims, strict=True):
            merged = a.merge(b)
            if merged is None:
                return None
            dims.append(merged)
        return Shape(tuple(dims))

    def __iter__(self) -> Iterator[Dim]:
        return iter(self.dims or ())

    def __len__(self) -> int:
        return self.rank

    def __getitem__(self, index: int) -> Dim:
        if self.dims is None:
            raise ValueError("shape has a dynamic rank")
        return self.dims[index]

    def replace(self, index: int, dim: Dim) -> Shape:
        """A copy with the dim at ``index`` replaced."""
        dims = list(self.dims or ())
        dims[index] = dim
        return Shape(tuple(dims))

    def to_json(self) -> list[int | str] | None:
        """The shape in the tools' JSON (one form for ir-info and ir-run): a list of :meth:`Dim.to_json`
        (``[1, -1, "1..8"]``), None for a dynamic rank."""
        return None if self.dims is None else [dim.to_json() for dim in self.dims]

    def to_ir(self) -> str:
        """The Parameter ``shape`` attribute text: ``2,6,4``, ``..5,3,?,7..``, ``...``, ``""``."""
        return "..." if self.dims is None else ",".join(str(d) for d in self.dims)

    def __str__(self) -> str:
        return "[...]" if self.dims is None else "[" + ",".join(str(d) for d in self.dims) + "]"

    def __repr__(self) -> str:
        return f"Shape({self})"


DYNAMIC_RANK = Shape(None)
SCALAR = Shape(())


class TensorType(_Frozen):
    """An element type and a partial shape: what flows through one output port."""

    __slots__ = ("element_type", "shape")

    element_type: ElementType
    shape: Shape

    def __init__(self, element_type: ElementType, shape: Shape) -> None:
        object.__setattr__(self, "element_type", element_type)
        object.__setattr__(self, "shape", shape)

    def __eq__(self, other: object) -> bool:
        if type(other) is TensorType:
            return self.element_type == other.element_type and self.shape == other.shape
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.element_type, self.shape))

    def __repr__(self) -> str:
        return f"TensorType(element_type={self.element_type!r}, shape={self.shape!r})"

    def __str__(self) -> str:
        return f"{self.element_type}{self.shape}"


class PartialValue(_Frozen):
    """What shape inference knows of an integer tensor it cannot compute exactly: element-wise
    lower and upper bounds, as OpenVINO's ``evaluate_lower``/``evaluate_upper`` tensors.

    ``lower`` and ``upper`` are arrays of one shape and of the tensor's dtype. An unknown upper
    bound is the dtype's maximum (OpenVINO's encoding, kept through Gather, Concat and the like);
    ``ShapeOf`` of ``?`` gives ``[0, max]``. A dim read from a bound pair is ``lower..upper``.
    """

    __slots__ = ("lower", "upper")

    lower: np.ndarray
    upper: np.ndarray

    def __init__(self, lower: np.ndarray, upper: np.ndarray) -> None:
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "upper", upper)

    @classmethod
    def exact(cls, value: np.ndarray) -> PartialValue:
        """Bounds equal to a known value."""
        array = np.asarray(value)
        return cls(array, array)

    @property
    def shape(self) -> tuple[int, ...]:
        """The tensor's shape."""
        return tuple(self.lower.shape)

    @property
    def is_exact(self) -> bool:
        """True when every element is known (lower equals upper)."""
        return bool(np.array_equal(self.lower, self.upper))

    @property
    def unknown(self) -> int:
        """The upper bound that means "no bound": the maximum of the dtype."""
        return int(np.iinfo(self.upper.dtype).max) if self.upper.dtype.kind in "iu" else 2**63 - 1

    def dims(self) -> list[Dim]:
        """The elements as dims: ``lower..upper`` (no upper bound at the dtype's maximum; negative
        lower bounds read as 0)."""
        unknown = self.unknown
        dims = []
        for low, high in zip(self.lower.reshape(-1).tolist(), self.upper.reshape(-1).tolist(), strict=True):
            low = max(int(low), 0)
            if high >= unknown or high < 0:
                dims.append(Dim(low, None))
            else:
                dims.append(Dim(min(low, int(high)), int(high)))
        return dims

    def shape_dims(self) -> list[Dim]:
        """The elements as the dims of a shape (a Broadcast target, Tile repeats): a negative lower
        bound is refused with OpenVINO's message."""
        if bool(np.any(self.lower < 0)):
            raise ValueError(
                f"Value for partial shape evaluation can't be lower than zero. Got lower bounds {self.lower.tolist()}"
            )
        return self.dims()

    def __repr__(self) -> str:
        return f"PartialValue(lower={self.lower.tolist()}, upper={self.upper.tolist()})"
