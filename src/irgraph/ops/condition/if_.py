"""If-8: runs ``then_body`` or ``else_body`` by a boolean condition (input 0)."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.infrastructure.sub_graph import SubGraphOp
from irgraph.ops.op import Inputs, InputSpec
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class If(SubGraphOp):
    """If-8: input 0 is the condition; the other inputs feed the bodies through their port maps."""

    type_name = "If"
    introduced = 8
    body_tags = ("then_body", "else_body")
    inputs = Inputs(fixed=(InputSpec("cond"),), variadic=InputSpec("input"), minimum=1)
