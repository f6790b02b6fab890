"""An HTML report of a comparison with another runtime (``ir-run --compare-with ... --report report.html``).

One self-contained file, nothing fetched when it is opened (no scripts, no style sheets, fonts or images
from elsewhere; the only links are to places in the page and to the model's own file):

* the verdict: the first divergent layer, and each layer's own error beside the error it inherited
  (:mod:`irgraph.tools.local_error`): the first layer whose own error exceeds its tolerance class, or that
  a mismatch is only inherited rounding;
* the error of every compared tensor against its layer's depth, log scale (:mod:`irgraph.tools.report_plot`,
  matplotlib as an optional extra; without it the page says how to get the plot);
* the neighbourhood of the layer to blame: the drawing of ``ir-info --dot --around`` rendered to SVG when
  Graphviz's ``dot`` is installed, else a table of the same layers;
* the profile of the run (``--profile``), OpenVINO's counters beside irgraph's times when it gave them;
* every compared tensor with its errors and its layer's ``FILE:LINE``.

A comparison of several steps reports the first step that diverges (else the last).
"""

from __future__ import annotations

import html
import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from irgraph.core.errors import printable
from irgraph.graph import Model, Node
from irgraph.io.atomic import replace_files
from irgraph.ops import Result
from irgraph.tools.compare import tolerance_text
from irgraph.tools.dot import NEIGHBOURHOOD_DEPTH, DotStyle, constant_layers, neighbourhood, to_dot
from irgraph.tools.layerwise import ComparedTensor, LayerwiseReport
from irgraph.tools.profiling import Profile
from irgraph.tools.report_plot import INSTALL_HINT, PlotPoint, error_plot_svg
from irgraph.tools.stepwise import SteppedReport

__all__ = ["HtmlReport", "html_report", "layer_depths", "render_svg"]

PROFILE_ROWS = 25
"""The layers with the most time listed in the profile section."""
DOT_SECONDS = 60
"""Longest wait for Graphviz to lay a neighbourhood out (a few dozen boxes take well under a second)."""

_COLOURS = {"diverges": "#f5b7b1", "own": "#e67e73", "ok": "#d5f0dc"}


@dataclass
class HtmlReport:
    """The page, and what it could not hold and why (said once to the user: no matplotlib, no Graphviz)."""

    html: str
    notes: list[str]


def layer_depths(model: Model) -> dict[int, int]:
    """Per layer id, its depth: the most computed layers on a path from the inputs to it, itself included
    (inputs and constants 0; a Result has its producer's)."""
    constant = constant_layers(model)
    depths: dict[int, int] = {}
    for node in model.topological_order():
        before = [depths.get(source.node_id, 0) for source in model.input_sources(node) if source is not None]
        computed = node.id not in constant and bool(model.input_sources(node)) and not isinstance(node.op, Result)
        depths[node.id] = max(before, default=0) + (1 if computed else 0)
    return depths


def render_svg(dot_text: str) -> str | None:
    """Graphviz's SVG of a drawing as an ``<svg>`` element; None when ``dot`` is not installed or fails."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    try:
        done = subprocess.run([dot, "-Tsvg"], input=dot_text, capture_output=True, text=True,
                              timeout=DOT_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0 or "<svg" not in done.stdout:
        return None
    return done.stdout[done.stdout.index("<svg"):]


def html_report(compared: LayerwiseReport | SteppedReport, model: Model, *, profile: Profile | None = None,
                source: str | None = None) -> HtmlReport:
    """The report of ``compared`` (a comparison of ``model``, read from ``source``) as one HTML page."""
    notes: list[str] = []
    report, step_title = _chosen_step(compared)
    depths = layer_depths(model)
    title = f"{source or model.name} against {report.reference}{step_title}"
    rows = {id(tensor): number for number, tensor in enumerate(report.tensors, 1)}
    sections = [_verdict(compared, report, rows), _plot(report, depths, notes), _own_errors(report, rows),
                _neighbourhood(report, model, depths, rows, notes), _profile(profile),
                _tensors(report, depths)]
    page = (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{_h(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            f"<h1>irgraph: {_h(title)}</h1>\n" + "\n".join(section for section in sections if section)
            + "\n</body>\n</html>\n")
    return HtmlReport(page, notes)


def _chosen_step(compared: LayerwiseReport | SteppedReport) -> tuple[LayerwiseReport, str]:
    if isinstance(compared, LayerwiseReport):
        return compared, ""
    number = compared.first_divergent_step or len(compared.steps)
    return compared.steps[number - 1], f", step {number} of {len(compared.steps)}"


def _h(text: object) -> str:
    """Text from the model or a runtime, escaped for HTML and shown printable (no control or bidi characters)."""
    return html.escape(printable(str(text)))


def _g(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def _where(node: Node) -> str:
    """``FILE:LINE`` of a layer, linked to the model's file (a local file, nothing fetched)."""
    location = node.location
    if not location.file:
        return ""
    text = location.prefix()
    try:
        uri = Path(location.file).resolve().as_uri()
    except ValueError:
        return f"<code>{_h(text)}</code>"
    return f'<a class="src" href="{html.escape(uri)}"><code>{_h(text)}</code></a>'


