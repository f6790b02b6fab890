"""ir-run's command line: its description, examples, options and their checks at parse time."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from typing import TypeVar, overload

from irgraph.cli import _common as common
from irgraph.cli import _parsing as parsing
from irgraph.cli._run_reference import tolerance_arg
from irgraph.cli._run_report import add_report_argument
from irgraph.core.lazy import lazy_pattern
from irgraph.core.limits import DEFAULT_ITERATION_LIMIT, MAX_STEPS
from irgraph.runtime.decompression import POLICIES
from irgraph.tools.hints import PRECISIONS

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


_RANGE = lazy_pattern(r"(?:[^\[]*:)?\s*\[[^\]]*\]\s*", re.S)
"""What a --val-range item looks like: ``[LO,HI]`` or ``NAME:[LO,HI]``."""
_VAL_RANGE = "--val-range"
_N = TypeVar("_N")


class _RunParser(parsing.Parser):
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
    parser = parsing.make_parser("ir-run", DESCRIPTION, EXAMPLES, _RunParser)
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
                             "the library's own count; fix it for bit-reproducible outputs: a product split over "
                             "another count may differ in its last bits)")
    parser.add_argument("--decompression", choices=POLICIES, default=None,
                        help="precision of weight decompression chains (u8/u4/i4/nf4 Const -> Convert f16 -> Subtract "
                             "-> Multiply -> Convert f32): 'ir' rounds each step to f16 as the IR's types and "
                             "OpenVINO's reference kernels do; 'f32' computes them in f32 as OpenVINO's CPU plugin "
                             "does (default: 'f32' with --compare-with openvino on the CPU, which it then says, "
                             "else 'ir')")
    parser.add_argument("--keep-weights-compressed", action="store_true",
                        help="keep compressed weights (fp16, int8, int4 ... decompression chains) in their stored type "
                             "and decompress each one at every step, just before its layer, instead of holding them "
                             "all decompressed to f32: less memory when it is short, slower steps, the same outputs")
    parsing.add_max_elements(parser)
    return parser


def _steps_arg(text: str) -> int:
    """argparse type of --steps: an integer from 1 to MAX_STEPS."""
    steps = common.positive_int(text)
    if steps > MAX_STEPS:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_STEPS} steps, got {steps}")
    return steps
