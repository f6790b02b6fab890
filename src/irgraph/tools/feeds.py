"""Input data for a run: shape specs, feeds read from .npz/.npy files, seeded random data.

The pieces ``ir-run`` uses, as a library: parse ``NAME[1,?,1..8]`` shape specs and merge them with
the model's partial shapes, open input files (names listed, nothing read) and read their arrays
once the model says which names, element types and shapes it takes (every header is checked
before its data is read or inflated), or make seeded random data for every input.

Errors: what the caller asked for that cannot be done (a malformed spec, an unknown input in a
spec, a dynamic rank without a shape) is a :class:`FeedError`; an unreadable file an
``IrIOError``; data that does not fit the model an ``InputError``; sizes above the element budget
a ``ResourceLimitError``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import FeedError, InputError, IrIOError, IrParseError, Location, ResourceLimitError
from irgraph.core.records import MutableRecord
from irgraph.core.shapes import Dim, Shape
from irgraph.graph import Model, Node, OutputPort
from irgraph.io.data import npz
from irgraph.io.data.npz import NpzArchive
from irgraph.ops import Parameter
from irgraph.ops.op import shape_text
from irgraph.runtime.interpreter import check_feed_type
from irgraph.tools.stats import element_type_name

__all__ = [
    "Feed", "FeedSource", "ValueRange", "ValueRanges", "close_sources", "describe_inputs", "load_feeds",
    "open_sources", "parse_shape_specs", "parse_value_ranges", "random_array", "random_feeds", "resolve_shapes",
    "resolve_value_ranges", "save_inputs",
]


class Feed(MutableRecord):
    """One input's data: the name it was given by, the array, and where it came from (a path, or "random")."""

    __slots__ = ("name", "array", "source")

    name: str
    array: np.ndarray
    source: str

    def __init__(self, name: str, array: np.ndarray, source: str) -> None:
        self.name = name
        self.array = array
        self.source = source


class FeedSource(MutableRecord):
    """Where one input's data is: a member of an opened .npz, a .npy file, or an array of a Polygraphy JSON
    file (``data``, its ``.npy`` bytes)."""

    __slots__ = ("name", "path", "archive", "data", "member")

    name: str
    path: str
    archive: NpzArchive | None
    data: bytes | None
    member: str | None
    """The archive's member holding the data when it is not ``name`` (a step's feed, ``stepK/NAME``)."""

    def __init__(self, name: str, path: str, archive: NpzArchive | None = None, data: bytes | None = None,
                 member: str | None = None) -> None:
        self.name = name
        self.path = path
        self.archive = archive
        self.data = data
        self.member = member


ValueRange = tuple[float, float]
"""The closed range ``[low, high]`` random data is drawn from."""


class ValueRanges(MutableRecord):
    """``--val-range`` values: one for every input (``default``) and per input name."""

    __slots__ = ("default", "by_name")

    default: ValueRange | None
    by_name: dict[str, ValueRange] | None

    def __init__(self, default: ValueRange | None = None, by_name: dict[str, ValueRange] | None = None) -> None:
        self.default = default
        self.by_name = by_name


# ------------------------------------------------------------------------------------ shapes
UNNAMED = ""
"""The key of an unnamed shape spec (``[1,3,224,224]``, benchmark_app's form): the model's one input."""


