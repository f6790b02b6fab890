"""InputPort / OutputPort: (node id, index) handles, counted from 0 per direction."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OutputPort:
    """Output ``index`` of node ``node_id``."""

    node_id: int
    index: int

    def __str__(self) -> str:
        return f"node {self.node_id} output {self.index}"


@dataclass(frozen=True, slots=True)
class InputPort:
    """Input ``index`` of node ``node_id``."""

    node_id: int
    index: int

    def __str__(self) -> str:
        return f"node {self.node_id} input {self.index}"
