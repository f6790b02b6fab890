"""The ONNX -> IR rules, one per ONNX op type, looked up by ``split.NodeConverter`` (never an if/elif chain).

A rule is a function ``(converter, context) -> None`` that reads the node's attributes and inputs through
the converter and places the IR layers for it; ``versions`` lists the ONNX op versions (``since_version``
of the schema the model's opset selects) it knows, None for any.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ImportHandler = Callable[[Any, Any], None]
"""``(NodeConverter, NodeContext) -> None``."""


@dataclass(frozen=True)
class ImportRule:
    """How one ONNX op type becomes IR."""

    handler: ImportHandler
    versions: tuple[int, ...] | None


RULES: dict[str, ImportRule] = {}
"""ONNX op type (ai.onnx domain) -> its rule."""


def rule(*op_types: str, versions: tuple[int, ...] | None = None) -> Callable[[ImportHandler], ImportHandler]:
    """Register ``handler`` for ``op_types``."""

    def register(handler: ImportHandler) -> ImportHandler:
        for op_type in op_types:
            if op_type in RULES:
                raise ValueError(f"two ONNX import rules for {op_type}")
            RULES[op_type] = ImportRule(handler, versions)
        return handler

    return register
