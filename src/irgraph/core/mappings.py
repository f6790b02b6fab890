"""The memory mappings of weights files, so the runtime can check them without importing io.

The weights reader (``irgraph.io.weights``) registers each mapping it makes; the Interpreter asks which
mapping a Const's array views and whether its file has shrunk before reading it.
"""

from __future__ import annotations

import mmap
import weakref

import numpy as np

from irgraph.core.errors import Location, WeightsError

__all__ = ["check_mapping", "mapping_of", "register_mapping"]

_MAPPINGS: weakref.WeakKeyDictionary[mmap.mmap, tuple[str, int]] = weakref.WeakKeyDictionary()
"""Every mapping of a weights file -> the file's path and where in it the mapping ends (see :func:`check_mapping`)."""


def register_mapping(mapping: mmap.mmap, path: str, end: int) -> None:
    """Remember that ``mapping`` maps ``path`` up to byte ``end`` (for :func:`check_mapping`)."""
    _MAPPINGS[mapping] = (path, end)


def mapping_of(array: object) -> mmap.mmap | None:
    """The weights-file mapping ``array`` views (through any chain of views), else None."""
    owner = array
    while isinstance(owner, np.ndarray):
        owner = owner.base
    if isinstance(owner, memoryview):
        owner = owner.obj
    return owner if isinstance(owner, mmap.mmap) and owner in _MAPPINGS else None


def check_mapping(mapping: mmap.mmap) -> None:
    """WeightsError when the file under ``mapping`` is now shorter than the mapping.

    Reading a mapped page past the end of a truncated file kills the process with SIGBUS, which no
    Python code can catch; so the size is checked before the mapped data is used (by every
    ``Interpreter.run``). A truncation while a run is reading the mapping is still fatal: that
    window is the run's duration (OpenVINO maps weights the same way).
    """
    try:
        size = mapping.size()  # fstat of the mapped file, now
    except (OSError, ValueError):
        return  # no file to ask (closed): nothing the check can say
    path, end = _MAPPINGS.get(mapping, ("", len(mapping)))
    if size < end:
        raise WeightsError(f"the weights file shrank to {size} bytes while in use (irgraph maps its first {end}); "
                           "irgraph stops rather than read past its end (which would kill the process with SIGBUS)",
                           Location(file=path or None))
