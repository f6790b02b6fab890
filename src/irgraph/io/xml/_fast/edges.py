"""The fast reader's ``<edges>``: every edge of a section connected at once."""

from __future__ import annotations

from irgraph.graph import InputPort, Model, OutputPort
from irgraph.io.xml._fast.patterns import EDGE_START, NotCanonical

__all__ = ["Placed", "connect_edges"]

Placed = tuple[int, dict[str, int], dict[str, int]]
"""A placed layer as the edges need it: its id, and its input and output port labels -> indices."""

def connect_edges(model: Model, section: str, by_text: dict[str, Placed]) -> None:
    """Connect the edges of ``section`` (the text between ``<edges>`` and ``</edges>``) in ``model``."""
    parts = EDGE_START.split(section)
    if "".join(parts[::5]).strip(" \t\n"):  # anything but white space between the edges
        raise NotCanonical
    from_layers, from_ports, to_layers, to_ports = parts[1::5], parts[2::5], parts[3::5], parts[4::5]
    output_port, input_port = OutputPort, InputPort  # plain slotted classes: their __init__ is the cheap way
    try:  # a KeyError: an edge names a layer or port that does not exist (the lxml path says which)
        # Ports are immutable: one OutputPort per output, shared by all its edges.
        source_keys = list(zip(from_layers, from_ports, strict=True))
        outputs = {
            key: output_port((layer := by_text[key[0]])[0], layer[2][key[1]]) for key in set(source_keys)
        }
        sources = list(map(outputs.__getitem__, source_keys))
        targets = [
            input_port((layer := by_text[name])[0], layer[1][port])
            for name, port in zip(to_layers, to_ports, strict=True)
        ]
    except KeyError:
        raise NotCanonical from None
    # Two producers for one input raise GraphError here: the lxml path then reports it with lines.
    model.connect_placed(sources, targets)
