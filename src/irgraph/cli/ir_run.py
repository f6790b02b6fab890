"""ir-run: run an IR model with NumPy, print its outputs, save them and compare them with a reference."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator, Mapping

import numpy as np

from irgraph import feeds as feeds_lib
from irgraph.cli import _common as common
from irgraph.cli._common import CliError
from irgraph.compare import Comparison, compare_outputs, format_comparison, format_stats_table, tensor_stats
from irgraph.feeds import Feed, FeedError
from irgraph.interpreter import Interpreter
from irgraph.npz import NpzArchive

DESCRIPTION = """\
Run an OpenVINO IR model (model.xml + model.bin) with NumPy and print every output
(name, element type, shape, min, max, mean).

Input data comes from --inputs (an .npz keyed by input name) and/or -i NAME=FILE.npy. With no
data at all, every input is filled with seeded random data and a warning; once any data is
given, every input must be given. Data must have the input's element type exactly (no casts)
and fit its partial shape. Inputs and outputs are named as in the model: an input by its
Parameter name or a tensor name, an output by its Result's output_names, else the producing
port's first tensor name, else the Result's name.
"""

EXAMPLES = """\
  ir-run samples/dml-split-axis2/model.xml --inputs samples/dml-split-axis2/inputs.npz
  ir-run model.xml -i data=x.npy --output out.npz
  ir-run model.xml --shape "data[1,3,8..16]" --seed 7          # random data, dynamic dims chosen
  ir-run model.xml --inputs in.npz --compare ref.npz --atol 1e-4 --rtol 1e-4
  ir-run model.xml --inputs in.npz --json
  ir-run model.xml --mark all --output all.npz                 # every intermediate tensor too
  ir-run model.xml --mark conv1 --mark relu1:0 --output t.npz  # a layer's outputs, one port
"""


def build_parser() -> argparse.ArgumentParser:
    """The ir-run argument parser."""
    parser = common.make_parser("ir-run", DESCRIPTION, EXAMPLES)
    parser.add_argument("model", metavar="MODEL.xml", help="the IR model to run")
    parser.add_argument("--weights", metavar="BIN", help="weights file (default: MODEL.bin beside the .xml)")
    parser.add_argument("--inputs", metavar="IN.npz", action="append", default=[],
                        help="input data keyed by input name (repeatable)")
    parser.add_argument("-i", "--input", dest="input_files", metavar="NAME=FILE.npy", action="append", default=[],
                        help="data for one input from a .npy file (repeatable); a bare .npz works like --inputs")
    parser.add_argument("--shape", dest="shapes", metavar="SPEC", action="append", default=[],
                        help='shape of an input, OpenVINO syntax "NAME[1,?,1..8]" or "NAME:[...]"; several '
                             "separated by commas; sets the dims of random data and checks given data")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random input data (default: 0)")
    parser.add_argument("--output", metavar="OUT.npz",
                        help="write every output to this .npz (atomically; untouched when the run fails)")
    parser.add_argument("--compare", metavar="REF.npz", help="compare the outputs with a reference .npz; exit 1 "
                        "on a mismatch")
    parser.add_argument("--atol", type=common.non_negative_float, default=1e-5,
                        help="absolute tolerance for --compare (default: 1e-5)")
    parser.add_argument("--rtol", type=common.non_negative_float, default=1e-5,
                        help="relative tolerance for --compare (default: 1e-5): |out-ref| <= atol + rtol*|ref|")
    parser.add_argument("--mark", metavar="NAME", action="append", default=[],
                        help="also return an intermediate tensor: a tensor name, LAYER:PORT, a layer name (all its "
                             "outputs) or 'all' (every computed tensor); repeatable; shown and saved in --output "
                             "under its tensor name, else LAYER:PORT")
    parser.add_argument("--json", action="store_true", help="print a JSON summary instead of the table")
    common.add_max_elements(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ir-run``."""
    return common.run_cli(build_parser(), _run, argv)


# ------------------------------------------------------------------------------------ the run
# Re-exported for callers of the earlier module-level helpers; the library modules hold them now.
parse_shape_specs = feeds_lib.parse_shape_specs
random_array = feeds_lib.random_array


@contextlib.contextmanager
def _usage() -> Iterator[None]:
    """What the user asked for that cannot be done (FeedError) exits 2, as a usage error."""
    try:
        yield
    except FeedError as err:
        raise CliError(str(err)) from None


