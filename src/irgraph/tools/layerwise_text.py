"""The text report of a layer-by-layer comparison (:mod:`irgraph.tools.layerwise`): a line per tensor, the first
divergent layer in detail, the layer's own error beside the inherited one, or what each side has when nothing
was compared."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from irgraph.core.errors import printable
from irgraph.core.text import counted, plural
from irgraph.tools.compare import format_histogram, tolerance_text

if TYPE_CHECKING:
    from irgraph.tools.layerwise import ComparedTensor, LayerwiseReport

__all__ = ["SHOWN_NAMES", "format_report", "listed", "short"]

SHOWN_NAMES = 8
"""Names listed per side when nothing was compared."""


def format_report(report: LayerwiseReport, verbose: bool = False) -> list[str]:
    """A line per tensor (mismatches and outputs; ``verbose``: every one), then the first divergence in detail,
    or what each side has when nothing was compared."""
    compared, hidden = len(report.compared), len(report.tensors) - len(report.compared)
    lines = [f"compare with {report.reference} ({tolerance_text(report.atol, report.rtol)}): "
             f"{counted(compared, 'tensor')} compared, {hidden} not exposed by the reference"]
    rows = []
    for tensor in report.tensors:
        item = tensor.comparison
        if not (verbose or tensor.is_output or tensor.diverges or (tensor.local is not None and tensor.local.exceeds)):
            continue
        if item is None:
            verdict, errors = "-       ", "(not exposed by the reference)"
        else:
            verdict = "ok      " if item.passed else "MISMATCH"
            errors = (f"max abs error {short(item.max_abs_error)}  max rel error {short(item.max_rel_error)}"
                      if item.max_abs_error is not None else f"({item.reason})")
            notes = [note for note in (item.note, _matched_as(tensor)) if note]
            if notes:
                errors += f"  ({'; '.join(notes)})"
            errors += _own_cell(tensor)
        rows.append((verdict, printable(tensor.key), tensor.node.type_name, errors))
    width = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
    lines += [f"  {v}  {k.ljust(width[1])}  {t.ljust(width[2])}  {e}".rstrip() for v, k, t, e in rows]
    if not report.compared:
        lines += _nothing_compared(report)
        return lines
    within = sum(1 for tensor in report.compared if tensor.comparison and tensor.comparison.within_precision)
    if within:
        lines.append(f"{counted(within, 'tensor')} {plural(within, 'differs', 'differ')} only within what the "
                     "precision allows (docs/tolerances.md, 'Comparing whole models')")
    first = report.first_divergence
    if first is None:
        lines += _own_section(report)
        lines.append(f"every compared tensor matches {report.reference}")
        return lines
    item = first.comparison
    assert item is not None
    where = first.where()
    lines.append("")
    lines.append(f"first divergent layer: {printable(first.node.name)!r} ({first.node.type_name}, id {first.node.id})"
                 + (f" at {where}" if where else ""))
    lines.append(f"  output {first.index} ({printable(first.key)}): {item.reason}")
    if item.max_abs_error is not None:
        share = f" ({100 * (item.mismatches or 0) / item.size:.1f}%)" if item.size else ""
        lines.append(f"  max abs error {short(item.max_abs_error)}  mean abs error {short(item.mean_abs_error)}  "
                     f"max rel error {short(item.max_rel_error)}  mean rel error {short(item.mean_rel_error)}")
        lines.append(f"  mismatches: {item.mismatches} of {item.size}{share}")
        if item.histogram:
            lines.append("  |error| histogram of the elements that differ:")
            lines += format_histogram(item.histogram)
    later = sum(1 for tensor in report.tensors if tensor.diverges) - 1
    if later:
        lines.append(f"  ({counted(later, 'tensor')} after it {plural(later, 'differs', 'differ')} too)")
    return lines + _own_section(report)


def _own_cell(tensor: ComparedTensor) -> str:
    """``  own 1.2e-07``: the layer's own max abs error on the reference's inputs, flagged beyond its class."""
    local = tensor.local
    if local is None:
        return ""
    if local.comparison is None:
        return "  own -"
    cell = f"  own {short(local.comparison.max_abs_error)}" + ("  OWN ERROR BEYOND ITS CLASS" if local.exceeds else "")
    return cell + (f"  ({local.truth.describe()})" if local.truth is not None else "")


def _own_section(report: LayerwiseReport) -> list[str]:
    """The layer's own error: the first layer beyond its tolerance class in detail, or that there is none."""
    judged = [t for t in report.compared if t.local is not None]
    if not judged:
        return []
    missing = [t for t in judged if t.local is not None and t.local.comparison is None]
    lines = ["", f"each layer's own error (irgraph's layer on {report.reference}'s own inputs, judged by its "
             f"tolerance class): {counted(len(judged) - len(missing), 'tensor')} judged"
             + (f", {len(missing)} not ({_first_reason(missing)})" if missing else "")]
    own = report.first_local_divergence
    if len(missing) == len(judged):
        return lines
    if own is None:
        first = report.first_divergence
        inherited = ": the mismatch is only inherited rounding" if first is not None else ""
        return [*lines, f"  none exceeds its class{inherited}"]
    local = own.local
    assert local is not None and local.comparison is not None
    item, where = local.comparison, own.where()
    lines.append(f"  first layer whose own error exceeds its class: {printable(own.node.name)!r} "
                 f"({own.node.type_name}, id {own.node.id})" + (f" at {where}" if where else ""))
    lines.append(f"    output {own.index} ({printable(own.key)}): {item.reason}")
    if item.tolerance is not None:
        lines.append(f"    its tolerance class: {item.tolerance.describe()}")
    if local.truth is not None:
        lines.append(f"    {local.truth.describe()}: the largest difference of each side from the layer in f64")
    elif local.truth_missing:
        lines.append(f"    f64: not evaluated ({local.truth_missing})")
    return lines


def _first_reason(tensors: list[ComparedTensor]) -> str:
    local = tensors[0].local
    return f"{printable(tensors[0].key)}: {local.missing}" if local is not None else ""


def _matched_as(tensor: ComparedTensor) -> str:
    name = tensor.reference_name
    if name is None or name == tensor.key or name == f"{tensor.node.name}:{tensor.index}":
        return ""
    return f"as {printable(name)!r} in the reference"


def _nothing_compared(report: LayerwiseReport) -> list[str]:
    lines = ["", f"nothing was compared: {report.reference} exposes none of these tensors under any of their names",
             f"  irgraph:   {listed([tensor.key for tensor in report.tensors])}",
             f"  reference: {listed(report.reference_names)}"]
    close = [(key, names) for key, names in report.closest().items() if names][:SHOWN_NAMES]
    if close:
        lines.append("  closest:")
        lines += [f"    {printable(key)}: {', '.join(printable(name) for name in names)}" for key, names in close]
    return lines


def listed(names: list[str]) -> str:
    """Up to SHOWN_NAMES names and how many there are."""
    shown = ", ".join(printable(name) for name in names[:SHOWN_NAMES])
    more = f", ... ({len(names)} in all)" if len(names) > SHOWN_NAMES else ""
    return (shown + more) if names else "nothing"


def short(value: float | None) -> str:
    """An error for a table: three significant digits, ``inf``, or ``-`` when there is none."""
    if value is None:
        return "-"
    return "inf" if math.isinf(value) else f"{value:.3g}"
