"""The graph: Model (with a networkx.MultiDiGraph view on demand), Node, InputPort, OutputPort."""

from __future__ import annotations

from irgraph.graph.model import Model
from irgraph.graph.node import Input, Node, Output, RtEntry
from irgraph.graph.ports import InputPort, OutputPort
from irgraph.graph.subgraph import BackEdge, Body, PortMapEntry

__all__ = [
    "BackEdge", "Body", "Input", "InputPort", "Model", "Node", "Output", "OutputPort", "PortMapEntry", "RtEntry",
]
