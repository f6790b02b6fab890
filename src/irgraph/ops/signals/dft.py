"""DFT-7: the complex-to-complex discrete Fourier transform over some axes."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.fft import FourierTransform
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class DFT(FourierTransform):
    """The complex DFT over ``axes`` of complex data ``[..., 2]``, padded or trimmed to ``signal_size``.

    ``Y[k] = sum_n X[n] exp(-2 pi i n k / L)`` along each axis, in f32 as OpenVINO's reference (see
    irgraph.ops.families.fft). Spec: DFT-7.
    """

    type_name = "DFT"
    introduced = 7
