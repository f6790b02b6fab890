"""A one-line progress bar on a terminal, for commands that can take seconds on real networks.

Drawn on stderr only when it is a terminal (never in a pipe, a file, or with ``--json``), only once a
command has run for :data:`DELAY` seconds (a quick run shows nothing), redrawn at most every
:data:`INTERVAL` seconds, and erased when done, so what stays on the screen is the command's output.
A dependency (tqdm, rich) would do the same with more options; irgraph needs one line, a label, a
count and a bar, and keeps its dependencies to what it computes with.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from typing import TextIO

from irgraph.errors import printable

__all__ = ["DELAY", "INTERVAL", "Progress"]

DELAY = 0.5
"""Seconds a command runs before the bar first appears."""
INTERVAL = 0.1
"""Least seconds between two redraws."""
BAR_WIDTH = 24


class Progress:
    """Stages of work (a label and, when known, a total) shown as one line that is redrawn in place.

    ``enabled=False`` makes every method a no-op: callers report progress unconditionally.
    """

    def __init__(self, stream: TextIO | None = None, *, enabled: bool = True, delay: float | None = None,
                 interval: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.delay = DELAY if delay is None else delay
        self.interval = INTERVAL if interval is None else interval
        self.clock = clock
        self.started = clock()
        self.label = ""
        self.total: int | None = None
        self.done = 0
        self._drawn_at: float | None = None
        self._width = 0

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
        """Start a stage of ``total`` steps (None: unknown, the label alone is shown)."""
        self.label, self.total, self.done = label, total, 0
        self._draw(force=True)

    def advance(self, count: int = 1) -> None:
        """``count`` more steps of the current stage are done."""
        self.done += count
        self._draw()

    def step(self, *_: object) -> None:
        """:meth:`advance` by one, taking any arguments: usable as a callback (``Interpreter.on_step``)."""
        self.done += 1
        self._draw()

    def close(self) -> None:
        """Erase the line (if one was drawn)."""
        if self.enabled and self._width:
            self._write("\r" + " " * self._width + "\r")
            self._width = 0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def line(self) -> str:
        """The text of the bar as it stands."""
        label = printable(self.label)
        if self.total is None:
            return f"{label} ..."
        total = max(self.total, 1)
        filled = min(BAR_WIDTH, BAR_WIDTH * self.done // total)
        return f"{label} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {self.done}/{self.total}"

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = self.clock()
        if now - self.started < self.delay:
            return
        if not force and self._drawn_at is not None and now - self._drawn_at < self.interval:
            return
        self._drawn_at = now
        columns = shutil.get_terminal_size((80, 24)).columns
        text = self.line()[: max(columns - 1, 10)]
        self._write("\r" + text + " " * max(self._width - len(text), 0))
        self._width = max(self._width, len(text))

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a terminal that went away: progress is not worth an error
            self.enabled = False
