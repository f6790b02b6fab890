"""variable_problems(model): whether a stateful model's ReadValue/Assign pairs agree (for validation and the runtime).

The semantics of variables are described in :mod:`irgraph.runtime.state`, which refuses a model with
these errors when an Interpreter is built; validation reports them as diagnostics.
"""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.graph import Model, Node
from irgraph.ops.infrastructure.assign import Assign3, AssignBase
from irgraph.ops.infrastructure.read_value import ReadValue3, ReadValueBase

VARIABLE_CODE = "variable"
"""The diagnostic code of every problem :func:`variable_problems` finds."""


@dataclass(frozen=True)
class Problem:
    """One problem with a model's variables: an error (the model cannot run) or a warning."""

    is_error: bool
    message: str
    node: Node


def variable_problems(model: Model) -> list[Problem]:
    """The problems of ``model``'s variables, in document order (needs inferred output types).

    Errors: two ReadValues or two Assigns of one ``variable_id``; an Assign whose variable no
    ReadValue declares (OpenVINO 2026.4.1 refuses to read the model: ``Can't find variable with id``
    for Assign-3, which needs a ReadValue-3 upstream, ``map::at`` for Assign-6); an Assign whose
    input type contradicts the variable (Assign-3: the element type must be equal and static shapes
    equal; Assign-6: both compatible). Warning: a variable no Assign writes.
    """
    problems: list[Problem] = []
    reads: dict[str, Node] = {}
    assigns: dict[str, Node] = {}
    for node in model:
        op = node.op
        if isinstance(op, ReadValueBase):
            first = reads.setdefault(op.variable_id, node)
            if first is not node:
                problems.append(Problem(True, f"variable {op.variable_id!r} is read by two ReadValue layers (also "
                                        f"layer {first.id}); a variable has one ReadValue", node))
        elif isinstance(op, AssignBase):
            first = assigns.setdefault(op.variable_id, node)
            if first is not node:
                problems.append(Problem(True, f"variable {op.variable_id!r} is written by two Assign layers (also "
                                        f"layer {first.id}); a variable has one Assign", node))
    for variable_id, node in assigns.items():
        problem = _assign_problem(model, node, reads.get(variable_id))
        if problem is not None:
            problems.append(Problem(True, problem, node))
    for variable_id, node in reads.items():
        if variable_id not in assigns:
            problems.append(Problem(False, f"no Assign writes variable {variable_id!r}: the ReadValue reads its "
                                    "initial value on every run (OpenVINO 2026.4.1's CPU plugin refuses to run it)",
                                    node))
    order = {node_id: position for position, node_id in enumerate(n.id for n in model)}
    problems.sort(key=lambda problem: order[problem.node.id])
    return problems


def _assign_problem(model: Model, assign: Node, read: Node | None) -> str | None:
    op = assign.op_as(AssignBase)
    variable_id = op.variable_id
    if isinstance(op, Assign3):
        if read is None or not isinstance(read.op, ReadValue3) or read.id not in _upstream(model, assign):
            return (f"Assign-3 writes variable {variable_id!r}, but no ReadValue-3 of that variable_id is upstream "
                    f"of it (OpenVINO 2026.4.1 refuses the model: Can't find variable with id = {variable_id})")
    elif read is None:
        return (f"{op.title()} writes variable {variable_id!r}, which no ReadValue in the model declares "
                "(OpenVINO 2026.4.1 refuses to read the model)")
    declared = read.outputs[0].type if read.outputs else None
    sources = model.input_sources(assign)
    given = model.output_type(sources[0]) if sources and sources[0] is not None else None
    if declared is None or given is None:
        return None  # inference failed there; that error is reported where it happened
    if isinstance(op, Assign3):
        same_type = given.element_type == declared.element_type
        same_shape = not (given.shape.is_static and declared.shape.is_static) or given.shape == declared.shape
    else:
        same_type = given.element_type.merge(declared.element_type) is not None
        same_shape = given.shape.compatible(declared.shape)
    if same_type and same_shape:
        return None
    return (f"{op.title()} writes {given} to variable {variable_id!r}, which its ReadValue (layer {read.id}) "
            f"declares {declared}")


def _upstream(model: Model, node: Node) -> set[int]:
    """Ids of the nodes ``node`` depends on (iteratively, no recursion)."""
    seen: set[int] = set()
    stack = [source.node_id for source in model.input_sources(node) if source is not None]
    while stack:
        node_id = stack.pop()
        if node_id not in seen:
            seen.add(node_id)
            stack.extend(s.node_id for s in model.input_sources(model.node(node_id)) if s is not None)
    return seen