def _row_link(tensor: ComparedTensor, rows: dict[int, int]) -> str:
    return f'<a href="#t{rows[id(tensor)]}">{_h(tensor.node.name)}</a> ({_h(tensor.node.type_name)})'


def _verdict(compared: LayerwiseReport | SteppedReport, report: LayerwiseReport, rows: dict[int, int]) -> str:
    status = "match" if compared.passed else "MISMATCH"
    hidden = len(report.tensors) - len(report.compared)
    lines = [f'<section id="verdict"><h2>Verdict: <span class="{status.lower()}">{status}</span></h2>',
             f"<p>{_h(compared.divergence_message())}</p>",
             f"<p>{len(report.compared)} tensors compared, {hidden} not exposed by the reference; tolerances: "
             f"{_h(tolerance_text(report.atol, report.rtol))}.</p>"]
    culprit = report.culprit
    if culprit is not None:
        lines.append(f"<p>The layer to blame: {_row_link(culprit, rows)} at {_where(culprit.node) or '?'}.</p>")
    lines.append("</section>")
    return "\n".join(lines)


def _plot(report: LayerwiseReport, depths: dict[int, int], notes: list[str]) -> str:
    first, culprit = report.first_divergence, report.culprit
    points = []
    for tensor in report.compared:
        item = tensor.comparison
        if item is None or item.max_abs_error is None:
            continue
        own = tensor.local.comparison if tensor.local is not None else None
        label = ""
        if tensor is culprit:
            label = f"to blame: {_tail(tensor.node.name)}"
        elif tensor is first:
            label = f"first beyond tolerance: {_tail(tensor.node.name)}"
        points.append(PlotPoint(depths.get(tensor.node.id, 0), item.max_abs_error,
                                own.max_abs_error if own is not None else None, tensor.diverges,
                                tensor.local is not None and tensor.local.exceeds, label))
    head = '<section id="plot"><h2>Error per layer against depth</h2>'
    svg = error_plot_svg(points, f"max abs error of {len(points)} tensors against {printable(report.reference)}")
    if svg is None:
        notes.append(f"the report's plot needs matplotlib: {INSTALL_HINT}; the rest of the report is written")
        return f"{head}\n<p class=\"missing\">The plot needs matplotlib: <code>{_h(INSTALL_HINT)}</code>.</p></section>"
    return f'{head}\n<div class="plot">{svg}</div>\n</section>'


def _tail(name: str, limit: int = 32) -> str:
    """The end of a long layer name (exported names grow at the front: ``__module.layers.1.fc1/...``)."""
    name = printable(name)
    return name if len(name) <= limit else "..." + name[-(limit - 3):]


