"""ir-validate: check IR files (schema, graph, ops) and print one line per diagnostic."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable
from typing import TypedDict

import irgraph
from irgraph.cli import _common as common
from irgraph.cli import _parsing as parsing
from irgraph.core.diagnostics import CODES, Diagnostic, Severity
from irgraph.core.errors import IrError, Location
from irgraph.core.text import counted, plural

DESCRIPTION = """\
Check OpenVINO IR files: structure (XML schema), graph (ids, edges, cycles, Results) and every
op's rules and declared types. Prints one line per diagnostic:

  FILE:LINE: error|warning|note: [CODE] message

A problem found at many layers is printed once, with the count and the other lines (--verbose
prints every occurrence). Layers of standard ops irgraph does not check yet, and custom
(extension) ops, are summarised in one note per kind, counted by op type. What OpenVINO tolerates
but is suspicious is a warning; --strict makes warnings errors (never notes). Exit 0 when no file
has an error, 1 when one has, 2 when a file cannot be read at all.
"""

EXAMPLES = """\
  ir-validate samples/dml-split-axis2/model.xml
  ir-validate --strict models/*.xml
  ir-validate --json model.xml
  ir-validate --ignore unreachable,duplicate-name model.xml
  ir-validate --select declared-shape --strict model.xml
"""

SHOWN_LINES = 8
"""A problem repeated at many layers names at most this many of its other lines."""


def build_parser() -> argparse.ArgumentParser:
    """The ir-validate argument parser."""
    parser = parsing.make_parser("ir-validate", DESCRIPTION, EXAMPLES)
    parser.add_argument("models", metavar="MODEL.xml", nargs="+", help="IR files to check")
    parser.add_argument("--weights", metavar="BIN", help="weights file (one model only; default: MODEL.bin)")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors (notes stay notes)")
    parser.add_argument("--select", metavar="CODE[,CODE]", action="append", default=[],
                        help="report only these diagnostic codes (repeatable)")
    parser.add_argument("--ignore", metavar="CODE[,CODE]", action="append", default=[],
                        help="do not report these diagnostic codes (repeatable)")
    parser.add_argument("--verbose", action="store_true", help="print every occurrence of a repeated problem")
    parser.add_argument("--json", action="store_true", help="print a JSON report (every diagnostic)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ir-validate``."""
    return common.run_cli(build_parser(), _validate, argv)


def _validate(args: argparse.Namespace) -> int:
    if args.weights is not None and len(args.models) > 1:
        raise common.CliError("--weights applies to one model; give one MODEL.xml with it")
    select, ignore = _codes(args.select, "--select"), _codes(args.ignore, "--ignore")
    keep = _filter(select, ignore)
    checked = [check_file(path, args.weights, args.strict, keep=keep, verbose=args.verbose) for path in args.models]
    reports = [report for report, _ in checked]
    if args.json:  # ensure_ascii (the default): names exact, every non-ASCII character a \uXXXX escape
        print(json.dumps({"valid": all(r["valid"] for r in reports), "strict": args.strict,
                          "select": sorted(select) if select is not None else None, "ignore": sorted(ignore or ()),
                          "files": reports}, indent=2))
    else:
        for _, lines in checked:
            for line in lines:
                print(line)
    unreadable = [r for r in reports if r["unreadable"]]
    invalid = [r for r in reports if not r["valid"] and not r["unreadable"]]
    for report in unreadable:
        common.report(report["reason"], common.EXIT_USAGE)
    if invalid:
        errors = sum(r["errors"] for r in invalid)
        names = ", ".join(r["file"] for r in invalid)
        common.report(f"{names}: invalid {plural(len(invalid), 'model')} "
                      f"({counted(errors, 'error')})", common.EXIT_FAILURE)
    if unreadable:
        return common.EXIT_USAGE
    return common.EXIT_FAILURE if invalid else common.EXIT_OK


def _codes(values: list[str], option: str) -> set[str] | None:
    """The codes given to ``--select``/``--ignore`` (comma-separated, repeatable); None when not given."""
    if not values:
        return None
    codes = {code.strip() for value in values for code in value.split(",") if code.strip()}
    unknown = sorted(codes - set(CODES))
    if unknown:
        common.warn(f"{option}: no diagnostic has the code {', '.join(map(repr, unknown))} "
                    f"(codes: {', '.join(sorted(CODES))})")
    return codes


def _filter(select: set[str] | None, ignore: set[str] | None) -> Callable[[Diagnostic], bool]:
    def keep(diagnostic: Diagnostic) -> bool:
        return (select is None or diagnostic.code in select) and (ignore is None or diagnostic.code not in ignore)

    return keep


class _Counts(TypedDict):
    file: str
    valid: bool
    unreadable: bool
    errors: int
    warnings: int
    notes: int
    diagnostics: list[dict[str, object]]


class FileReport(_Counts, total=False):
    """One file's entry in ``ir-validate --json``; ``reason`` only when the file could not be read."""

    reason: str


def _unreadable(report: FileReport, reason: str) -> FileReport:
    report["unreadable"] = True
    report["reason"] = reason
    return report


def check_file(
    path: str, weights: str | None, strict: bool, *, keep: Callable[[Diagnostic], bool] = lambda d: True,
    verbose: bool = False,
) -> tuple[FileReport, list[str]]:
    """Validate one file; returns its report (diagnostics, counts) and the lines to print.

    ``keep`` filters diagnostics (--select/--ignore); the lines print a repeated problem once
    unless ``verbose``; the report holds every diagnostic.
    """
    report: FileReport = {"file": path, "valid": False, "unreadable": False, "errors": 0, "warnings": 0, "notes": 0,
                          "diagnostics": []}
    try:
        common.require_model_files(path, weights)
        diagnostics = irgraph.validate_file(path, weights)
    except common.CliError as err:
        return _unreadable(report, str(err)), []
    except OSError as err:  # includes I/O errors raised as IrError subclasses
        reason = str(err) if isinstance(err, IrError) else common.describe_os_error(err)
        return _unreadable(report, reason), []
    except IrError as err:  # a reader that stops instead of reporting: one error diagnostic
        location = err.location.with_file(path)
        diagnostics = [Diagnostic("read", Severity.ERROR, err.message, location)]
    unreadable = next((d for d in diagnostics if d.code == "io"), None)
    if unreadable is not None:  # e.g. the .bin beside the model is a directory: an I/O error (exit 2) as in ir-run
        where = unreadable.location
        reason = ": ".join(part for part in (where.prefix() or path, where.layer(), unreadable.message) if part)
        return _unreadable(report, reason), []
    diagnostics = [d for d in diagnostics if keep(d)]
    if strict:
        diagnostics = [dataclasses.replace(d, severity=Severity.ERROR) if d.severity is Severity.WARNING else d
                       for d in diagnostics]
    diagnostics = [_with_file(d, path) for d in diagnostics]
    errors = sum(1 for d in diagnostics if d.is_error)
    notes = sum(1 for d in diagnostics if d.severity is Severity.NOTE)
    warnings = len(diagnostics) - errors - notes
    lines = [common.one_line(str(d)) for d in diagnostics] if verbose else _grouped(diagnostics)
    summary = f"{common.one_line(path)}: {'valid' if not errors else 'invalid'}: {counted(errors, 'error')}, " \
              f"{counted(warnings, 'warning')}" + (f", {counted(notes, 'note')}" if notes else "")
    report = {"file": path, "valid": not errors, "unreadable": False, "errors": errors, "warnings": warnings,
              "notes": notes, "diagnostics": [_diagnostic_json(d) for d in diagnostics]}
    return report, [*lines, summary]


def _grouped(diagnostics: list[Diagnostic]) -> list[str]:
    """One line per problem: the first occurrence, then how many more and where."""
    groups: dict[tuple[Severity, str, str], list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        groups.setdefault((diagnostic.severity, diagnostic.code, diagnostic.message), []).append(diagnostic)
    lines = []
    for group in groups.values():
        line = str(group[0])
        if len(group) > 1:
            others = [str(d.location.line) for d in group[1:] if d.location.line is not None]
            where = f" (lines {', '.join(others[:SHOWN_LINES])}{', ...' if len(others) > SHOWN_LINES else ''})" \
                if others else ""
            line += f" [and {len(group) - 1} more{where}]"
        lines.append(common.one_line(line))
    return lines


def _with_file(diagnostic: Diagnostic, path: str) -> Diagnostic:
    if diagnostic.location.file:
        return diagnostic
    return dataclasses.replace(diagnostic, location=diagnostic.location.with_file(path))


def _diagnostic_json(diagnostic: Diagnostic) -> dict[str, object]:
    location: Location = diagnostic.location
    return {
        "code": diagnostic.code,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "file": location.file,
        "line": location.line,
        "layer_id": location.layer_id,
        "layer_name": location.layer_name,
        "layer_type": location.layer_type,
        "text": str(diagnostic),
        **({"counts": dict(diagnostic.counts)} if diagnostic.counts else {}),
    }


if __name__ == "__main__":
    sys.exit(main())
