"""What ir-run prints: the table of outputs and marked tensors, and the JSON summary."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from irgraph.core.errors import printable
from irgraph.core.text import counted
from irgraph.tools import feeds as feeds_lib
from irgraph.tools.stats import format_stats_table, tensor_stats

if TYPE_CHECKING:  # a plain run prints the table without loading the comparison
    import argparse

    from irgraph.tools.compare import ComparisonReport
    from irgraph.tools.feeds import Feed

__all__ = ["MARKS_SHOWN", "run_summary", "stats_lines"]

MARKS_SHOWN = 20
"""More marked tensors than this (``--mark all``) are summarised in a line, not listed in the table."""


def stats_lines(stored: Mapping[str, np.ndarray], marked: set[str], compared_below: bool) -> list[str]:
    """The table of outputs and marked tensors; many marked tensors, or ones a comparison lists below, are
    summarised in one line (and those holding NaN or infinity named) so that the verdict is not buried."""
    rows = [tensor_stats(key, array) for key, array in stored.items()]
    marks = [row for row in rows if row["name"] in marked]
    if not marks or (len(marks) <= MARKS_SHOWN and not compared_below):
        return [format_stats_table(rows)]
    lines = [format_stats_table([row for row in rows if row["name"] not in marked])]
    where = "each compared below" if compared_below else "their statistics: --json, their values: --output OUT.npz"
    lines.append(f"marked: {counted(len(marks), 'tensor')} ({where})")
    not_finite = [str(row["name"]) for row in marks if any(str(row[stat]) in ("nan", "inf", "-inf")
                                                          for stat in ("min", "max", "mean"))]
    if not_finite:
        shown = ", ".join(printable(name) for name in not_finite[:MARKS_SHOWN])
        lines.append(f"  {len(not_finite)} hold NaN or infinity: {shown}"
                     + (f", ... ({len(not_finite)} in all)" if len(not_finite) > MARKS_SHOWN else ""))
    return lines


def run_summary(
    args: argparse.Namespace,
    feeds: list[Feed],
    stored: Mapping[str, np.ndarray],
    marked: set[str],
    comparison: ComparisonReport | None,
) -> dict[str, object]:
    """The JSON summary of a run: its inputs, outputs, marked tensors and the --compare verdict."""
    summary: dict[str, object] = {
        "model": args.model,
        "inputs": feeds_lib.describe_inputs(feeds),
        "outputs": [tensor_stats(key, array) for key, array in stored.items() if key not in marked],
        "output_file": os.path.abspath(args.output) if args.output else None,
        "compare": dict(comparison.to_json(), reference=args.compare) if comparison is not None else None,
        "ok": comparison is None or comparison.passed,
    }
    if marked:
        summary["marked"] = [tensor_stats(key, array) for key, array in stored.items() if key in marked]
    return summary
