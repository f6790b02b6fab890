"""The op registry: ``@register`` and lookup by IR ``type`` and ``version="opsetN"``.

Several versions of one type (SoftMax-1 and SoftMax-8) are several classes with the same
``type_name`` and disjoint ``opsets`` ranges; ``version="opsetN"`` picks the one opset N contains.
"""

from __future__ import annotations

import re

from irgraph.ops.op import Op

_OPS: dict[str, tuple[type[Op], ...]] = {}
_OPSET = re.compile(r"^opset(\d+)$")


def register(op_class: type[Op]) -> type[Op]:
    """Class decorator: make ``op_class`` findable by its type name and aliases (case-insensitive).

    A second class for the same type is another version of it: its opsets must not overlap.
    """
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


def lookup(type_name: str, version: str) -> type[Op] | None:
    """The op class for an IR layer's ``type`` and ``version``, or None when irgraph does not know it.

    ``version="opsetN"`` resolves for every N whose opset contains the op; type names match
    case-insensitively, as OpenVINO's reader does, except for ops that need the exact spelling.
    """
    classes = _OPS.get(type_name.lower())
    match = _OPSET.match(version.strip())
    if classes is None or match is None:
        return None
    opset = int(match.group(1))
    for op_class in classes:
        if opset in op_class.opsets:
            if op_class.exact_type_name and type_name != op_class.type_name:
                return None
            return op_class
    return None


def registered_classes() -> list[type[Op]]:
    """Every registered op class (each version of a type once), in registration order."""
    seen: dict[type[Op], None] = {}
    for classes in _OPS.values():
        seen.update(dict.fromkeys(classes))
    return list(seen)


def known_ops() -> list[str]:
    """Titles of the registered ops (``Concat-1``, ``SoftMax-8``, ...), sorted."""
    return sorted({cls.title() for cls in registered_classes()})
