"""Ops irgraph knows: importing this package registers every op module in it."""

from __future__ import annotations

import importlib
import pkgutil

from irgraph.ops.op import Op, OpError
from irgraph.ops.registry import known_ops, lookup, register

for _module in pkgutil.iter_modules(__path__):
    if _module.name not in ("op", "registry"):
        importlib.import_module(f"{__name__}.{_module.name}")

from irgraph.ops.concat import Concat  # noqa: E402
from irgraph.ops.const import Const  # noqa: E402
from irgraph.ops.opaque import OpaqueOp  # noqa: E402
from irgraph.ops.parameter import Parameter  # noqa: E402
from irgraph.ops.result import Result  # noqa: E402
from irgraph.ops.split import Split  # noqa: E402
from irgraph.ops.variadic_split import VariadicSplit  # noqa: E402

__all__ = [
    "Concat", "Const", "Op", "OpError", "OpaqueOp", "Parameter", "Result", "Split", "VariadicSplit",
    "known_ops", "lookup", "register",
]
