"""Record: the equality, hash and repr of a frozen dataclass for a plain slotted class.

A dataclass compiles its ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and (frozen) ``__setattr__`` from
source when its class statement runs: 0.2-0.3 ms per class, paid by every process that imports the module. A
cold ``ir-run`` imports some thirty such records it barely uses (issue 28 item 5), so the records on that path
are plain classes: ``__slots__`` in field order, a hand-written ``__init__`` and ``Final`` fields (read-only to
the type checker, as ``frozen=True`` made them at run time), and these methods over the slots. Records that
callers copy with ``dataclasses.replace`` stay dataclasses.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, ClassVar

__all__ = ["Record"]


class Record:
    """Compares, hashes and prints by ``__slots__`` (in order), as a ``@dataclass(frozen=True)`` does by its
    fields; fields named in ``_unprinted`` are left out of the repr (``field(repr=False)``)."""

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
