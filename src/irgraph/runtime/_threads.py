"""The BLAS thread count of an Interpreter's runs (``Interpreter(threads=N)``, ``ir-run --threads N``).

NumPy's BLAS (OpenBLAS) starts one thread per core and spins them at every matrix product. On a machine
whose cores are busy with other work, those threads wait for each other: ResNet-50 ran 4x slower with 2
threads than with 1 at load 3-4 on 2 cores. threadpoolctl sets the count of the BLAS library NumPy loaded,
for the length of a run, and restores it afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


class BlasThreads:
    """Runs under ``with threads.limit():`` use ``count`` BLAS threads; the library is looked up once."""

    def __init__(self, count: int) -> None:
        if count < 1:
            raise ValueError(f"threads must be at least 1, got {count}")
        from threadpoolctl import ThreadpoolController  # only when a count is asked for

        self.count = count
        self._controller = ThreadpoolController()

    @contextlib.contextmanager
    def limit(self) -> Iterator[None]:
        """The count in force inside the block, the previous one restored after it."""
        with self._controller.limit(limits=self.count, user_api="blas"):
            yield