def _own_errors(report: LayerwiseReport, rows: dict[int, int]) -> str:
    """Local versus inherited: the first layer whose own error exceeds its class, or that there is none."""
    judged = [tensor for tensor in report.compared if tensor.local is not None]
    head = "<section id=\"own\"><h2>The layer's own error, not the error it inherited</h2>"
    if not judged:
        return f"{head}\n<p>No layer was run on the reference's own inputs.</p></section>"
    missing = [tensor for tensor in judged if tensor.local is not None and tensor.local.comparison is None]
    lines = [head, f"<p>Each compared layer run by irgraph on {_h(report.reference)}'s own inputs and judged by "
             f"its tolerance class: {len(judged) - len(missing)} judged, {len(missing)} not.</p>"]
    own = report.first_local_divergence
    if own is None or own.local is None or own.local.comparison is None:
        inherited = " The mismatch is only inherited rounding." if report.first_divergence is not None else ""
        lines.append(f'<p class="ok">No layer\'s own error exceeds its class.{inherited}</p>')
    else:
        item = own.local.comparison
        lines.append(f'<p class="bad">First layer whose own error exceeds its class: {_row_link(own, rows)} at '
                     f"{_where(own.node) or '?'}: output {own.index}: {_h(item.reason)}</p>")
        if item.tolerance is not None:
            lines.append(f"<p>Its tolerance class: {_h(item.tolerance.describe())}</p>")
        if own.local.truth is not None:
            lines.append(f"<p>{_h(own.local.truth.describe())} (each side's largest difference from the layer in "
                         "f64)</p>")
    lines.append("</section>")
    return "\n".join(lines)


def _neighbourhood(report: LayerwiseReport, model: Model, depths: dict[int, int], rows: dict[int, int],
                   notes: list[str]) -> str:
    focus = report.culprit or report.first_divergence
    head = '<section id="neighbourhood"><h2>Around the layer to blame</h2>'
    if focus is None or focus.node.id not in model or model.node(focus.node.id) is not focus.node:
        why = "No layer diverges." if report.compared else "Nothing was compared: no layer to show."
        return f"{head}\n<p>{why}</p></section>"
    by_layer: dict[int, list[ComparedTensor]] = {}
    for tensor in report.compared:
        by_layer.setdefault(tensor.node.id, []).append(tensor)
    style_notes, colours = {}, {}
    for node_id, tensors in by_layer.items():
        worst = max((t.comparison.max_abs_error or 0.0 for t in tensors if t.comparison is not None), default=0.0)
        own = [t.local.comparison.max_abs_error or 0.0 for t in tensors
               if t.local is not None and t.local.comparison is not None]
        style_notes[node_id] = f"max abs error {_g(worst)}" + (f", own {_g(max(own, default=0.0))}" if own else "")
        exceeds = any(t.local is not None and t.local.exceeds for t in tensors)
        colours[node_id] = _COLOURS["own" if exceeds else "diverges" if any(t.diverges for t in tensors) else "ok"]
    svg = render_svg(to_dot(model, around=focus.node, depth=NEIGHBOURHOOD_DEPTH,
                            style=DotStyle(style_notes, colours)))
    caption = (f"<p>The layers within {NEIGHBOURHOOD_DEPTH} edges of {_row_link(focus, rows)} (constants folded "
               "into the layers reading them). Red: beyond tolerance; dark red: own error beyond its class; "
               "green: within tolerance.</p>")
    if svg is not None:
        return f'{head}\n{caption}\n<div class="graph">{svg}</div>\n</section>'
    notes.append("Graphviz's dot is not installed: the report lists the divergent layer's neighbourhood as a table "
                 "(apt-get install graphviz draws it)")
    shown = neighbourhood(model, focus.node, NEIGHBOURHOOD_DEPTH, constant_layers(model))
    table = [("layer", "type", "depth", "reads", "max abs error", "own error", "FILE:LINE")]
    body = []
    for node in model.topological_order():
        if node.id not in shown:
            continue
        sources = [model.node(s.node_id).name for s in model.input_sources(node) if s is not None
                   and s.node_id in shown]
        body.append([_h(node.name), _h(node.type_name), str(depths.get(node.id, 0)),
                     _h(", ".join(sources)), *(_h(part) for part in _error_cells(style_notes.get(node.id))),
                     _where(node)])
    return f"{head}\n{caption}\n{_table(table[0], body, 'graph-table')}\n</section>"


def _error_cells(note: str | None) -> tuple[str, str]:
    if note is None:
        return "-", "-"
    total, _, own = note.removeprefix("max abs error ").partition(", own ")
    return total, own or "-"


