"""Graphviz drawings of a model (``ir-info --dot``): layers as boxes, constants folded into their readers,
sub-graph bodies as clusters, and the neighbourhood of one layer.

A drawing of a real network must stay readable and cheap to lay out, so by default a *constant* (a Const, or
a layer computed from constants only: a weight decompression chain Const -> Convert [-> Subtract] ->
Multiply) is no box of its own: each layer reading one shows it as a line of its label,
``in1: NAME f16[64,3,7,7]`` (a Const's values when it holds at most :data:`DOT_VALUES`), or
``in1: NAME f32[64,3,7,7] = Convert(Const)`` for a computed constant. A layer with bodies (TensorIterator,
Loop, If) is followed by a dashed cluster per body, linked by dotted edges from the layer to the body's
Parameters and from its Results back (``in K`` / ``out K``, the port map; a back edge as ``next``).
``around`` draws only the layers within ``depth`` edges of one layer (folded constants not counted), each
layer outside that it touches as a dotted stub.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from irgraph.core.errors import printable
from irgraph.graph import Body, Model, Node, OutputPort
from irgraph.ops import Const, OpaqueOp, Parameter, Result
from irgraph.ops.infrastructure.read_value import ReadValueBase
from irgraph.tools.values import values_text

__all__ = ["DOT_VALUES", "NEIGHBOURHOOD_DEPTH", "DotStyle", "constant_layers", "neighbourhood", "to_dot"]

DOT_VALUES = 8
"""A Const's values are shown when it holds at most this many elements."""
NEIGHBOURHOOD_DEPTH = 2
"""Edges drawn around a layer unless told otherwise (``ir-info --around``, the HTML report)."""
_ATTRIBUTE_CHARS = 40
"""An attribute value longer than this is cut short."""
_LINE_CHARS = 48
"""Attributes are joined into label lines of at most this many characters."""
_EXPRESSION_CHARS = 48
"""A computed constant's expression (``Multiply(Subtract(Convert(Const), ...)``) is cut short past this."""


@dataclass(frozen=True)
class DotStyle:
    """What the caller adds to a drawing: a line per layer id (an error, a time) and a fill colour per layer id."""

    notes: Mapping[int, str] = field(default_factory=dict)
    colours: Mapping[int, str] = field(default_factory=dict)


def constant_layers(model: Model) -> set[int]:
    """Ids of the layers whose outputs are constants: Consts, and layers without bodies or run state computing
    from constants only (a ReadValue is state, whatever initialises it)."""
    constant: set[int] = set()
    for node in model.topological_order():
        op = node.op
        if isinstance(op, Const):
            constant.add(node.id)
            continue
        stateful = op.traits.keeps_run_state or op.traits.is_sink
        if isinstance(op, (Parameter, Result, ReadValueBase)) or node.bodies or stateful:
            continue
        sources = model.input_sources(node)
        if sources and all(source is not None and source.node_id in constant for source in sources):
            constant.add(node.id)
    return constant


def neighbourhood(model: Model, centre: Node, depth: int, skip: set[int] | None = None) -> set[int]:
    """Ids of the layers at most ``depth`` edges from ``centre``, either way along the edges; layers in ``skip``
    (folded constants) are neither counted nor passed through."""
    skip = skip or set()
    readers: dict[int, set[int]] = {}
    for source, target in model.edges():
        readers.setdefault(source.node_id, set()).add(target.node_id)
    found = {centre.id}
    frontier = [centre.id]
    for _ in range(depth):
        if not frontier:  # every layer reachable is found: --depth 100000000 must not count on to its end
            break
        reached: set[int] = set()
        for node_id in frontier:
            sources = model.input_sources(model.node(node_id))
            reached.update(source.node_id for source in sources if source is not None)
            reached.update(readers.get(node_id, ()))
        frontier = [node_id for node_id in reached - found if node_id not in skip]
        found.update(frontier)
    return found


def to_dot(model: Model, *, fold_constants: bool = True, around: Node | None = None, depth: int = NEIGHBOURHOOD_DEPTH,
           style: DotStyle | None = None) -> str:
    """A Graphviz digraph of ``model`` (see the module docstring): one box per layer (name, type-version,
    attributes, folded constants), edges labelled with the tensor type."""
    drawing = _Drawing(fold_constants, style or DotStyle())
    lines = [f"digraph {_quote(printable(model.name))} {{", "  rankdir=TB;",
             '  node [shape=box, fontname="Helvetica"];', '  edge [fontname="Helvetica", fontsize=10];']
    shown = None
    if around is not None:
        skip = constant_layers(model) if fold_constants else set()
        shown = neighbourhood(model, around, depth, skip)
    lines += drawing.graph(model, "n", shown=shown, centre=around.id if around is not None else None)
    lines.append("}")
    return "\n".join(lines)


