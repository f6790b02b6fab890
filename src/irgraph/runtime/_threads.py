"""The BLAS thread count of an Interpreter's runs (``Interpreter(threads=N)``, ``ir-run --threads N``).

NumPy's BLAS (OpenBLAS) starts one thread per core and splits every large matrix product between them;
each product waits for its slowest thread. When other processes keep a core busy, the thread that lands
there runs late and the product waits for it: ResNet-50 ran 4x slower on 2 threads than on 1 at load 3-4
on 2 cores, and a single sgemm of 1e8 multiply-adds 10-27x slower at load 9 (measured on 2 cores with
OpenBLAS 0.3.31). So a run without a count asked for (``threads=None``) takes the free cores: the cores
this process may use less the other tasks running at that instant (``/proc/loadavg``'s running count,
this process's own running threads left out), at least one and at most the library's own count.
The price: OpenBLAS splits a product differently on another count, and a float sum's last bit follows the
split (YOLOv8n: 67,923 of 705,600 outputs differed between 1 and 2 threads, OpenBLAS 0.3.31), so the
default makes a run's last bits follow the machine's load; a fixed count makes runs reproducible.

Products too small to gain from a second thread run single-threaded by OpenBLAS's own rule: measured on
2 cores, a second thread gains nothing (ratio 0.97-1.00) up to ~1e6 multiply-adds per product, 4 % at
1.8e6 and 15-30 % from 3e6 on, and OpenBLAS 0.3.31 already keeps products below ~1e6 on one thread, so a
per-step switch at that threshold would change nothing; what the count must follow is the free cores.

threadpoolctl finds the BLAS library NumPy loaded (once per process) and sets its count for the length
of a run; the library's previous count is restored afterwards. Sub-graph bodies run inside their
owner's run and keep the count it chose.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from typing import Any

LOADAVG = "/proc/loadavg"
"""Linux's load file: its fourth field is "running tasks/all tasks" at the instant it is read."""
_libraries: list[Any] | None = None
"""threadpoolctl's controllers of the BLAS libraries this process loaded (looked up once)."""
_sampled = (-1.0, 1)
"""When the free cores were last counted (time.monotonic()) and how many there were."""
SAMPLE_SECONDS = 0.1
"""Runs that start within this long of the last count reuse it: counting costs ~0.1 ms (it reads /proc), a
run of a small model as little as that."""
_depth = 0
"""How many runs with a chosen count are in progress (a body's run inside its owner's keeps the count)."""


def blas_libraries() -> list[Any]:
    """threadpoolctl's controllers of the loaded BLAS libraries; imported and looked up on first use."""
    global _libraries
    if _libraries is None:
        import numpy  # noqa: F401  # the library to find is the one NumPy loads
        from threadpoolctl import ThreadpoolController  # only when a run first needs it

        _libraries = list(ThreadpoolController().select(user_api="blas").lib_controllers)
    return _libraries


def usable_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _own_running_threads() -> int:
    """This process's threads in state R (its BLAS workers spin between products)."""
    running = 0
    try:
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError), open(f"/proc/self/task/{task}/stat", "rb") as stat:
                # "pid (comm) S ...": the state follows the last ')' (comm may hold spaces and brackets)
                text = stat.read()
                running += text[text.rindex(b")") + 2:text.rindex(b")") + 3] == b"R"
    except OSError:
        return 1
    return max(1, running)


def free_cores() -> int:
    """The cores not taken by other running tasks at this instant (at least 1); the usable cores where the
    system does not say (no ``/proc/loadavg``)."""
    cores = usable_cores()
    try:
        with open(LOADAVG, "rb") as loadavg:
            running = int(loadavg.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return cores
    others = max(0, running - _own_running_threads())
    return max(1, cores - others)


def recent_free_cores() -> int:
    """:func:`free_cores`, counted again when the last count is older than ``SAMPLE_SECONDS``."""
    global _sampled
    now = time.monotonic()
    if now - _sampled[0] > SAMPLE_SECONDS:
        _sampled = (now, free_cores())
    return _sampled[1]


class BlasThreads:
    """Runs under ``with threads.limit():`` use ``count`` BLAS threads, or the free cores when ``count`` is None."""

    def __init__(self, count: int | None) -> None:
        if count is not None and count < 1:
            raise ValueError(f"threads must be at least 1, got {count}")
        self.count = count

    @contextlib.contextmanager
    def limit(self) -> Iterator[None]:
        """The count in force inside the block, the libraries' previous ones restored after it."""
        global _depth
        if self.count is None and _depth:  # a body inside its owner's run: the owner chose
            yield
            return
        libraries = blas_libraries()
        before = [library.get_num_threads() for library in libraries]
        if self.count is None and all((count or 1) <= 1 for count in before):
            chosen = 1  # nothing to take away: the machine is not asked
        else:
            chosen = self.count if self.count is not None else recent_free_cores()
        changed = []
        for library, count in zip(libraries, before, strict=True):
            wanted = chosen if self.count is not None else min(count or 1, chosen)
            if wanted != count:
                library.set_num_threads(wanted)
                changed.append((library, count))
        _depth += 1
        try:
            yield
        finally:
            _depth -= 1
            for library, count in changed:
                library.set_num_threads(count)
