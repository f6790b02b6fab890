"""ir-run: run an IR model with NumPy, print its outputs, save them and compare them with a reference."""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from irgraph.cli import _common as common
from irgraph.cli._common import CliError
from irgraph.cli._npz import NpzArchive
from irgraph.control_flow import DEFAULT_ITERATION_LIMIT
from irgraph.element_types import ElementType
from irgraph.errors import InputError, IrParseError, Location, ResourceLimitError, printable
from irgraph.graph import Model, Node
from irgraph.interpreter import Interpreter, check_feed_type
from irgraph.ops import Parameter
from irgraph.ops.op import shape_text
from irgraph.shapes import Dim, Shape
from irgraph.state import run_steps

DESCRIPTION = """\
Run an OpenVINO IR model (model.xml + model.bin) with NumPy and print every output
(name, element type, shape, min, max, mean).

Input data comes from --inputs (an .npz keyed by input name) and/or -i NAME=FILE.npy. With no
data at all, every input is filled with seeded random data and a warning; once any data is
given, every input must be given. Data must have the input's element type exactly (no casts)
and fit its partial shape. Inputs and outputs are named as in the model: an input by its
Parameter name or a tensor name, an output by its Result's output_names, else the producing
port's first tensor name, else the Result's name.

A stateful model (ReadValue/Assign, as OpenVINO's LLM exports keep a KV cache) starts from its
variables' initial values; --steps N runs it N times on the same inputs, each run reading what the
previous one assigned, and keeps the outputs of every step, keyed stepK/NAME (K = 1..N).
"""

EXAMPLES = """\
  ir-run samples/dml-split-axis2/model.xml --inputs samples/dml-split-axis2/inputs.npz
  ir-run model.xml -i data=x.npy --output out.npz
  ir-run model.xml --shape "data[1,3,8..16]" --seed 7          # random data, dynamic dims chosen
  ir-run model.xml --inputs in.npz --compare ref.npz --atol 1e-4 --rtol 1e-4
  ir-run model.xml --inputs in.npz --json
  ir-run kv_cache.xml --inputs in.npz --steps 3 --output out.npz   # keys step1/NAME .. step3/NAME
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
    parser.add_argument("--steps", type=common.positive_int, default=1, metavar="N",
                        help="run N times on the same inputs, a stateful model's variables (ReadValue/Assign) "
                             "carried from run to run from their initial values (default: 1); with N > 1 every "
                             "step's outputs are kept, keyed stepK/NAME (K = 1..N) in the table, --output, "
                             "--compare and --json; all steps' outputs together count against --max-elements")
    parser.add_argument("--json", action="store_true", help="print a JSON summary instead of the table")
    parser.add_argument("--iteration-limit", type=common.positive_int, default=DEFAULT_ITERATION_LIMIT, metavar="N",
                        help="most iterations one TensorIterator or Loop may run (default: 1000000)")
    common.add_max_elements(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ir-run``."""
    return common.run_cli(build_parser(), _run, argv)


# ------------------------------------------------------------------------------------ the run
@dataclass
class _Feed:
    name: str
    array: np.ndarray
    source: str


