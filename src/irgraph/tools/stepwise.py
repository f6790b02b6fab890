"""A stateful model compared with OpenVINO step by step: outputs, marked tensors and every variable.

A stateful model (ReadValue/Assign, as OpenVINO's LLM exports keep their KV cache) is run as a generate loop
runs it: step after step, each with its own feeds, the variables carried from one step to the next. irgraph
runs it with one :class:`~irgraph.runtime.interpreter.Interpreter`, OpenVINO with one infer request
(:class:`~irgraph.tools.backends.OpenVinoSession`); after every step both sides' outputs and marked tensors
are compared as :mod:`irgraph.tools.layerwise` compares them, and so is every variable, irgraph's
(``Interpreter.get_state``) with OpenVINO's (``InferRequest.query_state``), matched by variable id. A variable
is listed as ``variable:ID`` at its Assign (the layer that writes it), so the first divergence, in step
order and then in topological order, names the step and the layer. OpenVINO exposes no output of a sink
(an Assign): a marked Assign is compared with the variable it wrote.

Steps run on until the last one, whatever diverges: a later step may say how far an error spreads.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from irgraph.control_flow.bodies import run_budget
from irgraph.core.element_types import ElementType
from irgraph.core.errors import InputError, ResourceLimitError, printable
from irgraph.core.text import counted
from irgraph.ops.infrastructure.assign import AssignBase
from irgraph.runtime.interpreter import Interpreter
from irgraph.runtime.state import step_key
from irgraph.tools import backends
from irgraph.tools.compare import ErrorBound, TensorTolerance, ToleranceOverride, error_bounds, tolerance_text
from irgraph.tools.layerwise import (
    ComparedTensor,
    LayerwiseReport,
    _by_parameter,
    _compare,
    _requests,
    _run_ours,
    _tensor_json,
    _Tolerances,
    format_report,
)
from irgraph.tools.layerwise_text import short
from irgraph.tools.progress import Progress

__all__ = ["VARIABLE_PREFIX", "SteppedReport", "compare_steps_with_openvino", "format_stepped"]

VARIABLE_PREFIX = "variable:"
"""A variable's key in a report: ``variable:ID``."""


@dataclass
class SteppedReport:
    """Every step of a stateful run compared with OpenVINO: one :class:`LayerwiseReport` per step (its
    tensors hold the variables, keyed ``variable:ID``), and irgraph's values of all steps keyed ``stepK/NAME``."""

    reference: str
    atol: float | None
    rtol: float | None
    steps: list[LayerwiseReport]
    values: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    counters: list[backends.PerfCounter] | None = field(repr=False, default=None)
    """OpenVINO's performance counters summed over the steps (``profile=True``), else None."""

    @property
    def tensors(self) -> list[ComparedTensor]:
        """Every step's tensors, in step order."""
        return [tensor for step in self.steps for tensor in step.tensors]

    @property
    def first_divergent_step(self) -> int | None:
        """The first step (from 1) with a tensor or variable beyond its tolerance."""
        return next((number for number, step in enumerate(self.steps, 1) if step.first_divergence), None)

    @property
    def first_divergence(self) -> ComparedTensor | None:
        """The first tensor or variable beyond its tolerance, in step order, then topological order."""
        number = self.first_divergent_step
        return self.steps[number - 1].first_divergence if number is not None else None

    @property
    def passed(self) -> bool:
        """True when every step compared something and everything compared matches."""
        return all(step.passed for step in self.steps)

    def divergence_message(self) -> str:
        """The one-line verdict: the first step and layer that diverge, or the step that compared nothing."""
        for number, step in enumerate(self.steps, 1):
            if not step.passed:
                return f"step {number} of {len(self.steps)}: {step.divergence_message()}"
        return f"every compared tensor and variable of {len(self.steps)} steps matches {self.reference}"

    def to_json(self) -> dict[str, object]:
        """The report as JSON: the verdict, the first divergence (with its step) and every step's report."""
        number, tensor = self.first_divergent_step, self.first_divergence
        first = dict(_tensor_json(tensor), step=number) if tensor is not None else None
        return {
            "reference": self.reference, "atol": self.atol, "rtol": self.rtol, "passed": self.passed,
            "steps": len(self.steps), "first_divergent_step": number, "first_divergence": first,
            "per_step": [dict(step.to_json(), step=number) for number, step in enumerate(self.steps, 1)],
        }


