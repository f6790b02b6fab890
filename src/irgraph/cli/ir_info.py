"""ir-info: what an IR model holds: inputs, outputs, op histogram, IR version, weights; or a Graphviz graph."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from typing import TypedDict

from irgraph.analysis.shape_inference import infer_shapes
from irgraph.cli import _common as common
from irgraph.cli import _parsing as parsing
from irgraph.cli._layer import (
    describe_layer,
    find_layer,
    format_layer,
    format_layers,
    rt_info_json,
    shape_json_text,
    version_number,
)
from irgraph.core.errors import IrError, Location, printable
from irgraph.core.shapes import TensorType
from irgraph.graph import Model, Node, RtEntry
from irgraph.io.xml.reader import read_ir
from irgraph.ops import Const, OpaqueOp, Parameter
from irgraph.ops.catalogue import Kind, classify
from irgraph.ops.infrastructure.assign import AssignBase
from irgraph.ops.infrastructure.read_value import ReadValueBase
from irgraph.tools.compare import format_columns
from irgraph.tools.dot import NEIGHBOURHOOD_DEPTH, to_dot

DESCRIPTION = """\
Show what an OpenVINO IR model holds: inputs and outputs (names, element types, partial shapes
with intervals), the op histogram, the IR version, the layer count, the weights (size, element
types, fp16 decompression) and the model's rt_info (conversion parameters). --layers lists every
layer (id, name, type-version, input and output types, tensor names, attributes); --layer NAME shows
one layer in full (its place in the file, each input with its producer, each output with its
readers, attributes, rt_info, Const values in brief); --dot prints the graph in Graphviz format
(render with: dot -Tsvg): attributes, constants (Consts and weight decompression chains) folded into
the layers reading them as a line each (name, type and shape, small values), sub-graph bodies as
clusters; --around LAYER --depth N draws only the layers within N edges of one. Works from the .xml
alone: a missing or unreadable .bin is a warning, and Const values are then not shown.

Shapes in --json are lists, as in ir-run --json: a static dim is its size, a fully dynamic one -1,
an interval the string "lo..hi" ("2..", "..8"); a shape of dynamic rank is null.
"""

EXAMPLES = """\
  ir-info samples/dml-split-axis2/model.xml
  ir-info --json model.xml
  ir-info --layers model.xml
  ir-info model.xml --layer conv1                   # one layer: producers, readers, attributes, values
  ir-info model.xml --layer conv1 --json
  ir-info --dot model.xml | dot -Tsvg > model.svg
  ir-info --dot model.xml --around conv1 --depth 3 | dot -Tsvg > conv1.svg
"""

def build_parser() -> argparse.ArgumentParser:
    """The ir-info argument parser."""
    parser = parsing.make_parser("ir-info", DESCRIPTION, EXAMPLES)
    parser.add_argument("model", metavar="MODEL.xml", help="the IR model to describe")
    parser.add_argument("--weights", metavar="BIN", help="weights file (default: MODEL.bin beside the .xml)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument("--dot", action="store_true", help="print a Graphviz digraph")
    output.add_argument("--layers", action="store_true",
                        help="list every layer: types, tensor names, attributes")
    parser.add_argument("--around", metavar="LAYER",
                        help="with --dot: only the layers within --depth edges of LAYER (a name, id or tensor name)")
    parser.add_argument("--depth", type=common.positive_int, metavar="N",
                        help="edges from --around's layer drawn (default: 2; folded constants not counted)")
    parser.add_argument("--const-layers", action="store_true",
                        help="with --dot: draw every constant as a layer of its own instead of a line of its readers")
    parser.add_argument("--layer", metavar="NAME",
                        help="show one layer in detail (a layer name, else a layer id or a tensor name); "
                             "with --json as JSON")
    parsing.add_max_elements(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ir-info``."""
    return common.run_cli(build_parser(), _info, argv)


