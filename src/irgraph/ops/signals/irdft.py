"""IRDFT-9: the inverse complex-to-real discrete Fourier transform over some axes."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.fft import RealInverse
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class IRDFT(RealInverse):
    """The inverse of RDFT: real output from complex data ``[..., 2]`` holding half a Hermitian spectrum.

    The last listed axis of length ``m`` becomes ``2 (m - 1)`` unless ``signal_size`` says. f32 as OpenVINO's
    reference (see irgraph.ops.families.fft). Spec: IRDFT-9.
    """

    type_name = "IRDFT"
    introduced = 9
    cpu_plugin_differs = (
        "openvino 2026.4.1's plugin takes accurate twiddles (up to 37 eps x sum|terms| from the reference at length "
        "198), fails a signal_size of -1, returns wrong values (1e24 off) for other signal sizes and crashes "
        "(SIGSEGV) when the output is empty")
