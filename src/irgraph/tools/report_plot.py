"""The plot of an HTML comparison report: each compared tensor's error against its layer's depth, log scale.

Drawn with matplotlib (an optional extra: ``pip install -e '.[report]'``) as inline SVG, text kept as text
(``svg.fonttype none``: the browser's fonts, searchable) and no metadata (no links out of the file). Without
matplotlib :func:`error_plot_svg` returns None and the report says how to get the plot.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["PlotPoint", "error_plot_svg"]

INSTALL_HINT = "pip install -e '.[report]'"
"""How to get matplotlib, as the README installs irgraph (from a clone)."""


@dataclass(frozen=True)
class PlotPoint:
    """One compared tensor: its layer's depth, its max abs error, its layer's own error (None: not judged), and
    whether it is beyond its tolerance (``diverges``) or its own error beyond its class (``own_exceeds``)."""

    depth: int
    error: float
    own_error: float | None = None
    diverges: bool = False
    own_exceeds: bool = False
    label: str = ""
    """Written beside the point (the first divergent layer's name), else empty."""


def _floor(points: Sequence[PlotPoint]) -> float:
    """Where errors of exactly 0 are drawn on the log scale: a decade below the smallest error that is not 0."""
    errors = [value for point in points for value in (point.error, point.own_error)
              if value is not None and value > 0 and math.isfinite(value)]
    return min(errors) / 10 if errors else 1e-12


def _plain(text: str) -> str:
    """``text`` drawn as it is: a ``$`` in a layer name would start matplotlib's mathtext."""
    return text.replace("$", r"\$")


def error_plot_svg(points: Sequence[PlotPoint], title: str) -> str | None:
    """The plot as an ``<svg>`` element (no XML declaration, no DOCTYPE); None without matplotlib.

    Errors of 0 (bit-equal tensors) are drawn at a floor a decade below the smallest error and said so in the
    legend; infinite or NaN errors at the top of the axis.
    """
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        return None
    floor = _floor(points)
    finite = [value for point in points for value in (point.error, point.own_error)
              if value is not None and math.isfinite(value)]
    ceiling = max([*finite, floor * 10]) * 10

    def drawn(value: float) -> float:
        if not math.isfinite(value):
            return ceiling
        return value if value > 0 else floor

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "irgraph", "font.size": 9}):
        figure = Figure(figsize=(11, 4.2))
        axes = figure.add_subplot()
        axes.set_yscale("log")
        series = [
            ("within tolerance", [p for p in points if not p.diverges], "o", "#3b75af"),
            ("beyond tolerance", [p for p in points if p.diverges], "o", "#c0392b"),
        ]
        for name, chosen, marker, colour in series:
            if chosen:
                axes.scatter([p.depth for p in chosen], [drawn(p.error) for p in chosen], s=18, marker=marker,
                             color=colour, label=f"max abs error, {name} ({len(chosen)})", zorder=3)
        own = [p for p in points if p.own_error is not None]
        if own:
            colours = ["#c0392b" if p.own_exceeds else "#2e8b57" for p in own]
            axes.scatter([p.depth for p in own], [drawn(p.own_error or 0.0) for p in own], s=30, marker="x",
                         color=colours, label="the layer's own error (on the reference's inputs)", zorder=4)
        if any(p.error == 0 or (p.own_error == 0) for p in points):
            axes.axhline(floor, color="#999999", linewidth=0.8, linestyle=":",
                         label=f"bit-equal (0), drawn at {floor:.0e}")
        for point in points:
            if point.label:  # ringed, its name in a box above the other points
                axes.scatter([point.depth], [drawn(point.error)], s=90, facecolors="none", edgecolors="#c0392b",
                             linewidths=1.5, zorder=5)
                axes.annotate(_plain(point.label), (point.depth, drawn(point.error)), textcoords="offset points",
                              xytext=(8, 8), color="#c0392b", zorder=6,
                              bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "#c0392b", "alpha": 0.9})
        axes.set_xlabel("depth (layers from the inputs, longest path)")
        axes.set_ylabel("error (log scale)")
        axes.set_title(_plain(title))
        axes.grid(True, which="major", linewidth=0.4, alpha=0.5)
        if points:  # beside the axes: inside, it would hide points and the names written beside them
            axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
        figure.tight_layout()
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Creator": None, "Date": None, "Format": None, "Type": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]
