"""ir-convert: IR -> IR (re-write, IR version change), ONNX -> IR and IR -> ONNX."""

from __future__ import annotations

import argparse
import os
import sys

import irgraph
from irgraph.analysis.validation import v10_name_collisions
from irgraph.cli import _common as common
from irgraph.cli import _parsing as parsing
from irgraph.cli._common import CliError
from irgraph.core.diagnostics import Diagnostic
from irgraph.core.errors import FeedError, GraphError, Location
from irgraph.graph import Model
from irgraph.io.onnx.importer import external_data_files
from irgraph.io.xml.reader import read_ir
from irgraph.io.xml.v10 import v10_losses
from irgraph.io.xml.writer import version_to_write
from irgraph.tools import surgery
from irgraph.tools.feeds import parse_shape_specs

DESCRIPTION = """\
Convert between OpenVINO IR (.xml + .bin) and ONNX (.onnx); the direction follows the file
suffixes. IR -> IR re-writes a model (optionally as another IR version). A failed conversion
never damages an existing DST: everything is written to temporary files and renamed at the end.
What the reader tolerated (and what OpenVINO ignores too) and what an IR v10 DST cannot hold
(layer and port rt_info, Result output_names) are printed as warnings, one line per kind.

Surgery on the way (any direction; names are the source's): --reshape sets input shapes and re-infers every
shape after them (OpenVINO's Model.reshape), --fold-constants replaces each layer computed from constants by a
Const (weight decompression sub-graphs are kept, as OpenVINO keeps them, unless --decompress-weights),
--decompress-weights folds only those sub-graphs, --compress-to-fp16 writes float weights as f16 Consts with a
decompression Convert (OpenVINO's save_model(compress_to_fp16=True)), --rename-input/--rename-output change the
tensor names inputs and outputs are addressed by. The result is re-inferred and validated before it is written.
"""

EXAMPLES = """\
  ir-convert model.xml copy.xml                     # re-write (weights go to copy.bin)
  ir-convert old.xml new.xml --ir-version 11
  ir-convert model.onnx model.xml --explain         # ONNX -> IR (needs the onnx extra)
  ir-convert model.xml model.onnx --opset 18        # IR -> ONNX (needs the onnx extra)
  ir-convert model.xml model.onnx --fold-decompression  # fp16 weights become f32 initializers
  ir-convert stateful.xml model.onnx --stateless    # KV-cache variables become inputs and outputs
  ir-convert model.xml static.xml --reshape "data[1,3,224,224]" --fold-constants
  ir-convert model.xml static.xml --reshape "[1,3,224,224]"           # a model of one input
  ir-convert model.xml half.xml --compress-to-fp16                    # as save_model(compress_to_fp16=True)
  ir-convert int4.xml plain.xml --decompress-weights                  # weights as the f32 Consts they compute
  ir-convert model.xml renamed.xml --rename-input data=pixels --rename-output logits=scores
"""

_FORMATS = {".xml": "ir", ".onnx": "onnx"}


