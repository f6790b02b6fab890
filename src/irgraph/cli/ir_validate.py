"""ir-validate: check IR files (schema, graph, ops) and print one line per diagnostic."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

import irgraph
from irgraph.cli import _common as common
from irgraph.errors import IrError, Location
from irgraph.validation import Diagnostic, Severity

DESCRIPTION = """\
Check OpenVINO IR files: structure (XML schema), graph (ids, edges, cycles, Results) and every
op's rules and declared types. Prints one line per diagnostic:

  FILE:LINE: error|warning: [CODE] message

What OpenVINO tolerates but is suspicious is a warning; --strict makes warnings errors. Exit 0
when no file has an error, 1 when one has, 2 when a file cannot be read at all.
"""

EXAMPLES = """\
  ir-validate samples/dml-split-axis2/model.xml
  ir-validate --strict models/*.xml
  ir-validate --json model.xml
"""


def build_parser() -> argparse.ArgumentParser:
    """The ir-validate argument parser."""
    parser = common.make_parser("ir-validate", DESCRIPTION, EXAMPLES)
    parser.add_argument("models", metavar="MODEL.xml", nargs="+", help="IR files to check")
    parser.add_argument("--weights", metavar="BIN", help="weights file (one model only; default: MODEL.bin)")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    parser.add_argument("--json", action="store_true", help="print a JSON report")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ir-validate``."""
    return common.run_cli(build_parser(), _validate, argv)


def _validate(args: argparse.Namespace) -> int:
    if args.weights is not None and len(args.models) > 1:
        raise common.CliError("--weights applies to one model; give one MODEL.xml with it")
    checked = [check_file(path, args.weights, args.strict) for path in args.models]
    reports = [report for report, _ in checked]
    if args.json:  # ensure_ascii (the default): names exact, every non-ASCII character a \uXXXX escape
        print(json.dumps({"valid": all(r["valid"] for r in reports), "strict": args.strict, "files": reports},
                         indent=2))
    else:
        for _, lines in checked:
            for line in lines:
                print(line)
    unreadable = [r for r in reports if r["unreadable"]]
    invalid = [r for r in reports if not r["valid"] and not r["unreadable"]]
    for report in unreadable:
        common.report(report["reason"], common.EXIT_USAGE)
    if invalid:
        errors = sum(int(r["errors"]) for r in invalid)
        names = ", ".join(str(r["file"]) for r in invalid)
        common.report(f"{names}: invalid model{'s' if len(invalid) > 1 else ''} "
                      f"({errors} error{'s' if errors != 1 else ''})", common.EXIT_FAILURE)
    if unreadable:
        return common.EXIT_USAGE
    return common.EXIT_FAILURE if invalid else common.EXIT_OK


def check_file(path: str, weights: str | None, strict: bool) -> tuple[dict[str, object], list[str]]:
    """Validate one file; returns its report (diagnostics, counts) and the lines to print."""
    report: dict[str, object] = {"file": path, "valid": False, "unreadable": False, "errors": 0, "warnings": 0,
                                 "diagnostics": []}
    try:
        common.require_model_files(path, weights)
        diagnostics = irgraph.validate_file(path, weights)
    except common.CliError as err:
        return dict(report, unreadable=True, reason=str(err)), []
    except OSError as err:  # includes I/O errors raised as IrError subclasses
        reason = str(err) if isinstance(err, IrError) else common.describe_os_error(err)
        return dict(report, unreadable=True, reason=reason), []
    except IrError as err:  # a reader that stops instead of reporting: one error diagnostic
        location = err.location.with_file(path)
        diagnostics = [Diagnostic("read", Severity.ERROR, err.message, location)]
    unreadable = next((d for d in diagnostics if d.code == "io"), None)
    if unreadable is not None:  # e.g. the .bin beside the model is a directory: an I/O error (exit 2) as in ir-run
        where = unreadable.location
        reason = ": ".join(part for part in (where.prefix() or path, where.layer(), unreadable.message) if part)
        return dict(report, unreadable=True, reason=reason), []
    if strict:
        diagnostics = [dataclasses.replace(d, severity=Severity.ERROR) for d in diagnostics]
    diagnostics = [_with_file(d, path) for d in diagnostics]
    errors = sum(1 for d in diagnostics if d.is_error)
    warnings = len(diagnostics) - errors
    lines = [common.one_line(str(d)) for d in diagnostics]
    summary = f"{common.one_line(path)}: {'valid' if not errors else 'invalid'}: " \
              f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}"
    report.update(valid=not errors, errors=errors, warnings=warnings,
                  diagnostics=[_diagnostic_json(d) for d in diagnostics])
    return report, [*lines, summary]


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
    }


if __name__ == "__main__":
    sys.exit(main())
