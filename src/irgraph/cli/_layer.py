"""ir-info's views of layers: one row per layer (``--layers``) and one layer in detail (``--layer NAME``).

The detail view answers what one otherwise reads the XML for: where the layer is (``FILE:LINE``),
what feeds each input (the producing layer and port, its tensor names, a Const's values), who reads
each output, the attributes as the file holds them, and rt_info.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from irgraph.cli._common import CliError
from irgraph.core.errors import printable
from irgraph.core.shapes import TensorType
from irgraph.graph import Model, Node, OutputPort, RtEntry
from irgraph.ops import Const, OpaqueOp, Parameter, Result
from irgraph.tools.compare import close_names, format_columns, tensor_stats
from irgraph.tools.values import first_values, item_text, values_text

FIRST_VALUES = 8
"""A Const's summary shows this many of its first elements."""
ATTRIBUTE_CHARS = 40
"""An attribute value longer than this is cut short in ``--layers`` (the detail view shows it whole)."""


def version_number(node: Node) -> str:
    """``8`` for ``opset8``; other version texts as they are."""
    version = str(node.op.version)
    return version[len("opset"):] if version.startswith("opset") else version


def type_version(node: Node) -> str:
    """``Gather-8``."""
    return f"{node.type_name}-{version_number(node)}"


def short(text: str, limit: int = ATTRIBUTE_CHARS) -> str:
    """``text``, or its start and ``...`` when longer than ``limit``."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def attributes(node: Node) -> dict[str, str]:
    """A layer's ``<data>`` attributes as the file writes them (Parameter, Result and Const: none; their types
    and shapes are in their ports), then the ones the op does not declare."""
    op = node.op
    if isinstance(op, (Parameter, Result, Const)):
        return dict(node.extra_attributes)
    if isinstance(op, OpaqueOp):
        return dict(op.attributes)
    try:
        found = op.to_attributes()
    except (TypeError, ValueError):  # pragma: no cover - every declared attribute writes
        found = {}
    return {**found, **node.extra_attributes}


def input_types(model: Model, node: Node) -> list[TensorType | None]:
    """The type reaching each input: inferred from its producer, else what the file declared."""
    found = [model.output_type(source) if source is not None else None for source in model.input_sources(node)]
    return [t if t is not None else port.declared_type for t, port in zip(found, node.inputs, strict=True)]


def output_types(node: Node) -> list[TensorType | None]:
    """Each output's type: inferred, else what the file declared."""
    return [output.type if output.type is not None else output.declared_type for output in node.outputs]


def _types_text(types: list[TensorType | None]) -> str:
    return ", ".join(str(t) if t is not None else "?" for t in types) or "-"


def format_layers(model: Model) -> list[str]:
    """One row per layer in document order: id, name, type-version, input types -> output types, the output
    ports' tensor names (ports separated by ``;``) and the attributes (``key=value; ...``; a small Const: its
    values)."""
    rows = [("id", "name", "type", "inputs", "outputs", "tensor names", "attributes")]
    for node in model:
        port_names = [output.tensor_names for output in node.outputs]
        names = "; ".join(",".join(port) for port in port_names) if any(port_names) else ""
        if isinstance(node.op, Const):
            value = node.op.value
            shown = f"= {values_text(value)}" if value is not None and value.size <= FIRST_VALUES else ""
        else:
            shown = "; ".join(f"{key}={short(value)}" for key, value in attributes(node).items())
        rows.append((str(node.id), node.name, type_version(node), _types_text(input_types(model, node)),
                     _types_text(output_types(node)), names, shown))
    return format_columns([tuple(printable(cell) for cell in row) for row in rows])


def value_summary(array: np.ndarray) -> dict[str, object]:
    """A Const's value in brief: element type, shape, min, max, mean and its first elements."""
    stats = tensor_stats("", array)
    return {"element_type": stats["element_type"], "shape": stats["shape"], "elements": int(array.size),
            "min": stats["min"], "max": stats["max"], "mean": stats["mean"],
            "first": first_values(np.asarray(array).reshape(-1), FIRST_VALUES)}


# ------------------------------------------------------------------------------------ finding a layer
@dataclass
class Found:
    """A layer and the graph that holds it; ``within`` names the layers whose bodies lead to it (outermost
    first), empty for a layer of the model itself."""

    node: Node
    model: Model
    within: tuple[str, ...] = ()


def _graphs(model: Model) -> Iterator[tuple[Model, tuple[str, ...]]]:
    """The model and every sub-graph body at any depth, with the layers leading to it (a work list)."""
    pending: list[tuple[Model, tuple[str, ...]]] = [(model, ())]
    while pending:
        graph, within = pending.pop(0)
        yield graph, within
        for node in graph:
            for position, body in enumerate(node.bodies):
                pending.append((body.model, (*within, f"{node.name} body {position}")))


