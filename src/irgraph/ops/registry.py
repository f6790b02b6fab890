"""The op registry: ``@register`` and lookup by IR ``type`` and ``version="opsetN"``.

The catalogue (:mod:`irgraph.ops.catalogue`, generated from OpenVINO's opset tables) is the one
source of which opsets hold which op version. An op class declares only the version it implements
(``type_name`` and ``introduced``: Gelu-7 is ``introduced = 7``); ``register`` takes its opsets
from the catalogue and refuses a class the catalogue does not know, or one living in a module
other than its type's (``irgraph.ops.<category>.<snake_case type>``).

``lookup`` resolves a layer's type and version through the catalogue first, then imports that
version's module (the first time) and returns the class registered for exactly that catalogue
entry. The answer therefore never depends on which op modules were imported before, and importing
irgraph does not import every op module. A type whose module or class does not exist is
catalogued but not implemented.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

from irgraph.core.errors import IrError
from irgraph.ops import catalogue
from irgraph.ops.op import Op

_CLASSES: dict[catalogue.OpVersion, type[Op]] = {}
"""The class registered for each catalogued op version, in registration order."""
_LOADED: set[str] = set()
"""Modules already imported (or found missing) by :func:`lookup`."""


class RegistrationError(IrError, RuntimeError):
    """An op class contradicts the catalogue (raised when its module is imported: a bug in irgraph)."""


def register(op_class: type[Op]) -> type[Op]:
    """Class decorator: make ``op_class`` the implementation of the catalogue's ``type_name``-``introduced``.

    The class must declare ``introduced`` itself (a subclass implementing another version says which);
    its ``opsets`` become the catalogue's. One class per catalogued version.
    """
    name = op_class.__name__
    if "introduced" not in vars(op_class) or not op_class.introduced:
        raise RegistrationError(f"{name}: an op class declares the version it implements (introduced = N)")
    version = f"opset{op_class.introduced}"
    entry = catalogue.find(op_class.type_name, version)
    if entry is None or entry.version != version:
        raise RegistrationError(
            f"{name}: the catalogue has no {op_class.type_name}-{op_class.introduced}"
            f" ({_catalogued(op_class.type_name)})"
        )
    if op_class.__module__ not in entry.modules:
        # lookup imports only the entry's module: a class elsewhere would be found or not by import order
        raise RegistrationError(f"{name}: {entry.title} must be defined in {entry.module}, not {op_class.__module__}")
    other = _CLASSES.get(entry)
    if other is not None and other is not op_class:
        raise RegistrationError(f"{entry.title} registered twice ({other.__name__}, {name})")
    op_class.opsets = entry.opsets
    _CLASSES[entry] = op_class
    return op_class


def _catalogued(type_name: str) -> str:
    known = catalogue.versions_of(type_name)
    if not known:
        return "no OpenVINO opset 1-16 has this type"
    return "it has " + ", ".join(entry.title for entry in known)


def lookup(type_name: str, version: str) -> type[Op] | None:
    """The op class for an IR layer's ``type`` and ``version``, or None when irgraph has none.

    ``version="opsetN"`` (exactly as OpenVINO spells it) resolves as the catalogue resolves it: to the
    op version opset N holds, None when opset N lacks the type. Type names match case-insensitively,
    as OpenVINO's reader does, except for ops that need the exact spelling (Const). Imports the op
    version's module on first use.
    """
    entry = catalogue.find(type_name, version)
    if entry is None:
        return None
    found = _CLASSES.get(entry)
    if found is None and _load(entry):
        found = _CLASSES.get(entry)
    if found is not None and found.traits.exact_type_name and type_name != found.type_name:
        return None
    return found


def loaded(*type_names: str) -> bool:
    """Whether any version of ``type_names`` has its op module imported. Every op of a model is an instance of a
    class that :func:`lookup` (or a direct import) loaded, so while this is False no layer of any model is of
    these types: code looking for them can return early without importing their modules."""
    return any(module in sys.modules for name in type_names for entry in catalogue.versions_of(name)
               for module in entry.modules)


def _load(entry: catalogue.OpVersion) -> bool:
    """Import the module of ``entry``'s type unless done before; True when it imported one now."""
    imported = False
    for module in entry.modules:
        if module not in _LOADED:
            if _module_exists(module):
                importlib.import_module(module)
                imported = True
            _LOADED.add(module)  # after the import: a module that failed to import is tried again
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
    return list(_CLASSES.values())


def known_ops() -> list[str]:
    """Titles of the registered ops (``Concat-1``, ``SoftMax-8``, ...), sorted: every one runs (an op whose
    attributes pick a mode irgraph does not compute says so in its ``cannot_run_reason``)."""
    load_all()
    return sorted({cls.title() for cls in registered_classes()})
