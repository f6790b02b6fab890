"""GroupConvolutionBackpropData-1: the transposed convolution per group of channels."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import Dim
from irgraph.ops.families.convolution import BackpropConvolution, group_count
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class GroupConvolutionBackpropData(BackpropConvolution):
    """data (N, G*C, *S) with filters (G, C, O, *K) -> (N, G*O, *out). Spec: GroupConvolutionBackpropData-1."""

    type_name = "GroupConvolutionBackpropData"
    introduced = 1
    # as OpenVINO 2026.4.1 writes it
    attribute_order = ("strides", "pads_begin", "pads_end", "dilations", "auto_pad", "output_padding")
    filter_prefix = 3

    def in_out_channels(self, channels: Dim, prefix: tuple[Dim, ...] | None) -> Dim:
        """groups x output channels per group; the groups agree with data channels / filter input channels."""
        if prefix is None:
            return Dim.dynamic()
        return group_count(channels, prefix[0], prefix[1]) * prefix[2]

    def grouped_weights(self, filters: np.ndarray) -> np.ndarray:
        """(G, C, O, *K) -> (G, O, C, *K)."""
        return filters.swapaxes(1, 2)