def parse_shape_specs(values: Iterable[str], option: str = "--shape") -> dict[str, Shape]:
    """``NAME[1,?,1..8]`` / ``NAME:[...]`` items (several per value, comma separated) -> shapes; an unnamed
    ``[1,3,224,224]`` (benchmark_app's form for a model of one input) is keyed :data:`UNNAMED`. ``option`` is the
    flag the messages name (ir-convert's ``--reshape`` takes the same specs)."""
    shapes: dict[str, Shape] = {}
    for value in values:
        for item in split_outside_brackets(value):
            name, bracket, rest = item.partition("[")
            name = name.strip()
            if name.endswith(":"):
                name = name[:-1].strip()
            if not bracket or not rest.rstrip().endswith("]") or (not name and item.strip()[0] != "["):
                raise FeedError(f"{option} expects NAME[d0,d1,...] or, for a model of one input, [d0,d1,...] "
                                f"(dims N, ?, -1 or lo..hi), got {item!r}")
            try:
                shape = Shape.parse("[" + rest.strip())
            except (IrParseError, ValueError) as err:
                raise FeedError(f"{option} {item!r}: {err}") from None
            if name in shapes:
                raise FeedError(f"{option} gives input {name!r} twice" if name else
                                f"{option} gives two unnamed shapes; name each input: NAME[d0,d1,...]")
            shapes[name] = shape
    return shapes


def split_outside_brackets(text: str) -> list[str]:
    """``text`` split at the commas outside ``[...]``, items stripped, empty ones dropped."""
    items: list[str] = []
    current: list[str] = []
    depth = 0
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


def resolve_shapes(model: Model, shapes: Mapping[str, Shape]) -> dict[int, Shape]:
    """Shape specs keyed by Parameter id, each merged with the Parameter's own partial shape."""
    inputs = model.input_index()
    if UNNAMED in shapes:
        if len(model.parameters) != 1:
            raise FeedError(f"--shape {shapes[UNNAMED]} names no input, which only a model of one input allows; this "
                            f"one has {len(model.parameters)} ({input_names(model)}): name it, as in --shape "
                            f'"{model.parameters[0].name if model.parameters else "NAME"}{shapes[UNNAMED]}"')
        only = model.parameters[0].name
        if only in shapes:
            raise FeedError(f"--shape gives input {only!r} twice (named and unnamed)")
        shapes = {(only if name == UNNAMED else name): shape for name, shape in shapes.items()}
    resolved: dict[int, Shape] = {}
    for name, shape in shapes.items():
        parameter = inputs.get(name)
        if parameter is None:
            raise FeedError(f"--shape names {name!r}, but the model has no such input; inputs: {input_names(model)}")
        if parameter.id in resolved:
            raise FeedError(f"--shape gives input {parameter.name!r} twice")
        declared = parameter_op(parameter).shape
        merged = declared.merge(shape)
        if merged is None:
            raise FeedError(f"--shape {name}{shape} does not fit input {parameter.name!r}, which is {declared}")
        resolved[parameter.id] = merged
    return resolved


def parameter_op(parameter: Node) -> Parameter:
    """The Parameter op of an input layer."""
    op = parameter.op
    assert isinstance(op, Parameter)
    return op


def input_names(model: Model) -> str:
    """The model's input names, quoted, for messages ("none" when it has none)."""
    return ", ".join(repr(p.name) for p in model.parameters) or "none"


# ------------------------------------------------------------------------------------ files
def open_sources(
    npz_files: Sequence[str], npy_files: Sequence[tuple[str, str]], element_limit: int,
    json_files: Sequence[str] = (), notes: list[str] | None = None,
) -> list[FeedSource]:
    """Every input named in the files, keyed as given: .npz files are opened and listed, nothing is read.

    Polygraphy JSON files (``json_files``) are parsed, their arrays kept as ``.npy`` bytes until
    loaded; of several iterations the first is used (a line saying so is added to ``notes``).
    Close the archives with :func:`close_sources` once the feeds are loaded.
    """
    sources: dict[str, FeedSource] = {}

    def add(source: FeedSource) -> None:
        if source.name in sources:
            raise FeedError(f"input {source.name!r} is given twice ({sources[source.name].path} and {source.path})")
        sources[source.name] = source

    opened: list[NpzArchive] = []
    try:
        for path in npz_files:
            archive = npz.open_npz(path, element_limit)
            opened.append(archive)
            for name in archive:
                add(FeedSource(name, path, archive))
        for name, path in npy_files:
            npz.require_file(path, "input file")
            add(FeedSource(name, path))
        for path in json_files:
            from irgraph.io.data import polygraphy_json  # Polygraphy's files only: a plain run feeds .npz files

            iterations = polygraphy_json.read_iterations(path)
            if not iterations:
                raise IrIOError("cannot read the Polygraphy JSON file: it holds no iteration", Location(file=path))
            if len(iterations) > 1 and notes is not None:
                notes.append(f"{path} holds {len(iterations)} iterations of inputs; the first is used")
            for name, data in iterations[0].items():
                add(FeedSource(name, path, data=data))
    except BaseException:
        for archive in opened:
            archive.close()
        raise
    return list(sources.values())


