"""Interpreter(model).run(feeds): execute a model with NumPy in topological order.

The model is checked and scheduled once, when the Interpreter is built: every tensor gets a slot
in a list, every step knows which slots it reads, writes and frees, and Const values are bound
ahead of time, so a run does no graph or dict work beyond binding the feeds. Ops whose inputs are
all constant (f16 weights -> Convert) are evaluated then too, once per Interpreter. Ops that can
say their output shapes without computing them (``Op.output_shapes``) are checked against the
element limit before they allocate.

Data moves once. Split and VariadicSplit outputs are views; a Concat output is *deferred*: it is
kept as the list of its parts (views), splitting it slices the parts, and joining it again
extends the list. The bytes are written once, into the output array, when a Result (or an op that
needs a real array) asks for it. A chain of splits and concats therefore costs one copy and the
memory of its inputs and outputs, as OpenVINO's in-place Split and Concat do.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from irgraph.analysis.shape_inference import ensure_shapes
from irgraph.control_flow.bodies import run_budget
from irgraph.core.collector import paused_collector
from irgraph.core.element_types import ElementType
from irgraph.core.errors import EvaluationError, GraphError, InputError, IrError, Location, OpError, ResourceLimitError
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT, DEFAULT_ITERATION_LIMIT
from irgraph.core.mappings import check_mapping, mapping_of
from irgraph.core.shapes import TensorType
from irgraph.graph import Model, Node
from irgraph.ops import Const, Op, Parameter, Result
from irgraph.runtime import _in_place, _pages
from irgraph.runtime._threads import BlasThreads
from irgraph.runtime.decompression import POLICIES, DecompressionPolicy, widen, widened_nodes
from irgraph.runtime.marking import Mark, resolve_marks
from irgraph.runtime.state import Variables

MAX_PARTS = 4096
"""A deferred Concat with more parts than this (counting nested ones) is written at once."""
MAX_DEPTH = 16
"""A deferred Concat nested deeper than this (concats along alternating axes) is written at once."""

_GENERIC, _SPLIT, _JOIN, _CONST, _STATEFUL, _IN_PLACE = range(6)


class _Step(NamedTuple):
    node: Node
    kind: int
    op: Any
    inputs: tuple[int, ...]
    """Slots read, in input order."""
    outputs: tuple[int, ...]
    """Slot written by each output."""
    free_slots: tuple[int, ...]
    """Slots dropped after the step (their last use)."""
    frees: tuple[tuple[int, int], ...]
    """The same as (node id, output index) keys, for inspection."""
    unknown: tuple[tuple[int, TensorType], ...] = ()
    """Outputs whose shape shape inference could not settle (it depends on input values: NonZero, Range,
    a computed Reshape): the arrays the run produces are checked against the inferred partial type."""


def _weights_mappings(model: Model) -> list[Any]:
    """The weights-file mappings (``mmap``) the Const values of ``model`` and its bodies view, each once."""
    found: dict[int, Any] = {}
    models = [model]
    while models:
        for node in models.pop():
            if node.op.carries_tensor and (mapping := mapping_of(getattr(node.op, "value", None))) is not None:
                found.setdefault(id(mapping), mapping)
            models.extend(body.model for body in node.bodies)
    return list(found.values())


MAX_RANK = 64 if int(np.__version__.split(".")[0]) >= 2 else 32
"""Most dimensions an array may have (NumPy's own limit: NPY_MAXDIMS)."""


class Interpreter:
    """Runs a model: checks it once, then executes it any number of times.

    Split outputs are views of their input; each Concat writes its output at most once (only when a
    Result or an op other than Split, VariadicSplit and Concat needs it); every tensor is dropped
    after its last use. int64 and float64 are computed exactly (no down-casting).

    With ``reuse_outputs=True`` the output arrays the model writes (those computed by a Concat)
    are kept and written again by the next run when their shape and element type are the same,
    as OpenVINO does with ``share_outputs``: no memory is allocated, but **the arrays returned by
    one run are overwritten by the next** (copy them to keep them), and such an Interpreter must
    not run in two threads at once. An output fed back as an input is never written over: that
    run writes a new array. Outputs that are inputs or views of inputs are returned as they are,
    in both modes.

    TensorIterator, Loop and If layers run their bodies with Interpreters of their own, prepared
    here once (``irgraph.control_flow``); a run that would execute more than ``iteration_limit``
    bodies in all (iterations and branches, nested ones included) is refused, naming the layer.

    ``mark`` names intermediate tensors (or ``"all"``) that ``run`` returns after the outputs, keyed
    as :mod:`irgraph.runtime.marking` says (``self.marks``); marking keeps them alive, nothing else changes.

    ``threads`` sets how many threads NumPy's BLAS uses during each run (restored after it); None
    leaves the library's count (one per core). One thread is faster when other work keeps the
    cores busy (see :mod:`irgraph.runtime._threads`).

    ``decompression`` is the precision of weight decompression chains (Const u8/u4/... -> Convert f16 -> Subtract
    -> Multiply -> Convert f32): ``"ir"`` rounds each step to f16 as the IR's types and OpenVINO's reference do;
    ``"f32"`` computes the chain in f32, as OpenVINO's CPU plugin does (see :mod:`irgraph.runtime.decompression`).
    """

    def __init__(
        self,
        model: Model,
        *,
        element_limit: int = DEFAULT_ELEMENT_LIMIT,
        reuse_outputs: bool = False,
        iteration_limit: int = DEFAULT_ITERATION_LIMIT,
        mark: str | Iterable[str] | None = None,
        threads: int | None = None,
        decompression: DecompressionPolicy = "ir",
    ) -> None:
        if decompression not in POLICIES:
            raise InputError(f"decompression must be one of {', '.join(POLICIES)}; got {decompression!r}")
        self.model = model
        self.decompression = decompression
        self._threads = BlasThreads(threads) if threads is not None else None
        """BLAS threads of each run (see irgraph.runtime._threads); None: the BLAS library's own count."""
        self.element_limit = element_limit
        self.reuse_outputs = reuse_outputs
        self.iteration_limit = iteration_limit
        self.marks: list[Mark] = resolve_marks(model, mark) if mark else []
        self.on_step: Callable[[Node], None] | None = None
        """Called with each layer before it runs (progress reporting); None: nothing is called."""
        self.on_step_time: Callable[[Node, float], None] | None = None
        """Called with each layer after it ran and the seconds it took (``irgraph.tools.profiling``); None: no clock
        is read."""
        with paused_collector():
            self._prepare()

    def _prepare(self) -> None:
        model = self.model
        self._mappings = _weights_mappings(model)
        """The weights-file mappings the model's Consts view (bodies' too): checked before every run."""
        for mapping in self._mappings:
            check_mapping(mapping)  # shape inference and constant folding below read them
        ensure_shapes(model)  # a model inferred unchanged since (by a write, an earlier run) is not walked again
        _refuse_blockers(model)
        for node in model:
            for index, tensor in enumerate(node.output_types):
                if tensor is not None and not tensor.shape.rank_is_dynamic and tensor.shape.rank > MAX_RANK:
                    raise EvaluationError(f"output {index} has rank {tensor.shape.rank}; NumPy, which irgraph runs "
                                          f"models with, holds at most {MAX_RANK} dimensions", node.location)
        for parameter in model.parameters:
            if parameter.op.element_type.is_dynamic:  # type: ignore[attr-defined]
                raise EvaluationError(
                    f"input {parameter.name!r} has a dynamic element type, so the model cannot run (OpenVINO "
                    "refuses to compile it too): give the Parameter a concrete element_type",
                    parameter.location,
                )
        if not model.results:
            raise GraphError(
                f"model {model.name!r} has no Result layers: there is nothing to compute",
                Location(file=model.source, line=model.source_line),
            )
        self._kept: dict[int, np.ndarray] = {}
        self._run_states: dict[int, Any] = {}
        """Per node id, the state an op that keeps one (RandomUniform) starts its next run from."""
        self.state = Variables(model, self.element_limit)
        """The variables of a stateful model (ReadValue/Assign) and their values, kept across runs."""
        self._schedule()

    def _schedule(self) -> None:
        """Number the tensors, bind the Consts and list the steps with the slots they free."""
        model = self.model
        order = model.topological_order()
        sources = {node.id: model.input_sources(node) for node in order}
        results = model.results
        needed = model.reachable_from_results()
        slots: dict[tuple[int, int], int] = {}
        self._parameters: list[tuple[Node, int]] = [
            (parameter, slots.setdefault((parameter.id, 0), len(slots))) for parameter in model.parameters
        ]
        self._feeds: dict[str, tuple[Node, int]] = {
            name: (parameter, slots[(parameter.id, 0)]) for name, parameter in model.input_index().items()
        }
        steps: list[tuple[Node, int, Any, tuple[int, ...], tuple[int, ...]]] = []  # _Step's first five fields
        self._runs_bodies = False
        """Whether a layer runs sub-graph bodies (each run then counts them: see control_flow.run_budget)."""
        last_use: dict[int, int] = {}
        result_slots: dict[int, tuple[str, int]] = {}
        output_keys = model.output_keys()
        constants: dict[int, np.ndarray] = {}
        widened = widened_nodes(model) if self.decompression == "f32" else frozenset()
        for node in order:
            if node.id not in needed:
                continue
            op = node.op
            if isinstance(op, Result):
                source = sources[node.id][0]
                if source is not None:
                    slot = slots.setdefault((source.node_id, source.index), len(slots))
                    result_slots[node.id] = (output_keys[node.id], slot)
                continue
            if isinstance(op, Parameter):
                continue
            op = op.plan_step(node, self._body_interpreter)  # TensorIterator, Loop, If: a runner of their bodies
            if node.bodies:
                self._runs_bodies = True
            inputs = tuple(slots.setdefault((s.node_id, s.index), len(slots)) for s in sources[node.id])  # type: ignore[union-attr]
            outputs = tuple(slots.setdefault((node.id, index), len(slots)) for index in range(node.num_outputs))
            if isinstance(op, Const):
                try:
                    (constants[outputs[0]],) = op.evaluate([])
                    continue
                except IrError:
                    kind = _CONST  # evaluated (and failing, with its location) at run time
            elif op.keeps_run_state:
                kind = _STATEFUL  # new numbers every run, even from constant inputs: never folded
            elif inputs and all(slot in constants for slot in inputs) and \
                    self._fold(op, inputs, outputs, constants, widen_f16=node.id in widened):
                continue  # a constant sub-graph (f16 weights -> Convert): computed once, here, not per run
            elif op.joins_inputs:
                kind = _JOIN
            elif op.slices_data:
                kind = _SPLIT
            else:
                kind = _GENERIC
            position = len(steps)
            for slot in inputs:
                last_use[slot] = position
            steps.append((node, kind, self.state.bind(node, op, inputs, constants), inputs, outputs))
        # Outputs in model output order (Result document order), not in the topological order of the walk.
        self._results = [result_slots[node.id] for node in results if node.id in result_slots]
        self._marked = [(mark.key, slots[(mark.port.node_id, mark.port.index)]) for mark in self.marks]
        keep = {slot for _, slot in self._results}.union(slot for _, slot in self._marked)
        frees: dict[int, list[int]] = {}
        for slot, position in last_use.items():
            if slot not in keep and slot not in constants:
                frees.setdefault(position, []).append(slot)
        keys = {slot: key for key, slot in slots.items()}
        read = keep.union(*(step[3] for step in steps))
        # Ops told which outputs nothing reads can skip them (MaxPool's indices).
        steps = [(node, kind, op.for_outputs([slot in read for slot in outputs]), inputs, outputs)
                 for node, kind, op, inputs, outputs in steps]
        for position, (node, kind, op, inputs, outputs) in enumerate(steps):
            if kind == _GENERIC and op.writes_in_place and inputs and inputs[0] in frees.get(position, ()) \
                    and inputs[0] not in inputs[1:]:
                steps[position] = (node, _IN_PLACE, op, inputs, outputs)  # may write over input 0 (see _in_place)
        self._plan = [
            _Step(node, kind, op, inputs, outputs, tuple(frees.get(position, ())),
                  tuple(keys[slot] for slot in frees.get(position, ())),
                  _unknown_outputs(node) if kind != _JOIN else ())
            for position, (node, kind, op, inputs, outputs) in enumerate(steps)
        ]
        self._slots = slots
        """(node id, output index) -> slot: where a body's Parameters and Results live."""
        self._template: list[Any] = [None] * len(slots)
        for slot, value in constants.items():
            if slot in read:  # the inputs of folded sub-graphs (f16 weights) are not kept
                self._template[slot] = value

    def _body_interpreter(self, body: Model) -> Interpreter:
        """An Interpreter for a body of one of this model's layers, with this one's limits."""
        return Interpreter(body, element_limit=self.element_limit, iteration_limit=self.iteration_limit,
                           decompression=self.decompression)

    def _fold(
        self, op: Op, inputs: tuple[int, ...], outputs: tuple[int, ...], constants: dict[int, np.ndarray],
        *, widen_f16: bool = False,
    ) -> bool:
        """Evaluate an op whose inputs are all constant; False (it runs, and fails, at run time) when
        it fails or its outputs are above the element limit. ``widen_f16``: a layer of a decompression chain the
        f32 policy computes in f32."""
        stored = arguments = [constants[slot] for slot in inputs]
        if widen_f16:
            op, arguments = widen(op, arguments)
        try:
            shapes = op.output_shapes(arguments)
            if shapes is not None and any(math.prod(shape) > self.element_limit for shape in shapes):
                return False
            produced = op.evaluate(arguments)
        except IrError:
            return False
        if len(produced) != len(outputs) or any(np.size(value) > self.element_limit for value in produced):
            return False
        for slot, value in zip(outputs, produced, strict=True):
            constants[slot] = value
        for argument in stored:  # f16 weights read through the .bin mapping: converted, no longer resident
            _pages.release(argument)
        return True

    @property
    def steps(self) -> int:
        """How many layers a run executes (Consts and constant sub-graphs are computed once, ahead)."""
        return len(self._plan)

    @property
    def planned_layers(self) -> list[Node]:
        """The layers a run executes, in the order it runs them (``steps`` of them)."""
        return [step.node for step in self._plan]

    def run(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Execute the model; returns every output keyed as DESIGN.md section 6 says."""
        for mapping in self._mappings:
            check_mapping(mapping)
        values = self._template.copy()
        try:
            self._bind(feeds, values)
        except IrError as err:  # feeds that no Parameter takes, or none at all, are located at the model's file
            raise err.locate(Location(file=self.model.source)) from None
        self.state.begin()
        with self._threads.limit() if self._threads is not None else contextlib.nullcontext(), (
                run_budget(self.iteration_limit) if self._runs_bodies else contextlib.nullcontext()):
            self._execute(values)
        self.state.commit()  # Assign values land only once the whole run succeeded
        outputs = {key: self._output(position, values[slot]) for position, (key, slot) in enumerate(self._results)}
        for key, slot in self._marked:  # a deferred Concat is written here, for this marked output only
            outputs[key] = _dense(values[slot])
        return outputs

    def _run_slots(self, slots: Sequence[int], bound: Sequence[Any], wanted: Sequence[int]) -> list[np.ndarray]:
        """Run with ``bound[i]`` in ``slots[i]`` (a body's Parameters, unchecked); the ``wanted`` slots' arrays."""
        values = self._template.copy()
        for slot, value in zip(slots, bound, strict=True):
            values[slot] = value
        self._execute(values)
        return [_dense(values[slot]) for slot in wanted]

    def _execute(self, values: list[Any]) -> None:
        """Run the plan on ``values`` (one entry per slot, the inputs bound), in place."""
        limit = self.element_limit
        node = None
        on_step = self.on_step
        on_step_time = self.on_step_time
        started = 0.0
        private: set[int] = set()  # slots whose arrays an in-place step may write over (see _in_place)
        try:
            for node, kind, op, inputs, outputs, frees, _, unknown in self._plan:  # noqa: B007 - node locates errors
                if on_step is not None:
                    on_step(node)
                if on_step_time is not None:
                    started = time.perf_counter()
                arguments = [values[slot] for slot in inputs]
                if kind == _JOIN:
                    produced: Sequence[Any] = (_join(op, arguments, limit),)
                elif kind == _SPLIT:
                    produced = op.evaluate([arguments[0], *map(_dense, arguments[1:])])
                else:
                    dense = [_dense(value) for value in arguments]
                    shapes = op.output_shapes(dense)  # checked before the op allocates
                    if shapes is not None:
                        for index, shape in enumerate(shapes):
                            if math.prod(shape) > limit:
                                raise ResourceLimitError(
                                    f"output {index} has {math.prod(shape)} elements, above the limit of {limit}"
                                )
                    if kind == _STATEFUL:
                        produced, self._run_states[node.id] = op.evaluate_with_state(
                            dense, self._run_states.get(node.id))
                    elif kind == _IN_PLACE:
                        produced = op.evaluate(dense, _in_place.donor(dense, inputs, private))
                    else:
                        produced = op.evaluate(dense)
                if len(produced) > len(outputs) and op.unconnected_extra_outputs:
                    produced = produced[: len(outputs)]
                if unknown:
                    _check_unknown(produced, unknown)
                for index, (value, slot) in enumerate(zip(produced, outputs, strict=True)):
                    if kind != _CONST and value.size > limit:
                        raise ResourceLimitError(
                            f"output {index} has {value.size} elements, above the limit of {limit}"
                        )
                    values[slot] = value
                _in_place.track(private, kind in (_GENERIC, _IN_PLACE), kind == _IN_PLACE, inputs, outputs, produced,
                                arguments)
                for slot in frees:
                    values[slot] = None
                produced, value = (), None  # no stale references: _in_place counts them
                if on_step_time is not None:
                    on_step_time(node, time.perf_counter() - started)
        except OpError as err:
            raise EvaluationError(err.message, node.location) from None  # type: ignore[union-attr]
        except IrError as err:
            raise err.locate(node.location) from None  # type: ignore[union-attr]

    def reset_state(self, variable_id: str | None = None) -> None:
        """Forget the value of every variable (or of one): the next run reads their initial values."""
        self.state.reset(variable_id)

    def get_state(self, variable_id: str) -> np.ndarray:
        """A copy of a variable's value (its initial value before it has one, when known without a run)."""
        return self.state.get(variable_id)

    def set_state(self, variable_id: str, value: np.ndarray) -> None:
        """Set a variable (copied); it must have the element type and fit the shape its ReadValue declares."""
        self.state.set(variable_id, value)

    def _output(self, position: int, value: Any) -> np.ndarray:
        """The array of one output: a deferred Concat is written here (into the kept array if any)."""
        if type(value) is not _Joined:
            return value
        if value.array is None and self.reuse_outputs:
            kept = self._kept.get(position)
            if kept is not None and kept.shape == value.shape and kept.dtype == value.dtype:
                value.write(kept)
        array = value.materialize()
        if self.reuse_outputs:
            self._kept[position] = array
        return array

    def _bind(self, feeds: Mapping[str, np.ndarray], values: list[Any]) -> None:
        bound = set()
        for name, array in feeds.items():
            entry = self._feeds.get(name)
            if entry is None:
                known = ", ".join(sorted(self._feeds)) or "none"
                raise InputError(f"the model has no input named {name!r}; inputs: {known}")
            parameter, slot = entry
            if slot in bound:
                raise InputError(f"input {parameter.name!r} is given twice (also as {name!r})")
            bound.add(slot)
            values[slot] = check_feed(parameter, name, array, self.element_limit)
        if len(bound) != len(self._parameters):
            missing = [p.name for p, slot in self._parameters if slot not in bound]
            raise InputError(f"no data for input(s) {', '.join(repr(m) for m in missing)}")
        if self._kept:
            # Only a feed can overlap a kept array (an output fed back in): write that output afresh.
            for slot in bound:
                for position, kept in list(self._kept.items()):
                    if np.may_share_memory(kept, values[slot]):
                        del self._kept[position]


SHOWN_LINES = 5
"""A reason many layers share names this many of their lines."""


def _refuse_blockers(model: Model) -> None:
    """Raise one EvaluationError naming every reason a layer of ``model`` (bodies included) cannot run, each
    once with its layers' lines, located at the first such layer; nothing when every layer can run."""
    blockers: dict[str, list[Node]] = {}
    pending = [model]
    while pending:
        graph = pending.pop(0)
        for node in graph:
            reason = node.op.cannot_run_reason
            if reason is not None:
                blockers.setdefault(reason, []).append(node)
            pending.extend(body.model for body in node.bodies)
    if not blockers:
        return
    first = next(iter(blockers.values()))[0]
    if len(blockers) == 1:
        ((reason, nodes),) = blockers.items()
        raise EvaluationError(reason + (f" ({_layers_text(nodes)})" if len(nodes) > 1 else ""), first.location)
    listing = " ".join(f"{number}) {reason} ({_layers_text(nodes)})."
                       for number, (reason, nodes) in enumerate(blockers.items(), 1))
    raise EvaluationError(f"{len(blockers)} kinds of layers in this model cannot run: {listing}", first.location)


def _layers_text(nodes: list[Node]) -> str:
    """``layer 'conv1' at line 12`` or ``3 layers, at lines 12, 40, 77``."""
    lines = [str(node.location.line) for node in nodes if node.location.line is not None]
    if len(nodes) == 1:
        return f"layer {nodes[0].name!r}" + (f" at line {lines[0]}" if lines else "")
    shown = ", ".join(lines[:SHOWN_LINES]) + (", ..." if len(lines) > SHOWN_LINES else "")
    return f"{len(nodes)} layers" + (f", at lines {shown}" if lines else "")


def _unknown_outputs(node: Node) -> tuple[tuple[int, TensorType], ...]:
    """The outputs of ``node`` whose inferred shape is not static, with their inferred types."""
    return tuple((index, found) for index, found in enumerate(node.output_types)
                 if found is not None and not found.shape.is_static)


def _check_unknown(produced: Sequence[Any], unknown: tuple[tuple[int, TensorType], ...]) -> None:
    """Refuse an output whose run-time shape or element type contradicts its inferred partial type."""
    for index, expected in unknown:
        value = produced[index]
        shape = getattr(value, "shape", None)
        if shape is not None and not expected.shape.accepts(shape):
            raise EvaluationError(f"output {index} has shape {list(shape)} at run time, outside its inferred shape "
                                  f"{expected.shape}")
        element_type = expected.element_type
        dtype = getattr(value, "dtype", None)
        if dtype is not None and not element_type.is_dynamic and dtype != element_type.numpy_dtype:
            raise EvaluationError(f"output {index} has element type {value.dtype} at run time; shape inference gives "
                                  f"{element_type}")


class _Joined:
    """A Concat output not written yet: ``parts`` joined along ``axis``.

    Parts are arrays (views of feeds, Consts or written tensors) or other ``_Joined`` values along
    other axes (``depth`` > 1); ``count`` is the number of arrays under it. It offers what Split,
    VariadicSplit and Concat read (``ndim``, ``shape``, ``dtype``, ``size`` and slicing with step
    1); slicing cuts the parts without copying. ``materialize`` writes the bytes once.
    """

    __slots__ = ("axis", "parts", "shape", "dtype", "ndim", "size", "count", "depth", "array")

    def __init__(
        self, axis: int, parts: list[Any], shape: tuple[int, ...], dtype: np.dtype, count: int, depth: int
    ) -> None:
        self.axis = axis
        self.parts = parts
        self.shape = shape
        self.dtype = dtype
        self.ndim = len(shape)
        self.size = math.prod(shape)
        self.count = count
        self.depth = depth
        self.array: np.ndarray | None = None

    def __getitem__(self, key: Any) -> Any:
        if self.array is not None:
            return self.array[key]
        if not isinstance(key, tuple):
            key = (key,)
        if len(key) > self.ndim or not all(type(k) is slice and k.step in (None, 1) for k in key):
            return self.materialize()[key]
        bounds = [k.indices(size)[:2] for k, size in zip(key, self.shape, strict=False)]
        bounds += [(0, size) for size in self.shape[len(key):]]
        return self._cut([(start, max(start, stop)) for start, stop in bounds])

    def _cut(self, bounds: list[tuple[int, int]]) -> _Joined:
        """The box ``bounds`` (one (start, stop) per dim), still deferred."""
        axis = self.axis
        start, stop = bounds[axis]
        parts = []
        count, depth = 0, 1
        offset = 0
        for part in self.parts:
            if type(part) is _Joined and part.array is not None:
                part = part.array
            length = part.shape[axis]
            low, high = max(start, offset), min(stop, offset + length)
            if low < high:
                inner = list(bounds)
                inner[axis] = (low - offset, high - offset)
                if type(part) is _Joined:
                    piece = part._cut(inner)  # nesting is bounded by MAX_DEPTH
                    count += piece.count
                    depth = max(depth, piece.depth + 1)
                else:
                    piece = part[tuple(slice(a, b) for a, b in inner)]
                    count += 1
                parts.append(piece)
            offset += length
            if offset >= stop:
                break
        return _Joined(axis, parts, tuple(b - a for a, b in bounds), self.dtype, count, depth)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self.materialize()
        return array if dtype is None else array.astype(dtype, copy=False)

    def materialize(self) -> np.ndarray:
        """The joined array, written now (once) into fresh memory."""
        if self.array is None:
            self.write(np.empty(self.shape, self.dtype))
        return self.array  # type: ignore[return-value]

    def write(self, target: np.ndarray) -> None:
        """Write the joined data into ``target`` (of this shape and dtype); it becomes the array."""
        parts = self.parts
        if self.depth == 1:  # arrays only: one NumPy call
            if len(parts) > 1:
                np.concatenate(parts, axis=self.axis, out=target)
            elif parts:
                np.copyto(target, parts[0])
        else:
            head = (slice(None),) * self.axis
            offset = 0
            for part in parts:
                length = part.shape[self.axis]
                window = target[(*head, slice(offset, offset + length))]
                if type(part) is not _Joined:
                    np.copyto(window, part)
                elif part.array is not None:
                    np.copyto(window, part.array)
                else:
                    part.write(window)  # nesting is bounded by MAX_DEPTH
                offset += length
        self.array = target
        self.parts = [target]
        self.count = self.depth = 1


def _dense(value: Any) -> Any:
    """An array for ops that need one (a deferred Concat is written now)."""
    return value.materialize() if type(value) is _Joined else value


def _join(op: Op, inputs: list[Any], limit: int) -> Any:
    """A join (Concat) without copying: check as its ``evaluate`` does, then list the parts."""
    axis = op.check_inputs(inputs)  # type: ignore[attr-defined]
    parts: list[Any] = []
    count, depth, length = 0, 1, 0
    for value in inputs:
        length += value.shape[axis]
        if value.size == 0:
            continue
        while type(value) is _Joined:
            if value.array is not None:
                value = value.array
            elif len(value.parts) == 1:
                value = value.parts[0]
            else:
                break
        if type(value) is not _Joined:
            parts.append(value)
            count += 1
        elif value.axis == axis:
            parts.extend(value.parts)
            count += value.count
            depth = max(depth, value.depth)
        else:
            parts.append(value)
            count += value.count
            depth = max(depth, value.depth + 1)
    first = inputs[0].shape
    joined = _Joined(axis, parts, (*first[:axis], length, *first[axis + 1 :]), inputs[0].dtype, count, depth)
    if joined.size > limit:
        raise ResourceLimitError(f"output 0 has {joined.size} elements, above the limit of {limit}")
    if count > MAX_PARTS or depth > MAX_DEPTH:
        return joined.materialize()
    return joined


def check_feed(parameter: Node, name: str, array: np.ndarray, element_limit: int) -> np.ndarray:
    """Check a feed against its Parameter's element type (exactly, no casts) and partial shape."""
    array = np.asarray(array)
    check_feed_type(parameter, name, array.dtype, array.shape, element_limit)
    if parameter.op.element_type is ElementType.STRING:  # type: ignore[attr-defined]
        array = array.astype(object)
    return array


def check_feed_type(
    parameter: Node, name: str, dtype: np.dtype, shape: tuple[int, ...], element_limit: int
) -> None:
    """:func:`check_feed` on a feed's dtype and shape alone: file headers are checked before their data is read."""
    op: Parameter = parameter.op  # type: ignore[assignment]
    expected = op.element_type
    if expected is ElementType.STRING:
        if dtype.kind not in "UO":
            raise InputError(f"input {name!r} must hold strings; got dtype {dtype}", parameter.location)
    elif not expected.is_dynamic and dtype != expected.numpy_dtype:
        raise InputError(
            f"input {name!r} must have element type {expected} (NumPy {expected.numpy_dtype}); got {dtype}",
            parameter.location,
        )
    elif dtype.kind == "O":
        raise InputError(f"input {name!r} is an object array; only typed arrays can be fed", parameter.location)
    if not op.shape.accepts(shape):
        raise InputError(
            f"input {name!r} has shape [{','.join(map(str, shape))}], which does not fit {op.shape}",
            parameter.location,
        )
    size = math.prod(shape)
    if size > element_limit:
        raise ResourceLimitError(
            f"input {name!r} has {size} elements, above the limit of {element_limit}", parameter.location
        )


def run(model: Model, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run ``model`` once on ``feeds`` (keyed by Parameter name or tensor name)."""
    return Interpreter(model).run(feeds)
