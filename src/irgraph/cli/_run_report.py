"""ir-run --report: the HTML report of a comparison with another runtime (irgraph.tools.report)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgraph.cli import _common as common
from irgraph.cli._common import CliError

# Every run asks this module about --report; the report's tools load only when one is written.
if TYPE_CHECKING:
    import argparse

    from irgraph.graph import Model
    from irgraph.tools.layerwise import LayerwiseReport
    from irgraph.tools.profiling import Profile
    from irgraph.tools.stepwise import SteppedReport

__all__ = ["add_report_argument", "check_report_argument", "save_report"]


def add_report_argument(group: argparse._ArgumentGroup) -> None:
    """--report FILE.html, in the group of the comparison options."""
    group.add_argument("--report", metavar="FILE.html",
                       help="with --compare-with: write an HTML report (one self-contained file, nothing fetched): "
                            "the verdict with each layer's own error, the error per layer against depth (log scale; "
                            "needs matplotlib: pip install -e '.[report]'), the divergent layer's neighbourhood "
                            "(drawn when Graphviz's dot is installed, else a table), the --profile times, and the "
                            "FILE:LINE of every layer")


def check_report_argument(args: argparse.Namespace) -> None:
    """--report needs --compare-with (exit 2)."""
    if args.report is not None and args.compare_with is None:
        raise CliError("--report needs --compare-with: it reports a comparison with another runtime")


def save_report(args: argparse.Namespace, model: Model, compared: LayerwiseReport | SteppedReport | None,
                profile: Profile | None) -> None:
    """Write --report, if asked; say once what it lacks (no matplotlib, no Graphviz). A report that cannot be
    written is a warning: the comparison's verdict stays the exit status."""
    if args.report is None or compared is None:
        return
    from irgraph.tools.report import write_report

    try:
        notes = write_report(args.report, compared, model, profile=profile, source=args.model)
    except OSError as err:
        common.warn(f"{args.report}: the report could not be written: {err.strerror or err}")
        return
    for note in notes:
        common.note(note)
    common.note(f"report written: {args.report}")
