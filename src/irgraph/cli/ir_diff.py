"""ir-diff: a structural diff of two IR files (layers matched by name, then by structure and position)."""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys

from irgraph.cli import _common as common
from irgraph.cli import _parsing as parsing
from irgraph.core.errors import IrError
from irgraph.graph import Model
from irgraph.tools.diff import Difference, ModelDiff, diff_models
from irgraph.tools.diff_records import quoted
from irgraph.tools.progress import Progress

DESCRIPTION = """\
Compare two OpenVINO IR models layer by layer and print one line per difference:

  ~ layer 'conv1' (Convolution): attribute strides 1, 1 -> 2, 2  (lines 26, 26)
  ~ layer 'w' (Const): values differ (sha256 ab12.. -> cd34..; max abs diff 0.5; ...)
  + layer 'extra' (ReLU)  (line 90)
  - layer 'old' (ReLU)  (line 87)

then a summary line that counts them by kind. Layers are matched by name, then by their place in
the graph, then by position in topological order among layers of one kind (a layer matched by
place or position and named otherwise is reported as renamed: it has the same type and output
element types, and the same shapes unless only a changed input ties the pair).
Compared: op type and version, attributes, where each input comes from, port types, tensor
names, rt_info, and Const values by content (so two .bin layouts of the same values are equal).
Ignored: layer ids, the order of layers in the file, Const offsets, XML formatting, and the
version stamp OpenVINO writes into the net rt_info ("OpenVINO Runtime", Runtime_version).
A type that changes only because something before it changed is counted but not listed
(--all lists it).

What tools do to a model without changing what it computes:
  --weights-as-values       a compressed weight (fp16: Const f16 -> Convert; int8/int4/nf4/fp4:
                            Const -> Convert [-> Subtract zero point] -> Multiply scale [-> Reshape]
                            [-> Convert], as OpenVINO's compress_to_fp16 and NNCF write them) equals the
                            plain Const it decompresses to when no element moved by more than one step
                            of the stored code; the summary gives the largest change (--all lists
                            each weight's), and a weight that moved further is listed as "values
                            differ". The marks the compression writes (rt_info decompression,
                            DisablePrecisionConversion, nncf) are ignored.
  --ignore-generated-names  names made from an op type and a number (Constant_123, Const_1,
                            Multiply_45, Reshape_12_compressed) neither match layers by name nor count
                            as renames (the summary counts the renames it leaves out).

Exit 0 when the models are equivalent, 1 when they differ, 2 when a file cannot be read or is
not a valid IR (as diff(1) does, so that 1 always means "they differ").
"""

EXAMPLES = """\
  ir-diff model.xml edited.xml
  ir-diff before.xml after.xml --all                # also list the types that follow from a change
  ir-diff model-f32.xml model-f16.xml --weights-as-values --ignore-generated-names   # fp16/int8/int4 compression
  ir-diff a.xml b.xml --json | jq '.differences[].text'
  ir-diff a.xml b.xml > /dev/null && echo same      # exit 0 when equivalent
  ir-run b.xml --compare-with openvino --reference-model a.xml --mark all   # which layer the change breaks
"""


def build_parser() -> argparse.ArgumentParser:
    """The ir-diff argument parser."""
    parser = parsing.make_parser("ir-diff", DESCRIPTION, EXAMPLES)
    parser.add_argument("old", metavar="A.xml", help="the first (old) model")
    parser.add_argument("new", metavar="B.xml", help="the second (new) model")
    parser.add_argument("--weights-a", metavar="BIN", help="weights of A (default: A.bin beside A.xml)")
    parser.add_argument("--weights-b", metavar="BIN", help="weights of B (default: B.bin beside B.xml)")
    parser.add_argument("--all", action="store_true",
                        help="also list the type differences that follow from others, and (--weights-as-values) each "
                             "compressed weight's change within its rounding")
    parser.add_argument("--weights-as-values", action="store_true",
                        help="compare compressed weights (fp16, int8, int4, nf4 ... decompression chains) by the "
                             "values they decompress to, within the compression's rounding")
    parser.add_argument("--ignore-generated-names", action="store_true",
                        help="do not match layers by, nor report renames between, generated names (Constant_12)")
    parser.add_argument("--json", action="store_true", help="print a JSON report")
    parsing.add_max_elements(parser)
    return parser


