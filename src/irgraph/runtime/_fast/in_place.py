"""In-place element-wise steps: which buffers the interpreter may let an op write its output into (behind the
switch in ``irgraph.runtime._fast``).

An element-wise step (an op with ``OpTraits.writes_in_place``) whose first input dies at that step (its last
use) may write its output over that input instead of allocating, as OpenVINO's CPU plugin does: ResNet's
Add and ReLU layers then reuse the convolution's output. Writing over an array is safe only when nothing
else can see its memory, so during a run the interpreter keeps the set of *private* slots: arrays that a
step allocated itself (``base is None``) and that no later step has taken a view of or passed on. Feeds,
Consts, views, outputs that are one of the step's inputs, and every input of a data-movement step (Split,
Concat, which keep views) are never private. As a second guard the array's reference count must be the
interpreter's own references alone.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from irgraph.ops.plan_step import PlanStep
from irgraph.runtime import _fast

_INTERPRETER_REFERENCES = 5
"""References to a donated input while the interpreter holds it: its slot, the step's argument list, the
dense argument list, ``donor``'s local name here and ``getrefcount``'s argument (CPython 3.11; later
versions borrow some of them, which only lowers the count)."""


def writes_over_input(op: PlanStep, inputs: Sequence[int], dying: Collection[int]) -> bool:
    """Whether a step of ``op`` reading the slots ``inputs`` may write its output over input 0: the switch is on,
    the op is element-wise (``OpTraits.writes_in_place``), and input 0 dies at the step (``dying``: the slots
    freed after it) and is not also one of its other inputs."""
    return (_fast.ENABLED and op.traits.writes_in_place and bool(inputs) and inputs[0] in dying
            and inputs[0] not in inputs[1:])


COMPILED_REFERENCES = 4
"""The same in a compiled run (irgraph.runtime._fast.ufunc_steps): its slot, the step's argument list, ``donor``'s
local name and ``getrefcount``'s argument."""


def donor(dense: Sequence[Any], inputs: Sequence[int], private: set[int],
          references: int = _INTERPRETER_REFERENCES) -> tuple[np.ndarray] | tuple[()]:
    """``(array,)`` when input 0 may be written over (the target of the op's ``evaluate_into``), else ``()``;
    ``references``: how many references to it the caller holds (see ``_INTERPRETER_REFERENCES``)."""
    if inputs[0] not in private:
        return ()
    array = dense[0]
    if type(array) is not np.ndarray or array.base is not None or not array.flags.writeable:
        return ()
    if sys.getrefcount(array) > references:
        return ()
    return (array,)


def track(private: set[int], generic: bool, in_place: bool, inputs: Sequence[int], outputs: Sequence[int],
          produced: Sequence[Any], arguments: Sequence[Any]) -> None:
    """Update ``private`` after a step: fresh outputs join it; inputs whose memory an output may share leave it.

    An in-place step's output that is its (private) input 0 stays private: that input dies at this step.
    """
    if not generic:  # Split, Concat and Const steps: their outputs are views or shared
        private.difference_update(inputs)
        return
    inherited = arguments[0] if in_place and inputs[0] in private else None
    fresh = True
    for value in produced:
        if type(value) is not np.ndarray or value.base is not None or (
                value is not inherited and any(value is argument for argument in arguments)):
            fresh = False
            break
    if fresh and len({id(value) for value in produced}) == len(produced):
        private.update(outputs)
    else:
        private.difference_update(inputs)
