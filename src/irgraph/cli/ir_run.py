"""ir-run: run an IR model with NumPy, print its outputs, save them and compare them with a reference."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, TypeVar, overload

from irgraph.cli import _common as common
from irgraph.cli._common import CliError
from irgraph.cli._run_output import run_summary, stats_lines
from irgraph.cli._run_reference import (
    compare_with_reference,
    open_reference,
    tolerance_arg,
    tolerances,
    warn_unused_tolerances,
)
from irgraph.cli._run_report import add_report_argument, check_report_argument, save_report
from irgraph.cli._run_repro import check_debug_arguments, note_a_match, save_bundle
from irgraph.core.errors import BackendUnavailableError, FeedError
from irgraph.core.limits import DEFAULT_ITERATION_LIMIT
from irgraph.io.data import npz
from irgraph.runtime.decompression import POLICIES, DecompressionPolicy, widened_nodes
from irgraph.runtime.interpreter import Interpreter
from irgraph.runtime.state import run_steps, step_key
from irgraph.tools import feeds as feeds_lib
from irgraph.tools.hints import PRECISIONS
from irgraph.tools.progress import Progress
from irgraph.tools.step_feeds import StepFeeds, load_step_feeds, open_step_sources, save_step_inputs

# A plain run prints one table: what only --compare, --compare-with, --profile, --json or Polygraphy's files
# need is imported where those are handled, so that start-up pays for none of it (tests/test_lazy_import.py).
if TYPE_CHECKING:
    from irgraph.core.shapes import Shape
    from irgraph.graph import Model
    from irgraph.tools.compare import ToleranceOverride
    from irgraph.tools.feeds import FeedSource, ValueRanges
    from irgraph.tools.layerwise import LayerwiseReport
    from irgraph.tools.stepwise import SteppedReport

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
variables' initial values; --steps N runs it N times, each run reading what the previous one
assigned, and keeps the outputs of every step, keyed stepK/NAME (K = 1..N). Every step takes the same
inputs, unless the data gives each step its own (a generate loop's next token): an .npz keyed
stepK/NAME (a key without stepK/ serves every step), or a folder of .npz files, one per step, in the
order of the number in their names (step1.npz, step2.npz, ...). With --compare-with openvino, OpenVINO
runs the same steps on one infer request; the outputs, marked tensors and every variable (OpenVINO's
InferRequest.query_state) are compared after each step, and the first step and layer that diverge named.
"""

EXAMPLES = """\
  ir-run samples/dml-split-axis2/model.xml --inputs samples/dml-split-axis2/inputs.npz
  ir-run model.xml -i data=x.npy --output out.npz
  ir-run model.xml --shape "data[1,3,8..16]" --seed 7          # random data, dynamic dims chosen
  ir-run model.xml --shape "[1,3,224,224]"                     # the same for a model of one input
  ir-run model.xml --inputs in.npz --compare ref.npz --atol 1e-4 --rtol 1e-4
  ir-run model.xml --inputs in.npz --json
  ir-run kv_cache.xml --inputs in.npz --steps 3 --output out.npz   # keys step1/NAME .. step3/NAME
  ir-run llm.xml --inputs tokens.npz --compare-with openvino --mark all  # keys step1/input_ids ...: each step
  ir-run llm.xml --inputs steps/ --compare-with openvino       # a folder: step1.npz, step2.npz, ...
  ir-run model.xml --mark all --output all.npz                 # every intermediate tensor too
  ir-run model.xml --mark conv1 --mark relu1:0 --output t.npz  # a layer's outputs, one port
  ir-run model.xml --val-range x:[0,255] --save-inputs in.json  # random data Polygraphy can --load-inputs
  ir-run model.xml --load-inputs in.json --save-outputs out.json # and its outputs as Polygraphy run results
  ir-run model.xml --compare-with openvino --mark all          # first layer that differs from OpenVINO
  ir-run model.xml --compare-with openvino --mark all --truth f64 --save-repro bug/  # its own error; a repro
  ir-run model.xml --profile                                   # time of every layer and per op type
  ir-run model.xml --profile --compare-with openvino           # beside OpenVINO's performance counters
  ir-run model.xml --compare-with openvino --mark all --profile --report report.html  # all of it on one page
  ir-run edited.xml --compare-with openvino --reference-model original.xml --mark all
  ir-run model.xml --compare-with onnxruntime --onnx model.onnx --mark all --atol 1e-4 --atol prob:1e-6
"""


