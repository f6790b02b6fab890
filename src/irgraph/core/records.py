"""Record: what a frozen dataclass gives (equality, hash, repr, no assignment) for a plain slotted class.

A dataclass compiles its ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and (frozen) ``__setattr__`` from
source when its class statement runs: 0.2-0.3 ms per class, paid by every process that imports the module. A
cold ``ir-run`` imports some thirty such records it barely uses (issue 28 item 5), so the records on that path
are plain classes: ``__slots__`` in field order, a hand-written ``__init__`` (``object.__setattr__`` per field,
as a frozen dataclass's does) and these methods over the slots; ``record.replace(field=value)`` stands for
``dataclasses.replace``. Public records that callers copy with ``dataclasses.replace`` stay dataclasses.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from dataclasses import FrozenInstanceError
from operator import attrgetter
from typing import Any, ClassVar, TypeVar

__all__ = ["DataclassFields", "MutableRecord", "Record"]

_R = TypeVar("_R", bound="Record")


def _values_of(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The attributes ``names`` of an instance, in order, as one tuple (one C call for any count but one)."""
    if not names:
        return lambda _: ()
    getter = attrgetter(*names)
    return getter if len(names) > 1 else lambda instance: (getter(instance),)



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
        cls._values = staticmethod(_values_of(cls._names()))

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


class DataclassFields:
    """The equality, hash and repr ``@dataclass(frozen=True)`` compiles for a class, from its dataclass fields
    (compared, hashed and printed as their ``field(...)`` says), for the dataclasses under this base that are
    declared ``eq=False, repr=False``: a dataclass compiles each method from source when its class statement
    runs, about 0.1 ms per class and per process."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            values = _compared(type(self))
            return values(self) == values(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(_hashed(type(self))(self))

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _printed(type(self)))
        return f"{type(self).__qualname__}({shown})"


_COMPARED: dict[type, Callable[[Any], tuple[Any, ...]]] = {}
_HASHED: dict[type, Callable[[Any], tuple[Any, ...]]] = {}
_PRINTED: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()


def _compared(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    """What a dataclass's ``__eq__`` compares: the fields with ``compare=True``."""
    found = _COMPARED.get(cls)
    if found is None:
        found = _COMPARED[cls] = _values_of(tuple(f.name for f in _fields(cls) if f.compare))
    return found


def _hashed(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    """What a frozen dataclass's ``__hash__`` hashes: the fields with ``hash=True``, or ``hash=None`` and compared."""
    found = _HASHED.get(cls)
    if found is None:
        found = _HASHED[cls] = _values_of(tuple(f.name for f in _fields(cls)
                                                if (f.compare if f.hash is None else f.hash)))
    return found


def _printed(cls: type) -> tuple[str, ...]:
    """The fields a dataclass's ``__repr__`` shows: those with ``repr=True``."""
    found = _PRINTED.get(cls)
    if found is None:
        found = _PRINTED[cls] = tuple(f.name for f in _fields(cls) if f.repr)
    return found
