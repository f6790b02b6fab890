"""The ONNX -> IR import rules: ``@imports("OpType", versions=...)`` and the context a rule converts through.

A rule is ``rule(ctx) -> None``: it reads the ONNX node (``ctx.node``) and its attributes (``ctx.attributes``),
takes its inputs as ports (``ctx.tensor``), places the IR layers (``ctx.emit`` for the layer that computes the
node's outputs, ``ctx.add`` and ``ctx.const`` for the helper layers of a pattern) and explains each decision
(``ctx.explain``). It refuses what it cannot convert by raising ``ctx.fail(message)``. One rule per ONNX op
type of the ai.onnx domain, looked up by ``converter.convert_node`` (never an if/elif chain).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError
from irgraph.core.shapes import TensorType
from irgraph.graph import Body, Model, Node, OutputPort
from irgraph.ops import Op

if TYPE_CHECKING:
    import onnx as onnx_types


class BodyImport(Protocol):
    """A sub-graph (a Loop/Scan body, an If branch) being converted into its own Model."""

    model: Model
    ports: dict[str, OutputPort]
    """ONNX tensor name -> the body port that computes it."""
    captured: dict[str, OutputPort]
    """Outer tensor name -> its port in the outer model, for each body Parameter made for one (first-use order)."""

    def parameter(self, name: str, tensor_type: TensorType) -> OutputPort:
        """A body Parameter of ``tensor_type`` producing ONNX tensor ``name`` (a body input)."""
        ...

    def declared(self, index: int) -> TensorType | None:
        """The type the sub-graph declares for its input ``index`` (None when it declares no tensor type)."""
        ...

    def add(self, op: Op, name: str, inputs: Sequence[OutputPort], num_outputs: int | None = None) -> Node:
        """A layer of the body computing ``op`` from ``inputs``, its outputs inferred."""
        ...

    def convert_body(self) -> list[OutputPort]:
        """Convert the initializers and nodes (the inputs are made by the caller); the ports of the outputs."""
        ...


class ImportContext(Protocol):
    """One ONNX node being converted, as its rule sees it (``node_import.NodeImport`` is one)."""

    node: onnx_types.NodeProto
    version: int
    """The ``since_version`` of the op's schema in the model's opset."""
    label: str
    """How messages name the node: ``Op-version node 'name'``."""
    name: str
    """The IR name of the layer (helper layers are named ``name/what``)."""
    onnx: ModuleType
    """The ``onnx`` module."""
    opset: int
    """The model's ai.onnx opset."""
    model: Model
    """The IR model being built."""
    graph: onnx_types.GraphProto
    """The ONNX graph (or sub-graph) the node belongs to."""

    def fail(self, message: str) -> ConversionError:
        """The error a rule raises for what it cannot convert, naming the node."""
        ...

    def explain(self, line: str) -> None:
        """One line of ``--explain`` output."""
        ...

    def attributes(self, allowed: dict[str, str]) -> dict[str, Any]:
        """The node's attribute values by name; ``allowed`` maps each name the op version defines to its ONNX type
        (``"INT"``, ``"FLOATS"``...). An unknown attribute or a wrong type is an error."""
        ...

    def tensor(self, name: str) -> OutputPort:
        """The port computing ONNX tensor ``name`` (a Const layer made on first use of a constant)."""
        ...

    def constant(self, name: str) -> tuple[ElementType, np.ndarray] | None:
        """The value of ONNX tensor ``name`` when it is constant, else None."""
        ...

    def type_of(self, port: OutputPort) -> TensorType:
        """The inferred type at ``port``."""
        ...

    def read_tensor(self, tensor: onnx_types.TensorProto, what: str) -> tuple[ElementType, np.ndarray]:
        """The element type and value of an ONNX TensorProto (an attribute of the node)."""
        ...

    def emit(self, op: Op, inputs: Sequence[OutputPort], num_outputs: int | None = None) -> None:
        """Place the layer computing the node's outputs and name its output ports after them."""
        ...

    def add(self, op: Op, name: str, inputs: Sequence[OutputPort], num_outputs: int | None = None) -> Node:
        """Place a layer named ``name`` (``ctx.name`` or ``ctx.name/what``), its outputs inferred; no output named."""
        ...

    def const(self, value: Any, element_type: ElementType, what: str) -> OutputPort:
        """A Const the pattern needs (an axis, a scale), named ``ctx.name/what``."""
        ...

    def bind(self, port: OutputPort, name: str) -> None:
        """Make ``port`` the producer of the node's output ``name`` (its only tensor name)."""
        ...

    def alias(self, name: str, port: OutputPort) -> None:
        """Make the node's output ``name`` another tensor name of ``port`` (no layer)."""
        ...

    def unbind(self, name: str) -> OutputPort:
        """Take ONNX tensor ``name`` off the port producing it (to bind it to a port computed from that one)."""
        ...

    def define(self, name: str, element_type: ElementType, value: np.ndarray) -> None:
        """Make the node's output ``name`` a constant: a Const where it is consumed as a tensor."""
        ...

    def body(self, graph: onnx_types.GraphProto, name: str, label: str) -> BodyImport:
        """A converter for the sub-graph ``graph`` of the node into a Model named ``name``; ``label`` names it in
        messages."""
        ...

    def add_sub_graph(self, op: Op, inputs: Sequence[OutputPort], bodies: Sequence[Body], num_outputs: int) -> Node:
        """Place a Loop, If or TensorIterator layer named ``ctx.name`` with its bodies, its outputs inferred."""
        ...

    def convert(self, node: onnx_types.NodeProto, index: int) -> None:
        """Convert another node into the same graph (a node of an expanded ONNX function body)."""
        ...


Rule = Callable[[ImportContext], None]


@dataclass(frozen=True)
class ImportRule:
    """How one ONNX op type becomes IR: the rule, and the ONNX op versions (``since_version`` of the schema the
    model's opset selects) it knows, None for any."""

    convert: Rule
    versions: tuple[int, ...] | None


RULES: dict[str, ImportRule] = {}
"""ONNX op type (ai.onnx domain) -> its rule."""


def imports(*op_types: str, versions: Iterable[int] | None = None) -> Callable[[Rule], Rule]:
    """Decorator: ``rule`` converts the ONNX ops ``op_types`` of the op ``versions`` (None: any)."""
    known = None if versions is None else tuple(versions)

    def register(rule: Rule) -> Rule:
        for op_type in op_types:
            if op_type in RULES:
                raise RuntimeError(f"{op_type} has two ONNX import rules")
            RULES[op_type] = ImportRule(rule, known)
        return rule

    return register


def supported_ops() -> list[str]:
    """Every ONNX op type (ai.onnx domain) a rule converts."""
    return sorted(RULES)
