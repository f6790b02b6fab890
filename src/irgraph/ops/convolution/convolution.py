"""Convolution-1: the forward convolution of NC* data with OIX filters."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import Dim
from irgraph.ops.families.convolution import ForwardConvolution
from irgraph.ops.op import check
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Convolution(ForwardConvolution):
    """data (N, C, *S) with filters (O, C, *K) -> (N, O, *out). Spec: Convolution-1."""

    type_name = "Convolution"
    introduced = 1

    def output_channels(self, channels: Dim, prefix: tuple[Dim, ...] | None) -> Dim:
        """The filters' output channels, once the input channels agree."""
        if prefix is None:
            return Dim.dynamic()
        check(channels.compatible(prefix[1]),
              f"Data batch channel count ({channels}) does not match filter input channel count ({prefix[1]}).")
        return prefix[0]

    def grouped_weights(self, filters: np.ndarray) -> np.ndarray:
        """One group: (1, O, C, *K)."""
        return filters[np.newaxis]
