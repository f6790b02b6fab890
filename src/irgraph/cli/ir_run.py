"""ir-run: run an IR model with NumPy, print its outputs, save them and compare them with a reference."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import time
import types
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, cast

from irgraph.core import collector

# ir-run's start-up is judged against `python -c "import numpy"` (issue 28): its modules are imported with the
# collector paused and frozen after (see collector.permanent_imports).
with collector.permanent_imports():
    from irgraph.cli import _common as common
    from irgraph.cli._common import CliError
    from irgraph.cli._run_output import run_summary, stats_lines
    from irgraph.cli._run_reference import (
        compare_with_reference,
        open_reference,
        tolerances,
        warn_unused_tolerances,
    )
    from irgraph.cli._run_report import check_report_argument, save_report
    from irgraph.cli._run_repro import check_debug_arguments, note_a_match, save_bundle
    from irgraph.core.errors import BackendUnavailableError, FeedError
    from irgraph.core.limits import (
        DEFAULT_ELEMENT_LIMIT,
        DEFAULT_ITERATION_LIMIT,
        MAX_STEPS,  # noqa: F401 - ir_run's public bound
    )
    from irgraph.io.data import npz
    from irgraph.runtime.decompression import DecompressionPolicy, widened_nodes
    from irgraph.runtime.interpreter import Interpreter
    from irgraph.runtime.state import run_steps, step_key
    from irgraph.tools import feeds as feeds_lib
    from irgraph.tools.progress import Progress
    from irgraph.tools.step_feeds import StepFeeds, load_step_feeds, open_step_sources, save_step_inputs

# A plain run prints one table: what only --compare, --compare-with, --profile, --json or Polygraphy's files
# need is imported where those are handled, so that start-up pays for none of it (tests/test_lazy_import.py).
if TYPE_CHECKING:
    import argparse

    from irgraph.core.shapes import Shape
    from irgraph.graph import Model
    from irgraph.tools.compare import ToleranceOverride
    from irgraph.tools.feeds import FeedSource, ValueRanges
    from irgraph.tools.layerwise import LayerwiseReport
    from irgraph.tools.stepwise import SteppedReport


def main(argv: list[str] | None = None, *, tty: bool | None = None) -> int:
    """Entry point of ``ir-run``; ``tty`` overrides whether stderr is a terminal (the progress bar)."""
    code = common.run_parsed(functools.partial(_arguments, argv), functools.partial(_run, tty=tty))
    if argv is None:  # the program's entry point (a caller passing its own arguments goes on after)
        collector.before_exit()
    return code


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    """The parsed command line: a plain one read directly, any other by the argument parser."""
    items = sys.argv[1:] if argv is None else argv
    plain = plain_arguments(items)
    if plain is not None:
        return plain
    from irgraph.cli._run_parser import build_parser  # argparse, gettext and locale: about 3 ms of a start-up

    return build_parser().parse_args(items)


def plain_arguments(argv: list[str]) -> argparse.Namespace | None:
    """``MODEL [--inputs FILE]...`` as the parser reads it (every other option at its default), else None.

    The README's line and the common one: it is read without building argparse's parser, whose import and
    set-up cost a cold start more than the run of a small model. Any other line (``--help``, an abbreviation,
    ``--inputs=FILE``, a value or model starting with ``-``) goes to the parser; tests check that both give the
    same namespace.
    """
    models: list[str] = []
    inputs: list[str] = []
    position = 0
    while position < len(argv):
        item = argv[position]
        if item == "--inputs" and position + 1 < len(argv) and not argv[position + 1].startswith("-"):
            inputs.append(argv[position + 1])
            position += 2
        elif item.startswith("-"):
            return None
        else:
            models.append(item)
            position += 1
    if len(models) != 1:
        return None
    # The parser's defaults (tests/cli/test_ir_run_plain_line.py compares them with build_parser()'s).
    return cast("argparse.Namespace", types.SimpleNamespace(
        debug=False, model=models[0], weights=None, inputs=inputs, input_files=[], shapes=[], load_inputs=[], seed=0,
        val_range=[], save_inputs=None, output=None, save_outputs=None, compare=None, atol=[], rtol=[], steps=None,
        compare_with=None, device="CPU", precision=None, reference_model=None, onnx=None, truth=None, report=None,
        save_repro=None, mark=[], profile=False, json=False, iteration_limit=DEFAULT_ITERATION_LIMIT, threads=None,
        decompression=None, keep_weights_compressed=False, max_elements=DEFAULT_ELEMENT_LIMIT))


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
    for index, (flag, path) in enumerate(writes):
        common.check_output(path, reads)
        for earlier_flag, earlier in writes[:index]:
            if common.atomic.same_file(path, earlier):
                raise CliError(f"{path}: {flag} names the file {earlier_flag} writes; give each its own file")


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
                                  decompression=_decompression(args, model),
                                  keep_weights_compressed=args.keep_weights_compressed)
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
