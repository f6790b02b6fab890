"""Sub-graph bodies of TensorIterator, Loop and If layers: the body Models, their port maps and back edges.

A layer with bodies owns them as nested :class:`~irgraph.graph.Model` objects hanging off its
:class:`~irgraph.graph.Node` (``node.bodies``); the op object keeps only attributes. The port map
links the layer's ports to the body's Parameters and Results, by body layer id (the id the body
Model keys its nodes by), as OpenVINO's IR does:

* an input entry feeds outer input ``external_port`` to body Parameter ``internal_layer_id``,
  sliced along ``axis`` (TensorIterator/Loop) when ``axis`` is set, else whole;
* an output entry gives outer output ``external_port`` from body Result ``internal_layer_id``,
  the slices of every iteration concatenated along ``axis`` when ``axis`` is set, else the value of
  the last iteration;
* ``external_port`` -1 with a ``purpose`` is a Loop special body port (``current_iteration`` on
  a Parameter, ``execution_condition`` on a Result);
* a back edge carries a body Result's value to a body Parameter for the next iteration.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from irgraph.graph.model import Model

CURRENT_ITERATION = "current_iteration"
EXECUTION_CONDITION = "execution_condition"
PURPOSES = {False: CURRENT_ITERATION, True: EXECUTION_CONDITION}
"""The Loop special body port an input (False) or output (True) entry may name with ``purpose``."""


@dataclass(frozen=True, slots=True)
class PortMapEntry:
    """One ``<input>``/``<output>`` of a port map. Slicing fields are None where the file leaves them out."""

    output: bool
    """True for an ``<output>`` entry (outer output <- body Result), False for ``<input>``."""
    external_port: int
    """Index of the outer input (input entries) or outer output (output entries); -1 for none."""
    internal_layer_id: int
    """Id of the body Parameter (input entries) or body Result (output entries)."""
    axis: int | None = None
    start: int | None = None
    end: int | None = None
    stride: int | None = None
    part_size: int | None = None
    purpose: str | None = None

    @property
    def sliced(self) -> bool:
        """True when the value is sliced (inputs) or concatenated (outputs) along ``axis`` per iteration."""
        return self.axis is not None

    def describe(self) -> str:
        """``port map input 0 -> body layer 3`` (for messages)."""
        direction = "output" if self.output else "input"
        return (
            f"port map {direction} (external_port_id {self.external_port}, internal_layer_id {self.internal_layer_id})"
        )


@dataclass(frozen=True, slots=True)
class BackEdge:
    """A body Result (``from_layer``) whose value feeds a body Parameter (``to_layer``) at the next iteration."""

    from_layer: int
    to_layer: int


@dataclass(slots=True)
class Body:
    """One sub-graph of a layer: its tag (``body``, ``then_body``, ``else_body``), its Model and port map."""

    tag: str
    model: Model
    port_map: tuple[PortMapEntry, ...] | None = ()
    """Entries in file order (inputs, outputs and special ports interleaved as read); None: no port map element."""
    back_edges: tuple[BackEdge, ...] = ()

    @property
    def port_map_tag(self) -> str:
        """``port_map`` for ``body``, ``then_port_map`` for ``then_body``, ..."""
        return self.tag[: -len("body")] + "port_map"

    @property
    def inputs(self) -> list[PortMapEntry]:
        """The input entries."""
        return [entry for entry in self.port_map or () if not entry.output]

    @property
    def outputs(self) -> list[PortMapEntry]:
        """The output entries."""
        return [entry for entry in self.port_map or () if entry.output]


BODY_TAGS = ("body", "then_body", "else_body")
PORT_MAP_TAGS = {tag[: -len("body")] + "port_map": tag for tag in BODY_TAGS}
"""Port map element tag -> the body element it maps."""