_RANGE = re.compile(r"(?:[^\[]*:)?\s*\[[^\]]*\]\s*", re.S)
"""What a --val-range item looks like: ``[LO,HI]`` or ``NAME:[LO,HI]``."""
_VAL_RANGE = "--val-range"
_N = TypeVar("_N")


class _RunParser(common.Parser):
    """ir-run's parser: ``--val-range`` takes several ranges (Polygraphy's form), so argparse's greedy ``+`` would
    take the model path of ``--val-range [0,1] model.xml`` as a range; items after ``--val-range`` that are no
    range are moved before the options, where they are the positional arguments they are."""

    # argparse's own overloads (typeshed): the namespace returned is the one given, else a new Namespace.
    @overload
    def parse_known_args(self, args: Iterable[str] | None = None, namespace: None = None
                         ) -> tuple[argparse.Namespace, list[str]]: ...
    @overload
    def parse_known_args(self, args: Iterable[str] | None, namespace: _N) -> tuple[_N, list[str]]: ...
    @overload
    def parse_known_args(self, *, namespace: _N) -> tuple[_N, list[str]]: ...

    def parse_known_args(self, args: Iterable[str] | None = None, namespace: _N | None = None
                         ) -> tuple[_N | argparse.Namespace, list[str]]:
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
                        help="input data keyed by input name (repeatable); keyed stepK/NAME, or a folder of one "
                             ".npz per step, for the steps of a stateful model (see above)")
    parser.add_argument("-i", "--input", dest="input_files", metavar="NAME=FILE.npy", action="append", default=[],
                        help="data for one input from a .npy file (repeatable; stepK/NAME=FILE.npy: step K's); a bare "
                             ".npz works like --inputs")
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
    parser.add_argument("--atol", type=tolerance_arg, action="append", default=[], metavar="[NAME:]A",
                        help="absolute tolerance for --compare and --compare-with: |out-ref| <= atol + rtol*|ref| "
                             "(default: each tensor's, from the reference's precision and the ops on the way, see "
                             "docs/tolerances.md); NAME:A sets it for one tensor (key, tensor name or layer name); "
                             "repeatable")
    parser.add_argument("--rtol", type=tolerance_arg, action="append", default=[], metavar="[NAME:]R",
                        help="relative tolerance (default: each tensor's precision default); NAME:R for one "
                             "tensor; repeatable")
    parser.add_argument("--steps", type=_steps_arg, metavar="N",
                        help="run N times, a stateful model's variables (ReadValue/Assign) carried from run to run "
                             "from their initial values (default: the steps the inputs give, else 1; at most "
                             f"{MAX_STEPS}); with N > 1 every step's outputs are kept, keyed stepK/NAME (K = 1..N) "
                             "in the table, --output, --compare, --compare-with openvino (which compares every "
                             "variable after each step too) and --json; all steps' outputs together count "
                             "against --max-elements, their sub-graph bodies against --iteration-limit")
    debug = parser.add_argument_group("comparing with another runtime")
    debug.add_argument("--compare-with", choices=("openvino", "onnxruntime"),
                       help="run the same inputs with OpenVINO (this IR) or onnxruntime (--onnx) and compare every "
                            "output and, with --mark, every marked tensor both expose; reports the first layer in "
                            "topological order whose output diverges; exit 1 on a mismatch")
    debug.add_argument("--device", default="CPU", help="OpenVINO device for --compare-with openvino (default: CPU)")
    debug.add_argument("--precision", choices=PRECISIONS,
                       help="OpenVINO inference precision hint (default: f32); also the precision the reference "
                            "of --compare was computed in, for its default tolerances (default: each tensor's type)")
    debug.add_argument("--reference-model", metavar="REF.xml",
                       help="the IR OpenVINO runs instead of MODEL.xml (layers matched by name), e.g. the model "
                            "before an edit")
    debug.add_argument("--onnx", metavar="MODEL.onnx", help="the ONNX model onnxruntime runs for "
                       "--compare-with onnxruntime (tensors matched by name)")
    debug.add_argument("--truth", choices=("f64",), help="with --compare-with: also evaluate each compared layer in "
                       "float64 on the reference's inputs, a third opinion on which side is closer to exact (every "
                       "compared layer is run on the reference's own inputs anyway: its own error, beside the one "
                       "it inherited)")
    add_report_argument(debug)
    debug.add_argument("--save-repro", metavar="DIR", help="with --compare-with, on a mismatch: write the layer to "
                       "blame (the first whose own error exceeds its tolerance class, else the model up to the "
                       "first divergent tensor) as an IR of its own with the exact inputs and the reference's "
                       "outputs, and the one ir-run command that reproduces the mismatch (DIR/README.md)")
    parser.add_argument("--mark", metavar="NAME", action="append", default=[],
                        help="also return an intermediate tensor: a tensor name, LAYER:PORT, a layer name (all its "
                             "outputs), LOOP/NAME for one inside the bodies of layer LOOP (a Loop, TensorIterator "
                             "or If) or 'all' (every computed tensor, bodies' too); repeatable; shown and saved in "
                             "--output under its tensor name, else LAYER:PORT; body tensors once per execution, "
                             "keyed LOOP/iterK/NAME (K from 0) or IF/then/NAME, with the body's outputs; OpenVINO "
                             "and onnxruntime expose no body tensor, so --compare-with leaves them out")
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
                        help="threads of NumPy's BLAS during the run (default: the cores free when it starts, at most "
                             "the library's own count)")
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


