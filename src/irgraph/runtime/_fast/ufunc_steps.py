"""Ufunc steps: element-wise layers run as bare NumPy calls, compiled together (behind the switch in
``irgraph.runtime._fast``).

A layer whose op computes its output with one ufunc call on inputs of static types (``PlanStep.ufunc_call``:
Add, Multiply, ReLU, Exp, comparisons...) needs none of the interpreter's run-time work: its output shape is
known and within the element limit when the plan is built, its inputs are real arrays, its dtype is settled.
Consecutive such steps are compiled into one Python function of straight-line calls
(``v[7] = f3(v[5], v[2])``), so a step costs its ufunc call and two list accesses, not a trip through the
interpreter's loop.

Writing over input 0 is decided here, once: a ufunc step writes its output into input 0 (``out=``) when that
input dies at the step, has the output's shape and dtype, was made by another ufunc step (fresh memory, or
memory such a step wrote over) and no other kind of step reads it (nothing can have taken a view of it or kept
it). Feeds, Consts, Results and marked tensors never qualify (the latter two never die).

Steps that call their op's ``bound_evaluate`` (MatMul, Reshape, MVN, attention... of static types) join the
compiled runs when nothing is left for the interpreter's loop to do around them: one output of a settled shape
within the element limit, no deferred join among the inputs. Each becomes ``v[7] = b3([v[5], v[2]])[0]``
(with the in-place bookkeeping of ``in_place.track`` where a later in-place step needs it), an error it raises
located at its layer as the loop would.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from irgraph.core.errors import EvaluationError, IrError, OpError
from irgraph.core.records import Record
from irgraph.graph import Node
from irgraph.runtime import _fast
from irgraph.runtime._fast import in_place


class UfuncStep(Record):
    """How a planned step runs as one ufunc call."""

    __slots__ = ("ufunc", "leading", "writes_over_input", "feeds_in_place_step")

    ufunc: np.ufunc
    leading: tuple[Any, ...]
    """Operands before the inputs (ReLU's 0)."""
    writes_over_input: bool
    """``out=`` input 0 (decided when the plan is built; see the module's docstring)."""
    feeds_in_place_step: bool
    """The output is input 0 of an in-place step decided at run time (irgraph.runtime._fast.in_place): it joins
    the run's private slots, as any fresh output of a step does."""

    def __init__(self, ufunc: np.ufunc, leading: tuple[Any, ...], writes_over_input: bool,
                 feeds_in_place_step: bool) -> None:
        object.__setattr__(self, "ufunc", ufunc)
        object.__setattr__(self, "leading", leading)
        object.__setattr__(self, "writes_over_input", writes_over_input)
        object.__setattr__(self, "feeds_in_place_step", feeds_in_place_step)


class BoundStep(Record):
    """How a planned step runs as its op's bound evaluate, inside a compiled run."""

    __slots__ = ("evaluate", "node", "tracks")

    evaluate: Callable[[Sequence[Any]], Sequence[Any]]
    node: Node
    """The layer an error is located at."""
    tracks: bool
    """Whether ``in_place.track`` must see the step (a later in-place step may write over what it reads or makes)."""

    def __init__(self, evaluate: Callable[[Sequence[Any]], Sequence[Any]], node: Node, tracks: bool) -> None:
        object.__setattr__(self, "evaluate", evaluate)
        object.__setattr__(self, "node", node)
        object.__setattr__(self, "tracks", tracks)


class InPlaceStep(Record):
    """How a planned in-place step (its input 0 written over when a run finds nothing else sees it:
    ``in_place.donor``) runs as one ufunc call inside a compiled run."""

    __slots__ = ("ufunc", "leading", "tracks")

    ufunc: np.ufunc
    leading: tuple[Any, ...]
    tracks: bool

    def __init__(self, ufunc: np.ufunc, leading: tuple[Any, ...], tracks: bool) -> None:
        object.__setattr__(self, "ufunc", ufunc)
        object.__setattr__(self, "leading", leading)
        object.__setattr__(self, "tracks", tracks)


def located(error: IrError, node: Node) -> IrError:
    """The error a step of ``node`` raised, as the interpreter's loop reports it: an op's own error becomes an
    EvaluationError at the layer, any other is located there."""
    if isinstance(error, OpError):
        return EvaluationError(error.message, node.location)
    return error.locate(node.location)


def plan_writes_over(inputs: Sequence[int], dying: Sequence[int], same_type: bool, made_by_ufunc_step: bool,
                     read_only_by_ufunc_steps: bool) -> bool:
    """Whether a ufunc step reading the slots ``inputs`` may write its output over input 0 (asked once per
    step, when the plan is built): the rule of the module's docstring."""
    first = inputs[0]
    return (same_type and made_by_ufunc_step and read_only_by_ufunc_steps and first in dying
            and first not in inputs[1:])


def compile_segment(steps: Sequence[tuple[UfuncStep | BoundStep | InPlaceStep, Sequence[int], int, Sequence[int]]],
                    name: str = "ufunc_steps") -> Callable[[list[Any], set[int]], None]:
    """One function running ``steps`` (each: how, input slots, output slot, slots freed after it) on a run's
    values list ``v`` and private slots ``p`` (see irgraph.runtime._fast.in_place), in order."""
    namespace: dict[str, Any] = {"IrError": IrError, "located": located, "donor": in_place.donor,
                                 "ndarray": np.ndarray}
    lines = [f"def {name}(v, p):"]
    for position, (how, inputs, output, freed) in enumerate(steps):
        function = f"f{position}"
        if isinstance(how, BoundStep):
            namespace[function] = how.evaluate
            namespace[f"n{position}"] = how.node
            arguments = f"[{', '.join(f'v[{slot}]' for slot in inputs)}]"
            lines += ["    try:"]
            if how.tracks:
                lines += [f"        a = {arguments}", f"        r = {function}(a)"]
            else:
                lines += [f"        v[{output}] = {function}({arguments})[0]"]
            lines += ["    except IrError as error:", f"        raise located(error, n{position}) from None"]
            if how.tracks:
                lines += ["    r = r[0]", f"    v[{output}] = r", *_tracked(inputs, output, in_place=False),
                          "    a = r = None"]  # no stale references: in_place counts them
            lines += [f"    v[{slot}] = None" for slot in freed]
            continue
        if isinstance(how, InPlaceStep):
            namespace[function] = how.ufunc
            operands = []
            for index, constant in enumerate(how.leading):
                namespace[f"k{position}_{index}"] = constant
                operands.append(f"k{position}_{index}")
            operands.append("*a")
            call = f"{function}({', '.join(operands)}"
            lines += [f"    a = [{', '.join(f'v[{slot}]' for slot in inputs)}]",
                      f"    d = donor(a, {tuple(inputs)}, p, {in_place.COMPILED_REFERENCES})",
                      f"    r = {call}, out=d[0]) if d else {call})",
                      "    d = ()",
                      f"    v[{output}] = r"]
            if how.tracks:
                lines += _tracked(inputs, output, in_place=True)
            lines.append("    a = r = None")  # no stale references: in_place counts them
            lines += [f"    v[{slot}] = None" for slot in freed]
            continue
        namespace[function] = how.ufunc
        operands = []
        for index, constant in enumerate(how.leading):
            namespace[f"k{position}_{index}"] = constant
            operands.append(f"k{position}_{index}")
        operands += [f"v[{slot}]" for slot in inputs]
        if how.writes_over_input:
            operands.append(f"out=v[{inputs[0]}]")
        lines.append(f"    v[{output}] = {function}({', '.join(operands)})")
        if how.feeds_in_place_step:
            lines.append(f"    p.add({output})")
        lines += [f"    v[{slot}] = None" for slot in freed]
    if len(lines) == 1:
        lines.append("    pass")
    exec(compile("\n".join(lines), f"<irgraph {name}>", "exec"), namespace)  # noqa: S102  # code built above
    compiled: Callable[[list[Any], set[int]], None] = namespace[name]
    return compiled


def _tracked(inputs: Sequence[int], output: int, in_place: bool) -> list[str]:
    """The lines of ``in_place.track`` for a step of one output ``r`` made from the arguments ``a``: the output
    joins the private slots when it is a fresh array (no view, none of the arguments, unless it is the private
    input 0 an in-place step wrote over), else the inputs leave them."""
    written_over = f"(r is a[0] and {inputs[0]} in p) or " if in_place else ""
    others = " and ".join(f"r is not a[{index}]" for index in range(len(inputs))) or "True"
    return [f"    if type(r) is ndarray and r.base is None and ({written_over}{others}):",
            f"        p.add({output})",
            "    else:",
            f"        p.difference_update({tuple(inputs)})"]


def enabled() -> bool:
    """Whether Interpreters built now run ufunc steps (the runtime's fast-path switch)."""
    return _fast.ENABLED


def compiled_program(plan: Sequence[Any]) -> list[Any]:
    """``plan`` (Steps) with each run of consecutive ufunc steps (``step.ufunc`` set) and bound steps (see the
    module's docstring) compiled into one function (:func:`compile_segment`); the other steps stay as they are."""
    program: list[Any] = []
    pending: list[tuple[UfuncStep | BoundStep | InPlaceStep, tuple[int, ...], int, tuple[int, ...]]] = []
    for step in [*plan, None]:
        if step is not None and step.ufunc is not None:
            pending.append((step.ufunc, step.inputs, step.outputs[0], step.free_slots))
            continue
        if step is not None and step.direct is not None and _settled(step):
            pending.append((InPlaceStep(step.direct.ufunc, step.direct.leading, step.tracks), step.inputs,
                            step.outputs[0], step.free_slots))
            continue
        if step is not None and _binds(step):
            pending.append((BoundStep(step.evaluate, step.node, step.tracks), step.inputs, step.outputs[0],
                            step.free_slots))
            continue
        if pending:
            program.append(compile_segment(pending, f"ufunc_steps_{len(program)}"))
            pending = []
        if step is not None:
            program.append(step)
    return program


BOUND_OUTPUT_LIMIT = 1 << 15
"""Bound steps join compiled runs when their output has at most this many elements (128 KiB of f32). The loop's
few microseconds matter next to small steps only, and with large arrays the order in which a compiled run drops
them made glibc hand pages back and fault them in again: ShuffleNet's run took 2,200 page faults (8.5 MiB) and
25 % longer with its convolutions compiled (glibc 2.36, counted with ``getrusage``)."""


def _binds(step: Any) -> bool:
    """Whether a planned step runs as a bound step of a compiled run: its op's bound evaluate (set on plain steps
    only), :func:`_settled`, and an output of at most ``BOUND_OUTPUT_LIMIT`` elements."""
    shapes = getattr(step.output_shapes, "shapes", None)
    return step.evaluate is not None and _settled(step) and shapes is not None and \
        math.prod(shapes[0]) <= BOUND_OUTPUT_LIMIT


def _settled(step: Any) -> bool:
    """One output whose shape the plan settled within the element limit, inputs that are real arrays: nothing left
    for the interpreter's loop to check."""
    return len(step.outputs) == 1 and not step.checks_shapes and not step.unknown and not step.deferred_inputs