class _Drawing:
    """Writes the statements of a graph and, recursively, of its bodies' clusters."""

    def __init__(self, fold_constants: bool, style: DotStyle) -> None:
        self.fold_constants = fold_constants
        self.style = style

    def graph(self, model: Model, prefix: str, *, shown: set[int] | None = None, centre: int | None = None,
              indent: str = "  ", top: bool = True) -> list[str]:
        """The nodes, clusters and edges of ``model``, node ids ``PREFIX<id>``; only ``shown`` (and stubs of the
        layers they touch) when given. The style's notes and colours are by the ids of the ``top`` model."""
        folded = constant_layers(model) if self.fold_constants else set()
        drawn = [node for node in model if node.id not in folded and (shown is None or node.id in shown)]
        drawn_ids = {node.id for node in drawn}
        lines: list[str] = []
        notes, colours = (self.style.notes, self.style.colours) if top else ({}, {})
        for node in drawn:
            label = [printable(node.name), printable(f"{node.type_name}-{_version(node)}"),
                     *map(printable, _attributes(node))]
            label += [printable(line) for line in _folded_inputs(model, node, folded)]
            extra = _node_style(node)
            if node.id in notes:
                label.append(printable(notes[node.id]))
            if node.id in colours:
                extra += f", style=filled, fillcolor={_quote(colours[node.id])}"
            if node.id == centre:
                extra += ", penwidth=3"
            lines.append(f"{indent}{prefix}{node.id} [label={_quote(chr(10).join(label))}{extra}];")
            for position, body in enumerate(node.bodies):
                lines += self._cluster(node, f"{prefix}{node.id}", body, f"{prefix}{node.id}_b{position}_", indent)
        stubs: set[int] = set()
        for source, target in sorted(model.edges(), key=lambda e: (e[0].node_id, e[0].index, e[1].node_id,
                                                                   e[1].index)):
            if source.node_id in folded or target.node_id in folded:
                continue
            inside = (source.node_id in drawn_ids, target.node_id in drawn_ids)
            if not any(inside):
                continue
            if not all(inside):
                stubs.add(source.node_id if not inside[0] else target.node_id)
            lines.append(f"{indent}{prefix}{source.node_id} -> {prefix}{target.node_id} "
                         f"[label={_quote(_type_text(model, source))}];")
        stub_lines = []
        for node_id in sorted(stubs):
            node = model.node(node_id)
            stub = f"{printable(node.name)}\n{printable(node.type_name)}"
            stub_lines.append(f"{indent}{prefix}{node_id} [label={_quote(stub)}, style=dotted, fontcolor=gray40];")
        return stub_lines + lines

    def _cluster(self, owner: Node, owner_id: str, body: Body, prefix: str, indent: str) -> list[str]:
        """A dashed cluster holding one body (its node ids ``PREFIXn<id>``), and the dotted port-map edges between
        it and its layer ``owner`` (drawn as ``owner_id``)."""
        inner = f"{prefix}n"
        label = f"{printable(owner.name)}: {printable(body.tag)}"
        lines = [f"{indent}subgraph cluster_{prefix.rstrip('_')} {{",
                 f"{indent}  label={_quote(label)}; style=dashed; color=gray40;"]
        lines += self.graph(body.model, inner, indent=indent + "  ", top=False)
        lines.append(f"{indent}}}")
        for entry in body.port_map or ():
            if entry.internal_layer_id not in body.model:
                continue
            name = entry.purpose or f"{'out' if entry.output else 'in'} {entry.external_port}"
            if entry.output:
                lines.append(f"{indent}{inner}{entry.internal_layer_id} -> {owner_id} [label={_quote(name)}, "
                             "style=dotted, constraint=false];")
            else:
                lines.append(f"{indent}{owner_id} -> {inner}{entry.internal_layer_id} [label={_quote(name)}, "
                             "style=dotted];")
        for back in body.back_edges:
            if back.from_layer in body.model and back.to_layer in body.model:
                lines.append(f"{indent}{inner}{back.from_layer} -> {inner}{back.to_layer} "
                             '[label="next", style=dotted, constraint=false];')
        return lines