def close_sources(sources: Iterable[FeedSource]) -> None:
    """Close the .npz archives ``sources`` opened."""
    for archive in {id(source.archive): source.archive for source in sources if source.archive}.values():
        archive.close()


def load_feeds(sources: Sequence[FeedSource], model: Model, shapes: Mapping[int, Shape], element_limit: int,
               ) -> list[Feed]:
    """Read the arrays of ``sources``: every name is checked before anything is read, and every header
    (element type, shape) before its data is read or inflated.

    Stored ml_dtypes data (raw ``|Vn`` items) is viewed as its input's type; data must fit its shape spec.
    """
    inputs = model.input_index()
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
            array = npz.load_member(source.archive, source.member or source.name, element_limit, expect)
        elif source.data is not None:  # read from a Polygraphy file by open_sources, which imported the module
            from irgraph.io.data import polygraphy_json

            array = polygraphy_json.decode_array(source.path, source.name, source.data, element_limit, expect)
        else:
            array = npz.load_npy(source.path, element_limit, expect)
        feeds.append(Feed(source.name, npz.decode_stored(array, parameter_op(parameter).element_type), source.path))
    return feeds


def _check_header(source: FeedSource, parameter: Node, shape: Shape | None, element_limit: int, dtype: np.dtype,
                  dims: tuple[int, ...]) -> None:
    """A feed's header against its Parameter (element type, partial shape, budget) and its shape spec."""
    element_type = parameter_op(parameter).element_type
    wanted = element_type.numpy_dtype
    if wanted is not None and npz.is_ml_dtype(wanted) and dtype == npz.storage_dtype(wanted):
        dtype = wanted  # stored as raw bytes
    check_feed_type(parameter, source.name, dtype, dims, element_limit)
    if shape is not None and not shape.accepts(dims):
        raise InputError(
            f"input {source.name!r} from {source.path} has shape {shape_text(dims)}, which does not fit --shape "
            f"{shape}",
            parameter.location,
        )