def _run(args: argparse.Namespace) -> int:
    shapes = parse_shape_specs(args.shapes)
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
    if args.output is not None:
        reads = [(args.model, "the model file"), (common.weights_path(args.model, args.weights), "the weights file")]
        reads += [(path, "the input file") for path in npz_files]
        reads += [(path, "the input file") for _, path in npy_files]
        if args.compare is not None:
            reads.append((args.compare, "the reference file"))
        common.check_output(args.output, reads)
    # Input files are opened (names listed and checked) before the model is read, so I/O errors come
    # first; their arrays are read once the model says which names, types and shapes it takes.
    sources = open_feeds(npz_files, npy_files, args.max_elements)
    reference = _Reference(common.open_npz(args.compare, args.max_elements)) if args.compare is not None else None

    model = common.read_model(args.model, args.weights, args.max_elements)
    with common.locating(args.model):
        interpreter = Interpreter(model, element_limit=args.max_elements, iteration_limit=args.iteration_limit)
    inputs = model.input_index()
    shapes = resolve_shapes(model, inputs, shapes)

    if sources:
        feeds = load_feeds(sources, model, inputs, shapes, args.max_elements)
        for archive in {id(source.archive): source.archive for source in sources if source.archive}.values():
            archive.close()
    else:
        feeds = random_feeds(model, shapes, args.seed, args.max_elements)
    with common.locating(args.model):
        outputs = run_steps(interpreter, {feed.name: feed.array for feed in feeds}, args.steps)
    stored = {key: common.for_storage(array) for key, array in outputs.items()}

    if args.output is not None:
        common.write_npz_atomically(args.output, stored)
    comparison = None
    if reference is not None:
        comparison = compare_outputs(stored, reference, args.atol, args.rtol)
        reference.archive.close()

    if args.json:  # ensure_ascii (the default): names exact, every non-ASCII character a \uXXXX escape
        print(json.dumps(_summary(args, model, feeds, stored, comparison), indent=2))
    else:
        print(format_table([_stats(key, array) for key, array in stored.items()]))
        if comparison is not None:
            print()
            print(format_comparison(comparison, args.compare, args.atol, args.rtol))
    if comparison is not None and not comparison["passed"]:
        failed = ", ".join(str(item["name"]) for item in comparison["outputs"] if not item["passed"])
        common.report(f"{args.compare}: outputs do not match the reference (atol {args.atol:g}, rtol "
                      f"{args.rtol:g}): {failed}", common.EXIT_FAILURE)
        return common.EXIT_FAILURE
    return common.EXIT_OK


# ------------------------------------------------------------------------------------ shapes
def parse_shape_specs(values: list[str]) -> dict[str, Shape]:
    """``NAME[1,?,1..8]`` / ``NAME:[...]`` items (several per value, comma separated) -> shapes."""
    shapes: dict[str, Shape] = {}
    for value in values:
        for item in _split_outside_brackets(value):
            name, bracket, rest = item.partition("[")
            name = name.strip()
            if name.endswith(":"):
                name = name[:-1].strip()
            if not bracket or not rest.rstrip().endswith("]") or not name:
                raise CliError(f"--shape expects NAME[d0,d1,...] (dims N, ?, -1 or lo..hi), got {item!r}")
            try:
                shape = Shape.parse("[" + rest.strip())
            except (IrParseError, ValueError) as err:
                raise CliError(f"--shape {item!r}: {err}") from None
            if name in shapes:
                raise CliError(f"--shape gives input {name!r} twice")
            shapes[name] = shape
    return shapes


def _split_outside_brackets(text: str) -> list[str]:
    items, depth, current = [], 0, []
    for char in text:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        if char == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    items.append("".join(current))
    return [item.strip() for item in items if item.strip()]


def resolve_shapes(model: Model, inputs: Mapping[str, Node], shapes: Mapping[str, Shape]) -> dict[int, Shape]:
    """--shape values keyed by Parameter id, each merged with the Parameter's own partial shape."""
    resolved: dict[int, Shape] = {}
    for name, shape in shapes.items():
        parameter = inputs.get(name)
        if parameter is None:
            raise CliError(f"--shape names {name!r}, but the model has no such input; inputs: {_names(model)}")
        if parameter.id in resolved:
            raise CliError(f"--shape gives input {parameter.name!r} twice")
        declared = _parameter_op(parameter).shape
        merged = declared.merge(shape)
        if merged is None:
            raise CliError(f"--shape {name}{shape} does not fit input {parameter.name!r}, which is {declared}")
        resolved[parameter.id] = merged
    return resolved


def _parameter_op(parameter: Node) -> Parameter:
    op = parameter.op
    assert isinstance(op, Parameter)
    return op


def _names(model: Model) -> str:
    return ", ".join(repr(p.name) for p in model.parameters) or "none"


# ------------------------------------------------------------------------------------ feeds
@dataclass
class _Source:
    """Where one input's data is: a member of an opened .npz, or a .npy file."""

    name: str
    path: str
    archive: NpzArchive | None = None


