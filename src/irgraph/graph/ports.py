"""InputPort / OutputPort: (node id, index) handles, counted from 0 per direction."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from irgraph.graph.model import Model


@dataclass(frozen=True, slots=True)
class OutputPort:
    """Output ``index`` of node ``node_id``.

    ``model`` is the Model the port belongs to when a builder made it (``Model.parameter``, ``ir.ops.relu``):
    the op builders find the model to add to from their input ports. It takes no part in equality, hashing
    or repr, and the model never stores it (``Model.add_node`` keeps the plain handle): a port is still
    just ``(node_id, index)``.
    """

    node_id: int
    index: int
    model: Model | None = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return f"node {self.node_id} output {self.index}"


@dataclass(frozen=True, slots=True)
class InputPort:
    """Input ``index`` of node ``node_id``."""

    node_id: int
    index: int

    def __str__(self) -> str:
        return f"node {self.node_id} input {self.index}"
