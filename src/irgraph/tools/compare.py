"""Comparing tensors and describing them: statistics, tolerances, error histograms, text tables.

``compare_arrays(name, got, want, atol, rtol)`` compares one tensor exactly as ``ir-run --compare``
does: the element type and shape must be equal, then every element must satisfy
``|got - want| <= atol + rtol * |want|`` (NaN matches NaN, an infinity the same infinity).
The result carries the error statistics a layer-by-layer comparison reports: max and mean
absolute and relative error, the count of mismatches and a histogram of the absolute errors.
``compare_outputs`` compares every output with a reference mapping (every output must be found in
it, under its key or another of its names; every reference key must be an output).

**Default tolerances** follow the precision the reference computed in and the ops on the way to the
tensor (:func:`precision_tolerance`; docs/tolerances.md, "Comparing whole models"): integer and boolean
tensors, and floats only moved by exact ops, are exact; other floats may differ by a few ULP of the
rounding precision relative to each element, plus, relative to the tensor's largest magnitude, the
sum of the eps bounds of the ops along the longest path from the inputs (a sum of rounded terms
loses digits relative to its terms, not to its result). A given atol or rtol replaces its part.

Tensor statistics and text columns live in :mod:`irgraph.tools.stats` (re-exported here).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import ml_dtypes
import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import printable
from irgraph.io.data.npz import decode_stored, storage_dtype
from irgraph.ops import catalogue
from irgraph.ops.op import Op, shape_text
from irgraph.tools.stats import array_element_type, element_type_name, format_columns, format_stats_table, tensor_stats

if TYPE_CHECKING:
    from irgraph.graph import Model

__all__ = [
    "ACCUMULATION", "ComparisonReport", "ErrorBound", "HISTOGRAM_BINS", "ROUNDING_EPS", "ROUNDING_ULP",
    "TensorComparison", "TensorTolerance", "ToleranceOverride", "close_names", "compare_arrays", "compare_outputs",
    "element_type_name", "error_bounds", "format_columns", "format_comparison", "format_histogram",
    "format_stats_table", "precision_tolerance", "resolve_tolerance", "tensor_stats", "tolerance_text",
]

HISTOGRAM_BINS = 8
"""Bins of the absolute-error histogram (equal widths from 0 to the largest finite error)."""
_BAR_WIDTH = 30

ROUNDING_ULP = 4
"""Relative part of a default tolerance: ULPs of the rounding precision per element (at least; an op's
own ULP bound on the way raises it)."""
ROUNDING_EPS = 16
"""Absolute part of a default tolerance for element rounding: eps of the rounding precision times the
tensor's largest magnitude (a reference that rounds every layer's inputs to bf16 stays within ~6)."""
ACCUMULATION = 4
"""Factor on the eps bounds summed along the path (the ops' own bounds are relative to the magnitude of
the terms they sum, which may exceed the result's: measured need up to 2x on DenseNet-121)."""


@dataclass(frozen=True, slots=True)
class TensorTolerance:
    """``|got - want| <= atol + scaled_atol * max|want| + rtol * |want|`` (max over the finite reference values)."""

    atol: float
    rtol: float
    scaled_atol: float = 0.0
    """Absolute tolerance in units of the reference tensor's largest finite magnitude."""
    basis: str = ""
    """What a default stands for (``f32 rounding``, ``exact``); empty for a tolerance given."""
    discrete: bool = False
    """Integers or booleans computed from rounded floats (an arg-max's index, a comparison, a Convert): a tie or
    a threshold may fall either way in the reference, so values that differ are counted and noted, not failed."""

    def overridden(self, atol: float | None = None, rtol: float | None = None) -> TensorTolerance:
        """This tolerance with a given absolute part (which replaces ``scaled_atol`` too) and/or relative part."""
        if atol is None and rtol is None:
            return self
        changed = self
        if atol is not None:
            changed = replace(changed, atol=atol, scaled_atol=0.0)
        if rtol is not None:
            changed = replace(changed, rtol=rtol)
        return replace(changed, basis="", discrete=False)

    def describe(self) -> str:
        """``atol 1e-05, rtol 1e-05``; a default: ``f32 rounding: atol 1e-05 x max|ref|, rtol 4.77e-07``."""
        if self.basis.startswith("exact") or self.discrete:
            return self.basis
        if not self.basis:
            return f"atol {self.atol:g}, rtol {self.rtol:g}"
        return f"{self.basis}: atol {self.scaled_atol:.3g} x max|ref|, rtol {self.rtol:.3g}"


@dataclass(frozen=True, slots=True)
class ToleranceOverride:
    """Parts of a tolerance given for one tensor (``--atol NAME:A``); None leaves the default's part."""

    atol: float | None = None
    rtol: float | None = None

    def applied_to(self, default: TensorTolerance) -> TensorTolerance:
        """``default`` with the given parts in place of its own."""
        return default.overridden(self.atol, self.rtol)


def resolve_tolerance(given: TensorTolerance | ToleranceOverride | None, default: TensorTolerance) -> TensorTolerance:
    """The tolerance of a tensor: ``given`` whole, ``given``'s parts over ``default``, or ``default``."""
    if given is None:
        return default
    return given if isinstance(given, TensorTolerance) else given.applied_to(default)


@dataclass(frozen=True, slots=True)
class ErrorBound:
    """What the ops from the inputs to a tensor may each lose: the largest ULP bound of one of them and the sum
    of their eps bounds along the longest path (errors carried through later layers add up)."""

    ulp: int = 0
    eps: float = 0.0

    @property
    def is_exact(self) -> bool:
        """True when only exact ops lead to the tensor."""
        return self.ulp == 0 and self.eps == 0.0

    def after(self, own: ErrorBound) -> ErrorBound:
        """This bound (of an input) carried through an op that may lose ``own``."""
        return ErrorBound(max(self.ulp, own.ulp), self.eps + own.eps)

    def join(self, other: ErrorBound) -> ErrorBound:
        """The larger of two inputs' bounds, part by part."""
        return ErrorBound(max(self.ulp, other.ulp), max(self.eps, other.eps))


_DATA_CATEGORIES = frozenset({"movement", "shape", "infrastructure", "comparison", "logical", "bitwise",
                              "condition", "type", "sort"})
"""Op categories whose exact ops only move, select or convert values (rounding the same way everywhere);
other exact ops (Add, Multiply) the CPU plugin may fuse into multiply-adds or vectorised math."""
_CPU_FLOOR = ErrorBound(2, 1.0)
"""What an op may lose on OpenVINO's CPU plugin at least (the differential harness's floor: 2 ULP or 1 eps)."""
_OP_FLOOR = ErrorBound(ROUNDING_ULP, 4.0)


def op_error_bound(op: Op) -> ErrorBound:
    """What one op may lose against a reference: its ``tolerance`` (docs/tolerances.md), at least the CPU
    plugin's floor for ops that compute; nothing for exact ops that move data."""
    tolerance = op.tolerance
    if tolerance.is_exact:
        entry = catalogue.find(op.type_name, f"opset{op.introduced}")  # the spec category, wherever the module
        category = entry.category if entry is not None else ""
        return ErrorBound() if category in _DATA_CATEGORIES else _CPU_FLOOR
    return ErrorBound(max(tolerance.ulp, _OP_FLOOR.ulp), max(tolerance.eps, tolerance.sum_eps, _OP_FLOOR.eps))


def error_bounds(model: Model, carried: Mapping[int, ErrorBound] | None = None) -> dict[int, ErrorBound]:
    """Per layer id, the :class:`ErrorBound` of its outputs: its own op's after the largest of its inputs'.

    A layer with bodies (TensorIterator, Loop, If) loses what the worst path of its bodies loses. ``carried``
    adds, per layer id, a bound its outputs carry besides its inputs' (a ReadValue's variable, written by an
    Assign in the step before).
    """
    bounds: dict[int, ErrorBound] = {}
    for node in model.topological_order():
        before = (carried or {}).get(node.id, ErrorBound())
        for source in model.input_sources(node) if node.op.reads_values else ():
            if source is not None:
                before = before.join(bounds.get(source.node_id, ErrorBound()))
        own = op_error_bound(node.op)
        for body in node.bodies or ():
            own = own.join(max(error_bounds(body.model).values(), default=ErrorBound(), key=lambda b: b.eps))
        bounds[node.id] = before.after(own)
    return bounds


def _epsilon(element_type: ElementType) -> float:
    return float(ml_dtypes.finfo(element_type.numpy_dtype).eps)


def precision_tolerance(element_type: ElementType, bound: ErrorBound = ErrorBound(),
                        precision: ElementType | None = None) -> TensorTolerance:
    """The default tolerance of a tensor of ``element_type`` whose ops may lose ``bound``, against a reference that
    computed in ``precision`` (OpenVINO's inference precision, which also rounds f64 to f32 and sums in f32; None:
    the tensor's own type, as onnxruntime and a reference file are taken to).

    Integers, booleans and strings are exact, but integers and booleans computed from rounded floats (an
    arg-max's index, a comparison) are ``discrete``: differences are noted, not failed. Floats that only exact
    ops produced are exact, unless the reference rounds to a coarser type. Otherwise ``rtol`` is
    ``max(ROUNDING_ULP, bound.ulp)`` eps of the rounding precision and ``scaled_atol`` is
    ``ACCUMULATION * bound.eps`` eps of the summing precision plus ``ROUNDING_EPS`` eps of the rounding
    precision.
    """
    if not element_type.is_real or element_type.numpy_dtype is None:
        if bound.is_exact or element_type is ElementType.STRING:
            return TensorTolerance(0.0, 0.0, basis=f"exact ({element_type})")
        return TensorTolerance(0.0, 0.0, basis=f"{element_type} from rounded floats: ties and thresholds may fall "
                               "either way", discrete=True)
    rounding = element_type
    if precision is not None and _epsilon(precision) > _epsilon(element_type):
        rounding = precision
    if precision is not None and element_type is ElementType.F64:
        rounding = ElementType.F32  # OpenVINO's CPU plugin computes f64 in f32
    summing = rounding
    if precision is not None and _epsilon(rounding) > _epsilon(ElementType.F32):
        summing = ElementType.F32  # OpenVINO's kernels accumulate in f32 whatever the inference precision
    if bound.is_exact and rounding is element_type:
        return TensorTolerance(0.0, 0.0, basis=f"exact ({element_type}, only exact ops on the way)")
    eps_round, eps_sum = _epsilon(rounding), _epsilon(summing)
    return TensorTolerance(0.0, max(ROUNDING_ULP, bound.ulp) * eps_round,
                     ACCUMULATION * bound.eps * eps_sum + ROUNDING_EPS * eps_round, basis=f"{rounding} rounding")


def close_names(name: str, candidates: Iterable[str]) -> list[str]:
    """Up to three of ``candidates`` closest to ``name`` (difflib's ratio), best first."""
    return difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.5)


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
    tolerance: TensorTolerance | None = None
    reference_name: str | None = None
    """The name the reference gave the tensor, when it is not ``name`` (another tensor name, ``NAME:0``)."""
    precision: TensorTolerance | None = None
    """The default tolerance of the reference's precision, for the verdict's note."""
    within_precision: bool | None = None
    """For a tensor that is not bit-equal: True when every difference is within ``precision``."""

    @property
    def note(self) -> str:
        """``within f32 rounding`` for a difference the precision allows, else empty."""
        if not self.within_precision or self.precision is None:
            return ""
        if self.precision.discrete:
            differ = f"{self.mismatches} of {self.size} differ" if self.mismatches else "they differ"
            return f"{differ}: {self.precision.basis}"
        if self.passed:
            return f"within {self.precision.basis}"
        return f"within {self.precision.describe()}: the given tolerance is tighter"

    def to_json(self, detailed: bool = False) -> dict[str, object]:
        """``name, passed, max_abs_error, max_rel_error[, reason]``; ``detailed`` adds the other statistics."""
        item: dict[str, object] = {"name": self.name, "passed": self.passed, "max_abs_error": self.max_abs_error,
                                   "max_rel_error": self.max_rel_error}
        if self.reason:
            item["reason"] = self.reason
        if self.reference_name is not None and self.reference_name != self.name:
            item["reference_name"] = self.reference_name
        if detailed:
            item.update(mean_abs_error=self.mean_abs_error, mean_rel_error=self.mean_rel_error,
                        mismatches=self.mismatches, size=self.size,
                        histogram=[{"low": low, "high": high, "count": count} for low, high, count in self.histogram])
            if self.tolerance is not None:
                item.update(atol=self.tolerance.atol, rtol=self.tolerance.rtol)
                if self.tolerance.scaled_atol:
                    item.update(scaled_atol=self.tolerance.scaled_atol)
                if self.tolerance.basis:
                    item.update(tolerance=self.tolerance.basis)
            if self.within_precision is not None:
                item.update(within_precision=self.within_precision)
        return item