def find_layer(model: Model, wanted: str) -> Found:
    """The layer named ``wanted`` (in the model, else in a body), else the layer with that id, else the one
    producing a tensor of that name. A name several layers share, or none has, is a usage error (exit 2)."""
    by_name = [Found(node, graph, within) for graph, within in _graphs(model) for node in graph
               if node.name == wanted]
    outer = [found for found in by_name if not found.within] or by_name
    if len(outer) > 1:
        ids = ", ".join(str(found.node.id) for found in outer)
        raise CliError(f"{len(outer)} layers are named {wanted!r} (ids {ids}): give the id with --layer")
    if outer:
        return outer[0]
    if wanted.isascii() and wanted.isdigit() and int(wanted) in model:
        return Found(model.node(int(wanted)), model)
    for graph, within in _graphs(model):
        for node in graph:
            if any(wanted in output.tensor_names for output in node.outputs):
                return Found(node, graph, within)
    names = [node.name for graph, _ in _graphs(model) for node in graph]
    close = close_names(wanted, names)
    hint = f"; closest: {', '.join(map(repr, close))}" if close else ""
    raise CliError(f"the model has no layer (nor layer id or tensor name) {wanted!r}{hint}")


# ------------------------------------------------------------------------------------ one layer
def _port_json(tensor_type: TensorType | None) -> dict[str, object]:
    if tensor_type is None:
        return {"element_type": None, "shape": None}
    return {"element_type": str(tensor_type.element_type), "shape": tensor_type.shape.to_json()}


def _layer_ref(node: Node, port: int) -> dict[str, object]:
    return {"layer": node.name, "id": node.id, "type": node.type_name, "port": port}


def rt_info_json(entries: tuple[RtEntry, ...]) -> dict[str, object]:
    """rt_info as nested JSON: ``<tag value="v"/>`` -> ``{"tag": "v"}``, ``<info name="n" value="v"/>`` ->
    ``{"n": "v"}``, elements with children -> nested objects; other attributes are kept as objects."""
    out: dict[str, object] = {}
    for entry in entries:
        found = dict(entry.attributes)
        key = found.pop("name") if entry.tag in ("info", "attribute") and "name" in found else entry.tag
        if entry.children:
            children = rt_info_json(entry.children)
            value: object = {**found, **children} if found else children
        elif set(found) == {"value"}:
            value = found["value"]
        elif not found and entry.text is not None:
            value = entry.text
        else:
            value = found
        out[key] = value
    return out


def describe_layer(found: Found) -> dict[str, object]:
    """Everything ``ir-info --layer`` shows of one layer, as JSON-ready data."""
    node, model = found.node, found.model
    location = node.location
    inputs = []
    for index, (source, tensor_type) in enumerate(zip(model.input_sources(node), input_types(model, node),
                                                      strict=True)):
        entry: dict[str, object] = {"port": index, **_port_json(tensor_type), "from": None, "tensor_names": []}
        if source is not None:
            producer = model.node(source.node_id)
            entry["from"] = _layer_ref(producer, source.index)
            entry["tensor_names"] = list(producer.outputs[source.index].tensor_names)
            value = model.constant_value(source)
            if value is not None:
                entry["value"] = value_summary(value)
        if node.inputs[index].rt_info:
            entry["rt_info"] = rt_info_json(node.inputs[index].rt_info)
        inputs.append(entry)
    outputs = []
    for index, tensor_type in enumerate(output_types(node)):
        consumers = [_layer_ref(model.node(target.node_id), target.index)
                     for target in model.consumers(OutputPort(node.id, index))]
        output = node.outputs[index]
        entry = {"port": index, **_port_json(tensor_type), "tensor_names": list(output.tensor_names), "to": consumers}
        if output.rt_info:
            entry["rt_info"] = rt_info_json(output.rt_info)
        outputs.append(entry)
    described: dict[str, object] = {
        "id": node.id, "name": node.name, "type": node.type_name, "version": str(node.op.version),
        "file": location.file, "line": location.line, "within": list(found.within),
        "inputs": inputs, "outputs": outputs, "attributes": attributes(node), "rt_info": rt_info_json(node.rt_info),
    }
    if isinstance(node.op, Const):
        value = node.op.value
        described["value"] = value_summary(value) if value is not None else None
    if isinstance(node.op, Result):
        described["output_key"] = model.output_key(node)
    if node.bodies:
        described["bodies"] = [{"layers": len(body.model), "parameters": len(body.model.parameters),
                                "results": len(body.model.results)} for body in node.bodies]
    return described


