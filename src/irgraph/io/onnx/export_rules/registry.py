"""The IR -> ONNX export rules: ``@exports(OpClass, ...)`` and the context a rule writes through.

A rule is ``rule(node, op, ctx) -> list[NodeProto]``: the ONNX nodes that compute the layer's
outputs from its inputs. ``ctx.inputs(node)`` and ``ctx.outputs(node)`` give the ONNX names of the
layer's ports (a Const input becomes an initializer on first use), ``ctx.make`` builds a node named
after the layer, ``ctx.temp`` names an intermediate tensor and ``ctx.initializer`` adds a constant.
A rule refuses what ONNX cannot express by raising ``ctx.refuse(message)``; the exporter collects
every refusal (and every layer without a rule) into one message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError
from irgraph.core.shapes import TensorType
from irgraph.graph import Node
from irgraph.graph.subgraph import Body
from irgraph.ops import Op

if TYPE_CHECKING:
    import onnx as onnx_types


class ExportContext(Protocol):
    """One IR -> ONNX export as a rule sees it (``exporter._Exporter`` is one)."""

    opset: int
    """The ai.onnx opset written."""
    fold_decompression: bool
    """True when Converts of constant weights are folded into f32 initializers."""
    stateless: bool
    """True when the main graph's variables become graph inputs and outputs (ReadValue/Assign in bodies stay)."""

    def inputs(self, node: Node) -> list[str]:
        """The ONNX names of the layer's inputs ('' for an unconnected optional input)."""
        ...

    def outputs(self, node: Node) -> list[str]:
        """The ONNX names of the layer's outputs."""
        ...

    def output_used(self, node: Node, index: int) -> bool:
        """True when some layer (or Result) reads output ``index``."""
        ...

    def input_type(self, node: Node, index: int) -> TensorType:
        """The inferred type of input ``index``."""
        ...

    def output_type(self, node: Node, index: int) -> TensorType:
        """The inferred type of output ``index``."""
        ...

    def constant(self, node: Node, index: int) -> np.ndarray | None:
        """The value of input ``index`` when a Const computes it, else None."""
        ...

    def static_value(self, node: Node, index: int) -> np.ndarray | None:
        """The value of input ``index`` when Consts and static shapes alone compute it, else None."""
        ...

    def make(self, node: Node, op_type: str, inputs: Sequence[str], outputs: Sequence[str], *,
             step: str | None = None, **attributes: Any) -> onnx_types.NodeProto:
        """An ONNX node; named after the layer (``layer/step`` for a helper node of a pattern)."""
        ...

    def temp(self, node: Node, step: str) -> str:
        """A fresh name for an intermediate tensor of the layer's pattern."""
        ...

    def initializer(self, node: Node, step: str, value: np.ndarray) -> str:
        """A new initializer holding ``value``; its name."""
        ...

    def define(self, name: str, value: np.ndarray) -> None:
        """Make the output tensor ``name`` an initializer holding ``value`` (a folded layer)."""
        ...

    def body_graph(self, node: Node, body: Body, outer: dict[int, str], outputs: Sequence[int | str], *,
                   inputs: Sequence[tuple[str, ElementType, Sequence[int | None] | None]] = (),
                   prelude: Sequence[onnx_types.NodeProto] = (),
                   scalar_outputs: frozenset[int] = frozenset()) -> onnx_types.GraphProto:
        """The ONNX graph of a sub-graph ``body``: Parameters read ``outer`` names, ``outputs`` (body Result ids or
        names in scope) in order; ``inputs`` are the graph's inputs, ``prelude`` nodes run first, the outputs at
        ``scalar_outputs`` are reshaped to scalars."""
        ...

    def explain(self, line: str) -> None:
        """One line of ``--explain`` output."""
        ...

    def refuse(self, message: str) -> ConversionError:
        """The error a rule raises for what ONNX cannot express (collected with the others)."""
        ...


Rule = Callable[[Node, Any, ExportContext], "list[onnx_types.NodeProto]"]

RULES: dict[type[Op], Rule] = {}


REFUSED: set[type[Op]] = set()
"""Op classes whose rule always refuses (with the reason ONNX cannot express them): not counted as exportable."""


def refuses(*op_classes: type[Op]) -> Callable[[Rule], Rule]:
    """Decorator: ``rule`` refuses every layer of ``op_classes`` with its reason (registered like ``exports``)."""

    def register(rule: Rule) -> Rule:
        REFUSED.update(op_classes)
        return exports(*op_classes)(rule)

    return register


def exports(*op_classes: type[Op]) -> Callable[[Rule], Rule]:
    """Decorator: ``rule`` exports layers whose op is exactly one of ``op_classes``."""

    def register(rule: Rule) -> Rule:
        for op_class in op_classes:
            if op_class in RULES:
                raise RuntimeError(f"{op_class.__name__} has two ONNX export rules")
            RULES[op_class] = rule
        return rule

    return register
