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

from typing import TYPE_CHECKING

from irgraph.core.records import MutableRecord, Record

if TYPE_CHECKING:
    from irgraph.graph.model import Model

CURRENT_ITERATION = "current_iteration"
EXECUTION_CONDITION = "execution_condition"
PURPOSES = {False: CURRENT_ITERATION, True: EXECUTION_CONDITION}
"""The Loop special body port an input (False) or output (True) entry may name with ``purpose``."""


# The three records are plain slotted Record classes, not dataclasses: compiling a dataclass's methods at import cost
# every start-up 0.4-0.6 ms each (slots=True builds the class twice). Copy one with ``record.replace(field=...)``.
class PortMapEntry(Record):
    """One ``<input>``/``<output>`` of a port map. Slicing fields are None where the file leaves them out."""

    __slots__ = ("output", "external_port", "internal_layer_id", "axis", "start", "end", "stride", "part_size",
                 "purpose")

    output: bool
    """True for an ``<output>`` entry (outer output <- body Result), False for ``<input>``."""
    external_port: int
    """Index of the outer input (input entries) or outer output (output entries); -1 for none."""
    internal_layer_id: int
    """Id of the body Parameter (input entries) or body Result (output entries)."""
    axis: int | None
    start: int | None
    end: int | None
    stride: int | None
    part_size: int | None
    purpose: str | None

    def __init__(self, output: bool, external_port: int, internal_layer_id: int, axis: int | None = None,
                 start: int | None = None, end: int | None = None, stride: int | None = None,
                 part_size: int | None = None, purpose: str | None = None) -> None:
        set_field = object.__setattr__
        set_field(self, "output", output)
        set_field(self, "external_port", external_port)
        set_field(self, "internal_layer_id", internal_layer_id)
        set_field(self, "axis", axis)
        set_field(self, "start", start)
        set_field(self, "end", end)
        set_field(self, "stride", stride)
        set_field(self, "part_size", part_size)
        set_field(self, "purpose", purpose)

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


class BackEdge(Record):
    """A body Result (``from_layer``) whose value feeds a body Parameter (``to_layer``) at the next iteration."""

    __slots__ = ("from_layer", "to_layer")

    from_layer: int
    to_layer: int

    def __init__(self, from_layer: int, to_layer: int) -> None:
        object.__setattr__(self, "from_layer", from_layer)
        object.__setattr__(self, "to_layer", to_layer)


class Body(MutableRecord):
    """One sub-graph of a layer: its tag (``body``, ``then_body``, ``else_body``), its Model and port map."""

    __slots__ = ("tag", "model", "port_map", "back_edges")

    tag: str
    model: Model
    port_map: tuple[PortMapEntry, ...] | None
    """Entries in file order (inputs, outputs and special ports interleaved as read); None: no port map element."""
    back_edges: tuple[BackEdge, ...]

    def __init__(self, tag: str, model: Model, port_map: tuple[PortMapEntry, ...] | None = (),
                 back_edges: tuple[BackEdge, ...] = ()) -> None:
        self.tag = tag
        self.model = model
        self.port_map = port_map
        self.back_edges = back_edges

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
