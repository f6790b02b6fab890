"""Record: what a frozen dataclass gives (equality, hash, repr, no assignment) for a plain slotted class.

A dataclass compiles its ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and (frozen) ``__setattr__`` from
source when its class statement runs: 0.2-0.3 ms per class, paid by every process that imports the module. A
cold ``ir-run`` imports some thirty such records it barely uses (issue 28 item 5), so the records on that path
are plain classes: ``__slots__`` in field order, a hand-written ``__init__`` (``object.__setattr__`` per field,
as a frozen dataclass's does) and these methods over the slots; ``record.replace(field=value)`` stands for
``dataclasses.replace``. Public records that callers copy with ``dataclasses.replace`` stay dataclasses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import FrozenInstanceError
from operator import attrgetter
from typing import Any, ClassVar, TypeVar

__all__ = ["MutableRecord", "Record"]

_R = TypeVar("_R", bound="Record")


class Record:
    """Compares, hashes and prints by ``__slots__`` (in order) and refuses assignment, as a
    ``@dataclass(frozen=True)`` does by its fields; fields named in ``_unprinted`` are left out of the repr
    (``field(repr=False)``)."""

    __slots__ = ()
    _unprinted: ClassVar[frozenset[str]] = frozenset()
    _values: ClassVar[Callable[[Any], tuple[Any, ...]]]
    """The fields' values in order: one C call (records are dictionary keys, hashed at every look-up)."""

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        names = cls._names()
        getter = attrgetter(*names) if names else (lambda _: ())
        cls._values = staticmethod(getter if len(names) != 1 else (lambda record: (getter(record),)))

    @classmethod
    def _names(cls) -> tuple[str, ...]:
        return cls.__slots__  # a subclass's fields, in order

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__ and isinstance(other, Record):
            return type(self)._values(self) == type(other)._values(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(type(self)._values(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._names()
                          if name not in self._unprinted)
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def replace(self: _R, **changes: Any) -> _R:
        """A copy with ``changes`` (``dataclasses.replace`` for a record: each ``__init__`` takes its fields by their
        names)."""
        return type(self)(**{**dict(zip(self._names(), type(self)._values(self), strict=True)), **changes})

    def __getstate__(self) -> tuple[Any, ...]:  # pickle and copy: the fields, set back past __setattr__
        return type(self)._values(self)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self._names(), state, strict=True):
            object.__setattr__(self, name, value)


class MutableRecord(Record):
    """A Record whose fields may be assigned, unhashable as a mutable ``@dataclass`` is."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]  # unhashable, as a dataclass with eq and not frozen

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        object.__delattr__(self, name)
