"""Comparing tensors and describing them: statistics, tolerances, error histograms, text tables.

``compare_arrays(name, got, want, atol, rtol)`` compares one tensor exactly as ``ir-run --compare``
does: the element type and shape must be equal, then every element must satisfy
``|got - want| <= atol + rtol * |want|`` (NaN matches NaN, an infinity the same infinity).
The result carries the error statistics a layer-by-layer comparison reports: max and mean
absolute and relative error, the count of mismatches and a histogram of the absolute errors.
``compare_outputs`` compares every output with a reference mapping (the keys must agree).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrParseError, printable
from irgraph.io.data.npz import decode_stored, storage_dtype
from irgraph.ops.op import shape_text

__all__ = [
    "Comparison", "HISTOGRAM_BINS", "TensorComparison", "Tolerance", "compare_arrays", "compare_outputs",
    "element_type_name", "format_columns", "format_comparison", "format_histogram", "format_stats_table",
    "tensor_stats",
]

HISTOGRAM_BINS = 8
"""Bins of the absolute-error histogram (equal widths from 0 to the largest finite error)."""
_BAR_WIDTH = 30


@dataclass(frozen=True, slots=True)
class Tolerance:
    """``|got - want| <= atol + rtol * |want|``."""

    atol: float
    rtol: float


@dataclass
class TensorComparison:
    """One tensor compared with its reference: the verdict, why it failed, and the error statistics.

    The statistics are None when the tensors cannot be compared element by element (different
    element type or shape, a missing reference, strings).
    """

    name: str
    passed: bool = False
    reason: str = ""
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    mean_abs_error: float | None = None
    mean_rel_error: float | None = None
    mismatches: int | None = None
    size: int | None = None
    histogram: list[tuple[float, float, int]] = field(default_factory=list)
    """(low, high, count) per bin of the absolute errors of the elements that are not equal."""
    tolerance: Tolerance | None = None

    def to_json(self, detailed: bool = False) -> dict[str, object]:
        """``name, passed, max_abs_error, max_rel_error[, reason]``; ``detailed`` adds the other statistics."""
        item: dict[str, object] = {"name": self.name, "passed": self.passed, "max_abs_error": self.max_abs_error,
                                   "max_rel_error": self.max_rel_error}
        if self.reason:
            item["reason"] = self.reason
        if detailed:
            item.update(mean_abs_error=self.mean_abs_error, mean_rel_error=self.mean_rel_error,
                        mismatches=self.mismatches, size=self.size,
                        histogram=[{"low": low, "high": high, "count": count} for low, high, count in self.histogram])
            if self.tolerance is not None:
                item.update(atol=self.tolerance.atol, rtol=self.tolerance.rtol)
        return item


@dataclass
class Comparison:
    """Every output compared: the default tolerance and one TensorComparison per tensor."""

    atol: float
    rtol: float
    items: list[TensorComparison]

    @property
    def passed(self) -> bool:
        """True when every tensor matches."""
        return all(item.passed for item in self.items)

    @property
    def failed(self) -> list[TensorComparison]:
        """The tensors that do not match, in order."""
        return [item for item in self.items if not item.passed]

    def to_json(self, detailed: bool = False) -> dict[str, object]:
        """``passed, atol, rtol, outputs``."""
        return {"passed": self.passed, "atol": self.atol, "rtol": self.rtol,
                "outputs": [item.to_json(detailed) for item in self.items]}


def compare_outputs(
    outputs: Mapping[str, np.ndarray],
    reference: Mapping[str, np.ndarray],
    atol: float,
    rtol: float,
    tolerances: Mapping[str, Tolerance] | None = None,
) -> Comparison:
    """Compare every output with the reference: exact dtype and shape, then ``|out-ref| <= atol + rtol*|ref|``.

    NaN matches NaN and infinities match infinities of the same sign. Every reference key must be
    an output and every output must be in the reference. ``tolerances`` overrides the tolerance per key.
    """
    tolerances = tolerances or {}
    default = Tolerance(atol, rtol)
    items: list[TensorComparison] = []
    for key, array in outputs.items():
        expected = reference.get(key)
        if expected is None:
            items.append(TensorComparison(key, reason="missing from the reference"))
            continue
        items.append(compare_arrays(key, array, expected, tolerances.get(key, default)))
    for key in reference:
        if key not in outputs:
            items.append(TensorComparison(key, reason="in the reference but not an output of the model"))
    return Comparison(atol, rtol, items)


def compare_arrays(name: str, array: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> TensorComparison:
    """Compare ``array`` (computed) with ``expected`` (the reference; ml_dtypes data may be raw ``|Vn`` bytes)."""
    item = TensorComparison(name, tolerance=tolerance)
    item.reason = _compare(array, expected, item, tolerance.atol, tolerance.rtol)
    item.passed = not item.reason
    return item


def _compare(array: np.ndarray, expected: np.ndarray, item: TensorComparison, atol: float, rtol: float) -> str:
    ours = storage_dtype(array.dtype)
    if array.dtype.kind in "UO":
        if expected.dtype.kind not in "UO":
            return f"dtype {expected.dtype.str} in the reference, the model gives strings"
    elif expected.dtype != ours and expected.dtype != array.dtype:
        return f"dtype {ours.str} but the reference has {expected.dtype.str}"
    if array.shape != expected.shape:
        return f"shape {shape_text(array.shape)} but the reference has {shape_text(expected.shape)}"
    if array.dtype.kind in "UO":
        differ = int(np.count_nonzero(array.astype(str) != expected.astype(str)))
        item.mismatches, item.size = differ, int(array.size)
        return f"{differ} of {array.size} strings differ" if differ else ""
    expected = decode_stored(expected, array.dtype)  # ml_dtypes: the reference holds the raw bits
    got, want = array.astype(np.float64), expected.astype(np.float64)
    item.size = int(got.size)
    if not got.size:
        item.max_abs_error = item.max_rel_error = item.mean_abs_error = item.mean_rel_error = 0.0
        item.mismatches = 0
        return ""
    both_nan = np.isnan(got) & np.isnan(want)
    same = (got == want) | both_nan
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        error = np.where(same, 0.0, np.abs(got - want))
        error = np.where(np.isnan(error), np.inf, error)
        magnitude = np.abs(want)
        relative = np.where(same, 0.0, np.where(want != 0, error / magnitude, np.inf))
    item.max_abs_error = float(error.max())
    item.max_rel_error = float(relative.max())
    item.mean_abs_error = float(error.mean())
    nonzero = want != 0
    item.mean_rel_error = float(relative[nonzero].mean()) if nonzero.any() else 0.0
    bad = error > atol + rtol * np.abs(np.where(np.isfinite(want), want, 0.0))
    count = int(np.count_nonzero(bad))
    item.mismatches = count
    item.histogram = _histogram(error[~same])
    if count:
        flat = int(np.argmax(bad.reshape(-1)))
        return (f"{count} of {array.size} elements differ beyond the tolerance; first at flat index {flat}: "
                f"{got.reshape(-1)[flat]:.9g} vs {want.reshape(-1)[flat]:.9g}")
    return ""


def _histogram(errors: np.ndarray) -> list[tuple[float, float, int]]:
    """Equal-width bins of the finite ``errors`` from 0 to their maximum; infinite ones in a last ``inf`` bin."""
    if not errors.size:
        return []
    finite = errors[np.isfinite(errors)]
    bins: list[tuple[float, float, int]] = []
    if finite.size:
        top = float(finite.max())
        counts, edges = np.histogram(finite, bins=HISTOGRAM_BINS, range=(0.0, top if top > 0 else 1.0))
        bins = [(float(edges[i]), float(edges[i + 1]), int(counts[i])) for i in range(len(counts))]
    infinite = int(errors.size - finite.size)
    if infinite:
        bins.append((math.inf, math.inf, infinite))
    return bins


def format_histogram(histogram: Sequence[tuple[float, float, int]], indent: str = "    ") -> list[str]:
    """One line per bin: ``[low, high)  count  ####``, bars scaled to the largest bin."""
    if not histogram:
        return []
    top = max(count for _, _, count in histogram) or 1
    rows = []
    for low, high, count in histogram:
        span = "inf or nan" if math.isinf(low) else f"[{low:.3g}, {high:.3g}]"
        rows.append((span, str(count), "#" * math.ceil(_BAR_WIDTH * count / top) if count else ""))
    return format_columns(rows, indent)