def main(argv: list[str] | None = None, *, tty: bool | None = None) -> int:
    """Entry point of ``ir-diff``; ``tty`` overrides whether stderr is a terminal (the progress bar)."""
    return common.run_cli(build_parser(), functools.partial(_diff, tty=tty), argv)


def _read(path: str, weights: str | None, element_limit: int) -> Model:
    try:
        return common.read_model(path, weights, element_limit)
    except IrError as err:
        if isinstance(err, OSError):
            raise
        # Exit 2, not 1: for a diff, 1 means "the models differ" (diff(1) and cmp(1) do the same).
        raise common.CliError(str(err), common.EXIT_USAGE) from None


def _diff(args: argparse.Namespace, tty: bool | None = None) -> int:
    with Progress.on_terminal(sys.stderr, quiet=args.json, tty=tty) as progress:
        progress.stage(f"reading {os.path.basename(args.old)}")
        model_a = _read(args.old, args.weights_a, args.max_elements)
        progress.stage(f"reading {os.path.basename(args.new)}")
        model_b = _read(args.new, args.weights_b, args.max_elements)
        progress.stage("comparing layers", len(model_a))
        try:
            result = diff_models(model_a, model_b, on_layer=progress.step if progress.enabled else None,
                                 weights_as_values=args.weights_as_values,
                                 ignore_generated_names=args.ignore_generated_names)
        except IrError as err:  # a graph that cannot be walked (a cycle): not a valid IR, exit 2 as for reading
            raise common.CliError(str(err), common.EXIT_USAGE) from None
    if args.json:
        print(json.dumps(to_json(result, args.old, args.new), indent=2))
    else:
        for line in format_diff(result, args.old, args.new, show_derived=args.all):
            print(line)
    return common.EXIT_OK if result.equivalent else common.EXIT_FAILURE


def to_json(result: ModelDiff, path_a: str, path_b: str) -> dict[str, object]:
    """The JSON report: files, verdict, match counts, counts by kind, differences and derived differences, and
    what --weights-as-values and --ignore-generated-names set aside."""
    return {
        "a": path_a,
        "b": path_b,
        "equivalent": result.equivalent,
        "summary": result.summary(),
        "matched": {"by_name": result.matched_by_name, "by_structure": result.matched_by_structure,
                    "by_position": result.matched_by_position},
        "counts": result.counts(),
        "differences": [d.to_json() for d in result.differences],
        "derived": [d.to_json() for d in result.derived],
        "compressed_weights": {"a": dict(result.compressed_a), "b": dict(result.compressed_b)},
        "weight_changes": [change.to_json() for change in result.weight_changes],
        "generated_renames": result.generated_renames,
    }


def format_diff(result: ModelDiff, path_a: str, path_b: str, show_derived: bool) -> list[str]:
    """The text report: a ``---``/``+++`` header naming the files, one line per difference, a summary. With
    ``show_derived`` (--all), also the differences that follow from others and, with --weights-as-values, each
    compressed weight's change that is within its rounding."""
    within = [change for change in result.weight_changes if change.within_rounding] if show_derived else []
    if result.equivalent and not within:
        return [result.summary()]
    lines = [f"--- {common.one_line(path_a)}", f"+++ {common.one_line(path_b)}"]
    lines += [_line(d) for d in result.differences]
    if show_derived:
        lines += [_line(d) + " [follows]" for d in result.derived]
    lines += [common.one_line(f"= weight {quoted(change.name)}: {change.detail()}") for change in within]
    summary = result.summary()
    if result.derived and not show_derived:
        summary += " (--all lists them)"
    return [*lines, summary]


def _line(difference: Difference) -> str:
    """The difference and the line(s) it is on: ``(lines 26, 26)`` for a changed layer, ``(line 90)`` otherwise."""
    text = common.one_line(difference.describe())
    lines = [ref.line for ref in (difference.a, difference.b) if ref is not None]
    if not lines or None in lines:
        return text
    if len(lines) == 1:
        return f"{text}  (line {lines[0]})"
    return f"{text}  (lines {lines[0]}, {lines[1]})"


if __name__ == "__main__":
    sys.exit(main())
