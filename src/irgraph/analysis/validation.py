"""validate(model) -> list[Diagnostic]: structure, op rules and declared-versus-inferred types.

Validation collects every problem instead of stopping at the first one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from irgraph.analysis.shape_inference import walk
from irgraph.analysis.variables import VARIABLE_CODE, variable_problems
from irgraph.control_flow.validation import check_bodies
from irgraph.core.diagnostics import Diagnostic, Severity
from irgraph.core.errors import GraphError, IrError, Location
from irgraph.core.text import counted
from irgraph.graph import Model, Node
from irgraph.ops import OpaqueOp, Parameter, Result
from irgraph.ops.catalogue import Kind, classify, versions_of

SUMMARY_LIMIT = 12
"""At most this many op types are named in a summary's message (its ``counts`` hold them all)."""


def validate(model: Model) -> list[Diagnostic]:
    """Every structural, op and type problem of ``model`` and of its sub-graph bodies, errors and warnings alike."""
    found: list[Diagnostic] = []
    unchecked: Counter[str] = Counter()  # op types irgraph does not check yet -> layers, bodies included
    custom: Counter[str] = Counter()
    pending: list[tuple[Model, bool]] = [(model, True)]  # a work list, not recursion: bodies nest to any depth
    while pending:
        current, outermost = pending.pop()
        bodies = _validate_graph(current, found, outermost, unchecked, custom)
        pending.extend((body, False) for body in reversed(bodies))
    where = Location(file=model.source, line=model.source_line)
    if unchecked:
        found.append(_summary(
            "unchecked-op", unchecked, where,
            "{layers} of {types} not checked yet (kept as declared; they cannot run): {listing}",
        ))
    if custom:
        found.append(_summary(
            "custom-op", custom, where,
            "{layers} of {types} outside OpenVINO's opsets (OpenVINO reads them only with their extension; "
            "irgraph keeps them as declared): {listing}",
        ))
    return found


def _validate_graph(
    model: Model, found: list[Diagnostic], outermost: bool, unchecked: Counter[str], custom: Counter[str]
) -> list[Model]:
    """Append the problems of one graph and count its ops irgraph does not check (``unchecked``) and
    custom ops; return its body Models (inferred already, through their layers)."""

    def error(code: str, message: str, location: Location) -> None:
        found.append(Diagnostic(code, Severity.ERROR, message, location))

    def warning(code: str, message: str, location: Location) -> None:
        found.append(Diagnostic(code, Severity.WARNING, message, location))

    if not model.results and outermost:
        error("no-results", "the model has no Result layers", Location(file=model.source, line=model.source_line))
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
        if model.ir_version == 10:
            for node, message in v10_name_collisions(model):
                error("name-collision", message, node.location)
        for problem in variable_problems(model):
            (error if problem.is_error else warning)(VARIABLE_CODE, problem.message, problem.node.location)
    bodies: list[Model] = []
    for node in model:
        if node.bodies:
            sources = model.input_sources(node)
            input_types = [
                (model.output_type(source) if source is not None else None) or port.declared_type
                for source, port in zip(sources, node.inputs, strict=False)
            ]
            check_bodies(node, input_types, error, warning)
            bodies.extend(body.model for body in node.bodies)
    reachable = model.reachable_from_results()
    # OpenVINO's writer often names a Result after its producer, so Results are counted apart.
    names = Counter((isinstance(node.op, Result), node.name) for node in model)
    for node in model:
        if isinstance(node.op, OpaqueOp):
            _classify(node, node.op, unchecked, custom, error)
        if isinstance(node.op, Parameter) and node.op.element_type.is_dynamic:
            warning("dynamic-input-type", "the input has a dynamic element type: the model reads but cannot run "
                    "(OpenVINO refuses to compile it too)", node.location)
        if node.id not in reachable and not isinstance(node.op, Parameter):
            warning("unreachable", "no Result depends on this layer (OpenVINO drops it on read)", node.location)
        same_name = names[(isinstance(node.op, Result), node.name)]
        if same_name > 1:
            warning("duplicate-name", f"{same_name} layers are named {node.name!r}", node.location)
        for attribute in node.extra_attributes:
            warning("unknown-attribute", f"{node.op.title()} has no attribute {attribute!r}; it is ignored",
                    node.location)
        if node.op.traits.unconnected_extra_outputs:
            values = [None if s is None else model.constant_value(s) for s in model.input_sources(node)]
            count = node.op.output_count(values)
            if count is not None and count > node.num_outputs:
                warning("undeclared-outputs", f"{node.op.title()} produces {count} outputs here but the layer "
                        f"declares {node.num_outputs} output ports: the other {count - node.num_outputs} are left "
                        "unconnected (as OpenVINO does)", node.location)
        _compare_declared(node, warning)
    return bodies


