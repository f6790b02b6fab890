"""Interpreter(model).run(feeds): execute a model with NumPy in topological order.

The model is checked and planned once, when the Interpreter is built (:mod:`irgraph.runtime.plan`):
every tensor gets a slot in a list, every step knows which slots it reads, writes and frees, and
Const values are bound ahead of time, so a run does no graph or dict work beyond binding the feeds.
Ops whose inputs are all constant (f16 weights -> Convert) are evaluated then too, once per
Interpreter. Each step's output shapes are checked against the element limit before its op
allocates: the ones shape inference settled, else the op's ``output_shapes``, remembered per input
shapes in the plan (:mod:`irgraph.runtime.step_shapes`).

Data moves once. Split and VariadicSplit outputs are views; a Concat output is *deferred*
(:mod:`irgraph.runtime.deferred`): kept as the list of its parts, written once, when a Result or an op
that needs a real array asks for it.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.analysis.shape_inference import ensure_shapes
from irgraph.core.collector import paused_collector
from irgraph.core.element_types import ElementType
from irgraph.core.errors import EvaluationError, GraphError, InputError, IrError, Location, OpError, ResourceLimitError
from irgraph.core.lazy import lazy_module
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT, DEFAULT_ITERATION_LIMIT
from irgraph.core.mappings import check_mapping, mapping_of
from irgraph.graph import Model, Node
from irgraph.ops import Parameter
from irgraph.runtime import _fast
from irgraph.runtime._fast import heap, in_place
from irgraph.runtime._fast.specialize import ShapeKey, Specialiser, folded_constants, shape_key, with_input_shapes
from irgraph.runtime._fast.ufunc_steps import compiled_program
from irgraph.runtime._threads import BlasThreads
from irgraph.runtime.decompression import POLICIES, DecompressionPolicy
from irgraph.runtime.deferred import Joined, dense, join
from irgraph.runtime.marking import Mark, body_marks, resolve_marks
from irgraph.runtime.plan import Step, StepKind, build_plan
from irgraph.runtime.state import Variables
from irgraph.runtime.step_shapes import NOTHING_UNKNOWN

if TYPE_CHECKING:
    from irgraph.control_flow import bodies
else:  # only a model with sub-graph bodies imports them
    bodies = lazy_module("irgraph.control_flow.bodies")

_GENERIC, _SPLIT, _JOIN, _CONST, _STATEFUL, _IN_PLACE = (
    StepKind.GENERIC, StepKind.SPLIT, StepKind.JOIN, StepKind.CONST, StepKind.STATEFUL, StepKind.IN_PLACE)
"""The step kinds, bound once: reading ``StepKind.JOIN`` is a slow class attribute lookup (~0.3 us in CPython
3.11), too slow for the per-step loop."""


def _weights_mappings(model: Model) -> list[Any]:
    """The weights-file mappings (``mmap``) the Const values of ``model`` and its bodies view, each once."""
    found: dict[int, Any] = {}
    models = [model]
    while models:
        for node in models.pop():
            if node.op.traits.carries_tensor and (mapping := mapping_of(getattr(node.op, "value", None))) is not None:
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

    ``threads`` sets how many threads NumPy's BLAS uses during each run (restored after it); None takes
    the cores free when the run starts, at most the library's count (one per core), and a product split
    over another count may differ in its last bits: fix it for bit-reproducible runs (:mod:`irgraph.runtime._threads`).

    ``decompression`` is the precision of weight decompression chains (Const u8/u4/... -> Convert f16 -> Subtract
    -> Multiply -> Convert f32): ``"ir"`` rounds each step to f16 as the IR's types and OpenVINO's reference do;
    ``"f32"`` computes the chain in f32, as OpenVINO's CPU plugin does (see :mod:`irgraph.runtime.decompression`).
    The chains are folded once, here, by default: the Interpreter then holds every such weight decompressed (f32:
    4 bytes a weight, 8x an int4 file). ``keep_weights_compressed=True`` keeps them in their stored type and runs
    the chains at every run instead (each weight decompressed just before its reader and freed after it): far less
    memory, slower runs, the same outputs.

    ``known_constants``: outputs of constant layers already computed for this model (by (node id, output index)),
    bound instead of computed again. A model with dynamic input shapes run twice on feeds of the same shapes runs
    them with a plan of its own from then on (see :mod:`irgraph.runtime._fast.specialize`). ``trusts_types=False``
    for a body run on values of other shapes than its Parameters' (a Loop's growing back edge): no step relies on
    the static shapes then.
    """

    _shared_state: Variables | None = None  # a plan for some feed shapes shares its Interpreter's (_for_shapes)

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
        known_constants: Mapping[tuple[int, int], np.ndarray] | None = None,
        trusts_types: bool = True,
        keep_weights_compressed: bool = False,
    ) -> None:
        if decompression not in POLICIES:
            raise InputError(f"decompression must be one of {', '.join(POLICIES)}; got {decompression!r}")
        self.model = model
        self.decompression = decompression
        self.keep_weights_compressed = keep_weights_compressed
        self._threads = BlasThreads(threads)
        """BLAS threads of each run (see irgraph.runtime._threads)."""
        self.element_limit = element_limit
        self.reuse_outputs = reuse_outputs
        self.iteration_limit = iteration_limit
        self.marks: list[Mark] = resolve_marks(model, mark) if mark else []
        self._body_marks = body_marks(model, mark) if mark else {}
        """Per body Model (by id), the marks its Interpreter takes (see irgraph.runtime.marking)."""
        self._hands_over = bool(mark)
        """A marked body hands its marked tensors and outputs to the run's MarkedValues after each execution."""
        self.on_step: Callable[[Node], None] | None = None
        """Called with each layer before it runs (progress reporting); None: nothing is called."""
        self.on_step_time: Callable[[Node, float], None] | None = None
        """Called with each layer after it ran and the seconds it took (``irgraph.tools.profiling``); None: no clock
        is read."""
        self._known_constants = known_constants
        self._trusts_types = trusts_types
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
            for index, output in enumerate(node.outputs):
                tensor = output.type
                if tensor is not None and not tensor.shape.rank_is_dynamic and tensor.shape.rank > MAX_RANK:
                    raise EvaluationError(f"output {index} has rank {tensor.shape.rank}; NumPy, which irgraph runs "
                                          f"models with, holds at most {MAX_RANK} dimensions", node.location)
        for parameter in model.parameters:
            if parameter.op_as(Parameter).element_type.is_dynamic:
                raise EvaluationError(
                    f"input {parameter.name!r} has a dynamic element type, so the model cannot run (OpenVINO "
                    "refuses to compile it too): give the Parameter a concrete element_type",
                    parameter.location,
                )
        if not model.results:
            raise GraphError(f"model {model.name!r} has no Result layers: there is nothing to compute",
                             Location(file=model.source, line=model.source_line))
        self._kept: dict[int, np.ndarray] = {}
        self._run_states: dict[int, Any] = {}
        """Per node id, the state an op that keeps one (RandomUniform) starts its next run from."""
        self.state = self._shared_state or Variables(model, self.element_limit)
        """The variables of a stateful model (ReadValue/Assign) and their values, kept across runs."""
        self._schedule()

    def _schedule(self) -> None:
        """Number the tensors, bind the Consts and list the steps with the slots they free (runtime.plan)."""
        plan = build_plan(self.model, state=self.state, marks=self.marks, element_limit=self.element_limit,
                          widen_f16=self.decompression == "f32", body_interpreter=self._body_interpreter,
                          known=self._known_constants, trusts_types=self._trusts_types,
                          keep_weights_compressed=self.keep_weights_compressed)
        self._plan: list[Step] = plan.steps
        self._parameters = plan.parameters
        self._feeds = plan.feeds
        self._results = plan.results
        self._marked = plan.marked
        self._handed = [*self._results, *self._marked] if self._hands_over else []
        self._template = plan.template
        self._runs_bodies = plan.runs_bodies
        self._sets_blas_threads = self._runs_bodies or any(step.node.op.traits.calls_blas for step in self._plan)
        """Whether a run sets BLAS's thread count: only a step that multiplies matrices uses BLAS (a body may)."""
        self._slots = plan.slots
        """(node id, output index) -> slot: where a body's Parameters and Results live."""
        self._specialiser = Specialiser() if (
            _fast.ENABLED and not self.marks and not self._runs_bodies and self._shared_state is None
            and not all(parameter.op.shape.is_static for parameter, _ in self._parameters)) else None  # type: ignore[attr-defined]  # Parameters' ops
        """Plans for the shapes of repeated feeds (see irgraph.runtime._fast.specialize); None: never."""
        self._program = compiled_program(self._plan)
        """The plan as a run without hooks executes it: consecutive ufunc steps compiled into one function each
        (irgraph.runtime._fast.ufunc_steps), the other steps as they are."""
        skipped, self._initialized = self.state.initializing_layers([step.node for step in self._plan]) if (
            _fast.ENABLED and not self.marks) else (frozenset(), frozenset())
        steady = [step for index, step in enumerate(self._plan) if index not in skipped]
        self._steady = (steady, compiled_program(steady)) if skipped else None
        """The plan and program without the layers computing only the initial values of ``_initialized``'s
        variables: what a run executes when they all hold values (Variables.initializing_layers)."""

    def _for_shapes(self, key: ShapeKey) -> Interpreter | None:
        """An Interpreter of this model's copy with the input shapes of ``key`` (None when inference refuses
        them), sharing this one's constants and options."""
        shapes = {parameter.id: [parameter.op.shape[index] if size == -1 else size  # type: ignore[attr-defined]  # a Parameter: ? keeps its bounds
                                 for index, size in enumerate(dict(key)[slot])] for parameter, slot in self._parameters}
        copy = with_input_shapes(self.model, shapes)
        if copy is None:
            return None
        initial = dict(self.state._constant_initial)  # the copy may fold an initial value the model computes in a run
        specialised = Interpreter.__new__(Interpreter)
        specialised._shared_state = self.state  # one set of variables, whichever plan runs
        specialised.__init__(copy, element_limit=self.element_limit, reuse_outputs=self.reuse_outputs,  # type: ignore[misc]  # made with __new__ to share the state
                             iteration_limit=self.iteration_limit, threads=self._threads.count,
                             decompression=self.decompression, keep_weights_compressed=self.keep_weights_compressed,
                             known_constants=folded_constants(self._slots, self._template))
        self.state._constant_initial = initial
        specialised._kept = self._kept  # outputs kept for reuse_outputs are the model's, whichever plan wrote them
        return specialised

    def _body_interpreter(self, body: Model) -> Interpreter:
        """An Interpreter for a body of one of this model's layers, with this one's limits."""
        marks = self._body_marks.get(id(body))
        return Interpreter(body, element_limit=self.element_limit, iteration_limit=self.iteration_limit,
                           decompression=self.decompression, keep_weights_compressed=self.keep_weights_compressed,
                           mark=marks[1] if marks is not None else None, trusts_types=False)

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
        if self._specialiser is not None and self.on_step is None and self.on_step_time is None and (
                shapes := shape_key(feeds, self._feeds, len(self._parameters))) is not None and (
                not self.state.declared or (shapes := self._specialiser.loop_key(shapes)) is not None) and (
                specialised := self._specialiser.interpreter_for(shapes, self._for_shapes)) is not None:
            return specialised.run(feeds)
        for mapping in self._mappings:
            check_mapping(mapping)
        values = self._template.copy()
        try:
            self._bind(feeds, values)
        except IrError as err:  # feeds that no Parameter takes, or none at all, are located at the model's file
            raise err.locate(Location(file=self.model.source)) from None
        self.state.begin()
        with self._threads.limit() if self._sets_blas_threads else contextlib.nullcontext(), (
                bodies.run_budget(self.iteration_limit) if self._runs_bodies else contextlib.nullcontext()), (
                bodies.collecting_marks(self.element_limit) if self._body_marks else contextlib.nullcontext()
        ) as in_bodies:
            self._execute(values)
        self.state.commit()  # Assign values land only once the whole run succeeded
        heap.keep_freed_memory()  # from the second run on, its arrays reuse the first one's pages
        outputs = {key: self._output(position, values[slot]) for position, (key, slot) in enumerate(self._results)}
        for key, slot in self._marked:  # a deferred Concat is written here, for this marked output only
            outputs[key] = dense(values[slot])
        if in_bodies is not None:  # keyed OWNER/iterK/...: no key of the model's own has that form
            outputs.update((key, value) for key, value in in_bodies.values.items() if key not in outputs)
        # cache_steps: planned by runtime._fast.kv_cache (see state.py), which only a model with variables imports
        return _fast.kv_cache.writable_outputs(outputs, self.state.cache_steps) if self.state.cache_steps else outputs

    def _run_slots(self, slots: Sequence[int], bound: Sequence[Any], wanted: Sequence[int]) -> list[np.ndarray]:
        """Run with ``bound[i]`` in ``slots[i]`` (a body's Parameters, unchecked); the ``wanted`` slots' arrays."""
        values = self._template.copy()
        for slot, value in zip(slots, bound, strict=True):
            values[slot] = value
        self._execute(values)
        if self._handed and (collected := bodies.marked_values()) is not None:
            for key, slot in self._handed:
                collected.add(key, dense(values[slot]))
        return [dense(values[slot]) for slot in wanted]

    def _execute(self, values: list[Any]) -> None:
        """Run the plan on ``values`` (one entry per slot, the inputs bound), in place."""
        limit = self.element_limit
        on_step = self.on_step
        on_step_time = self.on_step_time
        hooked = on_step is not None or on_step_time is not None
        plan, program = self._steady if self._steady is not None and self.state.hold(self._initialized) else (
            self._plan, self._program)
        started = 0.0
        private: set[int] = set()  # slots whose arrays an in-place step may write over (see in_place)
        step: Any = None
        try:
            # Warnings of float overflow and invalid values are the ops' business (each says what it computes);
            # one context for the run, not one per step.
            with np.errstate(all="ignore"):
                # With hooks every step goes through this loop (ufunc steps as the ops they are), one at a time.
                for step in plan if hooked else program:
                    if type(step) is not Step:  # consecutive ufunc steps, compiled
                        step(values, private)
                        continue
                    node, kind, op, inputs, outputs = step.node, step.kind, step.op, step.inputs, step.outputs
                    if on_step is not None:
                        on_step(node)
                    if on_step_time is not None:
                        started = time.perf_counter()
                    arguments = [values[slot] for slot in inputs]
                    if kind is _JOIN:
                        # JOIN steps are planned for Concat only (traits.joins_inputs): the Step types its op as any
                        produced: Sequence[Any] = (join(op, arguments, limit),)  # type: ignore[arg-type]  # see above
                    elif kind is _SPLIT:
                        produced = op.evaluate([arguments[0], *map(dense, arguments[1:])])
                    else:
                        # An in-place step's donor counts the references of a list of its own (in_place).
                        arrays = [dense(value) for value in arguments] if step.deferred_inputs or kind is _IN_PLACE \
                            else arguments
                        if step.checks_shapes:  # before allocating
                            _check_limit(step.output_shapes(arrays), limit)  # type: ignore[misc]  # set: allocates
                        if kind is _STATEFUL:
                            produced, self._run_states[node.id] = op.evaluate_with_state(
                                arrays, self._run_states.get(node.id))
                        elif kind is _IN_PLACE:
                            donated = in_place.donor(arrays, inputs, private)
                            if (direct := step.direct) is not None:  # the op's values, by its one ufunc call
                                produced = (direct.ufunc(*direct.leading, *arrays, out=donated[0]) if donated
                                            else direct.ufunc(*direct.leading, *arrays),)
                            else:  # IN_PLACE steps are planned for WritesInPlace ops only (traits.writes_in_place)
                                produced = op.evaluate_into(arrays, donated[0]) if donated else op.evaluate(arrays)  # type: ignore[attr-defined]  # WritesInPlace
                            donated = ()  # no stale reference: in_place counts them
                        else:
                            produced = op.evaluate(arrays) if (bound := step.evaluate) is None else bound(arrays)
                        arrays = ()  # type: ignore[assignment]  # no stale reference: in_place counts them
                    if len(produced) > len(outputs) and op.traits.unconnected_extra_outputs:
                        produced = produced[: len(outputs)]
                    if step.unknown is not NOTHING_UNKNOWN:  # an identity test: __bool__ is a Python call a step
                        step.unknown.check(produced)
                    for index, (value, slot) in enumerate(zip(produced, outputs, strict=True)):
                        if kind is not _CONST and value.size > limit:
                            raise ResourceLimitError(
                                f"output {index} has {value.size} elements, above the limit of {limit}"
                            )
                        values[slot] = value
                    if step.tracks:
                        in_place.track(private, kind is _GENERIC or kind is _IN_PLACE, kind is _IN_PLACE, inputs,
                                       outputs, produced, arguments)
                    for slot in step.free_slots:
                        values[slot] = None
                    produced, value = (), None  # no stale references: in_place counts them
                    if on_step_time is not None:
                        on_step_time(node, time.perf_counter() - started)
        except OpError as err:  # a compiled run of ufunc steps raises none (its types were checked ahead)
            raise EvaluationError(err.message, step.node.location if type(step) is Step else None) from None
        except IrError as err:
            raise (err.locate(step.node.location) if type(step) is Step else err) from None

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
        if type(value) is not Joined:
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