def format_comparison(comparison: Comparison, source: str) -> str:
    """One line per output: verdict, max absolute and relative error, reason; then a count."""
    lines = [f"compare with {printable(source)} (atol {comparison.atol:g}, rtol {comparison.rtol:g}):"]
    names = [printable(item.name) for item in comparison.items]
    width = max(map(len, names), default=0)
    for item, name in zip(comparison.items, names, strict=True):
        verdict = "ok      " if item.passed else "MISMATCH"
        errors = ""
        if item.max_abs_error is not None:
            errors = f"  max abs error {item.max_abs_error:.3g}  max rel error {item.max_rel_error:.3g}"
        reason = f"  ({item.reason})" if item.reason else ""
        lines.append(f"  {verdict}  {name.ljust(width)}{errors}{reason}")
    passed = sum(1 for item in comparison.items if item.passed)
    lines.append(f"{passed} of {len(comparison.items)} outputs match")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------ statistics
def tensor_stats(key: str, array: np.ndarray) -> dict[str, object]:
    """Name, element type, shape, min, max and mean of one (stored) tensor (strings: no mean)."""
    element_type = element_type_name(array)
    row: dict[str, object] = {
        "name": key, "element_type": element_type, "shape": list(array.shape), "min": None, "max": None, "mean": None,
    }
    if not array.size:
        return row
    if element_type == "string":
        items = [str(item) for item in array.reshape(-1).tolist()]
        row["min"], row["max"] = min(items), max(items)
        return row
    values = array.astype(np.float64)
    integral = array.dtype.kind in "biu" or element_type.startswith(("i", "u"))  # also i4, u1, u2, u4 (ml_dtypes)
    row["min"] = _json_number(float(values.min()), integral)
    row["max"] = _json_number(float(values.max()), integral)
    row["mean"] = _json_number(float(values.mean()), False)
    return row


def _json_number(value: float, integral: bool) -> float | int | str:
    if math.isnan(value) or math.isinf(value):
        return str(value)
    return int(value) if integral else value


def element_type_name(array: np.ndarray) -> str:
    """The IR element type of an array (``string`` for text, the NumPy name when IR has none)."""
    if array.dtype.kind in "OUS":
        return "string"
    try:
        return str(ElementType.from_numpy(array.dtype))
    except IrParseError:
        return str(array.dtype)


def format_stats_table(rows: Sequence[Mapping[str, object]], title: str = "output") -> str:
    """The table of :func:`tensor_stats` rows: name, element type, shape, min, max, mean."""
    header = (title, "type", "shape", "min", "max", "mean")
    lines = [header]
    for row in rows:
        shape = row["shape"]
        assert isinstance(shape, list)
        lines.append((
            printable(str(row["name"])), str(row["element_type"]), shape_text(tuple(shape)),
            *(_cell(row[k]) for k in ("min", "max", "mean")),
        ))
    return "\n".join(format_columns(lines))


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def format_columns(rows: Sequence[tuple[str, ...]], indent: str = "") -> list[str]:
    """Rows of cells as left-aligned columns separated by two spaces."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in rows]