def build_parser() -> argparse.ArgumentParser:
    """The ir-convert argument parser."""
    parser = parsing.make_parser("ir-convert", DESCRIPTION, EXAMPLES)
    parser.add_argument("source", metavar="SRC", help="model to read (.xml or .onnx)")
    parser.add_argument("destination", metavar="DST", help="file to write (.xml or .onnx)")
    parser.add_argument("--weights", metavar="BIN", help="weights of an IR SRC (default: SRC.bin beside the .xml)")
    parser.add_argument("--ir-version", type=int, choices=(10, 11), help="IR version to write (DST .xml)")
    parser.add_argument("--opset", type=common.positive_int, metavar="N", help="ONNX opset to write (DST .onnx)")
    parser.add_argument("--fold-decompression", action="store_true",
                        help="fold the Converts of constant weights (fp16-compressed IR) into initializers of the "
                             "converted type (DST .onnx); without it the f16 weights and a Cast are kept")
    parser.add_argument("--stateless", action="store_true",
                        help="export a stateful model (ReadValue/Assign) with each variable as a graph input and "
                             "output, as optimum's ONNX exports have the KV cache (past_key_values.N.key in, "
                             "present.N.key out); prints the mapping (DST .onnx)")
    group = parser.add_argument_group("surgery (applied before writing, in the order listed)")
    group.add_argument("--reshape", dest="reshapes", metavar="SPEC", action="append", default=[],
                         help='input shapes, as ir-run --shape: "NAME[1,3,224,224]" (dims N, ?, lo..hi; several '
                              'comma separated or repeated) or "[1,3,224,224]" for a model of one input; a layer that '
                              "cannot take them is named in the error")
    group.add_argument("--rename-input", dest="input_renames", metavar="OLD=NEW", action="append", default=[],
                         help="rename an input (its tensor name, and its layer name when that is OLD)")
    group.add_argument("--rename-output", dest="output_renames", metavar="OLD=NEW", action="append", default=[],
                         help="rename an output (its tensor name / Result output name)")
    group.add_argument("--fold-constants", action="store_true",
                         help="replace every layer computed from constants (and ShapeOf of a static shape) by a Const, "
                              "evaluated with irgraph's ops; weight decompression sub-graphs are kept")
    group.add_argument("--decompress-weights", action="store_true",
                         help="fold weight decompression sub-graphs (f16 or int8/int4/nf4 Const -> Convert ...) into "
                              "the Consts they compute, in f32 as OpenVINO's CPU plugin computes them")
    group.add_argument("--compress-to-fp16", action="store_true",
                         help="store f32/f64 Consts as f16 with a decompression Convert, as OpenVINO's "
                              "save_model(compress_to_fp16=True) does (it keeps Consts f16 cannot hold, and compresses "
                              "nothing in a quantized or weight-compressed model)")
    parser.add_argument("--explain", action="store_true",
                        help="print each conversion decision (ONNX SRC or ONNX DST)")
    parsing.add_max_elements(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ir-convert``."""
    return common.run_cli(build_parser(), _convert, argv)


def _format(path: str, role: str) -> str:
    suffix = os.path.splitext(path)[1].lower()
    found = _FORMATS.get(suffix)
    if found is None:
        raise CliError(f"{path}: cannot tell the {role} format from the suffix {suffix or '(none)'!r}; "
                       "use .xml (OpenVINO IR) or .onnx")
    return found


def _convert(args: argparse.Namespace) -> int:
    source, destination = _format(args.source, "SRC"), _format(args.destination, "DST")
    if source == destination == "onnx":
        raise CliError("ONNX -> ONNX is not a conversion; one side must be an IR .xml")
    if args.ir_version is not None and destination != "ir":
        raise CliError("--ir-version applies to an IR DST (.xml)")
    if args.opset is not None and destination != "onnx":
        raise CliError("--opset applies to an ONNX DST (.onnx)")
    if args.weights is not None and source != "ir":
        raise CliError("--weights applies to an IR SRC (.xml)")
    if args.explain and source != "onnx" and destination != "onnx":
        raise CliError("--explain applies to an ONNX SRC or DST (.onnx)")
    if args.fold_decompression and destination != "onnx":
        raise CliError("--fold-decompression applies to an ONNX DST (.onnx)")
    if args.stateless and destination != "onnx":
        raise CliError("--stateless applies to an ONNX DST (.onnx)")
    plan = _surgery_plan(args)
    reads = [(args.source, "the source model")]
    if source == "ir":
        reads.append((common.weights_path(args.source, args.weights), "the source weights"))
    elif os.path.isfile(args.source):  # a missing SRC is reported by the conversion, as before
        # Only the protobuf is parsed here (no tensor data), so that `model.onnx model.xml` cannot
        # replace the source's external data file model.bin.
        with common.locating(args.source):
            reads += [(path, "external data of the source model") for path in external_data_files(args.source)]
    outputs = [args.destination]
    if destination == "ir":
        outputs.append(common.weights_path(args.destination, None))
    for output in outputs:
        common.check_output(output, reads)

    if source == "ir":
        model = _read_ir(args.source, args.weights, args.max_elements)
    else:
        model = _import_onnx(args.source, args.explain, args.max_elements)
    if not model.results:  # OpenVINO loads such a file, but nothing in it is computed: never write one
        raise GraphError(f"model {model.name!r} has no Result layers; there is nothing to convert",
                         Location(file=args.source))
    if plan:
        _operate(model, plan, args.source, args.max_elements)

    if destination == "ir":
        version = version_to_write(model, args.ir_version)
        collisions = v10_name_collisions(model) if version == 10 else []
        if collisions:  # never write a file OpenVINO refuses to read
            node, message = collisions[0]
            more = f" ({len(collisions) - 1} more like it)" if len(collisions) > 1 else ""
            raise GraphError(message + more, node.location.with_file(args.source))
        with common.locating(args.source):
            irgraph.write_model(model, args.destination, version=args.ir_version)
        bin_path = common.weights_path(args.destination, None)
        if version == 10:
            for loss in v10_losses(model):
                common.warn(f"{args.destination}: {loss}")
        print(f"wrote {args.destination} and {bin_path}: {len(model)} layers, IR version {version}")
    else:
        _export_onnx(model, args.destination, args.opset, args.source, explain=args.explain,
                     fold_decompression=args.fold_decompression, stateless=args.stateless)
        print(f"wrote {args.destination}: {len(model)} layers" + (f", opset {args.opset}" if args.opset else ""))
    return common.EXIT_OK


def _operate(model: Model, plan: surgery.Plan, source: str, element_limit: int) -> None:
    """Apply ``plan`` and say what each step did; a name the model does not have is a usage error (exit 2)."""
    try:
        with common.locating(source):
            done = surgery.apply(model, plan, element_limit=element_limit)
    except FeedError as err:
        raise CliError(err.message) from None
    for line in done:
        print(line)


def _surgery_plan(args: argparse.Namespace) -> surgery.Plan:
    """The surgery the flags ask for; a malformed flag is a usage error (exit 2)."""
    try:
        return surgery.Plan(
            shapes=parse_shape_specs(args.reshapes, "--reshape"),
            fold_constants=args.fold_constants,
            decompress_weights=args.decompress_weights,
            compress_to_fp16=args.compress_to_fp16,
            input_renames=[surgery.parse_rename(text, "--rename-input") for text in args.input_renames],
            output_renames=[surgery.parse_rename(text, "--rename-output") for text in args.output_renames],
        )
    except FeedError as err:
        raise CliError(err.message) from None


def _read_ir(path: str, weights: str | None, element_limit: int) -> Model:
    """Read an IR source and print what the reader noticed and tolerated, each distinct note once."""
    common.require_model_files(path, weights)
    with common.locating(path):
        result = read_ir(path, weights, element_limit=element_limit)
    groups: dict[tuple[str, str], list[Diagnostic]] = {}
    for finding in result.findings:
        groups.setdefault((finding.code, finding.message), []).append(finding)
    for (_, message), findings in groups.items():
        where = str(findings[0].location.with_file(path))
        more = f" (and {len(findings) - 1} more like it)" if len(findings) > 1 else ""
        common.warn(f"{where}: {message}{more}")
    return result.model


def _import_onnx(path: str, explain: bool, element_limit: int) -> Model:
    common.require_file(path, "ONNX file")
    with common.locating(path):
        return irgraph.convert_onnx(path, explain=print if explain else None, element_limit=element_limit)


def _export_onnx(model: Model, path: str, opset: int | None, source: str, *, explain: bool,
                 fold_decompression: bool, stateless: bool) -> None:
    kwargs = {} if opset is None else {"opset": opset}
    with common.locating(source):
        irgraph.export_onnx(model, path, explain=print if explain else _state_note if stateless else None,
                            fold_decompression=fold_decompression, stateless=stateless, **kwargs)


def _state_note(line: str) -> None:
    """Without --explain, --stateless still prints which input and output each variable became."""
    if line.startswith("stateless: "):
        print(line)


if __name__ == "__main__":
    sys.exit(main())
