"""ir-run: run an IR model with NumPy, print its outputs, save them and compare them with a reference."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import re
import sys
import time
from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from irgraph.cli import _common as common
from irgraph.cli._common import CliError
from irgraph.core.element_types import ElementType
from irgraph.core.errors import BackendUnavailableError, FeedError, IrParseError, printable
from irgraph.core.limits import DEFAULT_ITERATION_LIMIT
from irgraph.graph import InputPort, Model, OutputPort
from irgraph.io.data import npz, polygraphy_json
from irgraph.io.data.npz import NpzArchive
from irgraph.runtime.decompression import POLICIES, DecompressionPolicy, widened_nodes
from irgraph.runtime.interpreter import Interpreter
from irgraph.runtime.marking import reference_names
from irgraph.runtime.state import run_steps, step_key
from irgraph.tools import backends
from irgraph.tools import feeds as feeds_lib
from irgraph.tools.compare import (
    ComparisonReport,
    ErrorBound,
    TensorTolerance,
    ToleranceOverride,
    compare_outputs,
    error_bounds,
    format_comparison,
    format_stats_table,
    precision_tolerance,
    tensor_stats,
    tolerance_text,
)
from irgraph.tools.feeds import Feed
from irgraph.tools.layerwise import LayerwiseReport, compare_with_onnxruntime, compare_with_openvino, format_report
from irgraph.tools.profiling import Profile
from irgraph.tools.progress import Progress

DESCRIPTION = """\
Run an OpenVINO IR model (model.xml + model.bin) with NumPy and print every output
(name, element type, shape, min, max, mean).

Input data comes from --inputs (an .npz keyed by input name) and/or -i NAME=FILE.npy. With no
data at all, every input is filled with seeded random data and a warning; once any data is
given, every input must be given. Data must have the input's element type exactly (no casts)
and fit its partial shape. Inputs and outputs are named as in the model: an input by its
Parameter name or a tensor name, an output by its Result's output_names, else the producing
port's first tensor name, else the Result's name.

