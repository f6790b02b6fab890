"""The one message of a refused IR -> ONNX export: every layer no rule exports, or every refusal grouped by type and
reason; and the tensor names ONNX nodes read (to drop initializers nothing reads).
"""

from __future__ import annotations

from typing import Any

from irgraph.core.text import counted, plural
from irgraph.graph import Node
from irgraph.io.onnx.export_rules import RULES
from irgraph.ops import Const, Parameter, Result


def collect_missing(order: list[Node], needed: set[int], missing: dict[str, list[Node]]) -> None:
    """The layers of ``order`` (and of their bodies) that no rule exports, by type and version."""
    for node in order:
        if isinstance(node.op, (Parameter, Const, Result)):
            continue
        if type(node.op) not in RULES:
            if node.id in needed or node.bodies:  # a body is never dropped silently, even unreachable
                version = getattr(node.op, "op_version", "") or node.op.version
                missing.setdefault(f"{node.type_name} ({version})", []).append(node)
            continue
        for body in node.bodies:
            collect_missing(body.model.topological_order(), body.model.reachable_from_results(), missing)


def names_read(nodes: list[Any]) -> set[str]:
    """Every tensor name the nodes read, sub-graph nodes (If branches) included."""
    read: set[str] = set()
    for onnx_node in nodes:
        read.update(onnx_node.input)
        for attribute in onnx_node.attribute:
            if attribute.HasField("g"):
                read |= names_read(list(attribute.g.node))
                read |= {o.name for o in attribute.g.output}
    return read


def refusal_message(refusals: list[tuple[Node, str]]) -> str:
    """Every refused layer, grouped by type and reason (a reason is said once for the layers it refuses, and once
    for the types that share it): ``3 layers cannot be exported to ONNX: Add x2 (layers 4 'a', 6 'b': ...); Sin x1
    (layer 7 'c': ...)``, ``Assign x4, ReadValue x4 (layers ...: ...)``."""
    by_type: dict[str, dict[str, list[Node]]] = {}
    by_message: dict[str, list[Node]] = {}
    for node, message in refusals:
        by_type.setdefault(node.type_name, {}).setdefault(message, []).append(node)
        by_message.setdefault(message, []).append(node)
    shared = {message: sorted({node.type_name for node in nodes}) for message, nodes in by_message.items()}
    shared = {message: types for message, types in shared.items() if len(types) > 1}
    parts: list[tuple[str, str]] = []
    for type_name, reasons in by_type.items():
        said = [layers_said(nodes, message) for message, nodes in reasons.items() if message not in shared]
        if said:
            count = sum(len(nodes) for message, nodes in reasons.items() if message not in shared)
            parts.append((type_name, f"{type_name} x{count} ({'; '.join(said)})"))
    for message, types in shared.items():
        counts = ", ".join(f"{type_name} x{len(by_type[type_name][message])}" for type_name in types)
        parts.append((types[0], f"{counts} ({layers_said(by_message[message], message)})"))
    count = len(refusals)
    return f"{counted(count, 'layer')} cannot be exported to ONNX: " + \
        "; ".join(text for _, text in sorted(parts))


def layers_said(nodes: list[Node], message: str) -> str:
    """``message`` headed by the ids and names of the layers it is said of."""
    layers = ", ".join(f"{node.id} {node.name!r}" for node in nodes)
    return f"{plural(len(nodes), 'layer')} {layers}: {message}"