def _check_arguments(args: argparse.Namespace) -> None:
    if args.compare_with is not None and args.compare is not None:
        raise CliError("--compare and --compare-with cannot be combined: compare with one reference at a time")
    if args.compare_with == "onnxruntime" and args.onnx is None:
        raise CliError("--compare-with onnxruntime needs the ONNX model: --onnx MODEL.onnx")
    if args.onnx is not None and args.compare_with != "onnxruntime":
        raise CliError("--onnx is the model of --compare-with onnxruntime")
    check_debug_arguments(args)
    if args.reference_model is not None and args.compare_with != "openvino":
        raise CliError("--reference-model is the IR of --compare-with openvino")
    if args.reference_model is not None:
        common.require_file(args.reference_model, "model file")
    if args.onnx is not None:
        common.require_file(args.onnx, "ONNX file")


def _check_destinations(args: argparse.Namespace, npz_files: list[str], npy_files: list[tuple[str, str]]) -> None:
    """Every file the run writes can be written and is none of the files it reads, nor another one it writes."""
    writes = [(flag, path) for flag, path in (("--output", args.output), ("--save-inputs", args.save_inputs),
                                              ("--save-outputs", args.save_outputs), ("--report", args.report))
              if path is not None]
    if not writes:
        return
    reads = [(args.model, "the model file"), (common.weights_path(args.model, args.weights), "the weights file")]
    reads += [(path, "the input file") for path in [*npz_files, *args.load_inputs]]
    reads += [(path, "the input file") for _, path in npy_files]
    reads += [(path, "the reference file") for path in (args.compare, args.reference_model, args.onnx) if path]
    for flag, path in writes:
        common.check_output(path, reads)
        reads.append((path, f"the file of {flag}"))


