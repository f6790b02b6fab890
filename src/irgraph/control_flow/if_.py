"""If-8: runs ``then_body`` or ``else_body`` by a boolean condition (input 0).

Inference follows OpenVINO's ``if.cpp``: a known condition gives the taken body's types (the body
it skips keeps the types it declares); an unknown one the types either body may give. Running:
the condition picks a body, whose port map gives the outer outputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.control_flow.bodies import MakeInterpreter, Program, check_type, current_budget, in_body, one_element, want
from irgraph.control_flow.inference import (
    Walk,
    body_node,
    check_fed,
    infer_body,
    outer_input,
    outputs_by_port,
    result_type,
    scalar_value,
)
from irgraph.control_flow.sub_graph_op import SubGraphOp
from irgraph.core.errors import EvaluationError, IrError, OpError
from irgraph.core.limits import DEFAULT_ITERATION_LIMIT
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.graph import Body, Node
from irgraph.ops import Parameter, Result
from irgraph.ops.op import Inputs, InputSpec
from irgraph.ops.plan_step import PlanStep
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class If(SubGraphOp):
    """If-8: input 0 is the condition; the other inputs feed the bodies through their port maps."""

    type_name = "If"
    introduced = 8
    body_tags = ("then_body", "else_body")
    inputs = Inputs(fixed=(InputSpec("cond"),), variadic=InputSpec("input"), minimum=1)
    first_body_input = 1
    slices = False

    def infer_bodies(
        self, layer: Node, bodies: dict[str, Body], inputs: Sequence[TensorType], values: Sequence[np.ndarray | None],
        walk: Walk,
    ) -> list[TensorType]:
        """The taken body's output types when the condition is known, else the types either body may give."""
        condition = scalar_value(values, 0)
        taken = None if condition is None else ("then_body" if bool(condition[0]) else "else_body")
        branches: list[dict[int, TensorType]] = []
        for tag in ("then_body", "else_body"):
            body = bodies[tag]
            overrides = {}
            for entry in body.inputs:
                parameter = body_node(body, entry.internal_layer_id, Parameter, entry)
                if taken not in (None, tag):
                    continue  # OpenVINO leaves the body a known condition skips as declared (and writes it so)
                overrides[parameter.id] = check_fed(f"<{body.port_map_tag}> {entry.describe()}",
                                                     outer_input(entry, inputs), parameter)
            infer_body(body, overrides, walk)
            found = {}
            for entry in body.outputs:
                found[entry.external_port] = result_type(body, body_node(body, entry.internal_layer_id, Result, entry))
            branches.append(found)
        if condition is not None:
            return outputs_by_port(layer, branches[0] if bool(condition[0]) else branches[1])
        then_types, else_types = outputs_by_port(layer, branches[0]), outputs_by_port(layer, branches[1])
        return [_either(a, b, index) for index, (a, b) in enumerate(zip(then_types, else_types, strict=True))]

    def mapped_inputs(self, layer: Node) -> set[int]:
        """Every outer input a port map entry names (If has no special body ports to set aside)."""
        return {entry.external_port for body in layer.bodies for entry in body.inputs}

    def runner(self, layer: Node, make_interpreter: MakeInterpreter) -> PlanStep:
        """Both bodies prepared; the condition picks one per run."""
        return _IfRunner(layer, make_interpreter)


def _either(then_type: TensorType, else_type: TensorType, index: int) -> TensorType:
    """The type of an If output either branch may give (OpenVINO's ``resolve_shape`` in ``if.cpp``)."""
    if then_type.element_type != else_type.element_type and not (
        then_type.element_type.is_dynamic or else_type.element_type.is_dynamic
    ):
        raise OpError(
            f"output {index}: then_body gives {then_type.element_type} but else_body gives {else_type.element_type}"
        )
    element_type = else_type.element_type if then_type.element_type.is_dynamic else then_type.element_type
    a, b = then_type.shape, else_type.shape
    if a.rank_is_dynamic or b.rank_is_dynamic:
        return TensorType(element_type, DYNAMIC_RANK)
    if a.rank != b.rank:
        return TensorType(element_type, Shape.dynamic(1) if a.rank <= 1 and b.rank <= 1 else DYNAMIC_RANK)
    return TensorType(element_type, Shape(tuple(_union(x, y) for x, y in zip(a, b, strict=True))))


def _union(a: Dim, b: Dim) -> Dim:
    """Dynamic when either is not static; else the interval spanning both."""
    if not (a.is_static and b.is_static):
        return Dim.dynamic()
    return a if a == b else Dim(min(a.min, b.min), max(a.min, b.min))


class _IfRunner(PlanStep):
    """If-8: the condition picks a body; its port map gives the outer outputs."""

    def __init__(self, node: Node, make_interpreter: MakeInterpreter) -> None:
        self.node = node
        bodies = {body.tag: body for body in node.bodies}  # inference checked both are there, with port maps
        self.iteration_limit = DEFAULT_ITERATION_LIMIT
        self.branches = []
        for tag in ("then_body", "else_body"):
            body = bodies[tag]
            program = Program(body, node, make_interpreter)
            wanted: list[int] = []
            slots = [program.parameter(entry) for entry in body.inputs]
            ports = [entry.external_port for entry in body.inputs]
            checks = [(entry.external_port, check) for entry in body.inputs if (check := program.type_check(
                entry.internal_layer_id, f"<{body.port_map_tag}> {entry.describe()}")) is not None]
            try:
                program.check_bound(set(slots))
            except OpError as err:
                raise EvaluationError(err.message, node.location) from None
            produced = [0] * node.num_outputs  # inference checked every output has an entry in each body
            for entry in body.outputs:
                produced[entry.external_port] = want(wanted, program.result(entry.internal_layer_id))
            self.branches.append((program, slots, ports, wanted, produced, checks))
            self.iteration_limit = program.interpreter.iteration_limit

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run the body the condition picks."""
        condition = bool(one_element(inputs[0], "the condition (input 0)")[0])
        budget = current_budget(self.iteration_limit)
        if budget.used >= budget.limit:
            raise budget.exceeded(self.node, f"run its {'then' if condition else 'else'} branch", budget.used)
        budget.used += 1
        program, slots, ports, wanted, produced, checks = self.branches[0 if condition else 1]
        for port, check in checks:
            check_type(inputs[port], check)
        try:
            outputs = program.run(slots, [inputs[port] for port in ports], wanted, "then" if condition else "else")
        except IrError as err:
            raise in_body(err, program.body, self.node, None) from None
        return [outputs[position] for position in produced]
