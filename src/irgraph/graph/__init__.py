"""The graph: Model (with a networkx.MultiDiGraph view on demand), Node, InputPort, OutputPort."""

from __future__ import annotations

from irgraph.graph.model import Model
from irgraph.graph.node import Node, RtEntry
from irgraph.graph.ports import InputPort, OutputPort

__all__ = ["InputPort", "Model", "Node", "OutputPort", "RtEntry"]