def _run(args: argparse.Namespace, tty: bool | None = None) -> int:
    _check_arguments(args)
    check_report_argument(args)
    atol, rtol, overrides = tolerances(args)
    with _usage():
        shape_specs = feeds_lib.parse_shape_specs(args.shapes)
        value_ranges = feeds_lib.parse_value_ranges(args.val_range)
    npz_files, npy_files = _input_files(args)
    _check_destinations(args, npz_files, npy_files)
    # Input files are opened (names listed and checked) before the model is read, so I/O errors come
    # first; their arrays are read once the model says which names, types and shapes it takes.
    notes: list[str] = []
    with _usage():
        sources = open_step_sources(npz_files, npy_files, args.max_elements, args.load_inputs, notes)
    for note in notes:
        common.warn(note)
    reference = open_reference(args.compare, args.max_elements) if args.compare is not None else None

    model = common.read_model(args.model, args.weights, args.max_elements)
    with common.locating(args.model):
        interpreter = Interpreter(model, element_limit=args.max_elements, mark=args.mark or None,
                                  iteration_limit=args.iteration_limit, threads=args.threads,
                                  decompression=_decompression(args, model))
    with _usage():
        feeds = _feeds(args, model, sources, shape_specs, value_ranges)
        steps = _step_count(args, feeds)
        if args.save_inputs is not None:  # before the run: a run that fails can be reproduced from them
            save_step_inputs(args.save_inputs, feeds)
    layerwise = None
    profile = None
    if args.profile:
        from irgraph.tools.profiling import Profile

        profile = Profile.of(interpreter)
    timing = profile.attached(interpreter) if profile is not None else contextlib.nullcontext()
    with common.locating(args.model), Progress.on_terminal(sys.stderr, quiet=args.json, tty=tty) as progress, \
            timing:
        if args.compare_with is not None:
            layerwise = _compare_with(args, interpreter, feeds, steps, atol, rtol, overrides, progress)
            outputs = layerwise.values
        else:
            progress.stage(f"running {os.path.basename(args.model)}", interpreter.steps)
            interpreter.on_step = progress.step if progress.enabled else None
            started = time.perf_counter()
            outputs = run_steps(interpreter, [feeds.step(number) for number in range(1, steps + 1)], steps)
            if profile is not None:
                profile.run_seconds = time.perf_counter() - started
    if profile is not None and layerwise is not None and layerwise.counters is not None:
        profile.add_counters(layerwise.counters, layerwise.reference)
    stored = {key: npz.for_storage(array) for key, array in outputs.items()}

    if args.output is not None:
        npz.write_npz(args.output, stored)
    if args.save_outputs is not None:
        from irgraph.io.data import polygraphy_json

        polygraphy_json.write_outputs(args.save_outputs, stored)
    marked = set(stored) - {key if steps == 1 else step_key(number, key)
                            for key in model.output_keys().values() for number in range(1, steps + 1)}
    in_bodies = len(marked) - len(interpreter.marks) * steps
    comparison = None
    if reference is not None:  # marked tensors are compared when the reference has them (under any name)
        comparison = compare_with_reference(model, interpreter, stored, steps, reference, atol, rtol, overrides,
                                            args.precision, marked)
        reference.close()

    if args.json:  # ensure_ascii (the default): names exact, every non-ASCII character a \uXXXX escape
        summary = run_summary(args, feeds.listed(), stored, marked, comparison)
        if profile is not None:
            summary["profile"] = profile.to_json()
        if layerwise is not None:
            summary["compare_with"] = layerwise.to_json()
            summary["ok"] = layerwise.passed
        import json

        print(json.dumps(summary, indent=2))
    else:
        print("\n".join(stats_lines(stored, marked, compared_below=layerwise is not None and not in_bodies)))
        if profile is not None:
            print()
            print("\n".join(profile.format()))
        if comparison is not None:
            from irgraph.tools.compare import format_comparison

            print()
            print(format_comparison(comparison, args.compare))
        if layerwise is not None:
            from irgraph.tools.layerwise import LayerwiseReport, format_report
            from irgraph.tools.stepwise import format_stepped

            print()
            print("\n".join(format_report(layerwise, verbose=True) if isinstance(layerwise, LayerwiseReport)
                             else format_stepped(layerwise, verbose=False)))
    warn_unused_tolerances(overrides, stored, layerwise)
    save_report(args, model, layerwise, profile)
    if layerwise is not None and in_bodies:
        common.note(f"{in_bodies} marked tensors are inside sub-graph bodies (Loop, TensorIterator, If; keyed "
                    f"LAYER/iterK/... or LAYER/then/...): {args.compare_with} exposes no tensor of a body, so they "
                    "are kept (--output, --json) but not compared")
    if comparison is not None and not comparison.passed:
        from irgraph.tools.compare import tolerance_text

        failed = ", ".join(item.name for item in comparison.failed)
        common.report(f"{args.compare}: outputs do not match the reference ({tolerance_text(atol, rtol)}): "
                      f"{failed}", common.EXIT_FAILURE)
        return common.EXIT_FAILURE
    if layerwise is not None and not layerwise.passed:
        from irgraph.tools.layerwise import LayerwiseReport

        first = layerwise.culprit if isinstance(layerwise, LayerwiseReport) else layerwise.first_divergence
        where = (first.where() if first is not None else "") or args.model
        if args.save_repro is not None:
            save_bundle(layerwise, args.save_repro)
        common.report(f"{where}: {layerwise.divergence_message()}", common.EXIT_FAILURE)
        return common.EXIT_FAILURE
    if layerwise is not None:
        note_a_match(layerwise, args.save_repro)
    return common.EXIT_OK


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


