"""GroupConvolution-1: channels split into groups, each convolved with its own filters."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import Dim
from irgraph.ops.families.convolution import ForwardConvolution, group_count
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class GroupConvolution(ForwardConvolution):
    """data (N, G*C, *S) with filters (G, O, C, *K) -> (N, G*O, *out). Spec: GroupConvolution-1."""

    type_name = "GroupConvolution"
    introduced = 1
    attribute_order = ("strides", "pads_begin", "pads_end", "dilations", "auto_pad")  # as OpenVINO writes it
    filter_prefix = 3

    def output_channels(self, channels: Dim, prefix: tuple[Dim, ...] | None) -> Dim:
        """groups x output channels per group; the groups agree with data channels / filter input channels."""
        if prefix is None:
            return Dim.dynamic()
        groups = group_count(channels, prefix[0], prefix[2])
        return groups * prefix[1]

    def grouped_weights(self, filters: np.ndarray) -> np.ndarray:
        """Already (G, O, C, *K)."""
        return filters
