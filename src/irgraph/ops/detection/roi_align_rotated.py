"""ROIAlignRotated-15: ROIAlign over rotated boxes ``[center_x, center_y, width, height, angle]``, average pooling.

OpenVINO's reference runs ROIAlign's kernel (``reference/roi_align.hpp``, see :mod:`.roi_align`) with a
rotated sampling space: the box is ``spatial_scale`` times the given one, its centre shifted by -0.5; samples
are laid out in the box's own frame from ``(-width / 2, -height / 2)`` and turned into the map by
``y = py cos - px sin + cy``, ``x = py sin + px cos + cx`` (the angle negated with ``clockwise_mode``). The
cosine and sine are f32 (f64's rounded) and so are the turned coordinates, for every element type. Boxes are
never widened, so a box of negative size has no sampling ratio when ``sampling_ratio`` is 0 (refused, as
OpenVINO's reference stops there). openvino 2026.4.1 has no evaluate for the op: at angle 0 ROIAlign-3's
reference judges it bit for bit, at other angles its CPU plugin (bit for bit too in 600 generated
configurations on an AVX-512 machine).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.ops.detection.roi_align import PooledBoxes, SamplingSpaces, pool
from irgraph.ops.op import Inputs, InputSpec, Op, attribute
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class ROIAlignRotated(PooledBoxes, Op):
    """The mean of bilinear samples in each bin of each rotated ROI. Spec: ROIAlignRotated-15."""

    type_name = "ROIAlignRotated"
    introduced = 15
    inputs = Inputs.of(InputSpec("data"), InputSpec("rois"), InputSpec("batch_indices"))
    BOX_SIZE = 5  # [center_x, center_y, width, height, angle]

    pooled_h: int = attribute()
    pooled_w: int = attribute()
    sampling_ratio: int = attribute()
    spatial_scale: float = attribute()
    clockwise_mode: bool = attribute(False)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Every rotated ROI's averaged bins."""
        data = inputs[0]
        indices, boxes, wide = self.checked_boxes(inputs)
        scale = wide(np.float32(self.spatial_scale))
        with np.errstate(all="ignore"):
            centre_x, centre_y = boxes[:, 0] * scale - wide(0.5), boxes[:, 1] * scale - wide(0.5)
            width, height = boxes[:, 2] * scale, boxes[:, 3] * scale
            angle = -boxes[:, 4] if self.clockwise_mode else boxes[:, 4]
            cosine = np.cos(angle.astype(np.float64)).astype(np.float32).astype(wide)
            sine = np.sin(angle.astype(np.float64)).astype(np.float32).astype(wide)

        def to_image(x: np.ndarray, y: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            c, s = cosine[which, None, None], sine[which, None, None]
            with np.errstate(all="ignore"):
                turned_y = (y * c - x * s + centre_y[which, None, None]).astype(np.float32)
                turned_x = (y * s + x * c + centre_x[which, None, None]).astype(np.float32)
            return turned_x.astype(wide), turned_y.astype(wide)

        with np.errstate(all="ignore"):
            spaces = SamplingSpaces(-width / wide(2), -height / wide(2), width, height, to_image)
        return [pool(data, indices, spaces, self.pooled_h, self.pooled_w, self.sampling_ratio, "avg")]