def _quote(text: str) -> str:
    """A Graphviz quoted string: backslashes and quotes escaped, newlines as Graphviz's ``\\n`` line breaks."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _version(node: Node) -> str:
    version = str(node.op.version)
    return version[len("opset"):] if version.startswith("opset") else version


def _short(text: str, limit: int = _ATTRIBUTE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _node_style(node: Node) -> str:
    """Inputs and outputs as ellipses, constants (drawn as layers) dashed."""
    if isinstance(node.op, (Parameter, Result)):
        return ", shape=ellipse"
    if isinstance(node.op, Const):
        return ", style=dashed"
    return ""


def _const_text(op: Const) -> str:
    """``f16[1,4,1,1]``, and ``= [values]`` for a small Const with data."""
    declared = f"{op.element_type}[{','.join(map(str, op.shape))}]"
    if op.value is not None and op.value.size <= DOT_VALUES:
        return f"{declared} = {_short(values_text(op.value))}"
    return declared


def _attributes(node: Node) -> list[str]:
    """``key=value`` lines for a layer's attributes; a Const drawn as a layer: its type, shape and small values."""
    op = node.op
    if isinstance(op, Const):
        return [_const_text(op)]
    if isinstance(op, (Parameter, Result)):
        return []
    if isinstance(op, OpaqueOp):
        attributes = dict(op.attributes)
    else:
        try:
            attributes = op.to_attributes()
        except (TypeError, ValueError):  # pragma: no cover - every declared attribute writes
            attributes = {}
    return _wrapped([f"{key}={_short(value)}" for key, value in attributes.items()])


def _wrapped(items: list[str], width: int = _LINE_CHARS) -> list[str]:
    """``items`` joined by ``; `` into lines of at most ``width`` characters (a longer item on a line of its own):
    a deep network's height is its depth times the height of its labels."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + 2 + len(item) <= width:
            lines[-1] += f"; {item}"
        else:
            lines.append(item)
    return lines


def _type_text(model: Model, port: OutputPort) -> str:
    """The tensor type of an output: inferred, else declared; ``?`` when neither."""
    producer = model.node(port.node_id)
    produced = producer.outputs[port.index] if port.index < len(producer.outputs) else None
    tensor_type = None if produced is None else produced.type or produced.declared_type
    return str(tensor_type) if tensor_type is not None else "?"


def _folded_inputs(model: Model, node: Node, folded: set[int]) -> list[str]:
    """A line per input fed by a folded constant: ``in1: NAME TYPE`` and its values or how it is computed."""
    lines = []
    for index, source in enumerate(model.input_sources(node)):
        if source is None or source.node_id not in folded:
            continue
        producer = model.node(source.node_id)
        if isinstance(producer.op, Const):
            lines.append(f"in{index}: {_short(producer.name)} {_const_text(producer.op)}")
        else:
            values = _forwarded_values(model, producer)
            lines.append(f"in{index}: {_short(producer.name)} {_type_text(model, source)} = "
                         f"{_short(_expression(model, producer, folded), _EXPRESSION_CHARS)}"
                         + (f" = {_short(values)}" if values else ""))
    return lines


def _forwarded_values(model: Model, node: Node) -> str:
    """The values of a small Const that ``node`` only converts or reshapes (a decompression Convert), else ``""``."""
    while not isinstance(node.op, Const):
        sources = model.input_sources(node)
        if node.op.forwards_values != (0,) or len(sources) < 1 or sources[0] is None:
            return ""
        if any(source is not None and not isinstance(model.node(source.node_id).op, Const) for source in sources[1:]):
            return ""
        node = model.node(sources[0].node_id)
    value = node.op.value
    return values_text(value) if value is not None and value.size <= DOT_VALUES else ""


def _expression(model: Model, node: Node, folded: Iterable[int], budget: int = _EXPRESSION_CHARS) -> str:
    """``Multiply(Convert(Const), Const)``: how a computed constant is made, cut off once past ``budget``."""
    if isinstance(node.op, Const) or budget <= 0:
        return node.type_name if isinstance(node.op, Const) else "..."
    parts = []
    for source in model.input_sources(node):
        if source is None:
            continue
        part = _expression(model, model.node(source.node_id), folded, budget - len(node.type_name) - 2)
        parts.append(part)
        budget -= len(part) + 2
    return f"{node.type_name}({', '.join(parts)})"