def open_feeds(npz_files: list[str], npy_files: list[tuple[str, str]], element_limit: int) -> list[_Source]:
    """Every input named on the command line, keyed as given: .npz files are opened and listed, nothing is read."""
    sources: dict[str, _Source] = {}

    def add(source: _Source) -> None:
        if source.name in sources:
            raise CliError(f"input {source.name!r} is given twice ({sources[source.name].path} and {source.path})")
        sources[source.name] = source

    for path in npz_files:
        archive = common.open_npz(path, element_limit)
        for name in archive:
            add(_Source(name, path, archive))
    for name, path in npy_files:
        common.require_file(path, "input file")
        add(_Source(name, path))
    return list(sources.values())


def load_feeds(sources: list[_Source], model: Model, inputs: Mapping[str, Node], shapes: Mapping[int, Shape],
               element_limit: int) -> list[_Feed]:
    """Read the arrays of ``sources``: every name is checked before anything is read, and every header
    (element type, shape) before its data is read or inflated.

    Stored ml_dtypes data (raw ``|Vn`` items) is viewed as its input's type; data must fit its --shape.
    """
    for source in sources:
        if source.name not in inputs:
            known = ", ".join(sorted(inputs)) or "none"  # worded as the interpreter words it
            raise InputError(f"the model has no input named {source.name!r}; inputs: {known}",
                             Location(file=model.source))
    feeds = []
    for source in sources:
        parameter = inputs[source.name]
        expect = functools.partial(_check_header, source, parameter, shapes.get(parameter.id), element_limit)
        if source.archive is not None:
            array = common.load_member(source.archive, source.name, element_limit, expect)
        else:
            array = common.load_npy(source.path, element_limit, expect)
        feeds.append(_Feed(source.name, common.decode_stored(array, _parameter_op(parameter).element_type),
                           source.path))
    return feeds


def _check_header(source: _Source, parameter: Node, shape: Shape | None, element_limit: int, dtype: np.dtype,
                  dims: tuple[int, ...]) -> None:
    """A feed's header against its Parameter (element type, partial shape, budget) and its --shape."""
    element_type = _parameter_op(parameter).element_type
    wanted = element_type.numpy_dtype
    if wanted is not None and common.is_ml_dtype(wanted) and dtype == common.storage_dtype(wanted):
        dtype = wanted  # stored as raw bytes
    check_feed_type(parameter, source.name, dtype, dims, element_limit)
    if shape is not None and not shape.accepts(dims):
        raise InputError(
            f"input {source.name!r} from {source.path} has shape {shape_text(dims)}, which does not fit --shape "
            f"{shape}",
            parameter.location,
        )


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


def random_feeds(model: Model, shapes: Mapping[int, Shape], seed: int, element_limit: int) -> list[_Feed]:
    """Seeded random data for every input (with a warning saying what was chosen)."""
    rng = np.random.default_rng(seed)
    feeds, described, chose_dims = [], [], False
    for parameter in model.parameters:
        op = _parameter_op(parameter)
        shape = shapes.get(parameter.id, op.shape)
        if shape.dims is None:
            raise CliError(
                f"input {parameter.name!r} has a dynamic rank, so random data needs its shape: "
                f'--shape "{parameter.name}[d0,d1,...]"'
            )
        sizes = tuple(_smallest_size(dim) for dim in shape.dims)
        chose_dims = chose_dims or not shape.is_static
        count = math.prod(sizes)
        if count > element_limit:
            raise ResourceLimitError(
                f"random data for input {parameter.name!r} would have {count} elements, above the limit of "
                f"{element_limit} (see --max-elements)",
                parameter.location,
            )
        feeds.append(_Feed(parameter.name, random_array(rng, op.element_type, sizes), "random"))
        described.append(f"{parameter.name} {op.element_type}{shape_text(sizes)}")
    if feeds:
        note = "; dynamic dims take their smallest size >= 1 (set them with --shape)" if chose_dims else ""
        common.warn(f"no input data given: every input is filled with random data (seed {seed}): "
                    f"{', '.join(described)}{note}")
    return feeds