@dataclass
class ComparisonReport:
    """Every output compared: the tolerance given (None: each tensor's precision default) and one
    TensorComparison per tensor."""

    atol: float | None
    rtol: float | None
    items: list[TensorComparison]

    @property
    def passed(self) -> bool:
        """True when there is something to compare and every tensor matches."""
        return bool(self.items) and all(item.passed for item in self.items)

    @property
    def failed(self) -> list[TensorComparison]:
        """The tensors that do not match, in order."""
        return [item for item in self.items if not item.passed]

    def to_json(self, detailed: bool = False) -> dict[str, object]:
        """``passed, atol, rtol, outputs``."""
        return {"passed": self.passed, "atol": self.atol, "rtol": self.rtol,
                "outputs": [item.to_json(detailed) for item in self.items]}


_UNKNOWN_PATH = ErrorBound(ROUNDING_ULP, 16.0)
"""The bound of a tensor whose ops are unknown (a library call without the model): one summing op."""


def compare_outputs(
    outputs: Mapping[str, np.ndarray],
    reference: Mapping[str, np.ndarray],
    atol: float | None = None,
    rtol: float | None = None,
    tolerances: Mapping[str, TensorTolerance | ToleranceOverride] | None = None,
    *,
    defaults: Mapping[str, TensorTolerance] | None = None,
    names: Mapping[str, Sequence[str]] | None = None,
) -> ComparisonReport:
    """Compare every output with the reference: exact dtype and shape, then within the tolerance.

    The tolerance of a key is its default (``defaults[key]``, else the precision default of its element type
    for one summing op; :func:`precision_tolerance`) with ``atol``/``rtol``, when given, in place of its parts,
    and then ``tolerances[key]`` (a whole TensorTolerance, or the parts a ToleranceOverride gives). NaN matches NaN
    and infinities match infinities of the same sign. An output is
    found in the reference under its key or, failing that, the first of ``names[key]`` the reference has (its
    other tensor names, Polygraphy's ``NAME:0``); every reference key must be an output, and a reference that
    holds none of them fails.
    """
    tolerances, defaults, names = tolerances or {}, defaults or {}, names or {}
    found: dict[str, str] = {}
    for key in outputs:  # every key's own name first: another output's alias never takes it
        if key in reference:
            found[key] = key
    claimed = set(found.values())
    for key in outputs:
        if key not in found:
            alias = next((name for name in names.get(key, ()) if name in reference and name not in claimed), None)
            if alias is not None:
                found[key] = alias
                claimed.add(alias)
    unclaimed = [name for name in reference if name not in claimed]
    missing = [key for key in outputs if key not in found]
    items: list[TensorComparison] = []
    for key, array in outputs.items():
        if key not in found:
            items.append(TensorComparison(key, reason="missing from the reference" + _closest(key, unclaimed)))
            continue
        base = defaults.get(key)
        if base is None:
            base = precision_tolerance(array_element_type(array), _UNKNOWN_PATH)
        tolerance = resolve_tolerance(tolerances.get(key), base.overridden(atol, rtol))
        item = compare_arrays(key, array, reference[found[key]], tolerance, precision=base)
        item.reference_name = found[key]
        items.append(item)
    items += [TensorComparison(name, reason="in the reference but not an output of the model" +
                               _closest(name, missing, "outputs")) for name in unclaimed]
    return ComparisonReport(atol, rtol, items)


