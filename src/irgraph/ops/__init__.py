"""Ops irgraph knows. Op modules are imported when a model first uses their type (registry.lookup), so
importing irgraph stays cheap; the seed ops below are always there.

Op modules live in one package per OpenVINO spec category (``ops/activation``, ``ops/movement``,
...), one module per op type named after the type in snake case (``LogicalAnd`` ->
``logical/logical_and.py``); shared bases are in ``ops/families``.

``irgraph.ops.Relu`` is the class of a type's newest version and ``irgraph.ops.relu(x)`` its builder
(``irgraph.builders``), both found on first use; ``ops/__init__.pyi`` (generated) types them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgraph.ops import catalogue
from irgraph.ops.op import Op, OpError
from irgraph.ops.registry import known_ops, lookup, register

CATEGORIES = (
    "activation", "arithmetic", "bitwise", "comparison", "condition", "convolution", "detection", "generation",
    "image", "infrastructure", "logical", "matrix", "movement", "normalization", "pooling", "quantization",
    "reduction", "sequence", "shape", "signals", "sort", "sparse", "type",
)
"""OpenVINO's op spec folders (docs/.../operation-specs/<category>): the packages op modules live in."""


from irgraph.ops.infrastructure.const import Const  # noqa: E402
from irgraph.ops.infrastructure.parameter import Parameter  # noqa: E402
from irgraph.ops.infrastructure.result import Result  # noqa: E402
from irgraph.ops.movement.variadic_split import VariadicSplit  # noqa: E402
from irgraph.ops.opaque import OpaqueOp  # noqa: E402

# Concat and Split are found on first use like any other type (``__getattr__``, ``registry.lookup``): a model
# without them does not create their classes (0.5 ms each at start-up).
if TYPE_CHECKING:
    from irgraph.ops.movement.concat import Concat
    from irgraph.ops.movement.split import Split

__all__ = [  # irgraph.ops.Relu (the newest class of a type) and irgraph.ops.relu (builders): __getattr__
    "CATEGORIES", "Concat", "Const", "Op", "OpError", "OpaqueOp", "Parameter", "Result", "Split", "VariadicSplit",
    "known_ops", "lookup", "register",
]


BUILDERS = "irgraph.builders.latest"
"""Where ``irgraph.ops.relu`` comes from. ``ir.ops`` is this package whatever ``irgraph`` says (importing a
subpackage binds it), so the newest builders are reached from here; they add layers to a graph and infer
them, which ops never do, so they live in the build layer and are imported by name on first use, as the
registry imports the control-flow classes by name."""


def __getattr__(name: str) -> object:
    """``Relu``: the class of the newest version of that type; ``relu``: its builder (made on first use)."""
    if name.startswith("__"):
        raise AttributeError(name)
    if name[:1].isupper():
        versions = catalogue.versions_of(name)
        op_class = lookup(versions[-1].ir_name, versions[-1].version) if versions else None
        if op_class is None:
            raise AttributeError(f"module 'irgraph.ops' has no attribute {name!r} (no op class of that type)")
    else:
        import importlib

        op_class = getattr(importlib.import_module(BUILDERS), name)
    globals()[name] = op_class  # later look-ups skip this function
    return op_class
