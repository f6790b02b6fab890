"""TensorIterator-1: runs its body once per slice of its sliced inputs."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.infrastructure.sub_graph import SubGraphOp
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class TensorIterator(SubGraphOp):
    """TensorIterator-1: one ``body``; iterations from the sliced inputs (or a concatenated output's range)."""

    type_name = "TensorIterator"
    introduced = 1
