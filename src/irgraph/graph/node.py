"""Node: one op placed in a model (an IR layer), with its ports' names, types and rt_info."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from irgraph.core.errors import GraphError, Location
from irgraph.core.shapes import TensorType
from irgraph.graph.ports import OutputPort
from irgraph.graph.subgraph import Body
from irgraph.ops import Op

OpT = TypeVar("OpT", bound=Op)


@dataclass(frozen=True, slots=True)
class RtEntry:
    """One rt_info element kept verbatim: its tag, attributes in order, children, and text (legacy
    ``<quantization_parameters>`` hold ``<config>TEXT</config>``; None when there is none)."""

    tag: str
    attributes: tuple[tuple[str, str], ...] = ()
    children: tuple[RtEntry, ...] = ()
    text: str | None = None


class Node:
    """An op in a model: id, name, op, port counts, tensor names, types and source location.

    ``output_types`` are the inferred types (None until inferred); ``declared_*_types`` are what
    the file said, kept so validation can report contradictions. Lists and dicts left out are
    created empty (one entry per port for the per-port lists).
    """

    # A plain slotted class: a reader makes one per layer, and a dataclass __init__ with default
    # factories and __post_init__ cost twice as much (20,000 layers: ~45 ms against ~20 ms).
    __slots__ = (
        "bodies", "declared_input_types", "declared_output_types", "extra_attributes", "id", "input_rt_info",
        "location", "name", "num_inputs", "num_outputs", "op", "output_rt_info", "output_types", "result_names",
        "rt_info", "tensor_names",
    )

    def __init__(
        self,
        id: int,  # noqa: A002 - the IR attribute's name
        name: str,
        op: Op,
        num_inputs: int,
        num_outputs: int,
        tensor_names: list[list[str]] | None = None,
        output_types: list[TensorType | None] | None = None,
        declared_input_types: list[TensorType | None] | None = None,
        declared_output_types: list[TensorType | None] | None = None,
        result_names: list[str] | None = None,
        rt_info: tuple[RtEntry, ...] = (),
        input_rt_info: dict[int, tuple[RtEntry, ...]] | None = None,
        output_rt_info: dict[int, tuple[RtEntry, ...]] | None = None,
        extra_attributes: dict[str, str] | None = None,
        location: Location | None = None,
        bodies: tuple[Body, ...] = (),
    ) -> None:
        self.id = id
        self.name = name
        self.op = op
        self.num_inputs = num_inputs
        self.num_outputs = num_outputs
        self.tensor_names: list[list[str]] = tensor_names or [[] for _ in range(num_outputs)]
        self.output_types: list[TensorType | None] = output_types or [None] * num_outputs
        self.declared_input_types: list[TensorType | None] = declared_input_types or [None] * num_inputs
        self.declared_output_types: list[TensorType | None] = declared_output_types or [None] * num_outputs
        self.result_names: list[str] | None = result_names
        """A Result's ``output_names`` (IR v11), when the file or the builder set them."""
        self.rt_info = rt_info
        self.input_rt_info: dict[int, tuple[RtEntry, ...]] = {} if input_rt_info is None else input_rt_info
        self.output_rt_info: dict[int, tuple[RtEntry, ...]] = {} if output_rt_info is None else output_rt_info
        self.extra_attributes: dict[str, str] = {} if extra_attributes is None else extra_attributes
        """``<data>`` attributes the op does not declare (OpenVINO ignores them; irgraph keeps them)."""
        self.bodies = bodies
        """Sub-graphs (TensorIterator, Loop, If, or any layer the file gave bodies) with their port maps."""
        if location is None or location.layer_id is None:
            where = location or Location()
            location = Location(where.file, where.line, id, name, self.type_name)
        self.location = location

    @property
    def type_name(self) -> str:
        """The IR layer ``type``."""
        return getattr(self.op, "op_type", "") or self.op.type_name

    @property
    def outputs(self) -> list[OutputPort]:
        """The node's output ports in order (handles to pass on to ``Model.add_node`` or the op builders)."""
        return [OutputPort(self.id, index) for index in range(self.num_outputs)]

    def __repr__(self) -> str:
        return f"Node({self.id}, {self.name!r}, {self.op!r})"

    def op_as(self, kind: type[OpT]) -> OpT:
        """This node's op as a ``kind`` (a Parameter, a Const...), for callers that know which op a layer holds;
        GraphError when it holds another."""
        if not isinstance(self.op, kind):
            raise GraphError(f"layer {self.id} ({self.name!r}) is a {self.type_name}, not a {kind.__name__}",
                             self.location)
        return self.op
