"""Modules imported on first use: a command pays for a module only when it takes the path that needs it.

    if TYPE_CHECKING:
        import zipfile
    else:
        zipfile = lazy_module("zipfile")

Type checkers see the module itself; at run time the name stands for it until an attribute is asked
for. An ``except zipfile.BadZipFile`` clause asks only when an exception reaches it.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["lazy_module"]


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