Random data (unless --val-range says otherwise): floats in [-1, 1), booleans 0 or 1; integers as the
graph tells: an input that reaches a Gather's indices (through Convert, Reshape, Squeeze, Unsqueeze)
stays within the table it indexes ([0, 99] for a 100-row embedding); one named or used as a mask
(Select's condition) is 0 or 1; any other integer input takes [0, 9]. The warning says what was chosen.

A stateful model (ReadValue/Assign, as OpenVINO's LLM exports keep a KV cache) starts from its
variables' initial values; --steps N runs it N times on the same inputs, each run reading what the
previous one assigned, and keeps the outputs of every step, keyed stepK/NAME (K = 1..N).
"""

EXAMPLES = """\
  ir-run samples/dml-split-axis2/model.xml --inputs samples/dml-split-axis2/inputs.npz
  ir-run model.xml -i data=x.npy --output out.npz
  ir-run model.xml --shape "data[1,3,8..16]" --seed 7          # random data, dynamic dims chosen
  ir-run model.xml --shape "[1,3,224,224]"                     # the same for a model of one input
  ir-run model.xml --inputs in.npz --compare ref.npz --atol 1e-4 --rtol 1e-4
  ir-run model.xml --inputs in.npz --json
  ir-run kv_cache.xml --inputs in.npz --steps 3 --output out.npz   # keys step1/NAME .. step3/NAME
  ir-run model.xml --mark all --output all.npz                 # every intermediate tensor too
  ir-run model.xml --mark conv1 --mark relu1:0 --output t.npz  # a layer's outputs, one port
  ir-run model.xml --val-range x:[0,255] --save-inputs in.json  # random data Polygraphy can --load-inputs
  ir-run model.xml --load-inputs in.json --save-outputs out.json # and its outputs as Polygraphy run results
  ir-run model.xml --compare-with openvino --mark all          # first layer that differs from OpenVINO
  ir-run model.xml --profile                                   # time of every layer and per op type
  ir-run model.xml --profile --compare-with openvino           # beside OpenVINO's performance counters
  ir-run edited.xml --compare-with openvino --reference-model original.xml --mark all
  ir-run model.xml --compare-with onnxruntime --onnx model.onnx --mark all --atol 1e-4 --atol prob:1e-6
"""


_RANGE = re.compile(r"(?:[^\[]*:)?\s*\[[^\]]*\]\s*", re.S)
"""What a --val-range item looks like: ``[LO,HI]`` or ``NAME:[LO,HI]``."""
_VAL_RANGE = "--val-range"


class _RunParser(common.Parser):
    """ir-run's parser: ``--val-range`` takes several ranges (Polygraphy's form), so argparse's greedy ``+`` would
    take the model path of ``--val-range [0,1] model.xml`` as a range; items after ``--val-range`` that are no
    range are moved before the options, where they are the positional arguments they are."""

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
                         ) -> tuple[argparse.Namespace, list[str]]:
        items = list(sys.argv[1:] if args is None else args)
        positional, kept, taking_ranges = [], [], False
        for position, item in enumerate(items):
            if item == "--":
                kept += items[position:]
                break
            if item.startswith("-") and len(item) > 1:
                # argparse takes any unambiguous prefix of an option: --val, --val-r ...
                taking_ranges = "=" not in item and len(item) > len("--v") and _VAL_RANGE.startswith(item)
                kept.append(item)
            elif taking_ranges and not _RANGE.fullmatch(item):
                positional.append(item)
            else:
                kept.append(item)
        return super().parse_known_args([*positional, *kept], namespace)


def build_parser() -> argparse.ArgumentParser:
    """The ir-run argument parser."""
    parser = common.make_parser("ir-run", DESCRIPTION, EXAMPLES, _RunParser)
    parser.add_argument("model", metavar="MODEL.xml", help="the IR model to run")
    parser.add_argument("--weights", metavar="BIN", help="weights file (default: MODEL.bin beside the .xml)")
    parser.add_argument("--inputs", metavar="IN.npz", action="append", default=[],
                        help="input data keyed by input name (repeatable)")
    parser.add_argument("-i", "--input", dest="input_files", metavar="NAME=FILE.npy", action="append", default=[],
                        help="data for one input from a .npy file (repeatable); a bare .npz works like --inputs")
    parser.add_argument("--shape", dest="shapes", metavar="SPEC", action="append", default=[],
                        help='shape of an input, OpenVINO syntax "NAME[1,?,1..8]" or "NAME:[...]"; several '
                             'separated by commas; "[1,3,224,224]" for a model of one input (benchmark_app\'s '
                             "form); sets the dims of random data and checks given data")
    parser.add_argument("--load-inputs", metavar="IN.json", action="append", default=[],
                        help="input data from a Polygraphy JSON file (polygraphy run --save-inputs); repeatable")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random input data (default: 0)")
    parser.add_argument("--val-range", metavar="[NAME:][LO,HI]", action="extend", nargs="+", default=[],
                        help="range of the random data, Polygraphy's syntax: [LO,HI] for every input, "
                             "NAME:[LO,HI] for one (floats in [LO,HI), integers in [LO,HI])")
    parser.add_argument("--save-inputs", metavar="IN.npz|IN.json",
                        help="write the exact inputs of the run (random or given) before it runs: an .npz, or "
                             "Polygraphy's JSON for a .json name (polygraphy run --load-inputs reads it)")
    parser.add_argument("--output", metavar="OUT.npz",
                        help="write every output to this .npz (atomically; untouched when the run fails)")
    parser.add_argument("--save-outputs", metavar="OUT.json",
                        help="write the outputs (and marked tensors) as Polygraphy's run results (polygraphy run "
                             "--load-outputs reads them)")
    parser.add_argument("--compare", metavar="REF.npz", help="compare the outputs with a reference .npz (or "
                        "Polygraphy's run results .json), each found under its key or another of its names (tensor "
                        "names, NAME:0); exit 1 on a mismatch or when the reference holds none of them")
    parser.add_argument("--atol", type=_tolerance_arg, action="append", default=[], metavar="[NAME:]A",
                        help="absolute tolerance for --compare and --compare-with: |out-ref| <= atol + rtol*|ref| "
                             "(default: each tensor's, from the reference's precision and the ops on the way, see "
                             "docs/tolerances.md); NAME:A sets it for one tensor (key, tensor name or layer name); "
                             "repeatable")
    parser.add_argument("--rtol", type=_tolerance_arg, action="append", default=[], metavar="[NAME:]R",
                        help="relative tolerance (default: each tensor's precision default); NAME:R for one "
                             "tensor; repeatable")
    parser.add_argument("--steps", type=_steps_arg, default=1, metavar="N",
                        help="run N times on the same inputs, a stateful model's variables (ReadValue/Assign) "
                             "carried from run to run from their initial values (default: 1, at most "
                             f"{MAX_STEPS}); with N > 1 every step's outputs are kept, keyed stepK/NAME (K = 1..N) "
                             "in the table, --output, --compare and --json; all steps' outputs together count "
                             "against --max-elements, their sub-graph bodies against --iteration-limit")
    debug = parser.add_argument_group("comparing with another runtime")
    debug.add_argument("--compare-with", choices=("openvino", "onnxruntime"),
                       help="run the same inputs with OpenVINO (this IR) or onnxruntime (--onnx) and compare every "
                            "output and, with --mark, every marked tensor both expose; reports the first layer in "
                            "topological order whose output diverges; exit 1 on a mismatch")
    debug.add_argument("--device", default="CPU", help="OpenVINO device for --compare-with openvino (default: CPU)")
    debug.add_argument("--precision", choices=backends.PRECISIONS,
                       help="OpenVINO inference precision hint (default: f32); also the precision the reference "
                            "of --compare was computed in, for its default tolerances (default: each tensor's type)")
    debug.add_argument("--reference-model", metavar="REF.xml",
                       help="the IR OpenVINO runs instead of MODEL.xml (layers matched by name), e.g. the model "
                            "before an edit")
    debug.add_argument("--onnx", metavar="MODEL.onnx", help="the ONNX model onnxruntime runs for "
                       "--compare-with onnxruntime (tensors matched by name)")
    parser.add_argument("--mark", metavar="NAME", action="append", default=[],
                        help="also return an intermediate tensor: a tensor name, LAYER:PORT, a layer name (all its "
                             "outputs) or 'all' (every computed tensor); repeatable; shown and saved in --output "
                             "under its tensor name, else LAYER:PORT")
    parser.add_argument("--profile", action="store_true",
                        help="time every layer irgraph runs and print them (the most time first) and a summary per "
                             "op type (layers, total, share); with --compare-with openvino beside OpenVINO's "
                             "performance counters of the same layers (PERF_COUNT, benchmark_app -pc), matched by "
                             "layer name; --json holds them as 'profile'")
    parser.add_argument("--json", action="store_true", help="print a JSON summary instead of the table")
    parser.add_argument("--iteration-limit", type=common.positive_int, default=DEFAULT_ITERATION_LIMIT, metavar="N",
                        help="most sub-graph bodies the command may execute: TensorIterator and Loop iterations and "
                             "If branches, nested ones and all --steps included (default: 100000; real exports run "
                             "thousands)")
    parser.add_argument("--threads", type=common.positive_int, metavar="N",
                        help="threads of NumPy's BLAS during the run (default: its own, one per core); 1 is faster "
                             "when other work keeps the cores busy")
    parser.add_argument("--decompression", choices=POLICIES, default=None,
                        help="precision of weight decompression chains (u8/u4/i4/nf4 Const -> Convert f16 -> Subtract "
                             "-> Multiply -> Convert f32): 'ir' rounds each step to f16 as the IR's types and "
                             "OpenVINO's reference kernels do; 'f32' computes them in f32 as OpenVINO's CPU plugin "
                             "does (default: 'f32' with --compare-with openvino on the CPU, which it then says, "
                             "else 'ir')")
    common.add_max_elements(parser)
    return parser


MAX_STEPS = 100_000
"""Most runs --steps may ask for: a stateful export (an LLM's KV cache) runs one per generated token, and
sequences stay below a few 10**4 tokens; a count past this is a typo or an attack, not a model's need."""


def _steps_arg(text: str) -> int:
    """argparse type of --steps: an integer from 1 to MAX_STEPS."""
    steps = common.positive_int(text)
    if steps > MAX_STEPS:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_STEPS} steps, got {steps}")
    return steps


def main(argv: list[str] | None = None, *, tty: bool | None = None) -> int:
    """Entry point of ``ir-run``; ``tty`` overrides whether stderr is a terminal (the progress bar)."""
    return common.run_cli(build_parser(), functools.partial(_run, tty=tty), argv)


# ------------------------------------------------------------------------------------ the run


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


def _tolerance_arg(text: str) -> tuple[str | None, float]:
    """argparse type of --atol/--rtol: ``A`` (the default) or ``NAME:A`` (one tensor; NAME may hold colons)."""
    name, colon, value = text.rpartition(":")
    return (name if colon else None), common.non_negative_float(value if colon else text)


def _tolerances(args: argparse.Namespace) -> tuple[float | None, float | None, dict[str, ToleranceOverride]]:
    """The atol and rtol given for every tensor (the last bare value; None: the precision default's part) and
    the parts given per tensor."""
    atol = next((value for name, value in reversed(args.atol) if name is None), None)
    rtol = next((value for name, value in reversed(args.rtol) if name is None), None)
    named_atol = {name: value for name, value in args.atol if name is not None}
    named_rtol = {name: value for name, value in args.rtol if name is not None}
    overrides = {name: ToleranceOverride(named_atol.get(name, atol), named_rtol.get(name, rtol))
                 for name in {**named_atol, **named_rtol}}
    return atol, rtol, overrides


def _check_arguments(args: argparse.Namespace) -> None:
    if args.compare_with is not None and args.compare is not None:
        raise CliError("--compare and --compare-with cannot be combined: compare with one reference at a time")
    if args.compare_with is not None and args.steps > 1:
        raise CliError("--steps and --compare-with cannot be combined: the comparison runs the model once")
    if args.compare_with == "onnxruntime" and args.onnx is None:
        raise CliError("--compare-with onnxruntime needs the ONNX model: --onnx MODEL.onnx")
    if args.onnx is not None and args.compare_with != "onnxruntime":
        raise CliError("--onnx is the model of --compare-with onnxruntime")
    if args.reference_model is not None and args.compare_with != "openvino":
        raise CliError("--reference-model is the IR of --compare-with openvino")
    if args.reference_model is not None:
        common.require_file(args.reference_model, "model file")
    if args.onnx is not None:
        common.require_file(args.onnx, "ONNX file")


def _check_destinations(args: argparse.Namespace, npz_files: list[str], npy_files: list[tuple[str, str]]) -> None:
    """Every file the run writes can be written and is none of the files it reads, nor another one it writes."""
    writes = [(flag, path) for flag, path in (("--output", args.output), ("--save-inputs", args.save_inputs),
                                              ("--save-outputs", args.save_outputs)) if path is not None]
    if not writes:
        return
    reads = [(args.model, "the model file"), (common.weights_path(args.model, args.weights), "the weights file")]
    reads += [(path, "the input file") for path in [*npz_files, *args.load_inputs]]
    reads += [(path, "the input file") for _, path in npy_files]
    reads += [(path, "the reference file") for path in (args.compare, args.reference_model, args.onnx) if path]
    for flag, path in writes:
        common.check_output(path, reads)
        reads.append((path, f"the file of {flag}"))


def _open_reference(path: str, element_limit: int) -> _Reference:
    """The reference of --compare: an .npz read member by member, or Polygraphy's run results (.json)."""
    if path.lower().endswith(".json"):
        iterations = polygraphy_json.read_arrays(path, element_limit)
        return _Reference(None, iterations[0] if iterations else {})
    return _Reference(common.open_npz(path, element_limit))


def _run(args: argparse.Namespace, tty: bool | None = None) -> int:
    _check_arguments(args)
    atol, rtol, overrides = _tolerances(args)
    with _usage():
        shape_specs = feeds_lib.parse_shape_specs(args.shapes)
    with _usage():
        value_ranges = feeds_lib.parse_value_ranges(args.val_range)
    npz_files, npy_files = _input_files(args)
    _check_destinations(args, npz_files, npy_files)
    # Input files are opened (names listed and checked) before the model is read, so I/O errors come
    # first; their arrays are read once the model says which names, types and shapes it takes.
    notes: list[str] = []
    with _usage():
        sources = feeds_lib.open_sources(npz_files, npy_files, args.max_elements, args.load_inputs, notes)
    for note in notes:
        common.warn(note)
    reference = _open_reference(args.compare, args.max_elements) if args.compare is not None else None

    model = common.read_model(args.model, args.weights, args.max_elements)
    with common.locating(args.model):
        interpreter = Interpreter(model, element_limit=args.max_elements, mark=args.mark or None,
                                  iteration_limit=args.iteration_limit, threads=args.threads,
                                  decompression=_decompression(args, model))
    with _usage():
        shapes = feeds_lib.resolve_shapes(model, shape_specs)
        if sources:
            if args.val_range:
                feeds_lib.close_sources(sources)
                raise FeedError("--val-range sets the range of random data, but input data is given")
            try:
                feeds = feeds_lib.load_feeds(sources, model, shapes, args.max_elements)
            finally:
                feeds_lib.close_sources(sources)
        else:
            feeds, note = feeds_lib.random_feeds(model, shapes, args.seed, args.max_elements, value_ranges)
            if note:
                common.warn(note)
    if args.save_inputs is not None:  # before the run: a run that fails can be reproduced from them
        feeds_lib.save_inputs(args.save_inputs, feeds)
    arrays = {feed.name: feed.array for feed in feeds}
    layerwise = None
    profile = Profile.of(interpreter) if args.profile else None
    timing = profile.attached(interpreter) if profile is not None else contextlib.nullcontext()
    with common.locating(args.model), Progress.on_terminal(sys.stderr, quiet=args.json, tty=tty) as progress, \
            timing:
        if args.compare_with is not None:
            layerwise = _compare_with(args, interpreter, arrays, atol, rtol, overrides, progress)
            outputs = layerwise.values
        else:
            progress.stage(f"running {os.path.basename(args.model)}", interpreter.steps)
            interpreter.on_step = progress.step if progress.enabled else None
            started = time.perf_counter()
            outputs = run_steps(interpreter, arrays, args.steps)
            if profile is not None:
                profile.run_seconds = time.perf_counter() - started
    if profile is not None and layerwise is not None and layerwise.counters is not None:
        profile.add_counters(layerwise.counters, layerwise.reference)
    stored = {key: npz.for_storage(array) for key, array in outputs.items()}

    if args.output is not None:
        npz.write_npz(args.output, stored)
    if args.save_outputs is not None:
        polygraphy_json.write_outputs(args.save_outputs, stored)
    marked = {mark.key for mark in interpreter.marks}
    comparison = None
    if reference is not None:  # marked tensors are compared when the reference has them (under any name)
        ports = _ports(model, interpreter, stored, args.steps)
        names = _stepped(reference_names(model, {key: port for key, (port, _) in ports.items()}), stored,
                         args.steps)
        compared = {key: array for key, array in stored.items()
                    if key not in marked or any(name in reference for name in (key, *names.get(key, ())))}
        precision = ElementType.from_ir_name(args.precision) if args.precision is not None else None
        defaults = _defaults(model, ports, stored, precision)
        comparison = compare_outputs(compared, reference, atol, rtol, _per_key(overrides, model, ports),
                                     defaults=defaults, names=names)
        reference.close()

    if args.json:  # ensure_ascii (the default): names exact, every non-ASCII character a \uXXXX escape
        summary = _summary(args, feeds, stored, marked, comparison)
        if profile is not None:
            summary["profile"] = profile.to_json()
        if layerwise is not None:
            summary["compare_with"] = layerwise.to_json()
            summary["ok"] = layerwise.passed
        print(json.dumps(summary, indent=2))
    else:
        print("\n".join(_stats_lines(stored, marked, compared_below=layerwise is not None)))
        if profile is not None:
            print()
            print("\n".join(profile.format()))
        if comparison is not None:
            print()
            print(format_comparison(comparison, args.compare))
        if layerwise is not None:
            print()
            print("\n".join(format_report(layerwise, verbose=True)))
    _warn_unused_tolerances(overrides, stored, layerwise)
    if comparison is not None and not comparison.passed:
        failed = ", ".join(item.name for item in comparison.failed)
        common.report(f"{args.compare}: outputs do not match the reference ({tolerance_text(atol, rtol)}): "
                      f"{failed}", common.EXIT_FAILURE)
        return common.EXIT_FAILURE
    if layerwise is not None and not layerwise.passed:
        first = layerwise.first_divergence
        where = (first.where() if first is not None else "") or args.model
        common.report(f"{where}: {layerwise.divergence_message()}", common.EXIT_FAILURE)
        return common.EXIT_FAILURE
    return common.EXIT_OK


MARKS_SHOWN = 20
"""More marked tensors than this (``--mark all``) are summarised in a line, not listed in the table."""


def _stats_lines(stored: Mapping[str, np.ndarray], marked: set[str], compared_below: bool) -> list[str]:
    """The table of outputs and marked tensors; many marked tensors, or ones a comparison lists below, are
    summarised in one line (and those holding NaN or infinity named) so that the verdict is not buried."""
    rows = [tensor_stats(key, array) for key, array in stored.items()]
    marks = [row for row in rows if row["name"] in marked]
    if not marks or (len(marks) <= MARKS_SHOWN and not compared_below):
        return [format_stats_table(rows)]
    lines = [format_stats_table([row for row in rows if row["name"] not in marked])]
    where = "each compared below" if compared_below else "their statistics: --json, their values: --output OUT.npz"
    lines.append(f"marked: {len(marks)} tensor{'s' if len(marks) != 1 else ''} ({where})")
    not_finite = [str(row["name"]) for row in marks if any(str(row[stat]) in ("nan", "inf", "-inf")
                                                          for stat in ("min", "max", "mean"))]
    if not_finite:
        shown = ", ".join(printable(name) for name in not_finite[:MARKS_SHOWN])
        lines.append(f"  {len(not_finite)} hold NaN or infinity: {shown}"
                     + (f", ... ({len(not_finite)} in all)" if len(not_finite) > MARKS_SHOWN else ""))
    return lines


def _ports(model: Model, interpreter: Interpreter, stored: Mapping[str, np.ndarray], steps: int
           ) -> dict[str, tuple[OutputPort, str]]:
    """Per key of the run (outputs, marked tensors; each step's with --steps), its port and unstepped key."""
    plain: dict[str, OutputPort] = {}
    output_keys = model.output_keys()
    for result in model.results:
        source = model.producer(InputPort(result.id, 0))
        if source is not None:
            plain[output_keys[result.id]] = source
    plain.update({mark.key: mark.port for mark in interpreter.marks})
    if steps == 1:
        return {key: (port, key) for key, port in plain.items() if key in stored}
    return {step_key(step, key): (port, key) for step in range(1, steps + 1) for key, port in plain.items()
            if step_key(step, key) in stored}


def _stepped(names: Mapping[str, list[str]], stored: Mapping[str, np.ndarray], steps: int) -> dict[str, list[str]]:
    """The other names of each key; with --steps, of each step's key (``stepK/`` before each name)."""
    if steps == 1:
        return dict(names)
    found = {}
    for key in stored:
        prefix, _, plain = key.partition("/")
        found[key] = [f"{prefix}/{name}" for name in names.get(plain, ())]
    return found


def _defaults(model: Model, ports: Mapping[str, tuple[OutputPort, str]], stored: Mapping[str, np.ndarray],
              precision: ElementType | None) -> dict[str, TensorTolerance]:
    """Each compared tensor's precision default: its element type, the ops on its way, the reference's precision."""
    bounds = error_bounds(model)
    defaults = {}
    for key, array in stored.items():
        try:
            element_type = ElementType.from_numpy(array.dtype)
        except IrParseError:
            element_type = ElementType.STRING
        port = ports.get(key)
        bound = bounds.get(port[0].node_id, ErrorBound()) if port is not None else ErrorBound()
        defaults[key] = precision_tolerance(element_type, bound, precision)
    return defaults


def _per_key(overrides: Mapping[str, ToleranceOverride], model: Model, ports: Mapping[str, tuple[OutputPort, str]]
             ) -> dict[str, ToleranceOverride]:
    """The per-tensor tolerances given, by key: a NAME:A names a key, a tensor name or a layer name."""
    if not overrides:
        return {}
    found = {}
    for key, (port, plain) in ports.items():
        node = model.node(port.node_id)
        names = [key, plain, *node.tensor_names[port.index], node.name]
        given = next((overrides[name] for name in names if name in overrides), None)
        if given is not None:
            found[key] = given
    return found


def _warn_unused_tolerances(overrides: Mapping[str, TensorTolerance], stored: Mapping[str, np.ndarray],
                            layerwise: LayerwiseReport | None) -> None:
    """A NAME:VALUE tolerance that names no compared tensor is most likely a typo: say so."""
    names = set(stored)
    if layerwise is not None:
        for tensor in layerwise.tensors:
            names.update([tensor.node.name, *tensor.node.tensor_names[tensor.index]])
    for name in overrides:
        if name not in names:
            common.warn(f"--atol/--rtol name {name!r}, which is no tensor or layer of this run")


def _decompression(args: argparse.Namespace, model: Model) -> DecompressionPolicy:
    """--decompression, else the policy of the runtime compared with: OpenVINO's CPU plugin computes weight
    decompression chains in f32 (see irgraph.runtime.decompression), so irgraph does too, and says so once."""
    if args.decompression is not None:
        return args.decompression  # argparse's choices are POLICIES
    if args.compare_with == "openvino" and args.device == "CPU":
        chains = widened_nodes(model)
        if chains:
            common.note(f"{len(chains)} layers of weight decompression chains computed in f32, as OpenVINO's CPU "
                        "plugin computes them (--decompression ir follows the IR's f16 types instead)")
        return "f32"
    return "ir"


def _compare_with(args: argparse.Namespace, interpreter: Interpreter, feeds: Mapping[str, np.ndarray], atol: float,
                  rtol: float, overrides: Mapping[str, TensorTolerance], progress: Progress) -> LayerwiseReport:
    """Run irgraph and the reference runtime; a missing runtime is a usage error (exit 2)."""
    try:
        if args.compare_with == "openvino":
            reference_model = args.reference_model
            return compare_with_openvino(
                interpreter, feeds, xml=reference_model or args.model,
                weights=None if reference_model else args.weights, device=args.device,
                precision=args.precision or "f32", atol=atol, rtol=rtol, tolerances=overrides, progress=progress,
                profile=args.profile)
        if args.profile:
            common.warn("--profile times irgraph's layers only: onnxruntime's profile is not read")
        return compare_with_onnxruntime(interpreter, feeds, args.onnx, atol=atol, rtol=rtol, tolerances=overrides,
                                        progress=progress)
    except BackendUnavailableError as err:
        raise CliError(err.message) from None


class _Reference(Mapping[str, np.ndarray]):
    """A reference .npz whose members are read only when compared (names known up front), or arrays read."""

    def __init__(self, archive: NpzArchive | None, arrays: Mapping[str, np.ndarray] | None = None) -> None:
        self.archive = archive
        self.arrays = arrays

    def __getitem__(self, key: str) -> np.ndarray:
        if self.arrays is not None:
            return self.arrays[key]
        assert self.archive is not None
        if key not in self.archive:
            raise KeyError(key)
        return common.load_member(self.archive, key, self.archive.element_limit)

    def __iter__(self) -> Iterator[str]:
        return iter(self.arrays if self.arrays is not None else self.archive)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self.arrays if self.arrays is not None else self.archive)  # type: ignore[arg-type]

    def close(self) -> None:
        """Close the archive (if any)."""
        if self.archive is not None:
            self.archive.close()


def _summary(
    args: argparse.Namespace,
    feeds: list[Feed],
    stored: Mapping[str, np.ndarray],
    marked: set[str],
    comparison: ComparisonReport | None,
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
