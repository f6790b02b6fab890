"""ir-extract: cut the sub-graph between tensors of an IR model into a new IR model."""

from __future__ import annotations

import argparse
import json
import re
import sys

import irgraph
from irgraph.cli import _common as common
from irgraph.cli import _parsing as parsing
from irgraph.core.errors import printable
from irgraph.graph import Model
from irgraph.tools.extract import extract

DESCRIPTION = """\
Cut the part of an OpenVINO IR model that computes the --outputs from the --inputs into a new,
valid IR model (as polygraphy surgeon extract does for ONNX). Where the cut crosses an edge, a new
Parameter of the tensor's inferred type takes its place, named after the tensor (its first tensor
name, else LAYER:PORT as given); each output gets a Result named as given.
Layers keep their names, ids, tensor names and rt_info; the weights they need are copied.

A tensor is named by one of its tensor names, by a Parameter or Result layer name, or as
LAYER:PORT where LAYER is a layer name or id and PORT counts the layer's outputs from 0
("split:1" is the second output of the layer called split). NAMES are comma-separated (write
a comma inside a name as \\,) and the options may be repeated. Without --inputs, the sub-graph
starts at the model inputs the outputs need.

Fails (exit 1), naming the problem, when a name is unknown (close matches are listed), when an
output depends on a model input that is not cut, or when an input is not needed.
"""

EXAMPLES = """\
  ir-extract model.xml block.xml --inputs relu1 --outputs concat
  ir-extract model.xml head.xml --inputs pool1:0 --outputs prob,logits
  ir-extract model.xml part.xml --outputs split:1 --ir-version 10   # from the model inputs
  ir-run block.xml                                  # runs on its own (random inputs)
  ir-run block.xml --compare-with openvino --device GPU   # debug one block on a device
"""


def build_parser() -> argparse.ArgumentParser:
    """The ir-extract argument parser."""
    parser = parsing.make_parser("ir-extract", DESCRIPTION, EXAMPLES)
    parser.add_argument("model", metavar="MODEL.xml", help="the IR model to cut")
    parser.add_argument("destination", metavar="OUT.xml", help="the IR file to write (weights go to OUT.bin)")
    parser.add_argument("--inputs", metavar="NAMES", action="append",
                        help="tensors where the sub-graph starts (they become Parameters)")
    parser.add_argument("--outputs", metavar="NAMES", action="append", default=[], required=True,
                        help="tensors the sub-graph computes (they get Results)")
    parser.add_argument("--weights", metavar="BIN", help="weights file (default: MODEL.bin beside the .xml)")
    parser.add_argument("--ir-version", type=int, choices=(10, 11), help="IR version to write (default: MODEL's)")
    parser.add_argument("--json", action="store_true", help="print what was written as JSON")
    parsing.add_max_elements(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ir-extract``."""
    return common.run_cli(build_parser(), _extract, argv)


_UNESCAPED_COMMA = re.compile(r"(?<!\\),")


def split_names(values: list[str]) -> list[str]:
    """Names from repeated ``--inputs``/``--outputs`` options, each comma-separated (``\\,`` is a comma in a name)."""
    names: list[str] = []
    for value in values:
        parts = [part.replace("\\,", ",") for part in _UNESCAPED_COMMA.split(value)]
        if any(not part for part in parts):
            raise common.CliError(f"empty name in {value!r}: names are comma-separated")
        names += parts
    return names


def _extract(args: argparse.Namespace) -> int:
    inputs = None if args.inputs is None else split_names(args.inputs)
    outputs = split_names(args.outputs)
    destination_bin = common.weights_path(args.destination, None)
    source_bin = common.weights_path(args.model, args.weights)
    if not args.destination.endswith(".xml"):
        raise common.CliError(f"{args.destination}: OUT must be an .xml file (its weights go beside it as .bin)")
    reads = [(args.model, "the model file"), (source_bin, "the weights file")]
    for written in (args.destination, destination_bin):
        common.check_output(written, reads)
    model = common.read_model(args.model, args.weights, args.max_elements)
    with common.locating(args.model):
        sub = extract(model, inputs, outputs)
    irgraph.write_model(sub, args.destination, version=args.ir_version)
    if args.json:
        print(json.dumps(describe(sub, args.destination, destination_bin), indent=2))
    else:
        print(f"wrote {args.destination} and {destination_bin}: {len(sub)} of {len(model)} layers, "
              f"inputs {_names([sub.input_names(p)[0] for p in sub.parameters])}, "
              f"outputs {_names(list(sub.output_keys().values()))}")
    return common.EXIT_OK


def describe(sub: Model, path: str, weights: str) -> dict[str, object]:
    """What was written, as JSON-ready data: files, layer count, inputs (with types) and outputs."""
    inputs = []
    for parameter in sub.parameters:
        tensor_type = parameter.outputs[0].type
        inputs.append({"name": parameter.name, "tensor_names": sub.input_names(parameter)[1:],
                       "type": None if tensor_type is None else str(tensor_type)})
    outputs = []
    output_keys = sub.output_keys()
    for result in sub.results:
        tensor_type = common.tensor_type_of_output(sub, result)
        outputs.append({"name": output_keys[result.id], "result": result.name,
                        "type": None if tensor_type is None else str(tensor_type)})
    return {"file": path, "weights": weights, "layers": len(sub), "inputs": inputs, "outputs": outputs}


def _names(names: list[str]) -> str:
    return ", ".join(printable(name) for name in names)


if __name__ == "__main__":
    sys.exit(main())
