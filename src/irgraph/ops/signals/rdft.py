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
    cpu_plugin_differs = (
        "openvino 2026.4.1's plugin takes accurate twiddles where the reference's naive DFT takes f32 angles (up to "
        "27 eps x sum|terms| apart at length 100), fails a signal_size of -1 ('cannot create std::vector larger "
        "than max_size()') and one that pads")
