"""Counting things in messages: ``1 tensor``, ``3 tensors``, one spelling for every tool."""

from __future__ import annotations

__all__ = ["counted", "plural"]


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """``noun`` in the number ``count`` asks for, without the count: ``noun`` for 1, else ``plural_form``
    (default: ``noun`` + ``s``; 0 takes the plural)."""
    if count == 1:
        return noun
    return plural_form if plural_form is not None else noun + "s"


def counted(count: int, noun: str, plural_form: str | None = None) -> str:
    """``1 layer``, ``3 layers``, ``0 layers`` (see :func:`plural`)."""
    return f"{count} {plural(count, noun, plural_form)}"