def _check_limit(shapes: list[tuple[int, ...]] | None, limit: int) -> None:
    """Refuse output shapes above the element limit (before the op allocates them)."""
    if shapes is not None:
        for index, shape in enumerate(shapes):
            if math.prod(shape) > limit:
                raise ResourceLimitError(f"output {index} has {math.prod(shape)} elements, above the limit of {limit}")


def check_feed(parameter: Node, name: str, array: np.ndarray, element_limit: int) -> np.ndarray:
    """Check a feed against its Parameter's element type (exactly, no casts) and partial shape."""
    array = np.asarray(array)
    check_feed_type(parameter, name, array.dtype, array.shape, element_limit)
    if parameter.op_as(Parameter).element_type is ElementType.STRING:
        array = array.astype(object)
    return array


def check_feed_type(
    parameter: Node, name: str, dtype: np.dtype, shape: tuple[int, ...], element_limit: int
) -> None:
    """:func:`check_feed` on a feed's dtype and shape alone: file headers are checked before their data is read."""
    op = parameter.op_as(Parameter)
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
        raise ResourceLimitError(f"input {name!r} has {size} elements, above the limit of {element_limit}",
                                 parameter.location)


def run(model: Model, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run ``model`` once on ``feeds`` (keyed by Parameter name or tensor name)."""
    return Interpreter(model).run(feeds)
