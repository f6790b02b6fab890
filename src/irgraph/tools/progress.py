"""A one-line progress bar on a terminal, for commands that can take seconds on real networks.

Drawn by tqdm (a well-kept, dependency-free progress library: terminal width, throttling, a delay before
the first draw and erasing are its job, not irgraph's) on stderr, and only when stderr is a terminal:
never in a pipe, a file, or with ``--json``. A bar appears once a command has run for :data:`DELAY`
seconds (a quick run shows nothing), is redrawn at most every :data:`INTERVAL` seconds and is erased
when done, so what stays on the screen is the command's output. tqdm is imported when a bar is shown.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from irgraph.core.errors import printable

__all__ = ["DELAY", "INTERVAL", "Progress"]

DELAY = 0.5
"""Seconds a command runs before the bar first appears."""
INTERVAL = 0.1
"""Least seconds between two redraws."""


class Progress:
    """Stages of work (a label and, when known, a total), each one tqdm bar redrawn in place on one line.

    ``enabled=False`` makes every method a no-op: callers report progress unconditionally.
    """

    def __init__(self, stream: TextIO | None = None, *, enabled: bool = True, delay: float | None = None,
                 interval: float | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.delay = DELAY if delay is None else delay
        self.interval = INTERVAL if interval is None else interval
        self._bar: Any = None

    @classmethod
    def on_terminal(cls, stream: TextIO | None = None, *, quiet: bool = False, tty: bool | None = None) -> Progress:
        """A bar on ``stream`` (stderr) when it is a terminal and not ``quiet``; ``tty`` overrides the check."""
        stream = stream if stream is not None else sys.stderr
        if tty is None:
            try:
                tty = stream.isatty()
            except (AttributeError, ValueError):  # a closed or a fake stream
                tty = False
        return cls(stream, enabled=bool(tty) and not quiet)

    def stage(self, label: str, total: int | None = None) -> None:
        """Start a stage of ``total`` steps (None: unknown, the label and a count are shown)."""
        if not self.enabled:
            return
        self.close()
        from tqdm import tqdm

        self._bar = tqdm(total=total, desc=printable(label), file=self.stream, leave=False, delay=self.delay,
                         mininterval=self.interval, dynamic_ncols=True, ascii=True)

    def advance(self, count: int = 1) -> None:
        """``count`` more steps of the current stage are done."""
        if self._bar is not None:
            self._bar.update(count)

    def step(self, *_: object) -> None:
        """:meth:`advance` by one, taking any arguments: usable as a callback (``Interpreter.on_step``)."""
        if self._bar is not None:
            self._bar.update(1)

    def close(self) -> None:
        """Erase the line (if one was drawn)."""
        if self._bar is not None:
            try:
                self._bar.close()
            except (OSError, ValueError):  # a terminal that went away: progress is not worth an error
                self.enabled = False
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
