"""ExperimentalDetectronTopKROIs-6: the ``max_rois`` boxes of highest probability, best first.

OpenVINO's reference (``reference/experimental_detectron_topk_rois.hpp``, openvino 2026.4.1; it neither folds nor
evaluates the op there) sorts the box indices by probability with ``std::sort``, which leaves equal probabilities
unordered: irgraph keeps the lower box first. With fewer boxes than ``max_rois`` the reference writes only the
boxes it has: irgraph writes zeros after them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class ExperimentalDetectronTopKROIs(Op):
    """The best ``max_rois`` boxes (module docstring). Spec: ExperimentalDetectronTopKROIs-6."""

    type_name = "ExperimentalDetectronTopKROIs"
    introduced = 6
    inputs = Inputs.of(InputSpec("input_rois"), InputSpec("rois_probs"))

    max_rois: int = attribute(0)

    def __post_init__(self) -> None:
        check(self.max_rois >= 0, f"ExperimentalDetectronTopKROIs: 'max_rois' is a count. Got: {self.max_rois}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[max_rois, 4]`` of the boxes' type (OpenVINO's shape rule)."""
        rois, probs = inputs[0].shape, inputs[1].shape
        if not rois.rank_is_dynamic:
            if rois.rank != 2:
                raise OpError(f"The 'input_rois' input is expected to be a 2D. Got: {rois.rank}")
            check(rois[1].compatible(Dim.static(4)), f"The second dimension of 'input_rois' should be 4. Got: "
                  f"{rois[1]}")
        if not probs.rank_is_dynamic and probs.rank != 1:
            raise OpError(f"The 'rois_probs' input is expected to be a 1D. Got: {probs.rank}")
        if not rois.rank_is_dynamic and not probs.rank_is_dynamic:
            check(rois[0].compatible(probs[0]), "Number of rois and number of probabilities should be equal. Got: "
                  f"{rois[0]} {probs[0]}")
        return [TensorType(inputs[0].element_type, Shape((Dim.static(self.max_rois), Dim.static(4))))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The boxes by descending probability (ties: lower box first), zeros after the last."""
        rois, probs = np.asarray(inputs[0]), np.asarray(inputs[1])
        order = np.argsort(-probs.astype(np.float64), kind="stable")[:self.max_rois]
        result = np.zeros((self.max_rois, 4), rois.dtype)
        result[:len(order)] = rois[order]
        return [result]
