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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from irgraph.core.records import Record
from irgraph.runtime import _fast


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


def plan_writes_over(inputs: Sequence[int], dying: Sequence[int], same_type: bool, made_by_ufunc_step: bool,
                     read_only_by_ufunc_steps: bool) -> bool:
    """Whether a ufunc step reading the slots ``inputs`` may write its output over input 0 (asked once per
    step, when the plan is built): the rule of the module's docstring."""
    first = inputs[0]
    return (same_type and made_by_ufunc_step and read_only_by_ufunc_steps and first in dying
            and first not in inputs[1:])


def compile_segment(steps: Sequence[tuple[UfuncStep, Sequence[int], int, Sequence[int]]],
                    name: str = "ufunc_steps") -> Callable[[list[Any], set[int]], None]:
    """One function running ``steps`` (each: how, input slots, output slot, slots freed after it) on a run's
    values list ``v`` and private slots ``p`` (see irgraph.runtime._fast.in_place), in order."""
    namespace: dict[str, Any] = {}
    lines = [f"def {name}(v, p):"]
    for position, (how, inputs, output, freed) in enumerate(steps):
        function = f"f{position}"
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


def enabled() -> bool:
    """Whether Interpreters built now run ufunc steps (the runtime's fast-path switch)."""
    return _fast.ENABLED


def compiled_program(plan: Sequence[Any]) -> list[Any]:
    """``plan`` (Steps) with each run of consecutive ufunc steps (``step.ufunc`` set) compiled into one function
    (:func:`compile_segment`); the other steps stay as they are."""
    program: list[Any] = []
    pending: list[tuple[UfuncStep, tuple[int, ...], int, tuple[int, ...]]] = []
    for step in [*plan, None]:
        if step is not None and step.ufunc is not None:
            pending.append((step.ufunc, step.inputs, step.outputs[0], step.free_slots))
            continue
        if pending:
            program.append(compile_segment(pending, f"ufunc_steps_{len(program)}"))
            pending = []
        if step is not None:
            program.append(step)
    return program
