"""irgraph.cli._parsing: the parsers' help is as wide as the terminal (shutil's rule, without shutil)."""

from __future__ import annotations

import os

import pytest

from irgraph.cli import _parsing


@pytest.mark.parametrize(("columns", "expected"), [("100", 100), ("1", 1), ("0", None), ("-3", None), ("x", None),
                                                   (None, None)])
def test_the_width_is_columns_when_a_positive_integer_else_the_terminal_s_else_80(monkeypatch, columns, expected):
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(_parsing.os, "get_terminal_size", lambda fd: os.terminal_size((123, 40)))
    assert _parsing._terminal_columns() == (123 if expected is None else expected)
    monkeypatch.setattr(_parsing.sys, "__stdout__", None)  # no stdout to ask: the fallback
    assert _parsing._terminal_columns() == (80 if expected is None else expected)
    assert _parsing._terminal_columns(fallback=7) == (7 if expected is None else expected)


def test_help_is_wrapped_two_columns_inside_the_width_with_options_indented_by_two(monkeypatch):
    monkeypatch.setenv("COLUMNS", "52")
    parser = _parsing.make_parser("ir-demo", "A demonstration.", "ir-demo x\n")
    parser.add_argument("--long-option", help="word " * 30)
    text = parser.format_help()
    wrapped = [len(line) for line in text.splitlines() if "word" in line]  # the epilog is kept as written
    assert len(wrapped) > 3 and max(wrapped) <= 50
    assert max(wrapped) >= 45  # wrapped at the width, not at a narrower one
    assert "\n  --debug" in text and "\n   --debug" not in text
    assert _parsing._Formatter("p", width=30)._width == 30  # an explicit width is kept as given
