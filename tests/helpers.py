"""Small helpers shared across test packages: the golden corpus, locating text in XML, file modes and syncs."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parent / "data" / "ov"
"""IR files written by the real OpenVINO (tests/oracle/generate_goldens.py), one case per folder."""


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first occurrence of ``needle`` in ``text``."""
    position = text.index(needle)
    return text.count("\n", 0, position) + 1


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    """Run the block under the process umask ``mask`` (restored after)."""
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


def mode_of(path: str | os.PathLike[str]) -> int:
    """The permission bits of ``path`` (0o644...)."""
    return stat.S_IMODE(os.lstat(path).st_mode)


def record_fsync_and_replace(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, str]]:
    """Record every ``os.fsync`` (with the path its descriptor names) and ``os.replace``, in call order.

    Entries are ``("fsync", path, "")`` and ``("replace", source, destination)``; both calls still happen.
    """
    calls: list[tuple[str, str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(descriptor: int) -> None:
        calls.append(("fsync", os.readlink(f"/proc/self/fd/{descriptor}"), ""))
        real_fsync(descriptor)

    def replace(source: str, destination: str, **kwargs: object) -> None:
        calls.append(("replace", os.fspath(source), os.fspath(destination)))
        real_replace(source, destination, **kwargs)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    return calls
