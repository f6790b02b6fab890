"""Node: one op placed in a model (an IR layer), with its ports' names, types and rt_info."""

from __future__ import annotations

from dataclasses import dataclass, field

from irgraph.errors import Location
from irgraph.ops import Op
from irgraph.shapes import TensorType


@dataclass(frozen=True, slots=True)
class RtEntry:
    """One rt_info element kept verbatim: its tag, attributes in order, and children."""

    tag: str
    attributes: tuple[tuple[str, str], ...] = ()
    children: tuple[RtEntry, ...] = ()


@dataclass(eq=False)
class Node:
    """An op in a model: id, name, op, port counts, tensor names, types and source location.

    ``output_types`` are the inferred types (None until inferred); ``declared_*_types`` are what
    the file said, kept so validation can report contradictions.
    """

    id: int
    name: str
    op: Op
    num_inputs: int
    num_outputs: int
    tensor_names: list[list[str]] = field(default_factory=list)
    output_types: list[TensorType | None] = field(default_factory=list)
    declared_input_types: list[TensorType | None] = field(default_factory=list)
    declared_output_types: list[TensorType | None] = field(default_factory=list)
    result_names: list[str] | None = None
    """A Result's ``output_names`` (IR v11), when the file or the builder set them."""
    rt_info: tuple[RtEntry, ...] = ()
    input_rt_info: dict[int, tuple[RtEntry, ...]] = field(default_factory=dict)
    output_rt_info: dict[int, tuple[RtEntry, ...]] = field(default_factory=dict)
    extra_attributes: dict[str, str] = field(default_factory=dict)
    """``<data>`` attributes the op does not declare (OpenVINO ignores them; irgraph keeps them)."""
    location: Location = field(default_factory=Location)

    def __post_init__(self) -> None:
        self.tensor_names = self.tensor_names or [[] for _ in range(self.num_outputs)]
        self.output_types = self.output_types or [None] * self.num_outputs
        self.declared_input_types = self.declared_input_types or [None] * self.num_inputs
        self.declared_output_types = self.declared_output_types or [None] * self.num_outputs
        if self.location.layer_id is None:
            self.location = Location(
                file=self.location.file,
                line=self.location.line,
                layer_id=self.id,
                layer_name=self.name,
                layer_type=self.type_name,
            )

    @property
    def type_name(self) -> str:
        """The IR layer ``type``."""
        return getattr(self.op, "op_type", "") or self.op.type_name

    def __repr__(self) -> str:
        return f"Node({self.id}, {self.name!r}, {self.op!r})"