def _closest(name: str, candidates: Sequence[str], what: str = "reference names") -> str:
    close = close_names(name, candidates)
    return f"; closest {what}: {', '.join(repr(printable(c)) for c in close)}" if close else ""


def compare_arrays(name: str, array: np.ndarray, expected: np.ndarray, tolerance: TensorTolerance,
                   precision: TensorTolerance | None = None) -> TensorComparison:
    """Compare ``array`` (computed) with ``expected`` (the reference; ml_dtypes data may be raw ``|Vn`` bytes).

    ``precision`` (the default tolerance of the reference's precision) says, for a tensor that is not bit-equal,
    whether every difference is within what that precision allows (``within_precision``).
    """
    item = TensorComparison(name, tolerance=tolerance, precision=precision)
    item.reason = _compare(array, expected, item, tolerance)
    item.passed = not item.reason
    return item


def _compare(array: np.ndarray, expected: np.ndarray, item: TensorComparison, tolerance: TensorTolerance) -> str:
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
    bad = error > _bound(tolerance, want)
    count = int(np.count_nonzero(bad))
    item.mismatches = count
    item.histogram = _histogram(error[~same])
    if item.precision is not None and item.max_abs_error:
        item.within_precision = item.precision.discrete or not bool(np.any(error > _bound(item.precision, want)))
    if count and tolerance.discrete:
        return ""  # counted in ``mismatches`` and noted: the reference's rounding may tip any of them
    if count:
        flat = int(np.argmax(bad.reshape(-1)))
        return (f"{count} of {array.size} elements differ beyond the tolerance; first at flat index {flat}: "
                f"{got.reshape(-1)[flat]:.9g} vs {want.reshape(-1)[flat]:.9g}")
    return ""


