"""I420toBGR-8: a YUV 4:2:0 image (I420 layout) to BGR, NHWC."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.color_convert import I420
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class I420toBGR(I420):
    """See irgraph.ops.families.color_convert. Spec: I420toBGR-8."""

    type_name = "I420toBGR"
    introduced = 8
    bgr = True
