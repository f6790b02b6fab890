"""OpenVINO's inference precision hints, apart from :mod:`irgraph.tools.backends` (which re-exports them) so
that building ir-run's parser does not load the backends."""

from __future__ import annotations

__all__ = ["PRECISIONS"]

PRECISIONS = ("f32", "f16", "bf16")
"""OpenVINO inference precision hints ``--precision`` takes."""
