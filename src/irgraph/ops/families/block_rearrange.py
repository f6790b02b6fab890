"""DepthToSpace and SpaceToDepth: one block size, one mode, the same checks and attribute order."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check

BLOCK_MODES = ("blocks_first", "depth_first")


@dataclass(frozen=True)
class BlockRearrange(Op):
    """Moves ``block_size`` blocks between the channels and the spatial dims (members say which way)."""

    attribute_order = ("block_size", "mode")  # as OpenVINO 2026.4.1 writes both ops
    inputs = Inputs.of(InputSpec("data"))

    mode: str = attribute()
    block_size: int = attribute(1)

    def __post_init__(self) -> None:
        check(self.mode in BLOCK_MODES, f"Mode must be one of {', '.join(BLOCK_MODES)}. Got: {self.mode!r}")
        check(self.block_size > 0, f"The block size must be greater than 0. Got: {self.block_size}")