def _compare_with(args: argparse.Namespace, interpreter: Interpreter, feeds: StepFeeds, steps: int,
                  atol: float | None, rtol: float | None, overrides: Mapping[str, ToleranceOverride],
                  progress: Progress) -> LayerwiseReport | SteppedReport:
    """Run irgraph and the reference runtime (a stateful model, or several steps, step by step, its variables
    compared after each); a missing runtime is a usage error (exit 2)."""
    from irgraph.tools.layerwise import compare_with_onnxruntime, compare_with_openvino
    from irgraph.tools.stepwise import compare_steps_with_openvino

    try:
        if args.compare_with == "onnxruntime":
            if steps > 1:
                raise CliError("several steps (--steps, per-step inputs) compare with openvino only: onnxruntime "
                               "keeps no variables from run to run")
            if args.profile:
                common.warn("--profile times irgraph's layers only: onnxruntime's profile is not read")
            return compare_with_onnxruntime(interpreter, feeds.step(1), args.onnx, atol=atol, rtol=rtol,
                                            tolerances=overrides, progress=progress, truth=args.truth == "f64")
        xml, weights = args.reference_model or args.model, None if args.reference_model else args.weights
        precision = args.precision or "f32"
        if steps == 1 and not interpreter.state.declared:
            return compare_with_openvino(interpreter, feeds.step(1), xml=xml, weights=weights, device=args.device,
                                         precision=precision, atol=atol, rtol=rtol, tolerances=overrides,
                                         progress=progress, profile=args.profile, truth=args.truth == "f64")
        stepped = compare_steps_with_openvino(
            interpreter, [feeds.step(number) for number in range(1, steps + 1)], xml=xml, weights=weights,
            device=args.device, precision=precision, atol=atol, rtol=rtol, tolerances=overrides, progress=progress,
            profile=args.profile)
        if steps > 1:
            return stepped
        only = stepped.steps[0]  # one step of a stateful model: the plain report, its variables among the tensors
        only.counters = stepped.counters
        return only
    except BackendUnavailableError as err:
        raise CliError(err.message) from None


def _feeds(args: argparse.Namespace, model: Model, sources: list[FeedSource], shape_specs: Mapping[str, Shape],
           value_ranges: ValueRanges) -> StepFeeds:
    """The data of every step: read from the sources given (per step where they say so), else random."""
    shapes = feeds_lib.resolve_shapes(model, shape_specs)
    if not sources:
        random, note = feeds_lib.random_feeds(model, shapes, args.seed, args.max_elements, value_ranges)
        if note:
            common.warn(note)
        return StepFeeds(random, [])
    try:
        if args.val_range:
            raise FeedError("--val-range sets the range of random data, but input data is given")
        return load_step_feeds(sources, model, shapes, args.max_elements)
    finally:
        feeds_lib.close_sources(sources)


def _step_count(args: argparse.Namespace, feeds: StepFeeds) -> int:
    """--steps, else the number of steps the data gives (1 when it gives the same data to every step)."""
    if feeds.count is None or args.steps is None:
        return feeds.count or args.steps or 1
    if args.steps != feeds.count:
        raise FeedError(f"--steps {args.steps}, but the inputs give {feeds.count} steps (step1/ to "
                        f"step{feeds.count}/): leave --steps out or give data for every step")
    return args.steps


if __name__ == "__main__":
    sys.exit(main())
