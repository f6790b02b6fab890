"""Variables of stateful models (ReadValue/Assign): declarations, checks and the values an Interpreter keeps.

OpenVINO's semantics, which irgraph follows (checked against OpenVINO 2026.4.1's CPU plugin):

* A variable is declared by the one ReadValue of its ``variable_id``: its element type and partial
  shape are that ReadValue's output type, and every value it holds must fit them.
* Within a run, every ReadValue reads the value the variable had when the run began: the value the
  Assign of that id wrote at the end of the previous run, or one set with ``set_state``. A variable
  without a value (before the first run, after ``reset_state``) reads its initial value: the
  ReadValue's input, computed in that run (it may depend on the inputs: a KV cache starts as
  ``[batch, heads, 0, size]``), or zeros of the declared type and shape for ReadValue-6 without input
  (a dynamic dim at its lower bound: ``?`` is 0, so make_stateful's KV cache starts empty, as on the CPU plugin).
* Assign values are written once the whole run has succeeded, all at once: a run that fails
  changes no variable.
* Values are copied in and out (``set_state``, ``get_state``, the end of a run), so no array the
  caller holds (a feed, an output) aliases a variable.

Stricter than OpenVINO 2026.4.1 where its CPU plugin converts or fails late: ``set_state`` takes the
declared element type exactly (the plugin converts an i32 array into an f32 variable), and a model
whose variable is read by two ReadValues or written by two Assigns is refused when the Interpreter
is built (the plugin fails at the first inference).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.errors import EvaluationError, InputError, Location, ResourceLimitError
from irgraph.core.records import Record
from irgraph.core.shapes import TensorType
from irgraph.graph import Model, Node, OutputPort
from irgraph.ops import Op, registry
from irgraph.ops.op import shape_text
from irgraph.ops.plan_step import PlanStep
from irgraph.runtime import _fast

if TYPE_CHECKING:
    from irgraph.ops.infrastructure.assign import AssignBase
    from irgraph.ops.infrastructure.read_value import ReadValueBase
    from irgraph.runtime.interpreter import Interpreter


class Variable(Record):
    """A variable of a model: its id, its declared type, the ReadValue that declares it and the Assign
    that writes it (None: never written, the ReadValue reads its initial value on every run)."""

    __slots__ = ("variable_id", "type", "read", "assign")

    variable_id: str
    type: TensorType
    read: Node
    assign: Node | None

    def __init__(self, variable_id: str, type: TensorType, read: Node, assign: Node | None) -> None:
        object.__setattr__(self, "variable_id", variable_id)
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "read", read)
        object.__setattr__(self, "assign", assign)


class Variables:
    """The variables of one Interpreter and their values between runs."""

    def __init__(self, model: Model, element_limit: int) -> None:
        """Declare ``model``'s variables (its output types inferred); raise the first error of
        :func:`variable_problems` as an EvaluationError at its layer."""
        self.model = model
        self.element_limit = element_limit
        self.declared: dict[str, Variable] = {}
        self._values: dict[str, np.ndarray] = {}
        self._pending: dict[str, tuple[Node, np.ndarray]] = {}
        self._constant_initial: dict[str, np.ndarray] = {}
        self.cache_steps: list[PlanStep] = []
        """The KV-cache steps planned (runtime._fast.kv_cache): the values they return are kept without a copy."""
        self._state_ops: tuple[type[ReadValueBase], type[AssignBase]] | None = None
        if not registry.loaded("ReadValue", "Assign"):
            return  # no layer of any model is a ReadValue or an Assign yet: nothing to declare, bind nothing
        from irgraph.analysis.variables import variable_problems
        from irgraph.ops.infrastructure.assign import AssignBase
        from irgraph.ops.infrastructure.read_value import ReadValueBase

        for problem in variable_problems(model):
            if problem.is_error:
                raise EvaluationError(problem.message, problem.node.location)
        self._state_ops = ReadValueBase, AssignBase
        assigns = {node.op.variable_id: node for node in model if isinstance(node.op, AssignBase)}
        for node in model:
            op = node.op
            if isinstance(op, ReadValueBase):
                inferred = node.outputs[0].type
                if inferred is None:  # the interpreter infers the model first
                    raise EvaluationError("the ReadValue's output type is not inferred", node.location)
                self.declared[op.variable_id] = Variable(op.variable_id, inferred, node, assigns.get(op.variable_id))

    # ------------------------------------------------------------------------------ the run
    def bind(self, node: Node, op: Op, inputs: Sequence[int], constants: Mapping[int, np.ndarray]) -> Any:
        """What the interpreter runs for ``node``: a step reading or writing a variable, a step of a KV cache's
        Gather or Concat (see :mod:`irgraph.runtime._fast.kv_cache`), or ``op`` itself.

        ``inputs`` are the node's input slots and ``constants`` the values the interpreter computed
        ahead of any run, by slot: a ReadValue's constant initial value is known before the first run.
        """
        if self._state_ops is None:
            return op
        read_value_base, assign_base = self._state_ops
        if isinstance(op, read_value_base):
            if inputs and inputs[0] in constants:
                self._constant_initial[op.variable_id] = constants[inputs[0]]
            return _ReadStep(self, op, self.declared[op.variable_id])
        if isinstance(op, assign_base):
            return _AssignStep(self, node, op)
        if not (self.declared and _fast.ENABLED and isinstance(op, Op)):
            return op
        # Only a stateful model imports the KV-cache planner: cache_steps stays empty otherwise, and the
        # other uses of kv_cache below run only when it is not.
        from irgraph.runtime._fast import kv_cache

        if (step := kv_cache.plan_step(self.model, node, op, [constants.get(slot) for slot in inputs],
                                       self.element_limit)) is not None:
            self.cache_steps.append(step)
            return step
        return op

    def initializing_layers(self, nodes: Sequence[Node]) -> tuple[frozenset[int], frozenset[str]]:
        """Of the planned layers ``nodes``, the positions of those whose outputs only ReadValues' initial values
        read (directly, or through other such layers), and the variables of those ReadValues.

        A run that starts with every one of those variables holding a value may leave the layers out: each such
        ReadValue then reads its variable, not its input. A KV cache's zeros of ``[batch, heads, 0, size]`` are
        such a sub-graph, rerun at every decode step otherwise. OpenVINO's CPU plugin does the same (its
        MoveReadValueInputsToSubgraph pass moves them into the ReadValue, run after a reset only).
        """
        if self._state_ops is None or not self.declared:
            return frozenset(), frozenset()
        read_value_base = self._state_ops[0]
        position = {node.id: index for index, node in enumerate(nodes)}
        feeds: dict[int, frozenset[str]] = {}  # an initializing layer's id -> the variables it initializes
        for node in reversed(nodes):
            if node.op.traits.keeps_run_state or isinstance(node.op, (read_value_base, self._state_ops[1])):
                continue
            variables: set[str] = set()
            readers = [port for index in range(len(node.outputs))
                       for port in self.model.consumers(OutputPort(node.id, index))]
            for port in readers:
                reader = self.model.node(port.node_id)
                if isinstance(reader.op, read_value_base) and port.index == 0:
                    variables.add(reader.op.variable_id)
                elif reader.id in feeds:
                    variables.update(feeds[reader.id])
                else:
                    break
            else:
                if readers:
                    feeds[node.id] = frozenset(variables)
        return (frozenset(position[node_id] for node_id in feeds),
                frozenset(variable for variables in feeds.values() for variable in variables))

    def hold(self, variables: frozenset[str]) -> bool:
        """Whether every one of ``variables`` has a value (a run reads those, not the initial values)."""
        return all(variable in self._values for variable in variables)

    def begin(self) -> None:
        """Start a run: Assign values of a failed run before are dropped."""
        self._pending.clear()

    def commit(self) -> None:
        """End a run that succeeded: check every Assign value against its variable, then store them all."""
        checked = {}
        owned: set[int] = set()
        if self.cache_steps:
            from irgraph.runtime._fast import kv_cache  # imported already: plan_step planned the cache steps

            owned = kv_cache.owned(self.cache_steps)
        for variable_id, (node, value) in self._pending.items():
            try:
                checked[variable_id] = self._checked(variable_id, value, f"the value Assign {node.name!r} writes",
                                                     copy=id(value) not in owned)
            except InputError as err:
                raise EvaluationError(err.message, node.location) from None
        self._pending.clear()
        for variable_id, value in checked.items():
            self._values[variable_id] = value
        if len(self.cache_steps) > len(self.declared):  # plans for several feed shapes: one buffer per cache kept
            from irgraph.runtime._fast import kv_cache

            kv_cache.release_stale(self.cache_steps, self._values.values())

    # ------------------------------------------------------------------------------ the API
    def get(self, variable_id: str) -> np.ndarray:
        """A copy of the variable's value; for a variable without one, its initial value when that is
        known before a run (a constant input, or zeros), else an InputError."""
        variable = self._variable(variable_id)
        value = self._values.get(variable_id)
        if value is None:
            value = self._initial_without_run(variable)
        return np.array(value, copy=True)

    def set(self, variable_id: str, value: np.ndarray) -> None:
        """Give the variable ``value`` (copied), which must have its declared element type and fit its shape."""
        self._values[variable_id] = self._checked(variable_id, np.asarray(value), "the value given")

    def reset(self, variable_id: str | None = None) -> None:
        """Forget the value of one variable (or of all): the next run reads the initial value."""
        if variable_id is None:
            self._values.clear()
            from irgraph.runtime._fast import kv_cache  # imported already: by plan_step, or by this line

            for step in self.cache_steps:  # their buffers hold the caches just forgotten
                if isinstance(step, kv_cache.AppendStep):
                    step.release()
        else:
            self._variable(variable_id)
            self._values.pop(variable_id, None)

    def _variable(self, variable_id: str) -> Variable:
        variable = self.declared.get(variable_id)
        if variable is None:
            known = ", ".join(repr(v) for v in self.declared) or "none"
            raise InputError(f"the model has no variable {variable_id!r}; variables: {known}",
                             Location(file=self.model.source))
        return variable

    def _checked(self, variable_id: str, value: np.ndarray, what: str, copy: bool = True) -> np.ndarray:
        variable = self._variable(variable_id)
        element_type, shape = variable.type.element_type, variable.type.shape
        if not element_type.is_dynamic and value.dtype != element_type.numpy_dtype:
            raise InputError(f"{what} has dtype {value.dtype}, but variable {variable_id!r} holds {element_type} "
                             f"(NumPy {element_type.numpy_dtype})", variable.read.location)
        if not shape.accepts(value.shape):
            raise InputError(f"{what} has shape {shape_text(value.shape)}, which does not fit variable "
                             f"{variable_id!r}: its ReadValue declares {shape}", variable.read.location)
        if value.size > self.element_limit:
            raise ResourceLimitError(f"{what} has {value.size} elements, above the limit of {self.element_limit}",
                                     variable.read.location)
        if not copy:  # a KV cache's read-only view, whose rows are never written again
            return value
        stored = np.array(value, copy=True)
        stored.flags.writeable = False  # ReadValue hands it to the run as it is: nothing may write into it
        return stored

    def _initial_without_run(self, variable: Variable) -> np.ndarray:
        from irgraph.ops.infrastructure.read_value import ReadValueBase  # loaded: the variable was declared

        op = variable.read.op_as(ReadValueBase)
        sources = self.model.input_sources(variable.read)
        if not sources:
            try:
                return op.initial_value(variable.type)
            except Exception as err:  # OpError: the declared type is not static
                raise InputError(str(getattr(err, "message", err)), variable.read.location) from None
        constant = self._constant_initial.get(variable.variable_id)
        if constant is None:
            raise InputError(f"variable {variable.variable_id!r} has no value yet and its initial value is computed "
                             "in a run (it depends on the inputs): run the model or set_state first",
                             variable.read.location)
        return constant


class _ReadStep(PlanStep):
    """A ReadValue as the interpreter runs it: the variable's value, else its initial value (shape inference
    made the declared shape relax the initial value's, and the Assign's value is checked at the end)."""

    def __init__(self, variables: Variables, op: ReadValueBase, variable: Variable) -> None:
        self.variables, self.op, self.variable = variables, op, variable

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        value = self.variables._values.get(self.variable.variable_id)
        if value is not None:
            return [value]
        if not inputs:
            return [self.op.initial_value(self.variable.type)]
        return [inputs[0]]


class _AssignStep(PlanStep):
    """An Assign as the interpreter runs it: the value is kept until the run ends, and passed through."""

    def __init__(self, variables: Variables, node: Node, op: AssignBase) -> None:
        self.variables, self.node, self.op = variables, node, op

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        self.variables._pending[self.op.variable_id] = (self.node, inputs[0])
        return [inputs[0]]


# ------------------------------------------------------------------------------------ steps
def step_key(step: int, name: str) -> str:
    """The key of output ``name`` of run ``step`` (from 1) when several runs are kept: ``step2/logits``."""
    return f"step{step}/{name}"


def run_steps(interpreter: Interpreter, feeds: Mapping[str, np.ndarray] | Sequence[Mapping[str, np.ndarray]],
              steps: int) -> dict[str, np.ndarray]:
    """Run ``steps`` times, the variables carried from run to run: on the same ``feeds`` every time, or on
    ``feeds[K-1]`` in step K when ``feeds`` is a sequence of ``steps`` mappings (a generate loop's tokens).

    One step gives the outputs under their own keys; several give every step's outputs, keyed by
    :func:`step_key` (``step1/NAME`` ... ``stepN/NAME``), in step order. The outputs of all steps
    together must stay within the interpreter's element limit (they are all kept), and their
    sub-graph body executions within its iteration limit.
    """
    if steps < 1:
        raise InputError(f"the number of steps must be at least 1; got {steps}")
    each = [feeds] * steps if isinstance(feeds, Mapping) else list(feeds)
    if len(each) != steps:
        raise InputError(f"{steps} steps need {steps} feeds; got {len(each)}")
    if steps == 1:
        return interpreter.run(each[0])
    outputs: dict[str, np.ndarray] = {}
    total, limit = 0, interpreter.element_limit
    from irgraph.control_flow.bodies import run_budget  # several steps only: one run needs no shared budget

    with run_budget(interpreter.iteration_limit):  # the steps share one budget of body executions
        for step in range(1, steps + 1):
            for name, value in interpreter.run(each[step - 1]).items():
                total += np.size(value)
                if total > limit:
                    raise ResourceLimitError(f"the outputs of steps 1 to {step} have {total} elements together, "
                                             f"above the limit of {limit}")
                outputs[step_key(step, name)] = np.array(value, copy=True) if interpreter.reuse_outputs else value
    return outputs
