"""The op registry: ``@register`` and lookup by IR ``type`` and ``version="opsetN"``."""

from __future__ import annotations

import re

from irgraph.ops.op import Op

_OPS: dict[str, type[Op]] = {}
_OPSET = re.compile(r"^opset(\d+)$")


def register(op_class: type[Op]) -> type[Op]:
    """Class decorator: make ``op_class`` findable by its type name and aliases (case-insensitive)."""
    for name in (op_class.type_name, *op_class.aliases):
        key = name.lower()
        if key in _OPS:
            raise RuntimeError(f"op type {name!r} registered twice ({_OPS[key].__name__}, {op_class.__name__})")
        _OPS[key] = op_class
    return op_class


def lookup(type_name: str, version: str) -> type[Op] | None:
    """The op class for an IR layer's ``type`` and ``version``, or None when irgraph does not know it.

    ``version="opsetN"`` resolves for every N whose opset contains the op; type names match
    case-insensitively, as OpenVINO's reader does, except for ops that need the exact spelling.
    """
    op_class = _OPS.get(type_name.lower())
    match = _OPSET.match(version.strip())
    if op_class is None or match is None or int(match.group(1)) not in op_class.opsets:
        return None
    if op_class.exact_type_name and type_name != op_class.type_name:
        return None
    return op_class


def known_ops(*, runnable: bool = False) -> list[str]:
    """Titles of the registered ops (``Concat-1``, ``Split-1``, ...), sorted; ``runnable``: only those that run."""
    return sorted({cls.title() for cls in _OPS.values() if not runnable or getattr(cls, "runs", True)})
