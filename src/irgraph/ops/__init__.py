"""Ops irgraph knows. Op modules are imported when a model first uses their type (registry.lookup), so
importing irgraph stays cheap; the seed ops below are always there.

Op modules live in one package per OpenVINO spec category (``ops/activation``, ``ops/movement``,
...), one module per op type named after the type in snake case (``LogicalAnd`` ->
``logical/logical_and.py``); shared bases are in ``ops/families``.
"""

from __future__ import annotations

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
from irgraph.ops.movement.concat import Concat  # noqa: E402
from irgraph.ops.movement.split import Split  # noqa: E402
from irgraph.ops.movement.variadic_split import VariadicSplit  # noqa: E402
from irgraph.ops.opaque import OpaqueOp  # noqa: E402

__all__ = [
    "CATEGORIES", "Concat", "Const", "Op", "OpError", "OpaqueOp", "Parameter", "Result", "Split", "VariadicSplit",
    "known_ops", "lookup", "register",
]