def _input_files(args: argparse.Namespace) -> tuple[list[str], list[tuple[str, str]]]:
    """The .npz files (``--inputs``, bare ``-i X.npz``) and ``(name, path)`` of each ``-i NAME=FILE.npy``."""
    npz_files = list(args.inputs)
    npy_files: list[tuple[str, str]] = []
    for item in args.input_files:
        name, sep, path = item.partition("=")
        if sep and name:
            npy_files.append((name, path))
        elif not sep and item.endswith(".npz"):
            npz_files.append(item)
        else:
            raise CliError(f"-i expects NAME=FILE.npy (or a .npz file), got {item!r}")
    return npz_files, npy_files


def _run(args: argparse.Namespace) -> int:
    with _usage():
        shape_specs = feeds_lib.parse_shape_specs(args.shapes)
    npz_files, npy_files = _input_files(args)
    if args.output is not None:
        reads = [(args.model, "the model file"), (common.weights_path(args.model, args.weights), "the weights file")]
        reads += [(path, "the input file") for path in npz_files]
        reads += [(path, "the input file") for _, path in npy_files]
        if args.compare is not None:
            reads.append((args.compare, "the reference file"))
        common.check_output(args.output, reads)
    # Input files are opened (names listed and checked) before the model is read, so I/O errors come
    # first; their arrays are read once the model says which names, types and shapes it takes.
    with _usage():
        sources = feeds_lib.open_sources(npz_files, npy_files, args.max_elements)
    reference = _Reference(common.open_npz(args.compare, args.max_elements)) if args.compare is not None else None

    model = common.read_model(args.model, args.weights, args.max_elements)
    with common.locating(args.model):
        interpreter = Interpreter(model, element_limit=args.max_elements, mark=args.mark or None)
    with _usage():
        shapes = feeds_lib.resolve_shapes(model, shape_specs)
        if sources:
            try:
                feeds = feeds_lib.load_feeds(sources, model, shapes, args.max_elements)
            finally:
                feeds_lib.close_sources(sources)
        else:
            feeds, note = feeds_lib.random_feeds(model, shapes, args.seed, args.max_elements)
            if note:
                common.warn(note)
    with common.locating(args.model):
        outputs = interpreter.run({feed.name: feed.array for feed in feeds})
    stored = {key: common.for_storage(array) for key, array in outputs.items()}

    if args.output is not None:
        common.write_npz_atomically(args.output, stored)
    marked = {mark.key for mark in interpreter.marks}
    comparison = None
    if reference is not None:  # marked tensors are compared when the reference has them
        compared = {key: array for key, array in stored.items() if key not in marked or key in reference}
        comparison = compare_outputs(compared, reference, args.atol, args.rtol)
        reference.archive.close()

    if args.json:  # ensure_ascii (the default): names exact, every non-ASCII character a \uXXXX escape
        print(json.dumps(_summary(args, feeds, stored, marked, comparison), indent=2))
    else:
        print(format_stats_table([tensor_stats(key, array) for key, array in stored.items()]))
        if comparison is not None:
            print()
            print(format_comparison(comparison, args.compare))
    if comparison is not None and not comparison.passed:
        failed = ", ".join(item.name for item in comparison.failed)
        common.report(f"{args.compare}: outputs do not match the reference (atol {args.atol:g}, rtol "
                      f"{args.rtol:g}): {failed}", common.EXIT_FAILURE)
        return common.EXIT_FAILURE
    return common.EXIT_OK


class _Reference(Mapping[str, np.ndarray]):
    """A reference .npz whose members are read only when compared (names known up front)."""

    def __init__(self, archive: NpzArchive) -> None:
        self.archive = archive

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self.archive:
            raise KeyError(key)
        return common.load_member(self.archive, key, self.archive.element_limit)

    def __iter__(self) -> Iterator[str]:
        return iter(self.archive)

    def __len__(self) -> int:
        return len(self.archive)


def _summary(
    args: argparse.Namespace,
    feeds: list[Feed],
    stored: Mapping[str, np.ndarray],
    marked: set[str],
    comparison: Comparison | None,
) -> dict[str, object]:
    summary: dict[str, object] = {
        "model": args.model,
        "inputs": feeds_lib.describe_inputs(feeds),
        "outputs": [tensor_stats(key, array) for key, array in stored.items() if key not in marked],
        "output_file": os.path.abspath(args.output) if args.output else None,
        "compare": dict(comparison.to_json(), reference=args.compare) if comparison is not None else None,
        "ok": comparison is None or comparison.passed,
    }
    if marked:
        summary["marked"] = [tensor_stats(key, array) for key, array in stored.items() if key in marked]
    return summary


if __name__ == "__main__":
    sys.exit(main())
