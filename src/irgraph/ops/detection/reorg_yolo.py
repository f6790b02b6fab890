"""ReorgYolo-2: YOLO v2's passthrough reorganisation, ``[N, C, H, W]`` -> ``[N, C*s*s, H/s, W/s]``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.families.batch_space import divided
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class ReorgYolo(Op):
    """Darknet's ``reorg`` layer as OpenVINO's reference computes it: output element ``(n, c, h, w)`` is input
    element ``(n, c % C', h*s + (c // C') // s, w*s + (c // C') % s)`` of the input read as ``[N, C', H*s, W*s]``
    with ``C' = C / s^2`` (a reshape and a transpose: no arithmetic, exact). Spec: ReorgYolo-2."""

    type_name = "ReorgYolo"
    introduced = 2
    inputs = Inputs.of(InputSpec("data"))

    stride: tuple[int, ...] = attribute()

    def __post_init__(self) -> None:
        check(len(self.stride) > 0 and all(s > 0 for s in self.stride),
              f"Stride attribute is required and must be positive. Got: {list(self.stride)}")
        check(len(set(self.stride)) == 1, f"Stride values must be all equal. Got: {list(self.stride)}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Channels times stride squared, H and W divided by the stride."""
        (data,) = inputs
        step = self.stride[0]
        if data.shape.rank_is_dynamic:
            return [data]
        check(data.shape.rank == 4, "[N, C, H, W] input shape is required.")
        channels = data.shape[1]
        check(not channels.is_static or channels.value >= step * step,
              "For [N, C, H, W] input shape, C >= (stride*stride) is required.")
        spatial = []
        for dim in list(data.shape)[2:]:
            try:
                spatial.append(divided(dim, step))
            except OpError:
                raise OpError("For [N, C, H, W] input shape, H and W should be divisible by stride.") from None
        return [TensorType(data.element_type, Shape((data.shape[0], channels * (step * step), *spatial)))]

    def _checked(self, data: np.ndarray) -> tuple[int, int, int, int]:
        step = self.stride[0]
        if data.ndim != 4:
            raise OpError("[N, C, H, W] input shape is required.")
        n, c, h, w = data.shape
        if c < step * step or c % (step * step):
            raise OpError(f"For [N, C, H, W] input shape, C must be a multiple of stride*stride >= {step * step}. "
                          f"Got: {c}")
        if h % step or w % step:
            raise OpError("For [N, C, H, W] input shape, H and W should be divisible by stride.")
        return n, c, h, w

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """One reshape, one transpose, one copy."""
        (data,) = inputs
        n, c, h, w = self._checked(data)
        step = self.stride[0]
        channels = c // (step * step)
        # OpenVINO's reference reads the input as [N, C', H*s, W*s] and writes output channel (i*s + j)*C' + c' at
        # row h, column w (in [N, C, H, W] order) from that view's (c', h*s + i, w*s + j)
        viewed = data.reshape(n, channels, h, step, w, step)
        moved = np.ascontiguousarray(viewed.transpose(0, 3, 5, 1, 2, 4))
        return [moved.reshape(n, c * step * step, h // step, w // step)]