# ------------------------------------------------------------------------------------ random data
def random_feeds(model: Model, shapes: Mapping[int, Shape], seed: int, element_limit: int,
                 ranges: ValueRanges | None = None) -> tuple[list[Feed], str]:
    """Seeded random data for every input, and a note saying what was chosen (empty for a model without inputs).

    Dynamic dims take their smallest size >= 1; a dynamic rank needs a shape spec. ``ranges`` sets
    the values' range per input (see :func:`random_array`).
    """
    rng = np.random.default_rng(seed)
    by_parameter = resolve_value_ranges(model, ranges) if ranges is not None else {}
    default = ranges.default if ranges is not None else None
    chosen = integer_ranges(model) if default is None else {}
    feeds, described, chose_dims = [], [], False
    for parameter in model.parameters:
        op = parameter_op(parameter)
        shape = shapes.get(parameter.id, op.shape)
        if shape.dims is None:
            raise FeedError(
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
        value_range, why = by_parameter.get(parameter.id, default), ""
        if value_range is None and parameter.id in chosen:
            value_range, why = chosen[parameter.id]
        feeds.append(Feed(parameter.name, random_array(rng, op.element_type, sizes, value_range), "random"))
        within = f" in [{value_range[0]:g}, {value_range[1]:g}]" if value_range is not None else ""
        within += f" ({why})" if why else ""
        described.append(f"{parameter.name} {op.element_type}{shape_text(sizes)}{within}")
    if not feeds:
        return feeds, ""
    note = "; dynamic dims take their smallest size >= 1 (set them with --shape)" if chose_dims else ""
    return feeds, (f"no input data given: every input is filled with random data (seed {seed}): "
                   f"{', '.join(described)}{note}")


DEFAULT_INTEGER_RANGE: ValueRange = (0, 9)
"""Random integers for an input the graph says nothing about: small and non-negative, as ids, sizes and
positions are (a negative token id or length makes most models fail for no reason of theirs)."""
MASK_WORD = "mask"


def integer_ranges(model: Model) -> dict[int, tuple[ValueRange, str]]:
    """The range random data takes for each integer input (by Parameter id), and why, from what the graph says.

    An input that reaches, through Convert, Reshape, Squeeze or Unsqueeze (``Op.forwards_values``), the
    indices of a Gather (``Op.index_count``) stays within the smallest of the tables it indexes; one named
    as a mask or read as one (Select's condition, ``Op.mask_inputs``) takes 0 and 1; any other takes
    :data:`DEFAULT_INTEGER_RANGE`.
    """
    chosen: dict[int, tuple[ValueRange, str]] = {}
    for parameter in model.parameters:
        if not parameter_op(parameter).element_type.is_integral:
            continue
        counts, masked = _uses(model, parameter)
        if counts:
            count, node = min(counts, key=lambda found: found[0])
            chosen[parameter.id] = ((0, count - 1), f"indices of {node.type_name} {node.name!r}, {count} entries")
        elif masked or any(MASK_WORD in name.lower() for name in model.input_names(parameter)):
            chosen[parameter.id] = ((0, 1), "a mask")
        else:
            chosen[parameter.id] = (DEFAULT_INTEGER_RANGE, "")
    return chosen


def _uses(model: Model, parameter: Node) -> tuple[list[tuple[int, Node]], bool]:
    """The index counts an input's values meet (with the layer), and whether a layer reads them as a mask."""
    counts: list[tuple[int, Node]] = []
    masked = False
    pending, seen = [OutputPort(parameter.id, 0)], set()
    while pending:
        port = pending.pop()
        for target in model.consumers(port):
            node = model.node(target.node_id)
            op = node.op
            if target.index in op.forwards_values and node.num_outputs and node.id not in seen:
                seen.add(node.id)
                pending.append(OutputPort(node.id, 0))
            masked = masked or target.index in op.mask_inputs
            sources = model.input_sources(node)
            count = op.index_count(target.index, [model.output_type(s) if s is not None else None for s in sources],
                                   [model.constant_value(s) for s in sources])
            if count is not None and count > 0:
                counts.append((count, node))
    return counts, masked


def _smallest_size(dim: Dim) -> int:
    if dim.min > 0:
        return dim.min
    return 1 if dim.max is None or dim.max >= 1 else 0


def random_array(rng: np.random.Generator, element_type: ElementType, shape: tuple[int, ...],
                 value_range: ValueRange | None = None) -> np.ndarray:
    """Random data of ``element_type``: booleans, small integers, floats in [-1, 1), short strings.

    ``value_range`` ``(low, high)`` draws floats from ``[low, high)`` and integers from the integers in
    ``[low, high]`` (clipped to the type's range); strings and f8e8m0 (powers of two) ignore it.
    """
    dtype = element_type.numpy_dtype
    if element_type is ElementType.BOOLEAN:
        low, high = (0, 1) if value_range is None else (max(0, math.ceil(value_range[0])),
                                                        min(1, math.floor(value_range[1])))
        return rng.integers(low, max(low, high) + 1, size=shape).astype(np.bool_)
    if element_type is ElementType.STRING:
        words = np.array(["alpha", "beta", "gamma", "delta", "", "ε-unicode"])
        return words[rng.integers(0, len(words), size=shape)]
    if element_type is ElementType.F8E8M0:  # powers of two only; no zero, no sign
        return np.exp2(rng.integers(-3, 4, size=shape)).astype(dtype)
    if element_type.is_real and element_type is not ElementType.NF4:
        low_f, high_f = (-1.0, 1.0) if value_range is None else value_range
        return rng.uniform(low_f, high_f, size=shape).astype(np.float32).astype(dtype)
    # Integers (and nf4/u3/u6 codes): a small range inside the type's range.
    smallest, largest = element_type.integer_range
    if smallest < 0:
        low, high = max(smallest, -5), min(largest, 5)
    else:
        low, high = 0, min(largest, 9)
    if value_range is not None:
        low = min(max(smallest, math.ceil(value_range[0])), largest)
        high = max(min(largest, math.floor(value_range[1])), low)
    assert dtype is not None
    return rng.integers(low, high + 1, size=shape).astype(dtype)


def parse_value_ranges(values: Iterable[str]) -> ValueRanges:
    """``--val-range`` items as Polygraphy writes them: ``NAME:[lo,hi]`` for one input, ``[lo,hi]`` for all."""
    ranges = ValueRanges(by_name={})
    assert ranges.by_name is not None
    for item in values:
        name, colon, text = item.strip().rpartition(":")
        if not colon:
            name, text = "", item.strip()
        value_range = _parse_range(item, text.strip())
        if not name:
            if ranges.default is not None:
                raise FeedError(f"--val-range gives the range of every input twice ({item!r})")
            ranges.default = value_range
        elif name in ranges.by_name:
            raise FeedError(f"--val-range gives input {name!r} twice")
        else:
            ranges.by_name[name] = value_range
    return ranges


def _parse_range(item: str, text: str) -> ValueRange:
    usage = f"--val-range expects [LOW,HIGH] or NAME:[LOW,HIGH] with LOW <= HIGH, got {item!r}"
    if not (text.startswith("[") and text.endswith("]")):
        raise FeedError(usage)
    parts = text[1:-1].split(",")
    if len(parts) != 2:
        raise FeedError(usage)
    try:
        low, high = float(parts[0]), float(parts[1])
    except ValueError:
        raise FeedError(usage) from None
    if not (math.isfinite(low) and math.isfinite(high)) or low > high:
        raise FeedError(usage)
    return low, high


def resolve_value_ranges(model: Model, ranges: ValueRanges) -> dict[int, ValueRange]:
    """Per-input ranges keyed by Parameter id (names as feeds name them: layer or tensor name)."""
    inputs = model.input_index()
    resolved: dict[int, ValueRange] = {}
    for name, value_range in (ranges.by_name or {}).items():
        parameter = inputs.get(name)
        if parameter is None:
            raise FeedError(f"--val-range names {name!r}, but the model has no such input; inputs: "
                            f"{input_names(model)}")
        if parameter.id in resolved:
            raise FeedError(f"--val-range gives input {parameter.name!r} twice")
        resolved[parameter.id] = value_range
    return resolved


def describe_inputs(feeds: Sequence[Feed]) -> list[dict[str, object]]:
    """Name, element type, shape and source of each feed (the ``inputs`` of a JSON summary)."""
    return [{"name": feed.name, "element_type": element_type_name(feed.array), "shape": list(feed.array.shape),
             "source": feed.source} for feed in feeds]


def save_inputs(path: str, feeds: Sequence[Feed]) -> None:
    """Write the feeds a run used, atomically: Polygraphy's JSON for a ``.json`` path, else an ``.npz``."""
    arrays = {feed.name: npz.for_storage(feed.array) for feed in feeds}
    if path.lower().endswith(".json"):
        from irgraph.io.data import polygraphy_json

        polygraphy_json.write_inputs(path, [arrays])
    else:
        npz.write_npz(path, arrays)
