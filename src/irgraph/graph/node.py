"""Node: one op placed in a model (an IR layer), with its ports as records (names, types, rt_info)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from irgraph.core.errors import GraphError, Location
from irgraph.core.records import Record
from irgraph.core.shapes import TensorType
from irgraph.graph.ports import InputPort, OutputPort
from irgraph.graph.subgraph import Body
from irgraph.ops import Op

OpT = TypeVar("OpT", bound=Op)


class RtEntry(Record):
    """One rt_info element kept verbatim: its tag, attributes in order, children, and text (legacy
    ``<quantization_parameters>`` hold ``<config>TEXT</config>``; None when there is none). A Record (copied with
    ``entry.replace(tag=...)``), not a dataclass: every start-up imports it (see irgraph.core.records)."""

    __slots__ = ("tag", "attributes", "children", "text")

    tag: str
    attributes: tuple[tuple[str, str], ...]
    children: tuple[RtEntry, ...]
    text: str | None

    def __init__(self, tag: str, attributes: tuple[tuple[str, str], ...] = (), children: tuple[RtEntry, ...] = (),
                 text: str | None = None) -> None:
        object.__setattr__(self, "tag", tag)
        object.__setattr__(self, "attributes", attributes)
        object.__setattr__(self, "children", children)
        object.__setattr__(self, "text", text)


class Output(OutputPort):
    """A node's output port with what the model knows of it (onnx/ir-py's ``Value``).

    It is the :class:`OutputPort` itself (equal to, and hashed as, the plain port): pass
    ``node.outputs[0]`` wherever a port is wanted. ``type`` is the inferred type (None until
    inferred, or where inference failed); ``declared_type`` what the file said, kept so validation
    can report contradictions; ``tensor_names`` the port's names; ``rt_info`` its ``<rt_info>``.
    """

    __slots__ = ("declared_type", "rt_info", "tensor_names", "type")

    def __init__(
        self,
        node_id: int,
        index: int,
        tensor_names: list[str] | None = None,
        declared_type: TensorType | None = None,
        type: TensorType | None = None,  # noqa: A002 - ir-py's name for a value's type
        rt_info: tuple[RtEntry, ...] = (),
    ) -> None:
        # Set here, not through OutputPort.__init__: a reader makes one record per port, and a second call costs
        # a third of the record. The port half is still only ever set once, here.
        self.node_id = node_id  # type: ignore[misc] # the Final is set once, by the constructor
        self.index = index  # type: ignore[misc] # the Final is set once, by the constructor
        self.model = None  # type: ignore[misc] # set once, here: a record holds no model (builders take model=)
        self.tensor_names: list[str] = [] if tensor_names is None else tensor_names
        self.declared_type = declared_type
        self.type = type
        self.rt_info = rt_info

    def __repr__(self) -> str:
        return f"Output({self.node_id}, {self.index}, {self.tensor_names!r}, type={self.type})"


class Input(InputPort):
    """A node's input port with what the file declared of it: ``declared_type`` and ``rt_info``.

    It is the :class:`InputPort` itself (equal to, and hashed as, the plain port). What feeds it is the
    model's to say (``Model.producer``): a node does not know its neighbours.
    """

    __slots__ = ("declared_type", "rt_info")

    def __init__(
        self, node_id: int, index: int, declared_type: TensorType | None = None, rt_info: tuple[RtEntry, ...] = ()
    ) -> None:
        self.node_id = node_id  # type: ignore[misc] # the Final is set once, by the constructor (see Output)
        self.index = index  # type: ignore[misc] # the Final is set once, by the constructor (see Output)
        self.declared_type = declared_type
        self.rt_info = rt_info

    def __repr__(self) -> str:
        return f"Input({self.node_id}, {self.index}, declared_type={self.declared_type})"


class Node:
    """An op in a model: id, name, op, its ports' records (``inputs``, ``outputs``) and source location.

    ``inputs`` / ``outputs`` are counts (empty records are made) or lists of the records themselves, made
    for this node's id in port order (a reader's, with what the file said); the node keeps such a list.
    """

    # A plain slotted class: a reader makes one per layer, and a dataclass __init__ with default
    # factories and __post_init__ cost twice as much (20,000 layers: ~45 ms against ~20 ms).
    __slots__ = ("bodies", "extra_attributes", "id", "inputs", "location", "name", "op", "outputs", "result_names",
                 "rt_info")

    def __init__(
        self,
        id: int,  # noqa: A002 - the IR attribute's name
        name: str,
        op: Op,
        inputs: int | list[Input],
        outputs: int | list[Output],
        *,
        result_names: list[str] | None = None,
        rt_info: tuple[RtEntry, ...] = (),
        extra_attributes: dict[str, str] | None = None,
        location: Location | None = None,
        bodies: tuple[Body, ...] = (),
    ) -> None:
        self.id = id
        self.name = name
        self.op = op
        self.inputs: list[Input] = [Input(id, index) for index in range(inputs)] if isinstance(inputs, int) else inputs
        self.outputs: list[Output] = (
            [Output(id, index) for index in range(outputs)] if isinstance(outputs, int) else outputs
        )
        self.result_names: list[str] | None = result_names
        """A Result's ``output_names`` (IR v11), when the file or the builder set them."""
        self.rt_info = rt_info
        self.extra_attributes: dict[str, str] = {} if extra_attributes is None else extra_attributes
        """``<data>`` attributes the op does not declare (OpenVINO ignores them; irgraph keeps them)."""
        self.bodies = bodies
        """Sub-graphs (TensorIterator, Loop, If, or any layer the file gave bodies) with their port maps."""
        if location is None or location.layer_id is None:
            where = location or Location()
            location = Location(where.file, where.line, id, name, self.type_name)
        self.location = location

    @property
    def num_inputs(self) -> int:
        """How many input ports the node has."""
        return len(self.inputs)

    @property
    def num_outputs(self) -> int:
        """How many output ports the node has."""
        return len(self.outputs)

    def set_output_types(self, types: Iterable[TensorType | None]) -> None:
        """Give the outputs these inferred types, in order (types past the last output, of outputs an op
        computes and the layer leaves out, are dropped)."""
        for output, output_type in zip(self.outputs, types, strict=False):
            output.type = output_type

    @property
    def type_name(self) -> str:
        """The IR layer ``type``."""
        return getattr(self.op, "op_type", "") or self.op.type_name

    def __repr__(self) -> str:
        return f"Node({self.id}, {self.name!r}, {self.op!r})"

    def op_as(self, kind: type[OpT]) -> OpT:
        """This node's op as a ``kind`` (a Parameter, a Const...), for callers that know which op a layer holds;
        GraphError when it holds another."""
        if not isinstance(self.op, kind):
            raise GraphError(f"layer {self.id} ({self.name!r}) is a {self.type_name}, not a {kind.__name__}",
                             self.location)
        return self.op
