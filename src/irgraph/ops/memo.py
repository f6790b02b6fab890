"""What an op works out from its inputs' shapes and a few small input values (a Reshape's target, a Broadcast's
plan), remembered on the op per those: a decoder runs the same layers on the same shapes step after step, through
the general path (its KV cache grows, so it gets no plan specialised to static shapes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

MEMO_LIMIT = 64
"""Keys an op remembers; past this it stops adding (a model fed ever new lengths would otherwise grow it)."""

_T = TypeVar("_T")


def value_key(value: Any) -> tuple[object, ...] | None:
    """An exact, hashable stand-in for a small array's values (dtype, shape, bytes); None for what is not an
    ndarray (then nothing is remembered)."""
    if type(value) is not np.ndarray:
        return None
    return value.dtype, value.shape, value.tobytes()


def remembered(op: object, key: tuple[object, ...], work_out: Callable[[], _T]) -> _T:
    """``work_out()``, remembered on ``op`` under ``key``, which must hold everything besides ``op``'s attributes
    that the answer depends on. An exception (inputs the op refuses) is raised every time, never remembered."""
    try:
        known: dict[tuple[object, ...], Any] = op.__dict__["_remembered"]
    except KeyError:
        known = {}
        object.__setattr__(op, "_remembered", known)  # ops are frozen dataclasses; the memo is not an attribute
    try:
        return known[key]  # stored by this function under this key: a _T
    except KeyError:
        pass
    answer = work_out()
    if len(known) < MEMO_LIMIT:
        known[key] = answer
    return answer
