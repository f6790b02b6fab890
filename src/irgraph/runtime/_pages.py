"""Give back the resident pages of arrays that view a file mapping (a ``.bin`` mapped by ``WeightsFile``).

An f16 weight read through the mapping becomes resident when it is first converted to f32 and stays
resident, beside its f32 copy, for as long as the mapping lives. Once the interpreter has folded it,
nothing reads it again, so its pages are dropped from the process's resident set: the data stay valid
(a later read faults them in again from the file), only the memory is given back.
"""

from __future__ import annotations

import mmap

import numpy as np

_PAGE = mmap.PAGESIZE


def release(array: np.ndarray) -> None:
    """Drop the whole pages ``array`` spans from the resident set when it views a file mapping; no-op
    otherwise (an array of its own, a platform without ``madvise``)."""
    owner: object = array
    while isinstance(owner, np.ndarray):
        owner = owner.base
    if isinstance(owner, memoryview):
        owner = owner.obj
    advice = getattr(mmap, "MADV_DONTNEED", None)
    if not isinstance(owner, mmap.mmap) or advice is None or array.nbytes == 0:
        return
    start = array.__array_interface__["data"][0] - np.frombuffer(owner, np.uint8).__array_interface__["data"][0]
    first = -(-start // _PAGE) * _PAGE  # only the pages wholly inside the array: neighbours may still be in use
    end = (start + array.nbytes) // _PAGE * _PAGE
    if end > first:
        try:
            owner.madvise(advice, first, end - first)
        except OSError:  # a kernel that refuses the advice: the pages stay, nothing else changes
            pass
