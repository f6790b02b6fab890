"""The command-line tools' argparse parsers: one-line usage errors, ``--debug``, ``--version``, the examples.

Apart from ``_common`` so that a plain ``ir-run MODEL --inputs FILE`` line, which ir-run reads without a parser,
imports neither argparse nor the gettext and locale modules argparse imports (about 3 ms of a cold start).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

import irgraph
from irgraph.cli._common import EXIT_USAGE, one_line, positive_int
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, finding the terminal's width as shutil.get_terminal_size does, without importing
    shutil: argparse makes one per add_argument, so every command would otherwise load shutil at start-up."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, _terminal_columns() - 2 if width is None else width)


def _terminal_columns(fallback: int = 80) -> int:
    """$COLUMNS when a positive integer, else the width of the terminal on stdout, else ``fallback``."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ is not None else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or fallback


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (``error: ...``) and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"error: {one_line(message)} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_USAGE)


def make_parser(prog: str, description: str, examples: str, parser_class: type[Parser] | None = None
                ) -> argparse.ArgumentParser:
    """A parser (``parser_class``, a subclass of this module's) with ``--debug``, ``--version`` and an examples
    epilog."""
    parser = (parser_class or Parser)(
        prog=prog,
        description=description,
        epilog="examples:\n" + examples.rstrip() + "\n\nexit codes: 0 ok, 1 invalid model / failed run / mismatch, "
        "2 usage or I/O error",
        formatter_class=_Formatter,
    )
    parser.add_argument("--debug", action="store_true", help="show a traceback for errors")
    parser.add_argument("--version", action="version", version=f"%(prog)s (irgraph {irgraph.__version__})")
    return parser


def add_max_elements(parser: argparse.ArgumentParser) -> None:
    """``--max-elements N``: the budget for any one tensor read, fed or computed."""
    parser.add_argument(
        "--max-elements",
        type=positive_int,
        default=DEFAULT_ELEMENT_LIMIT,
        metavar="N",
        help="largest tensor (in elements) to read, feed or compute (default: 2**31)",
    )
