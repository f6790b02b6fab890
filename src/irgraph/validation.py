"""validate(model) -> list[Diagnostic]: structure, op rules and declared-versus-inferred types.

Validation collects every problem instead of stopping at the first one.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from irgraph.errors import GraphError, IrError, Location, bounded, printable
from irgraph.graph import Model, Node
from irgraph.ops import OpaqueOp, Parameter, Result
from irgraph.shape_inference import walk
from irgraph.sub_graph_validation import check_bodies


class Severity(enum.Enum):
    """How bad a diagnostic is: errors make a model invalid; warnings are suspicious."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Diagnostic:
    """One finding: a stable code, a severity, a message and where it applies."""

    code: str
    severity: Severity
    message: str
    location: Location = Location()

    def __post_init__(self) -> None:
        # One line and bounded, as IrError messages are, whatever names or values a finding quotes.
        object.__setattr__(self, "message", printable(bounded(self.message)))

    @property
    def is_error(self) -> bool:
        """True for errors."""
        return self.severity is Severity.ERROR

    def __str__(self) -> str:
        where = self.location.prefix() or "<model>"
        layer = self.location.layer()
        text = f"{layer}: {self.message}" if layer else self.message
        return f"{where}: {self.severity.value}: [{self.code}] {text}"


def validate(model: Model) -> list[Diagnostic]:
    """Every structural, op and type problem of ``model`` and of its sub-graph bodies, errors and warnings alike."""
    found: list[Diagnostic] = []
    pending: list[tuple[Model, bool]] = [(model, True)]  # a work list, not recursion: bodies nest to any depth
    while pending:
        current, outermost = pending.pop()
        bodies = _validate_graph(current, found, outermost)
        pending.extend((body, False) for body in reversed(bodies))
    return found


def _validate_graph(model: Model, found: list[Diagnostic], outermost: bool) -> list[Model]:
    """Append the problems of one graph; return its body Models (inferred already, through their layers)."""

    def error(code: str, message: str, location: Location) -> None:
        found.append(Diagnostic(code, Severity.ERROR, message, location))

    def warning(code: str, message: str, location: Location) -> None:
        found.append(Diagnostic(code, Severity.WARNING, message, location))

    if not model.results and outermost:
        error("no-results", "the model has no Result layers", Location(file=model.source))
    try:
        model.topological_order()
    except GraphError as err:
        error("cycle", err.message, err.location)
        return []

    def on_error(node: Node, err: IrError) -> None:
        code = "graph" if isinstance(err, GraphError) else "op"
        error(code, err.message, err.location if err.location.layer_id is not None else node.location)

    if outermost:
        walk(model, on_error)  # bodies are walked by their layers, with the types the layer gives them
    bodies: list[Model] = []
    for node in model:
        if node.bodies:
            sources = model.input_sources(node)
            input_types = [
                (model.output_type(source) if source is not None else None) or declared
                for source, declared in zip(sources, node.declared_input_types, strict=False)
            ]
            check_bodies(node, input_types, error, warning)
            bodies.extend(body.model for body in node.bodies)
    reachable = model.reachable_from_results()
    # OpenVINO's writer often names a Result after its producer, so Results are counted apart.
    names = Counter((isinstance(node.op, Result), node.name) for node in model)
    for node in model:
        if isinstance(node.op, OpaqueOp):
            warning(
                "unknown-op",
                f"op {node.op.op_type} (version {node.op.op_version}) is unknown to irgraph: it is kept "
                "but not checked and cannot run",
                node.location,
            )
        if node.id not in reachable and not isinstance(node.op, Parameter):
            warning("unreachable", "no Result depends on this layer (OpenVINO drops it on read)", node.location)
        same_name = names[(isinstance(node.op, Result), node.name)]
        if same_name > 1:
            warning("duplicate-name", f"{same_name} layers are named {node.name!r}", node.location)
        for attribute in node.extra_attributes:
            warning("unknown-attribute", f"{node.op.title()} has no attribute {attribute!r}; it is ignored",
                    node.location)
        _compare_declared(node, warning)
    return bodies


def _compare_declared(node: Node, warning: Callable[[str, str, Location], None]) -> None:
    for index, (declared, inferred) in enumerate(zip(node.declared_output_types, node.output_types, strict=False)):
        if declared is None or inferred is None:
            continue
        if not declared.element_type.is_dynamic and declared.element_type != inferred.element_type:
            warning(
                "declared-type",
                f"output {index} declares precision {declared.element_type.precision} but the op produces "
                f"{inferred.element_type}",
                node.location,
            )
        if not declared.shape.rank_is_dynamic and not inferred.shape.rank_is_dynamic and (
            declared.shape.rank != inferred.shape.rank
            or any(d.is_static and i.is_static and d != i for d, i in zip(declared.shape, inferred.shape, strict=False))
        ):
            warning(
                "declared-shape",
                f"output {index} declares dims {declared.shape} but inference gives {inferred.shape}",
                node.location,
            )
