"""Modules imported (and regular expressions compiled) on first use: a command pays for a module only when it
takes the path that needs it.

    if TYPE_CHECKING:
        import zipfile
    else:
        zipfile = lazy_module("zipfile")

Type checkers see the module itself; at run time the name stands for it until an attribute is asked
for. An ``except zipfile.BadZipFile`` clause asks only when an exception reaches it.
"""

from __future__ import annotations

import importlib
import re
from typing import Any, AnyStr, cast

__all__ = ["lazy_module", "lazy_pattern"]


class _LazyModule:
    """Stands for a module until an attribute is asked for, then imports it and holds its attributes."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        # Called only for names not yet in the instance: after the import, lookups find them directly.
        module = importlib.import_module(self._name)
        self.__dict__.update(vars(module))
        return getattr(module, attribute)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


def lazy_module(name: str) -> Any:
    """A stand-in for the module ``name`` that imports it when one of its attributes is first asked for."""
    return _LazyModule(name)


class _LazyPattern:
    """Stands for a compiled regular expression until one of its attributes is asked for; then compiles it
    and holds its methods, so that later look-ups find them directly."""

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self._pattern = pattern
        self._flags = flags

    def __getattr__(self, attribute: str) -> Any:
        # Called only for names not yet in the instance (before the compile, or for a name not copied here).
        compiled: re.Pattern[Any] = re.compile(self._pattern, self._flags)
        self.__dict__.update({name: getattr(compiled, name) for name in _PATTERN_ATTRIBUTES})
        return getattr(compiled, attribute)

    def __repr__(self) -> str:
        return f"<pattern {self._pattern!r}, compiled on first use>"


_PATTERN_ATTRIBUTES = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split", "pattern",
                       "flags", "groups", "groupindex")


def lazy_pattern(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(pattern, flags)`` when first used: for patterns of paths a plain run does not take (bodies,
    escapes, rare arguments), whose compiling would cost every start-up 0.05-0.15 ms each (issue 28 item 5)."""
    return cast("re.Pattern[AnyStr]", _LazyPattern(pattern, flags))
