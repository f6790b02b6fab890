"""NV12toRGB-8: a YUV 4:2:0 image (NV12 layout) to RGB, NHWC."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.color_convert import NV12
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class NV12toRGB(NV12):
    """See irgraph.ops.families.color_convert. Spec: NV12toRGB-8."""

    type_name = "NV12toRGB"
    introduced = 8
    bgr = False