def shape_json_text(shape: object) -> str:
    """A JSON shape (:meth:`irgraph.core.shapes.Shape.to_json`) as text: ``[1,?,2..8]``, ``[...]`` for None."""
    if shape is None:
        return "[...]"
    assert isinstance(shape, list)
    return "[" + ",".join("?" if dim == -1 else str(dim) for dim in shape) + "]"


def _type_text(entry: dict[str, object]) -> str:
    if entry["element_type"] is None:
        return "?"
    return f"{entry['element_type']}{shape_json_text(entry['shape'])}"


def _ref_text(ref: dict[str, object]) -> str:
    return f"{ref['layer']}:{ref['port']} ({ref['type']}, id {ref['id']})"


def _value_text(value: dict[str, object]) -> str:
    first = value["first"]
    assert isinstance(first, list)
    elements = value["elements"]
    assert isinstance(elements, int)
    head = "[" + ", ".join(map(item_text, first)) + (", ..." if elements > len(first) else "") + "]"
    stats = "" if value["min"] is None else f"  min {item_text(value['min'])}  max {item_text(value['max'])}" + (
        f"  mean {float(value['mean']):.4g}" if isinstance(value["mean"], (int, float)) else "")
    return f"{value['element_type']}{shape_json_text(value['shape'])}{stats}  values {head}"


def _rt_lines(tree: dict[str, object], depth: int) -> list[str]:
    lines = []
    for key, value in tree.items():
        if isinstance(value, dict):
            lines.append("  " * depth + f"{key}:")
            lines += _rt_lines(value, depth + 1)
        else:
            lines.append("  " * depth + f"{key}: {value}")
    return lines


def format_layer(described: dict[str, object]) -> str:
    """The text of ``ir-info --layer`` (names and values from the file escaped)."""
    where = f"{described['file']}:{described['line']}" if described["line"] else str(described["file"] or "")
    version = str(described["version"]).removeprefix("opset")
    head = f"layer {described['id']} {described['name']!r} ({described['type']}-{version})"
    lines = [printable(head + (f" at {where}" if where else ""))]
    within = described["within"]
    assert isinstance(within, list)
    if within:
        lines.append(printable(f"in the body of {' > '.join(within)}"))
    if "output_key" in described:
        lines.append(f"model output {described['output_key']!r}")
    inputs, outputs = described["inputs"], described["outputs"]
    assert isinstance(inputs, list) and isinstance(outputs, list)
    lines.append("inputs:" if inputs else "inputs: none")
    rows = []
    for entry in inputs:
        source = f"from {_ref_text(entry['from'])}" if entry["from"] else "not connected"
        names = f"names {','.join(entry['tensor_names'])}" if entry["tensor_names"] else ""
        rows.append((str(entry["port"]), _type_text(entry), source, names))
    lines += format_columns([tuple(map(printable, row)) for row in rows], indent="  ")
    for entry in inputs:
        if "value" in entry:
            lines.append(f"  input {entry['port']} is a Const: {printable(_value_text(entry['value']))}")
    lines.append("outputs:" if outputs else "outputs: none")
    rows = []
    for entry in outputs:
        names = f"names {','.join(entry['tensor_names'])}" if entry["tensor_names"] else ""
        readers = ", ".join(_ref_text(ref) for ref in entry["to"]) or "read by nothing"
        rows.append((str(entry["port"]), _type_text(entry), names, f"to {readers}" if entry["to"] else readers))
    lines += format_columns([tuple(map(printable, row)) for row in rows], indent="  ")
    found_attributes = described["attributes"]
    assert isinstance(found_attributes, dict)
    if found_attributes:
        lines.append("attributes:")
        lines += format_columns([(printable(key), printable(value)) for key, value in found_attributes.items()],
                                indent="  ")
    if "value" in described:
        value = described["value"]
        lines.append(f"value: {printable(_value_text(value)) if isinstance(value, dict) else 'not read (no weights)'}")
    if "bodies" in described:
        bodies = described["bodies"]
        assert isinstance(bodies, list)
        lines += [f"body {position}: {body['layers']} layers ({body['parameters']} inputs, {body['results']} outputs)"
                  for position, body in enumerate(bodies)]
    rt_info = described["rt_info"]
    assert isinstance(rt_info, dict)
    port_rt = [(f"input {entry['port']}", entry["rt_info"]) for entry in inputs if "rt_info" in entry]
    port_rt += [(f"output {entry['port']}", entry["rt_info"]) for entry in outputs if "rt_info" in entry]
    if rt_info or port_rt:
        lines.append("rt_info:")
        lines += [printable(line) for line in _rt_lines(rt_info, 1)]
        for label, tree in port_rt:
            lines.append(f"  {label}:")
            lines += [printable(line) for line in _rt_lines(tree, 2)]
    return "\n".join(lines)

