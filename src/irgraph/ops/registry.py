"""The op registry: ``@register`` and lookup by IR ``type`` and ``version="opsetN"``.

Op modules register their classes when imported. ``lookup`` imports a catalogued type's module
(``irgraph.ops.<category>.<snake_case type>``, see :mod:`irgraph.ops.catalogue`) the first time a
layer of that type is read, so importing irgraph does not import every op module. A type whose
module does not exist is catalogued but not implemented. Several versions of one type
(SoftMax-1 and SoftMax-8) are several classes with the same ``type_name`` and disjoint opsets;
``version="opsetN"`` picks the one opset N contains.
"""

from __future__ import annotations

import importlib
import importlib.util

from irgraph.ops import catalogue
from irgraph.ops.op import Op

_OPS: dict[str, tuple[type[Op], ...]] = {}
_LOADED: set[str] = set()
"""Modules already imported (or found missing) by :func:`lookup`."""


def register(op_class: type[Op]) -> type[Op]:
    """Class decorator: make ``op_class`` findable by its type name and aliases (case-insensitive).

    A class that sets ``introduced = N`` (and no ``opsets``) gets the opsets the catalogue lists for
    its type's version N. A second class for the same type is another version: opsets must not overlap.
    """
    if op_class.introduced and "opsets" not in vars(op_class):
        entry = catalogue.find(op_class.type_name, f"opset{op_class.introduced}")
        if entry is None or entry.introduced != op_class.introduced:
            raise RuntimeError(f"{op_class.__name__}: the catalogue has no {op_class.type_name}-{op_class.introduced}")
        op_class.opsets = entry.opsets
    for name in (op_class.type_name, *op_class.aliases):
        key = name.lower()
        known = _OPS.get(key, ())
        for other in known:
            if set(other.opsets) & set(op_class.opsets):
                raise RuntimeError(
                    f"op type {name!r} registered twice for one opset ({other.__name__}, {op_class.__name__})"
                )
        _OPS[key] = (*known, op_class)
    return op_class


def _registered(type_name: str, opset: int) -> type[Op] | None:
    for op_class in _OPS.get(type_name.lower(), ()):
        if opset in op_class.opsets:
            if op_class.exact_type_name and type_name != op_class.type_name:
                return None
            return op_class
    return None


def lookup(type_name: str, version: str) -> type[Op] | None:
    """The op class for an IR layer's ``type`` and ``version``, or None when irgraph has none.

    ``version="opsetN"`` (exactly as OpenVINO spells it) resolves for every N whose opset contains
    the op; type names match case-insensitively, as OpenVINO's reader does, except for ops that need
    the exact spelling. Imports the type's op module on first use.
    """
    opset = catalogue.opset_number(version)
    if opset is None:
        return None
    found = _registered(type_name, opset)
    if found is None:
        entry = catalogue.find(type_name, version)
        if entry is not None and _load(entry):
            found = _registered(type_name, opset)
    return found


def _load(entry: catalogue.OpVersion) -> bool:
    """Import the module of ``entry``'s type unless done before; True when it imported one now."""
    imported = False
    for module in entry.modules:
        if module not in _LOADED:
            _LOADED.add(module)
            if _module_exists(module):
                importlib.import_module(module)
                imported = True
    return imported


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # the category package itself does not exist yet
        return False


def load_all() -> None:
    """Import every catalogued type's op module that exists (for listings of what irgraph runs)."""
    for entry in catalogue.all_versions():
        _load(entry)


def registered_classes() -> list[type[Op]]:
    """Every registered op class (each version of a type once), in registration order."""
    seen: dict[type[Op], None] = {}
    for classes in _OPS.values():
        seen.update(dict.fromkeys(classes))
    return list(seen)


def known_ops() -> list[str]:
    """Titles of the registered ops (``Concat-1``, ``SoftMax-8``, ...), sorted: every one runs (an op whose
    attributes pick a mode irgraph does not compute says so in its ``cannot_run_reason``)."""
    load_all()
    return sorted({cls.title() for cls in registered_classes()})