def v10_name_collisions(model: Model) -> list[tuple[Node, str]]:
    """The inputs and outputs whose names OpenVINO's IR v10 reader finds colliding, as it checks them.

    OpenVINO 2026.4.1 gives a v10 model's inputs their Parameter names and its outputs their
    producers' names (``conv.1`` for port 1 of a multi-output ``conv``) as extra tensor names, and
    refuses the model when such a name already names another input or output tensor
    (``model_reader.cpp``: "Model operation names have collisions with tensor names"). Only the
    tensors at the model's edges take part. Before that it refuses an output whose tensor names an input's
    tensor holds too ("Model tensor names have collisions"): a Result reading a named Parameter directly, as
    the output is the Result's own tensor, which takes its input's names.
    """
    owner: dict[str, tuple[int, int] | None] = {}  # name -> the tensor holding it; None: an added name
    added: dict[tuple[int, int], set[str]] = {}
    found: list[tuple[Node, str]] = []

    def names_of(tensor: tuple[int, int]) -> set[str]:
        return set(model.node(tensor[0]).outputs[tensor[1]].tensor_names) | added.get(tensor, set())

    def collide(node: Node, name: str, what: str) -> None:
        found.append((node, f"IR v10: {what} {name!r} is also the name of another input or output tensor, so "
                            "OpenVINO refuses the model (\"Model operation names have collisions with tensor "
                            "names\"); write it as IR v11"))

    outputs = []
    for result in model.results:
        sources = model.input_sources(result)
        if sources and sources[0] is not None:
            outputs.append((result, (sources[0].node_id, sources[0].index)))
    parameters = [parameter for parameter in model.parameters if parameter.num_outputs]  # damaged files have none
    # Two edge tensors sharing a tensor name pass: OpenVINO 2026.4.1 reads such a file (its reader
    # resolves the duplicate before this check), so only the operation names are checked.
    inputs = {(parameter.id, 0) for parameter in parameters}
    for result, tensor in outputs:
        names = model.node(tensor[0]).outputs[tensor[1]].tensor_names
        if tensor in inputs and names:
            found.append((result, f"IR v10: output tensor {sorted(names)[0]!r} is also an input's tensor, so "
                                  "OpenVINO refuses the model (\"Model tensor names have collisions\"); write it as "
                                  "IR v11"))
    for parameter in parameters:
        for name in parameter.outputs[0].tensor_names:
            owner.setdefault(name, (parameter.id, 0))
    for _, tensor in outputs:
        for name in model.node(tensor[0]).outputs[tensor[1]].tensor_names:
            owner.setdefault(name, tensor)
    for result, tensor in outputs:
        producer = model.node(tensor[0])
        name = producer.name if producer.num_outputs == 1 else f"{producer.name}.{tensor[1]}"
        if name in owner and name not in names_of(tensor):
            collide(result, name, "output name")
        owner.setdefault(name, None)
        added.setdefault(tensor, set()).add(name)
    for parameter in parameters:
        tensor = (parameter.id, 0)
        if parameter.name in owner and parameter.name not in names_of(tensor):
            collide(parameter, parameter.name, "input layer name")
        owner.setdefault(parameter.name, None)
        added.setdefault(tensor, set()).add(parameter.name)
    return found


def _classify(
    node: Node, op: OpaqueOp, unchecked: Counter[str], custom: Counter[str],
    error: Callable[[str, str, Location], None],
) -> None:
    """Count a layer irgraph has no op class for, or report its type as invalid for its opset."""
    found = classify(op.op_type, op.op_version)
    if found.kind is Kind.INVALID:
        error("invalid-op", f"{found.message}; OpenVINO refuses the model", node.location)
    elif found.kind is Kind.STANDARD and found.entry is not None:
        several_versions = len(versions_of(found.entry.type_name)) > 1
        unchecked[found.entry.title if several_versions else found.entry.ir_name] += 1
    else:
        custom[f"{op.op_type} ({op.op_version})"] += 1


def _summary(code: str, counts: Counter[str], where: Location, template: str) -> Diagnostic:
    """One note for many layers: ``285 layers of 11 op types ...: Convert×108, Add×70, ...``."""
    ordered = tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    listing = ", ".join(f"{name}×{count}" for name, count in ordered[:SUMMARY_LIMIT])
    if len(ordered) > SUMMARY_LIMIT:
        listing += f" and {len(ordered) - SUMMARY_LIMIT} more"
    layers, types = sum(counts.values()), len(counts)
    message = template.format(
        layers=counted(layers, "layer"), types=counted(types, "op type"),
        listing=listing,
    )
    return Diagnostic(code, Severity.NOTE, message, where, ordered)


def _compare_declared(node: Node, warning: Callable[[str, str, Location], None]) -> None:
    for index, output in enumerate(node.outputs):
        declared, inferred = output.declared_type, output.type
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