def _smallest_size(dim: Dim) -> int:
    if dim.min > 0:
        return dim.min
    return 1 if dim.max is None or dim.max >= 1 else 0


def random_array(rng: np.random.Generator, element_type: ElementType, shape: tuple[int, ...]) -> np.ndarray:
    """Random data of ``element_type``: booleans, small integers, floats in [-1, 1), short strings."""
    dtype = element_type.numpy_dtype
    if element_type is ElementType.BOOLEAN:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if element_type is ElementType.STRING:
        words = np.array(["alpha", "beta", "gamma", "delta", "", "ε-unicode"])
        return words[rng.integers(0, len(words), size=shape)]
    if element_type is ElementType.F8E8M0:  # powers of two only; no zero, no sign
        return np.exp2(rng.integers(-3, 4, size=shape)).astype(dtype)
    if element_type.is_real and element_type is not ElementType.NF4:
        return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32).astype(dtype)
    # Integers (and nf4/u3/u6 codes): a small range inside the type's range.
    bits = element_type.bitwidth
    if element_type.ir_name.startswith("i"):
        low, high = max(-(2 ** (bits - 1)), -5), min(2 ** (bits - 1) - 1, 5)
    else:
        low, high = 0, min(2**bits - 1, 9)
    assert dtype is not None
    return rng.integers(low, high + 1, size=shape).astype(dtype)


# ------------------------------------------------------------------------------------ reports
def _stats(key: str, array: np.ndarray) -> dict[str, object]:
    """Name, element type, shape, min, max and mean of one stored output (strings: no mean)."""
    element_type = _element_type_name(array)
    row: dict[str, object] = {
        "name": key, "element_type": element_type, "shape": list(array.shape), "min": None, "max": None, "mean": None,
    }
    if not array.size:
        return row
    if element_type == "string":
        items = [str(item) for item in array.reshape(-1).tolist()]
        row["min"], row["max"] = min(items), max(items)
        return row
    values = array.astype(np.float64)
    integral = array.dtype.kind in "biu" or element_type.startswith(("i", "u"))  # also i4, u1, u2, u4 (ml_dtypes)
    row["min"] = _json_number(float(values.min()), integral)
    row["max"] = _json_number(float(values.max()), integral)
    row["mean"] = _json_number(float(values.mean()), False)
    return row


def _json_number(value: float, integral: bool) -> float | int | str:
    if math.isnan(value) or math.isinf(value):
        return str(value)
    return int(value) if integral else value


def _element_type_name(array: np.ndarray) -> str:
    if array.dtype.kind in "OUS":
        return "string"
    try:
        return str(ElementType.from_numpy(array.dtype))
    except IrParseError:
        return str(array.dtype)


def format_table(rows: list[dict[str, object]]) -> str:
    """The output table: name, element type, shape, min, max, mean."""
    header = ("output", "type", "shape", "min", "max", "mean")
    lines = [header]
    for row in rows:
        shape = row["shape"]
        assert isinstance(shape, list)
        lines.append((
            printable(str(row["name"])), str(row["element_type"]), shape_text(tuple(shape)),
            *(_cell(row[k]) for k in ("min", "max", "mean")),
        ))
    return "\n".join(common.format_columns(lines))


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def compare_outputs(
    outputs: Mapping[str, np.ndarray], reference: Mapping[str, np.ndarray], atol: float, rtol: float
) -> dict[str, object]:
    """Compare every output with the reference: exact dtype and shape, then |out-ref| <= atol + rtol*|ref|.

    NaN matches NaN and infinities match infinities of the same sign. Every reference key must be
    an output and every output must be in the reference.
    """
    items: list[dict[str, object]] = []
    for key, array in outputs.items():
        item: dict[str, object] = {"name": key, "passed": False, "max_abs_error": None, "max_rel_error": None}
        items.append(item)
        expected = reference.get(key)
        if expected is None:
            item["reason"] = "missing from the reference"
            continue
        reason = _compare_one(array, expected, item, atol, rtol)
        if reason:
            item["reason"] = reason
        else:
            item["passed"] = True
    for key in reference:
        if key not in outputs:
            items.append({"name": key, "passed": False, "max_abs_error": None, "max_rel_error": None,
                          "reason": "in the reference but not an output of the model"})
    return {"passed": all(item["passed"] for item in items), "atol": atol, "rtol": rtol, "outputs": items}


