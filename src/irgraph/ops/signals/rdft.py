"""RDFT-9: the real-to-complex discrete Fourier transform over some axes."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.fft import RealForward
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class RDFT(RealForward):
    """The DFT over ``axes`` of real data: complex ``[..., 2]``, the last listed axis cut to ``n // 2 + 1``.

    The values dropped are the conjugates of those kept. Axes count over the real data's rank. f32 as
    OpenVINO's reference (see irgraph.ops.families.fft). Spec: RDFT-9.
    """

    type_name = "RDFT"
    introduced = 9