def compare_steps_with_openvino(
    interpreter: Interpreter,
    steps: Sequence[Mapping[str, np.ndarray]],
    *,
    xml: str | os.PathLike[str] | None = None,
    weights: str | os.PathLike[str] | None = None,
    device: str = "CPU",
    precision: str = "f32",
    atol: float | None = None,
    rtol: float | None = None,
    tolerances: Mapping[str, TensorTolerance | ToleranceOverride] | None = None,
    progress: Progress | None = None,
    profile: bool = False,
) -> SteppedReport:
    """Run ``len(steps)`` steps, step K on ``steps[K-1]``, with irgraph and with OpenVINO (the IR ``xml``,
    default the model's own file), both from the variables' initial values; compare the outputs, the marked
    tensors and every variable after every step. The arguments are :func:`compare_with_openvino`'s.

    The values of all steps together must stay within the interpreter's element limit (they are all kept),
    and their sub-graph body executions within its iteration limit.
    """
    model = interpreter.model
    path = xml if xml is not None else model.source
    if path is None:
        raise InputError("the model was not read from a file: give the IR for OpenVINO to run (xml=...)")
    if not steps:
        raise InputError("the number of steps must be at least 1; got 0")
    backends.require("openvino")
    progress = progress or Progress(enabled=False)
    judge = _Tolerances(model, ElementType.from_ir_name(precision), atol, rtol, tolerances)
    session: backends.OpenVinoSession | None = None
    version = ""
    reports: list[LayerwiseReport] = []
    values: dict[str, np.ndarray] = {}
    counters: dict[str, backends.PerfCounter] | None = {} if profile else None
    total, limit = 0, interpreter.element_limit
    order = {node.id: position for position, node in enumerate(model.topological_order())}
    interpreter.reset_state()
    with run_budget(interpreter.iteration_limit):  # the steps share one budget of body executions
        for number, feeds in enumerate(steps, 1):
            tensors, ours = _run_ours(interpreter, feeds, progress)
            if session is None:  # imported after irgraph's first run: see backends.require
                version = backends.backend_version("openvino")
                progress.stage(f"openvino: compiling ({device}, {precision})")
                session = backends.OpenVinoSession(path, weights, _requests(model, tensors), device=device,
                                                   precision=precision, profile=profile)
            progress.stage(f"openvino: step {number} of {len(steps)}")
            run = session.infer(_by_parameter(model, feeds))
            states = session.states()
            for tensor, found in zip(tensors, run.tensors, strict=True):
                if found is None:
                    found = _written(tensor, states)
                if found is not None:
                    tensor.reference_name = found.name
                    _compare(tensor, ours[tensor.key], found.array, judge)
            tensors += _compared_variables(interpreter, states, judge)
            judge.bounds = _carried_bounds(interpreter, judge.bounds)  # what the next step's ReadValues read
            tensors.sort(key=lambda tensor: (order[tensor.node.id], tensor.index, not tensor.is_output))
            reports.append(LayerwiseReport(f"{version} ({device}, {precision})", atol, rtol, tensors, ours,
                                           session.names))
            for key, value in ours.items():
                total += np.size(value)
                if total > limit:
                    raise ResourceLimitError(f"the outputs and marked tensors of steps 1 to {number} have {total} "
                                             f"elements together, above the limit of {limit}")
                values[step_key(number, key) if len(steps) > 1 else key] = value
            if counters is not None and run.counters is not None:
                _add_counters(counters, run.counters)
    return SteppedReport(reports[0].reference, atol, rtol, reports, values,
                         list(counters.values()) if counters is not None else None)


