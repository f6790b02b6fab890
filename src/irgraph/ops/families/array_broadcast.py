"""Arrays made ready for a NumPy ufunc under OpenVINO's auto_broadcast modes (numpy, pdpd, none): the run-time
side of ``elementwise.broadcast_shapes``."""

from __future__ import annotations

import numpy as np

from irgraph.core.errors import OpError

INCONSISTENT_SHAPES = "Argument shapes are inconsistent."


def broadcast_arrays(a: np.ndarray, b: np.ndarray, mode: str) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """The two arrays ready for a NumPy ufunc under ``mode``, and the output shape (nothing copied)."""
    if mode == "none":
        if a.shape != b.shape:
            raise OpError(f"{INCONSISTENT_SHAPES} auto_broadcast 'none' needs equal shapes. Got: "
                          f"{list(a.shape)} and {list(b.shape)}")
        return a, b, a.shape
    if mode == "pdpd":
        aligned = b.reshape(pdpd_shape(a.shape, b.shape))
        try:
            shape = np.broadcast_shapes(a.shape, aligned.shape)
        except ValueError:
            failed = f"pdpd broadcast of {list(b.shape)} into {list(a.shape)} fails"
            raise OpError(f"{INCONSISTENT_SHAPES} {failed}") from None
        return a, aligned, shape
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise OpError(f"{INCONSISTENT_SHAPES} numpy broadcast of {list(a.shape)} and {list(b.shape)} fails") from None
    return a, b, shape


def pdpd_shape(target: tuple[int, ...], source: tuple[int, ...]) -> tuple[int, ...]:
    """``source`` as OpenVINO's reference aligns it under pdpd (axis 0): trailing 1s dropped, then
    padded with 1s to the rank of ``target``."""
    if len(source) > len(target):
        raise OpError(f"{INCONSISTENT_SHAPES} pdpd broadcast needs rank(b) <= rank(a). Got: "
                      f"{list(target)} and {list(source)}")
    if any(s > t or (s == 0 and t == 1) for s, t in zip(source, target, strict=False)):
        raise OpError(f"{INCONSISTENT_SHAPES} pdpd broadcast of {list(source)} into {list(target)} fails")
    trimmed = list(source)
    while trimmed and trimmed[-1] == 1:
        trimmed.pop()
    return tuple(trimmed) + (1,) * (len(target) - len(trimmed))