def _info(args: argparse.Namespace) -> int:
    if args.layer is not None and (args.dot or args.layers):
        raise common.CliError("--layer shows one layer; it cannot be combined with --dot or --layers")
    if args.depth is not None and args.around is None:
        raise common.CliError("--depth is how far --around reaches: add --around LAYER")
    if (args.around is not None or args.const_layers) and not args.dot:
        raise common.CliError(f"{'--around' if args.around is not None else '--const-layers'} is a --dot option: "
                              "add --dot")
    common.require_model_files(args.model, args.weights)
    with common.locating(args.model):
        result = read_ir(args.model, args.weights, element_limit=args.max_elements, weights_optional=True)
    model = result.model
    for finding in result.findings:
        if finding.code == "weights":
            common.warn(f"{args.model}: {finding.message}")
    try:
        infer_shapes(model)
    except IrError as err:
        common.warn(f"shape inference failed, showing the declared types: {err.locate(Location(file=args.model))}")
    if args.dot:
        around = find_layer(model, args.around) if args.around is not None else None
        if around is not None and around.within:
            raise common.CliError(f"--around {args.around!r}: the layer is inside {around.within[-1]}; give a "
                                  "layer of the model (a body is drawn with its layer)")
        print(to_dot(model, fold_constants=not args.const_layers, around=around.node if around else None,
                     depth=args.depth or NEIGHBOURHOOD_DEPTH))
        return common.EXIT_OK
    if args.layers:
        print("\n".join(format_layers(model)))
        return common.EXIT_OK
    if args.layer is not None:
        described = describe_layer(find_layer(model, args.layer))
        print(json.dumps(described, indent=2) if args.json else format_layer(described))
        return common.EXIT_OK
    info = describe(model, args.model, common.weights_path(args.model, args.weights))
    # json.dumps's ensure_ascii (the default) writes every non-ASCII and control character as a \uXXXX escape:
    # names stay exact and nothing in them reaches the terminal raw.
    print(json.dumps(info, indent=2) if args.json else format_info(info))
    return common.EXIT_OK


class PortInfo(TypedDict):
    """A port's type as JSON: None for each part that is unknown."""

    element_type: str | None
    shape: list[int | str] | None


class InputInfo(PortInfo):
    name: str
    tensor_names: list[str]


class OutputInfo(PortInfo):
    name: str
    result: str


class VariableInfo(PortInfo):
    variable_id: str
    read_by: str
    assigned: bool


class WeightsInfo(TypedDict):
    file: str
    bytes: int | None
    consts: dict[str, int]
    without_data: int
    decompression: int


class ModelInfo(TypedDict):
    """What ``ir-info --json`` prints (:func:`describe`)."""

    file: str
    name: str
    ir_version: int | None
    layers: int
    edges: int
    bodies: int
    body_layers: int
    weights: WeightsInfo
    inputs: list[InputInfo]
    outputs: list[OutputInfo]
    variables: list[VariableInfo]
    ops: dict[str, int]
    op_support: dict[str, str]
    rt_info: dict[str, object]


def _type_json(tensor_type: TensorType | None) -> tuple[str | None, list[int | str] | None]:
    """(element type, shape as JSON) of a port; (None, None) when unknown."""
    if tensor_type is None:
        return None, None
    return str(tensor_type.element_type), tensor_type.shape.to_json()


def describe(model: Model, path: str, weights: str) -> ModelInfo:
    """Everything ir-info shows, as JSON-ready data."""
    inputs: list[InputInfo] = []
    for parameter in model.parameters:
        op = parameter.op
        assert isinstance(op, Parameter)
        inputs.append({
            "name": parameter.name,
            "tensor_names": model.input_names(parameter)[1:],
            "element_type": str(op.element_type),
            "shape": op.shape.to_json(),
        })
    outputs: list[OutputInfo] = []
    output_keys = model.output_keys()
    for result in model.results:
        element_type, shape = _type_json(common.tensor_type_of_output(model, result))
        outputs.append({"name": output_keys[result.id], "result": result.name, "element_type": element_type,
                        "shape": shape})
    written = {node.op.variable_id for node in model if isinstance(node.op, AssignBase)}
    variables: list[VariableInfo] = []
    for node in model:
        if isinstance(node.op, ReadValueBase):
            read = node.outputs[0] if node.outputs else None
            element_type, shape = _type_json(None if read is None else read.type or read.declared_type)
            variables.append({"variable_id": node.op.variable_id, "read_by": node.name, "element_type": element_type,
                              "shape": shape, "assigned": node.op.variable_id in written})
    bodies = _bodies(model)
    graphs = (model, *bodies)  # bodies' ops included: a TensorIterator's body is most of what it holds
    histogram = Counter(f"{node.type_name}-{version_number(node)}" for graph in graphs for node in graph)
    support = {f"{node.type_name}-{version_number(node)}": _support(node) for graph in graphs for node in graph}
    try:
        weights_bytes: int | None = os.path.getsize(weights)
    except OSError:
        weights_bytes = None
    # Every Const layer, bodies' too, counted as the reader counts those it left without data.
    consts = [node.op for graph in graphs for node in graph if isinstance(node.op, Const)]
    by_type = Counter(str(op.element_type) for op in consts)
    return {
        "file": path,
        "name": model.name,
        "ir_version": model.ir_version,
        "layers": len(model),
        "edges": len(model.edges()),
        "bodies": len(bodies),
        "body_layers": sum(len(body) for body in bodies),
        "weights": {
            "file": weights, "bytes": weights_bytes,
            "consts": dict(sorted(by_type.items(), key=lambda item: (-item[1], item[0]))),
            "without_data": sum(1 for op in consts if op.value is None),
            "decompression": sum(1 for node in model if _has_rt_attribute(node.rt_info, "decompression")),
        },
        "inputs": inputs,
        "outputs": outputs,
        "variables": variables,
        "ops": dict(sorted(histogram.items(), key=lambda item: (-item[1], item[0]))),
        "op_support": dict(sorted(support.items())),
        "rt_info": rt_info_json(model.rt_info or ()),
    }


