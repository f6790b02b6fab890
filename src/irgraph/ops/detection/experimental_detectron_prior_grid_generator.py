"""ExperimentalDetectronPriorGridGenerator-6: the priors moved to the centre of every feature-map cell.

OpenVINO's reference (``reference/experimental_detectron_prior_grid_generator.hpp``, openvino 2026.4.1; it neither
folds nor evaluates the op there): row ``(h, w, prior)`` is the prior plus ``step_w * (w + 0.5)`` on x and
``step_h * (h + 0.5)`` on y, the steps ``stride_x``/``stride_y`` or, when 0, the image's width/height over the
grid's, in float32. The grid is the feature map's ``[H, W]``; ``h`` and ``w`` (0: the feature map's) must name
the same sizes, as OpenVINO's shape inference sizes the output by the feature map and its kernel writes the
``h x w`` grid (past the output when larger).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register

F32 = np.float32


@register
@dataclass(frozen=True)
class ExperimentalDetectronPriorGridGenerator(Op):
    """Priors on a grid (module docstring). Spec: ExperimentalDetectronPriorGridGenerator-6."""

    type_name = "ExperimentalDetectronPriorGridGenerator"
    introduced = 6
    inputs = Inputs.of(InputSpec("priors"), InputSpec("feature_map"), InputSpec("im_data"))

    flatten: bool = attribute(True)
    h: int = attribute(0)
    w: int = attribute(0)
    stride_x: float = attribute(0.0)
    stride_y: float = attribute(0.0)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[H * W * P, 4]`` flattened, else ``[H, W, P, 4]`` (OpenVINO's shape rule)."""
        priors, features, image = (t.shape for t in inputs)
        if not priors.rank_is_dynamic:
            check(priors.rank == 2, "Priors rank must be equal to 2.")
            check(priors[1].compatible(Dim.static(4)), "The last dimension of the 'priors' input must be equal to 4. "
                  f"Got: {priors[1]}")
        if not features.rank_is_dynamic:
            check(features.rank == 4, "Feature_map rank must be equal to 4.")
        if not image.rank_is_dynamic:
            check(image.rank == 4, "Im_data rank must be equal to 4.")
            if not features.rank_is_dynamic:
                check(features[0].compatible(image[0]), "The first dimension of both 'feature_map' and 'im_data' "
                      f"must match. Feature_map: {features[0]}; Im_data: {image[0]}")
        if self.flatten:
            rows = Dim.dynamic()
            if not priors.rank_is_dynamic and not features.rank_is_dynamic:
                rows = features[2] * features[3] * priors[0]
            out = Shape((rows, Dim.static(4)))
        else:
            dims = [Dim.dynamic(), Dim.dynamic(), Dim.dynamic(), Dim.static(4)]
            if not features.rank_is_dynamic:
                dims[0], dims[1] = features[2], features[3]
            if not priors.rank_is_dynamic:
                dims[2] = priors[0]
            out = Shape(tuple(dims))
        return [TensorType(inputs[0].element_type, out)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each prior at each cell's centre, float32 as the reference computes it."""
        priors = np.asarray(inputs[0])
        height, width = inputs[1].shape[2], inputs[1].shape[3]
        for given, size, name in ((self.h, height, "h"), (self.w, width, "w")):
            if given and given != size:
                raise OpError(f"ExperimentalDetectronPriorGridGenerator: '{name}' is {given} but the feature map's "
                              f"grid is {size}: OpenVINO sizes the output by the feature map and writes the "
                              f"attribute's grid (past its output when larger), so irgraph refuses it")
        step_w = F32(self.stride_x) if self.stride_x else F32(inputs[2].shape[3]) / F32(width)
        step_h = F32(self.stride_y) if self.stride_y else F32(inputs[2].shape[2]) / F32(height)
        shift_x = step_w * (np.arange(width, dtype=F32) + F32(0.5))  # [W]
        shift_y = step_h * (np.arange(height, dtype=F32) + F32(0.5))  # [H]
        p = priors.astype(F32)[None, None, :, :]  # [1, 1, P, 4]
        sx, sy = shift_x[None, :, None], shift_y[:, None, None]
        rows = np.stack(np.broadcast_arrays(p[..., 0] + sx, p[..., 1] + sy, p[..., 2] + sx, p[..., 3] + sy), -1)
        rows = rows.astype(priors.dtype)
        return [rows.reshape(-1, 4) if self.flatten else rows]
