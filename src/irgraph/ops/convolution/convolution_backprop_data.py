"""ConvolutionBackpropData-1: the transposed convolution (deconvolution)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import Dim
from irgraph.ops.families.convolution import BackpropConvolution
from irgraph.ops.op import check
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class ConvolutionBackpropData(BackpropConvolution):
    """data (N, C, *S) with filters (C, O, *K) -> (N, O, *out). Spec: ConvolutionBackpropData-1."""

    type_name = "ConvolutionBackpropData"
    introduced = 1

    def in_out_channels(self, channels: Dim, prefix: tuple[Dim, ...] | None) -> Dim:
        """The filters' second dim, once their first agrees with the data channels."""
        if prefix is None:
            return Dim.dynamic()
        check(channels.compatible(prefix[0]),
              f"Data batch channel count ({channels}) does not match filter input channel count ({prefix[0]}).")
        return prefix[1]

    def grouped_weights(self, filters: np.ndarray) -> np.ndarray:
        """(C, O, *K) -> (1, O, C, *K)."""
        return filters.swapaxes(0, 1)[np.newaxis]