def _support(node: Node) -> str:
    """What irgraph does with a layer's op: ``runs``, or why not (``not checked yet``, ``custom``, ``invalid``)."""
    op = node.op
    if not isinstance(op, OpaqueOp):
        return "runs" if op.can_run else "checked"
    kind = classify(op.op_type, op.op_version).kind
    return {Kind.STANDARD: "not checked yet", Kind.CUSTOM: "custom op", Kind.INVALID: "not in its opset"}[kind]


def _has_rt_attribute(entries: tuple[RtEntry, ...] | None, name: str) -> bool:
    """True when an rt_info holds ``<attribute name="NAME" .../>`` (how OpenVINO writes its markers)."""
    return any(entry.tag == "attribute" and ("name", name) in entry.attributes for entry in entries or ())


def _rt_info_lines(tree: dict[str, object], depth: int = 1) -> list[str]:
    lines = []
    for key, value in tree.items():
        if isinstance(value, dict):
            lines.append("  " * depth + f"{printable(key)}:")
            lines += _rt_info_lines(value, depth + 1)
        else:
            lines.append("  " * depth + f"{printable(key)}: {printable(str(value))}")
    return lines


def _bodies(model: Model) -> list[Model]:
    """Every sub-graph body of ``model``, at any depth (a work list: bodies nest deeply)."""
    found: list[Model] = []
    pending = [model]
    while pending:
        inner = [body.model for node in pending.pop() for body in node.bodies]
        found += inner
        pending += inner
    return found


def _port_text(entry: PortInfo) -> tuple[str, str]:
    """(element type, shape) of a JSON port entry as text; ``?`` for an unknown type."""
    if entry["element_type"] is None:
        return "?", "?"
    return str(entry["element_type"]), shape_json_text(entry["shape"])


def format_info(info: ModelInfo) -> str:
    """The text report (names and paths from the file escaped by :func:`irgraph.core.errors.printable`)."""
    weights = info["weights"]
    size = "missing" if weights["bytes"] is None else f"{weights['bytes']} bytes"
    consts = ", ".join(f"{count} {element_type}" for element_type, count in weights["consts"].items())
    if weights["without_data"]:
        consts += f"; {weights['without_data']} without data"
    lines = [
        f"model      {printable(str(info['name']))} ({printable(str(info['file']))})",
        f"IR version {info['ir_version'] if info['ir_version'] is not None else '?'}",
        f"layers     {info['layers']} ({info['edges']} edges)"
        + (f", {info['body_layers']} more in {info['bodies']} sub-graph bodies" if info.get("bodies") else ""),
        f"weights    {printable(str(weights['file']))} ({size})",
    ]
    if consts:
        lines.append(f"consts     {consts}")
    if weights["decompression"]:
        lines.append(f"compressed {weights['decompression']} decompression Converts (weights stored compressed, "
                     "converted on load)")
    lines += ["", "inputs:"]
    lines += _table([(i["name"], *_port_text(i), ", ".join(i["tensor_names"]))
                     for i in info["inputs"]])
    lines += ["", "outputs:"]
    lines += _table([(o["name"], *_port_text(o), f"(Result {o['result']})" if o["result"] != o["name"]
                      else "") for o in info["outputs"]])
    if info.get("variables"):
        lines += ["", "variables (state kept between runs: ReadValue/Assign):"]
        lines += _table([(v["variable_id"], *_port_text(v),
                          f"(ReadValue {v['read_by']}{'' if v['assigned'] else ', never assigned'})")
                         for v in info["variables"]])
    lines += ["", "ops:"]
    support = info["op_support"]
    lines += _table([(name, str(count), support[name])
                     for name, count in info["ops"].items()])
    rt_info = info.get("rt_info")
    if rt_info:
        lines += ["", "rt_info:"]
        lines += _rt_info_lines(rt_info)
    return "\n".join(lines)


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    return format_columns([tuple(printable(cell) for cell in row) for row in rows], indent="  ") or ["  (none)"]


if __name__ == "__main__":
    sys.exit(main())
