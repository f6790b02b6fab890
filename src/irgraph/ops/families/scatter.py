"""What the scatter ops share: writing updates at flat positions with OpenVINO's order and reductions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Shape
from irgraph.ops.op import integer_values, normalize_axis

REDUCTIONS = ("none", "sum", "sub", "prod", "min", "max", "mean")


def last_occurrences(positions: np.ndarray) -> np.ndarray:
    """Indices into ``positions`` of the last occurrence of each distinct value: OpenVINO's references
    write updates one after another, so the last update to a position is the one that stays."""
    reversed_first = np.unique(positions[::-1], return_index=True)[1]
    return positions.size - 1 - reversed_first


def scatter_rows(target: np.ndarray, positions: np.ndarray, rows: np.ndarray, reduction: str = "none",
                 use_init_val: bool = True) -> None:
    """Write ``rows[i]`` into ``target[positions[i]]`` in order, in place, combining by ``reduction``.

    ``target`` is ``[n, ...]`` and ``rows`` ``[m, ...]`` with the same trailing shape. Reductions run
    in the target's dtype (integers wrap); on booleans sum/max are OR, prod/min AND, sub XOR, as
    OpenVINO's reference computes them. Without ``use_init_val`` the target's own value does not
    take part at the positions the updates reach. ``mean`` of integers floors, as the reference does
    (exactly; the reference's double arithmetic differs beyond 2**53).
    """
    if positions.size == 0:
        return
    if reduction != "none" and target.dtype.kind in "fV" and target.dtype.itemsize < 4:
        # f16/bf16 reductions accumulate in f32 and round once, as openvino 2026.4.1 folds them
        wide = target.astype(np.float32)
        scatter_rows(wide, positions, rows.astype(np.float32), reduction, use_init_val)
        target[...] = wide.astype(target.dtype)
        return
    if reduction == "none":
        keep = last_occurrences(positions)
        target[positions[keep]] = rows[keep]
        return
    boolean = target.dtype == np.bool_
    if not use_init_val:
        touched = np.unique(positions)
        target[touched] = _identity(reduction, target.dtype)
    if reduction == "mean":
        counts = np.bincount(positions, minlength=target.shape[0]).astype(np.int64)
        if use_init_val:
            counts += 1
        np.add.at(target, positions, rows)
        touched = np.unique(positions)
        shape = (touched.size,) + (1,) * (target.ndim - 1)
        sums, divisor = target[touched], counts[touched].reshape(shape)
        if target.dtype.kind in "iu":  # exact floor division (the reference goes through double: see the tests)
            target[touched] = np.floor_divide(sums, divisor.astype(sums.dtype)).astype(target.dtype)
        else:
            target[touched] = (sums.astype(np.float64) / divisor).astype(target.dtype) if sums.dtype.itemsize < 4 \
                else (sums / divisor.astype(sums.dtype)).astype(target.dtype)
        return
    ufunc = {
        "sum": np.logical_or if boolean else np.add,
        "sub": np.logical_xor if boolean else np.subtract,
        "prod": np.logical_and if boolean else np.multiply,
        "min": np.minimum,
        "max": np.maximum,
    }[reduction]
    ufunc.at(target, positions, rows)


def _identity(reduction: str, dtype: np.dtype) -> object:
    if dtype == np.bool_:
        return reduction in ("prod", "min")
    if reduction in ("sum", "sub", "mean"):
        return 0
    if reduction == "prod":
        return 1
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.max if reduction == "min" else info.min
    return np.inf if reduction == "min" else -np.inf


def indices_in_range(indices: np.ndarray, size: int, what: str, negative: bool) -> np.ndarray:
    """``indices`` as int64 in ``[0, size)``; negative ones count from the end where ``negative``; any
    other value is an error, as OpenVINO's references raise it (they never write out of bounds). u64 indices
    are read as int64, as openvino 2026.4.1 reads them: 2^64 - 1 is -1 (the last, where negatives count)."""
    wide = indices.astype(np.int64)
    bad = (wide >= size) | (wide < (-size if negative else 0))
    if np.any(bad):
        value = wide[bad].reshape(-1)[0]
        raise OpError(f"{what} index {int(value)} is out of bounds for the axis of size {size}")
    return np.where(wide < 0, wide + size, wide) if negative else wide


def axis_value(value: np.ndarray, rank: int) -> int:
    """A scalar (or one-element) axis input, normalised against ``rank``."""
    if np.size(value) != 1:
        raise OpError(f"'axis' input must hold one value. Got {np.size(value)}")
    return normalize_axis(integer_values(value, "axis")[0], rank)


def shapes_compatible(actual: Shape, expected: Sequence) -> bool:
    """True when ``actual`` (static or partial) can equal the dims ``expected`` (Dims)."""
    if actual.rank_is_dynamic:
        return True
    return actual.rank == len(expected) and all(a.compatible(b) for a, b in zip(actual, expected, strict=True))