def _profile(profile: Profile | None) -> str:
    if profile is None:
        return ""
    total = profile.seconds
    with_reference = profile.reference is not None
    head = profile.format()[0]
    header = ("irgraph ms", "share", *(("openvino ms", "kernel") if with_reference else ()), "step", "type",
              "layer", "FILE:LINE")
    body = []
    for layer in sorted(profile.layers, key=lambda item: (-item.seconds, item.step))[:PROFILE_ROWS]:
        reference: tuple[str, ...] = ()
        if with_reference:
            counter = layer.counter
            reference = ("-", "") if counter is None else (f"{counter.seconds * 1000:.3f}", _h(counter.exec_type))
        body.append([f"{layer.seconds * 1000:.3f}", _share(layer.seconds, total), *reference, str(layer.step),
                     _h(layer.node.type_name), _h(layer.node.name), _where(layer.node)])
    type_header = ("type", "layers", "irgraph ms", "share", *(("openvino ms",) if with_reference else ()))
    types = [[_h(item.type), str(item.layers), f"{item.seconds * 1000:.3f}", _share(item.seconds, total),
              *((f"{(item.reference_seconds or 0.0) * 1000:.3f}",) if with_reference else ())]
             for item in profile.by_type()]
    shown = min(PROFILE_ROWS, len(profile.layers))
    return (f'<section id="profile"><h2>Profile</h2>\n<p>{_h(head)}</p>\n'
            f"<h3>The {shown} layers that took the most time</h3>\n{_table(header, body, 'profile-layers')}\n"
            f"<h3>By op type</h3>\n{_table(type_header, types, 'profile-types')}\n</section>")


def _share(seconds: float, total: float) -> str:
    return f"{100 * seconds / total:.1f}%" if total else "-"


def _tensors(report: LayerwiseReport, depths: dict[int, int]) -> str:
    header = ("#", "tensor", "layer", "type", "depth", "verdict", "max abs error", "max rel error", "mismatches",
              "own error", "tolerance", "FILE:LINE")
    body = []
    for number, tensor in enumerate(report.tensors, 1):
        item = tensor.comparison
        if item is None:
            verdict, cells = "not exposed", ["-", "-", "-"]
        else:
            verdict = "ok" if item.passed else "MISMATCH"
            cells = [_g(item.max_abs_error), _g(item.max_rel_error),
                     f"{item.mismatches} of {item.size}" if item.mismatches is not None else _h(item.reason)]
        local = tensor.local
        own = "-"
        if local is not None and local.comparison is not None:
            own = _g(local.comparison.max_abs_error) + (" (beyond its class)" if local.exceeds else "")
        tolerance = _h(item.tolerance.describe()) if item is not None and item.tolerance is not None else "-"
        body.append([f'<span id="t{number}">{number}</span>', _h(tensor.key), _h(tensor.node.name),
                     _h(tensor.node.type_name), str(depths.get(tensor.node.id, 0)),
                     f'<span class="{"bad" if tensor.diverges else "ok"}">{verdict}</span>', *cells, own, tolerance,
                     _where(tensor.node)])
    return (f'<section id="tensors"><h2>Every tensor ({len(report.tensors)})</h2>\n'
            f"{_table(header, body, 'tensor-table')}\n</section>")


def _table(header: Iterable[str], rows: Iterable[Iterable[str]], css_id: str) -> str:
    """An HTML table; ``rows`` hold HTML already escaped."""
    head = "".join(f"<th>{_h(cell)}</th>" for cell in header)
    body = "\n".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<table id="{css_id}">\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>'


def write_report(path: str | os.PathLike[str], compared: LayerwiseReport | SteppedReport, model: Model, *,
                 profile: Profile | None = None, source: str | None = None) -> list[str]:
    """Write the report of ``compared`` to ``path`` (UTF-8, atomically: ``replace_files``); return the notes of what it
    could not hold."""
    built = html_report(compared, model, profile=profile, source=source)
    page = built.html.encode("utf-8")
    # As every output: a temporary file renamed over ``path``, so an interrupted write leaves the old report whole
    # and a symbolic link at ``path`` is replaced, never followed to a file the user did not name.
    replace_files([(os.fspath(path), lambda file: file.write(page))])
    return built.notes


_CSS = """
body { font-family: Helvetica, Arial, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
.mismatch, .bad { color: #b03a2e; font-weight: bold; } .match, .ok { color: #1e8449; }
.missing { color: #7d6608; } code { font-size: 0.95em; } a.src { color: #555; }
.plot svg, .graph svg { max-width: 100%; height: auto; }
"""
