"""InputPort / OutputPort: (node id, index) handles, counted from 0 per direction.

A Node's ``inputs`` / ``outputs`` are :class:`~irgraph.graph.node.Input` / :class:`~irgraph.graph.node.Output`
records: ports that also carry the port's data (as onnx/ir-py's ``Value`` does), equal to the plain port.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from irgraph.graph.model import Model


class OutputPort:
    """Output ``index`` of node ``node_id``: a hashable handle, equal to every port of the same node and index.

    ``model`` is the Model the port belongs to when a builder made it (``Model.parameter``, ``ir.ops.relu``):
    the op builders find the model to add to from their input ports. It takes no part in equality, hashing
    or repr, and the model never stores it (``Model.connect`` keeps the plain handle): a port is still
    just ``(node_id, index)``.

    A plain slotted class, not a frozen dataclass: a reader makes one per edge, and a frozen dataclass's
    ``__init__`` costs twice as much; ``Final`` keeps the fields read-only to the type checker.
    """

    __slots__ = ("index", "model", "node_id")

    def __init__(self, node_id: int, index: int, model: Model | None = None) -> None:
        self.node_id: Final = node_id
        self.index: Final = index
        self.model: Final = model

    def __eq__(self, other: object) -> bool:
        if isinstance(other, OutputPort):
            return self.node_id == other.node_id and self.index == other.index
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.node_id, self.index))

    def __repr__(self) -> str:
        return f"OutputPort({self.node_id}, {self.index})"

    def __str__(self) -> str:
        return f"node {self.node_id} output {self.index}"


class InputPort:
    """Input ``index`` of node ``node_id``: a hashable handle, equal to every port of the same node and index."""

    __slots__ = ("index", "node_id")

    def __init__(self, node_id: int, index: int) -> None:
        self.node_id: Final = node_id
        self.index: Final = index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, InputPort):
            return self.node_id == other.node_id and self.index == other.index
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.node_id, self.index))

    def __repr__(self) -> str:
        return f"InputPort({self.node_id}, {self.index})"

    def __str__(self) -> str:
        return f"node {self.node_id} input {self.index}"