def _compared_variables(interpreter: Interpreter, theirs: Mapping[str, np.ndarray], judge: _Tolerances
                        ) -> list[ComparedTensor]:
    """Every variable of the model after a step, compared with OpenVINO's of the same id (not compared when
    OpenVINO has no such variable), placed at the Assign that writes it (its ReadValue when none does)."""
    compared = []
    for variable_id, variable in interpreter.state.declared.items():
        node = variable.assign if variable.assign is not None else variable.read
        tensor = ComparedTensor(VARIABLE_PREFIX + variable_id, node, 0, False, names=(variable_id,))
        reference = theirs.get(variable_id)
        try:
            ours = interpreter.get_state(variable_id)
        except InputError:  # never assigned, its initial value computed in each run: nothing kept to compare
            continue
        if reference is not None:
            tensor.reference_name = tensor.key
            _compare(tensor, ours, reference, judge)
        compared.append(tensor)
    return compared


def _written(tensor: ComparedTensor, states: Mapping[str, np.ndarray]) -> backends.Found | None:
    """A marked Assign's output, which OpenVINO does not expose: the value it wrote, its variable's state."""
    op = tensor.node.op
    if not isinstance(op, AssignBase) or op.variable_id not in states:
        return None
    return backends.Found(states[op.variable_id], VARIABLE_PREFIX + op.variable_id)


def _carried_bounds(interpreter: Interpreter, bounds: Mapping[int, ErrorBound]) -> dict[int, ErrorBound]:
    """The error bounds of the next step: each ReadValue reads what its variable's Assign wrote in this step,
    with that Assign's bound (a KV cache's Concat joins the bounds, so they do not grow step after step)."""
    carried = {variable.read.id: bounds.get(variable.assign.id, ErrorBound())
               for variable in interpreter.state.declared.values() if variable.assign is not None}
    return error_bounds(interpreter.model, carried)


def _add_counters(total: dict[str, backends.PerfCounter], step: Sequence[backends.PerfCounter]) -> None:
    """Add one step's counters to the sums by node name (the first counter of a name, as the profile reads them)."""
    seen: set[str] = set()
    for counter in step:
        if counter.name in seen:
            continue
        seen.add(counter.name)
        before = total.get(counter.name)
        total[counter.name] = counter if before is None else backends.PerfCounter(
            counter.name, counter.type, counter.exec_type, counter.status, before.seconds + counter.seconds)


def format_stepped(report: SteppedReport, verbose: bool = False) -> list[str]:
    """A line per step, then its outputs, variables and mismatches (``verbose``: every tensor), then the first
    divergent step's first divergence in detail."""
    variables = sum(1 for tensor in report.steps[0].tensors if _is_variable(tensor))
    lines = [f"compare with {report.reference} step by step ({tolerance_text(report.atol, report.rtol)}): "
             f"{len(report.steps)} steps; outputs, marked tensors and {counted(variables, 'variable')} after each"]
    for number, step in enumerate(report.steps, 1):
        compared = len(step.compared)
        verdict = "MISMATCH" if step.first_divergence else ("ok" if step.compared else "nothing compared")
        lines.append(f"step {number}: {verdict} ({compared} compared, {len(step.tensors) - compared} not exposed "
                     "by the reference)")
        rows = [_row(tensor) for tensor in step.tensors
                if verbose or tensor.is_output or tensor.diverges or _is_variable(tensor)]
        width = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
        lines += [f"  {v}  {k.ljust(width[1])}  {t.ljust(width[2])}  {e}".rstrip() for v, k, t, e in rows]
    divergent = report.first_divergent_step
    if divergent is None:
        lines.append(report.divergence_message())
        return lines
    detail = format_report(report.steps[divergent - 1])
    start = next((position for position, line in enumerate(detail) if line.startswith("first divergent layer")),
                 len(detail))
    lines += ["", f"first divergent step: {divergent} of {len(report.steps)}", *detail[start:]]
    return lines


def _is_variable(tensor: ComparedTensor) -> bool:
    return tensor.key.startswith(VARIABLE_PREFIX) and not tensor.is_output


def _row(tensor: ComparedTensor) -> tuple[str, str, str, str]:
    """A tensor's row: verdict, key, layer type, errors (as format_report writes them)."""
    item = tensor.comparison
    if item is None:
        return "-       ", printable(tensor.key), tensor.node.type_name, "(not exposed by the reference)"
    errors = (f"max abs error {short(item.max_abs_error)}  max rel error {short(item.max_rel_error)}"
              if item.max_abs_error is not None else f"({item.reason})")
    return "ok      " if item.passed else "MISMATCH", printable(tensor.key), tensor.node.type_name, errors
