"""Small helpers shared across test packages: the golden corpus and locating text in XML."""

from __future__ import annotations

from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "data" / "ov"
"""IR files written by the real OpenVINO (tests/oracle/generate_goldens.py), one case per folder."""


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first occurrence of ``needle`` in ``text``."""
    position = text.index(needle)
    return text.count("\n", 0, position) + 1
