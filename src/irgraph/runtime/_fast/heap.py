"""Keep the memory a run frees for the next run instead of faulting it in again (glibc only; behind the switch in
``irgraph.runtime._fast``).

A run allocates and frees arrays of a few MiB: convolution columns, activations, pooling rows. glibc's malloc
serves a request above its mmap threshold with a fresh mapping, and gives the top of its heap back to the kernel
once more than twice that threshold is free there (the threshold follows the largest mapping freed so far). Either
way the next run's arrays land on pages the kernel must fault in and zero again, 4 KiB at a time: Inception v1
took 2,000-4,500 page faults a run (8-18 MiB), SqueezeNet none or 1,600 depending on which temporaries its kernels
made, and Inception v1's runs were 15-20 % slower for it (glibc 2.36, counted with ``getrusage``).

So once a run has finished, the process's malloc is told (``mallopt``) to serve arrays of up to
:data:`HEAP_ARRAYS` from its heap and to keep up to :data:`KEPT_FREE` of freed memory at the heap's top. The
first run and everything before it (reading, folding weights: the peaks that issue 15 bounds) keep glibc's
defaults; later runs reuse the pages of the first. The cost: memory a run freed stays resident between runs
instead of going back to the kernel, as OpenVINO's own memory does (Inception v1's peak grew by 1 MiB over 30
runs). The setting is process-wide, made once, and only where the C library has ``mallopt`` (glibc; musl's
ignores it).
"""

from __future__ import annotations

import sys

from irgraph.runtime import _fast

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter numbers (malloc.h)."""
HEAP_ARRAYS = 32 << 20
"""Requests up to this size come from the heap (glibc's largest mmap threshold); larger ones are still mapped."""
KEPT_FREE = 256 << 20
"""The heap keeps up to this much freed memory at its top before giving it back."""

_settled = False
"""Whether this process has already been told (or could not be)."""


def keep_freed_memory() -> None:
    """After a run: tell malloc to keep freed memory for the next run (once per process; nothing when the switch is
    off, off Linux, or without ``mallopt``)."""
    global _settled
    if _settled or not _fast.ENABLED:
        return
    _settled = True
    if not sys.platform.startswith("linux"):
        return
    import ctypes  # here, not at import: it costs a cold start about 1.5 ms, and one run never needs it

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # no C library to ask, or one without mallopt
        return
    mallopt(M_MMAP_THRESHOLD, HEAP_ARRAYS)
    mallopt(M_TRIM_THRESHOLD, KEPT_FREE)
