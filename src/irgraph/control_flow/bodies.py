"""What the runners of TensorIterator-1, Loop-5 and If-8 share: a body prepared to run, and the budget.

When an :class:`~irgraph.runtime.interpreter.Interpreter` is prepared, each layer with bodies is asked
for its ``plan_step`` (:class:`~irgraph.control_flow.sub_graph_op.SubGraphOp`): a *runner* that stands
for the op in the plan. The runner prepares an Interpreter per body once (a :class:`Program`; bodies
inside bodies are prepared by those, in turn) and works out once which body slots the port map binds;
an iteration then binds the body's Parameters and runs its plan, with no graph or dict work.

Bounded: one run executes at most ``iteration_limit`` bodies in all (every TensorIterator and Loop
iteration and If branch, at any nesting depth; :func:`run_budget` shares one budget between the
runs of a command, as ``ir-run --steps`` does), so nested Loops cannot multiply their counts. A
Loop whose count is known and above what is left is refused up front, any other when the budget
runs out, naming the layer. Concatenated outputs are counted against the element limit iteration
by iteration (before they are allocated), and bodies nest at most ``MAX_BODY_DEPTH`` deep.

Marked bodies (``Interpreter(model, mark=...)``, see :mod:`irgraph.runtime.marking`) hand their marked
tensors to the :class:`MarkedValues` of the run under way after every execution (:meth:`Program.run`
names the execution: ``OWNER/iterK/`` or ``OWNER/then/``), within the run's element limit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any, Protocol

import numpy as np

from irgraph.core.errors import EvaluationError, IrError, OpError, ResourceLimitError
from irgraph.graph import Body, Model, Node, OutputPort, PortMapEntry
from irgraph.ops import Parameter

__all__ = ["BodyBudget", "BodyInterpreter", "MakeInterpreter", "MarkedValues", "Program", "current_budget",
           "check_type", "collecting_marks", "in_body", "marked_values", "one_element", "run_budget", "want"]


class BodyBudget:
    """The body executions one run (or one command's runs) may still make: see :func:`run_budget`."""

    __slots__ = ("limit", "used")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def exceeded(self, node: Node, what: str, earlier: int) -> ResourceLimitError:
        """The refusal of ``node``, which would ``what`` (``run 5 iterations``) after ``earlier`` other body
        executions of the run, past the limit."""
        after = f" after {earlier} other body executions in this run" if earlier else ""
        return ResourceLimitError(
            f"{node.op.title()} would {what}{after}, above the iteration limit of {self.limit} (sub-graph body "
            "executions per run, nested ones included; raise it with Interpreter(..., iteration_limit=N) or ir-run "
            "--iteration-limit N)")


_budget: ContextVar[BodyBudget | None] = ContextVar("irgraph_body_budget", default=None)
"""The budget of the run under way in this thread (None: no run, or one without bodies)."""


@contextlib.contextmanager
def run_budget(limit: int) -> Iterator[BodyBudget]:
    """One budget of ``limit`` body executions for every run inside the block (the runs of one command).

    Inside another such block (a body running, or ``ir-run --steps`` around its runs) the outer
    budget is the one used, so its limit holds for the whole.
    """
    current = _budget.get()
    if current is not None:
        yield current
        return
    current = BodyBudget(limit)
    token = _budget.set(current)
    try:
        yield current
    finally:
        _budget.reset(token)


class MarkedValues:
    """The marked tensors of the bodies one run executes, keyed by where they ran (``loop/iter2/KEY``)."""

    __slots__ = ("limit", "prefix", "total", "values")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.prefix = ""
        self.total = 0
        self.values: dict[str, np.ndarray] = {}

    def add(self, key: str, value: np.ndarray) -> None:
        """Keep a body's marked tensor under the execution's prefix; all of them together within the limit."""
        self.total += value.size
        if self.total > self.limit:
            raise ResourceLimitError(f"the marked tensors of the sub-graph bodies hold more than {self.limit} elements "
                                     f"together (at {self.prefix + key}), above the limit of {self.limit}: mark fewer")
        self.values[self.prefix + key] = value

    @contextlib.contextmanager
    def inside(self, label: str) -> Iterator[None]:
        """Name the body execution under way (nested ones add to the name)."""
        outer = self.prefix
        self.prefix = f"{outer}{label}/"
        try:
            yield
        finally:
            self.prefix = outer


_marked: ContextVar[MarkedValues | None] = ContextVar("irgraph_marked_values", default=None)


def marked_values() -> MarkedValues | None:
    """Where the bodies of the run under way hand their marked tensors (None: no body is marked)."""
    return _marked.get()


@contextlib.contextmanager
def collecting_marks(limit: int) -> Iterator[MarkedValues]:
    """Collect the marked tensors of every body the block runs (one run of a marked Interpreter)."""
    collected = MarkedValues(limit)
    token = _marked.set(collected)
    try:
        yield collected
    finally:
        _marked.reset(token)


class BodyInterpreter(Protocol):
    """What a runner asks of the Interpreter prepared for a body (``irgraph.runtime.interpreter.Interpreter``):
    a protocol, so control flow stays below the runtime that calls it."""

    element_limit: int
    iteration_limit: int
    _slots: dict[tuple[int, int], int]

    def _run_slots(self, slots: Sequence[int], bound: Sequence[Any], wanted: Sequence[int]) -> list[np.ndarray]: ...


MakeInterpreter = Callable[[Model], BodyInterpreter]


def current_budget(iteration_limit: int) -> BodyBudget:
    """The budget of the run under way, or one of ``iteration_limit`` for a runner evaluated outside a run."""
    return _budget.get() or BodyBudget(iteration_limit)


# ------------------------------------------------------------------------------------ one body
class Program:
    """One body, prepared once: its Interpreter and the slots of its Parameters and Results by layer id."""

    __slots__ = ("body", "owner", "interpreter", "parameter_dtypes", "parameter_slots", "result_slots")

    def __init__(self, body: Body, owner: Node, make_interpreter: MakeInterpreter) -> None:
        self.body = body
        self.owner = owner
        try:
            self.interpreter = make_interpreter(body.model)
        except IrError as err:
            raise in_body(err, body, owner, None) from None
        slots = self.interpreter._slots
        model = body.model
        self.parameter_slots = {node.id: slots[(node.id, 0)] for node in model.parameters}
        self.parameter_dtypes = {node.id: _declared_dtype(node) for node in model.parameters}
        self.result_slots: dict[int, int] = {}
        for result in model.results:
            source = model.input_sources(result)[0]
            if source is not None:
                self.result_slots[result.id] = slots[(source.node_id, source.index)]

    def run(self, slots: Sequence[int], bound: Sequence[Any], wanted: Sequence[int], label: int | str
            ) -> list[np.ndarray]:
        """One execution of the body (see BodyInterpreter._run_slots); ``label`` names it where marked tensors are
        collected: an iteration number (``OWNER/iterK``) or a branch (``OWNER/then``)."""
        collected = _marked.get()
        if collected is None:
            return self.interpreter._run_slots(slots, bound, wanted)
        with collected.inside(f"{self.owner.name}/{f'iter{label}' if isinstance(label, int) else label}"):
            return self.interpreter._run_slots(slots, bound, wanted)

    def parameter(self, entry: PortMapEntry) -> int:
        """The slot of the body Parameter ``entry`` names."""
        slot = self.parameter_slots.get(entry.internal_layer_id)
        if slot is None:
            raise EvaluationError(f"<{self.body.tag}> {entry.describe()} names no body Parameter", self.owner.location)
        return slot

    def result(self, layer_id: int) -> int:
        """The slot of the value body Result ``layer_id`` gives (shape inference checked it names one)."""
        return self.result_slots[layer_id]

    def type_check(self, layer_id: int, what: str) -> tuple[np.dtype, str] | None:
        """What :func:`check_type` needs to check values given to body Parameter ``layer_id`` (None: any type)."""
        dtype = self.parameter_dtypes.get(layer_id)
        if dtype is None:
            return None
        parameter = self.body.model.node(layer_id)
        return dtype, (f"{what} gives {{}}{{}} to body Parameter {layer_id} ({parameter.name!r}), which declares "
                       f"{parameter.op_as(Parameter).element_type}; element types must match")

    def check_bound(self, bound: set[int]) -> None:
        """Refuse a body Parameter the body reads that no port map entry, back edge or special port gives."""
        model = self.body.model
        for parameter in model.parameters:
            if self.parameter_slots[parameter.id] not in bound and model.consumers(OutputPort(parameter.id, 0)):
                raise OpError(f"<{self.body.tag}> body Parameter {parameter.id} ({parameter.name!r}) gets no value: "
                              "no port map input, back edge or special port names it")


def _declared_dtype(parameter: Node) -> np.dtype | None:
    """The NumPy dtype of the values a body Parameter declares, None when it takes any (dynamic, strings)."""
    element_type = parameter.op_as(Parameter).element_type
    if element_type.is_dynamic or element_type.numpy_dtype is None or np.dtype(element_type.numpy_dtype).kind in "OU":
        return None
    return np.dtype(element_type.numpy_dtype)


def check_type(value: Any, check: tuple[np.dtype, str] | None, iteration: int | None = None) -> None:
    """Refuse a value for a body Parameter of another element type than it declares (shape inference refuses
    what it can see; this catches what only the run shows). ``check`` from :meth:`Program.type_check`."""
    if check is not None and value.dtype != check[0]:
        when = "" if iteration is None else f" after iteration {iteration}"
        raise OpError(check[1].format(np.dtype(value.dtype).name, when))


def in_body(err: IrError, body: Body, owner: Node, iteration: int | None) -> IrError:
    """``err`` (located at the body layer) with a message saying which layer's body and iteration it came from."""
    where = f"in <{body.tag}> of {owner.location.layer()}"
    if iteration is not None:
        where += f", iteration {iteration}"
    return type(err)(f"{where}: {err.message}", err.location)


def want(wanted: list[int], slot: int) -> int:
    """The position of ``slot`` in ``wanted`` (added when new)."""
    if slot not in wanted:
        wanted.append(slot)
    return wanted.index(slot)


def one_element(value: np.ndarray, what: str) -> np.ndarray:
    """``value`` flattened, refused unless it holds one element (a condition, a trip count)."""
    value = np.asarray(value)
    if value.size != 1:
        raise EvaluationError(f"{what} must hold one element; got shape [{','.join(map(str, value.shape))}]")
    return value.reshape(-1)