def _bound(tolerance: TensorTolerance, want: np.ndarray) -> np.ndarray:
    """Per element, the largest absolute error ``tolerance`` allows against the reference ``want`` (f64)."""
    finite = np.abs(np.where(np.isfinite(want), want, 0.0))
    scale = float(finite.max()) if finite.size else 0.0
    return tolerance.atol + tolerance.scaled_atol * scale + tolerance.rtol * finite


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


def format_comparison(comparison: ComparisonReport, source: str) -> str:
    """One line per output: verdict, max absolute and relative error, reason, and the reference's name for it
    when it is another; then a count."""
    lines = [f"compare with {printable(source)} ({tolerance_text(comparison.atol, comparison.rtol)}):"]
    names = [printable(item.name) for item in comparison.items]
    width = max(map(len, names), default=0)
    for item, name in zip(comparison.items, names, strict=True):
        verdict = "ok      " if item.passed else "MISMATCH"
        errors = ""
        if item.max_abs_error is not None:
            errors = f"  max abs error {item.max_abs_error:.3g}  max rel error {item.max_rel_error:.3g}"
        notes = [note for note in (item.reason, item.note, _as(item)) if note]
        reason = f"  ({'; '.join(notes)})" if notes else ""
        lines.append(f"  {verdict}  {name.ljust(width)}{errors}{reason}")
    passed = sum(1 for item in comparison.items if item.passed)
    lines.append(f"{passed} of {len(comparison.items)} outputs match")
    return "\n".join(lines)


def tolerance_text(atol: float | None, rtol: float | None) -> str:
    """``atol 0.1, rtol 0``, or what the defaults are when one or both are not given."""
    if atol is None and rtol is None:
        return "tolerance: what each tensor's precision allows, docs/tolerances.md"
    return ", ".join(f"{label} {value:g}" if value is not None else f"{label} of each tensor's precision"
                     for label, value in (("atol", atol), ("rtol", rtol)))


def _as(item: TensorComparison) -> str:
    name = item.reference_name
    return "" if name is None or name == item.name else f"as {printable(name)!r} in the reference"
