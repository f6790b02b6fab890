"""ir-info: what an IR model holds: inputs, outputs, op histogram, IR version, weights; or a Graphviz graph."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter

from irgraph.cli import _common as common
from irgraph.errors import IrError, Location
from irgraph.graph import Model, Node
from irgraph.ops import Const, Parameter, Result
from irgraph.shape_inference import infer_shapes
from irgraph.shapes import TensorType

DESCRIPTION = """\
Show what an OpenVINO IR model holds: inputs and outputs (names, element types, partial shapes
with intervals), the op histogram, the IR version, the layer count and the weights size.
--dot prints the graph in Graphviz format instead (render with: dot -Tsvg).
"""

EXAMPLES = """\
  ir-info samples/dml-split-axis2/model.xml
  ir-info --json model.xml
  ir-info --dot model.xml | dot -Tsvg > model.svg
"""


def build_parser() -> argparse.ArgumentParser:
    """The ir-info argument parser."""
    parser = common.make_parser("ir-info", DESCRIPTION, EXAMPLES)
    parser.add_argument("model", metavar="MODEL.xml", help="the IR model to describe")
    parser.add_argument("--weights", metavar="BIN", help="weights file (default: MODEL.bin beside the .xml)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument("--dot", action="store_true", help="print a Graphviz digraph")
    common.add_max_elements(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ir-info``."""
    return common.run_cli(build_parser(), _info, argv)


def _info(args: argparse.Namespace) -> int:
    model = common.read_model(args.model, args.weights, args.max_elements)
    try:
        infer_shapes(model)
    except IrError as err:
        common.warn(f"shape inference failed, showing the declared types: {err.locate(Location(file=args.model))}")
    if args.dot:
        print(to_dot(model))
        return common.EXIT_OK
    info = describe(model, args.model, common.weights_path(args.model, args.weights))
    print(json.dumps(info, indent=2) if args.json else format_info(info))
    return common.EXIT_OK


def _type_text(tensor_type: TensorType | None) -> tuple[str, str]:
    if tensor_type is None:
        return "?", "?"
    return str(tensor_type.element_type), str(tensor_type.shape)


def describe(model: Model, path: str, weights: str) -> dict[str, object]:
    """Everything ir-info shows, as JSON-ready data."""
    inputs = []
    for parameter in model.parameters:
        op = parameter.op
        assert isinstance(op, Parameter)
        inputs.append({
            "name": parameter.name,
            "tensor_names": model.input_names(parameter)[1:],
            "element_type": str(op.element_type),
            "shape": str(op.shape),
        })
    outputs = []
    for result in model.results:
        element_type, shape = _type_text(common.tensor_type_of_output(model, result))
        outputs.append({"name": model.output_key(result), "result": result.name, "element_type": element_type,
                        "shape": shape})
    bodies = _bodies(model)
    histogram = Counter(
        f"{node.type_name}-{_version_number(node)}" for graph in (model, *bodies) for node in graph
    )  # bodies' ops included: a TensorIterator's body is most of what it holds
    try:
        weights_bytes: int | None = os.path.getsize(weights)
    except OSError:
        weights_bytes = None
    return {
        "file": path,
        "name": model.name,
        "ir_version": model.ir_version,
        "layers": len(model),
        "edges": len(model.edges()),
        "bodies": len(bodies),
        "body_layers": sum(len(body) for body in bodies),
        "weights": {"file": weights, "bytes": weights_bytes},
        "inputs": inputs,
        "outputs": outputs,
        "ops": dict(sorted(histogram.items(), key=lambda item: (-item[1], item[0]))),
    }


def _bodies(model: Model) -> list[Model]:
    """Every sub-graph body of ``model``, at any depth (a work list: bodies nest deeply)."""
    found: list[Model] = []
    pending = [model]
    while pending:
        inner = [body.model for node in pending.pop() for body in node.bodies]
        found += inner
        pending += inner
    return found


def _version_number(node: Node) -> str:
    version = str(node.op.version)
    return version[len("opset"):] if version.startswith("opset") else version


def format_info(info: dict[str, object]) -> str:
    """The text report."""
    weights = info["weights"]
    assert isinstance(weights, dict)
    size = "missing" if weights["bytes"] is None else f"{weights['bytes']} bytes"
    lines = [
        f"model      {info['name']} ({info['file']})",
        f"IR version {info['ir_version'] if info['ir_version'] is not None else '?'}",
        f"layers     {info['layers']} ({info['edges']} edges)"
        + (f", {info['body_layers']} more in {info['bodies']} sub-graph bodies" if info.get("bodies") else ""),
        f"weights    {weights['file']} ({size})",
        "",
        "inputs:",
    ]
    lines += _table([(i["name"], i["element_type"], i["shape"], ", ".join(i["tensor_names"]))
                     for i in info["inputs"]])  # type: ignore[attr-defined]
    lines += ["", "outputs:"]
    lines += _table([(o["name"], o["element_type"], o["shape"], f"(Result {o['result']})" if o["result"] != o["name"]
                      else "") for o in info["outputs"]])  # type: ignore[attr-defined]
    lines += ["", "ops:"]
    lines += _table([(name, str(count)) for name, count in info["ops"].items()])  # type: ignore[attr-defined]
    return "\n".join(lines)


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    return common.format_columns(rows, indent="  ") or ["  (none)"]


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot_style(node: Node) -> str:
    """Inputs and outputs as ellipses, constants dashed: by op class, as ``Model.parameters``/``results`` tell them."""
    if isinstance(node.op, (Parameter, Result)):
        return ", shape=ellipse"
    if isinstance(node.op, Const):
        return ", style=dashed"
    return ""


def to_dot(model: Model) -> str:
    """A Graphviz digraph: one box per layer (name and type), edges labelled with the tensor type."""
    lines = [f"digraph {_quote(model.name)} {{", "  rankdir=TB;", '  node [shape=box, fontname="Helvetica"];']
    for node in model:
        label = f"{node.name}\n{node.type_name}"
        lines.append(f"  n{node.id} [label={_quote(label)}{_dot_style(node)}];")
    for source, target in sorted(model.edges(), key=lambda e: (e[0].node_id, e[0].index, e[1].node_id, e[1].index)):
        producer = model.node(source.node_id)
        tensor_type = producer.output_types[source.index]
        if tensor_type is None and source.index < len(producer.declared_output_types):
            tensor_type = producer.declared_output_types[source.index]
        label = str(tensor_type) if tensor_type is not None else "?"
        lines.append(f"  n{source.node_id} -> n{target.node_id} [label={_quote(label)}];")
    lines.append("}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