def _compare_one(array: np.ndarray, expected: np.ndarray, item: dict[str, object], atol: float, rtol: float) -> str:
    ours = common.storage_dtype(array.dtype)
    if array.dtype.kind == "U":
        if expected.dtype.kind != "U":
            return f"dtype {expected.dtype.str} in the reference, the model gives strings"
    elif expected.dtype != ours:
        return f"dtype {ours.str} but the reference has {expected.dtype.str}"
    if array.shape != expected.shape:
        return f"shape {shape_text(array.shape)} but the reference has {shape_text(expected.shape)}"
    if array.dtype.kind == "U":
        differ = int(np.count_nonzero(array != expected))
        return f"{differ} of {array.size} strings differ" if differ else ""
    expected = common.decode_stored(expected, array.dtype)  # ml_dtypes: the reference holds the raw bits
    got, want = array.astype(np.float64), expected.astype(np.float64)
    if not got.size:
        item["max_abs_error"] = item["max_rel_error"] = 0.0
        return ""
    both_nan = np.isnan(got) & np.isnan(want)
    same = (got == want) | both_nan
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        error = np.where(same, 0.0, np.abs(got - want))
        error = np.where(np.isnan(error), np.inf, error)
        relative = np.where(same, 0.0, np.where(want != 0, error / np.abs(want), np.inf))
    item["max_abs_error"] = float(error.max())
    item["max_rel_error"] = float(relative.max())
    bad = error > atol + rtol * np.abs(np.where(np.isfinite(want), want, 0.0))
    count = int(np.count_nonzero(bad))
    if count:
        flat = int(np.argmax(bad.reshape(-1)))
        return (f"{count} of {array.size} elements differ beyond the tolerance; first at flat index {flat}: "
                f"{got.reshape(-1)[flat]:.9g} vs {want.reshape(-1)[flat]:.9g}")
    return ""


def format_comparison(comparison: Mapping[str, object], path: str, atol: float, rtol: float) -> str:
    """One line per output: verdict, max absolute and relative error, reason."""
    items = comparison["outputs"]
    assert isinstance(items, list)
    lines = [f"compare with {printable(path)} (atol {atol:g}, rtol {rtol:g}):"]
    names = [printable(str(item["name"])) for item in items]
    width = max(map(len, names), default=0)
    for item, name in zip(items, names, strict=True):
        verdict = "ok      " if item["passed"] else "MISMATCH"
        errors = ""
        if item["max_abs_error"] is not None:
            errors = f"  max abs error {item['max_abs_error']:.3g}  max rel error {item['max_rel_error']:.3g}"
        reason = f"  ({item['reason']})" if item.get("reason") else ""
        lines.append(f"  {verdict}  {name.ljust(width)}{errors}{reason}")
    passed = sum(1 for item in items if item["passed"])
    lines.append(f"{passed} of {len(items)} outputs match")
    return "\n".join(lines)


def _summary(
    args: argparse.Namespace,
    model: Model,
    feeds: list[_Feed],
    stored: Mapping[str, np.ndarray],
    comparison: Mapping[str, object] | None,
) -> dict[str, object]:
    return {
        "model": args.model,
        "inputs": [
            {"name": feed.name, "element_type": _element_type_name(feed.array), "shape": list(feed.array.shape),
             "source": feed.source}
            for feed in feeds
        ],
        "outputs": [_stats(key, array) for key, array in stored.items()],
        "output_file": os.path.abspath(args.output) if args.output else None,
        "compare": dict(comparison, reference=args.compare) if comparison is not None else None,
        "ok": comparison is None or bool(comparison["passed"]),
    }


if __name__ == "__main__":
    sys.exit(main())
