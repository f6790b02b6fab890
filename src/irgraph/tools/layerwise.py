"""Layer-by-layer comparison with another runtime: which layer's output diverges first?

irgraph runs the model with the requested tensors marked (:mod:`irgraph.runtime.marking`, ``"all"`` for every
computed tensor); the reference runtime computes the same tensors on the same inputs:

* **OpenVINO** runs the IR (the same file, or another one such as the model before an edit or another
  conversion of the same network): a tensor is matched by its producing layer's name and output index,
  else by any of its names (tensor names, output names, Polygraphy's ``NAME:0``) among the reference's
  tensor names, and added to OpenVINO's model outputs (``Model.add_outputs``) before it is compiled, with
  the inference precision hint (f32 by default);
* **onnxruntime** runs the ONNX original: a tensor is matched by name (its key or any of those names),
  and added to the graph outputs.

Every tensor both expose is compared (:func:`irgraph.tools.compare.compare_arrays`), by default within what
the reference's precision and the ops on the way allow (:func:`irgraph.tools.compare.precision_tolerance`),
else within the tolerances given; the report lists them in topological order, says which name matched
when it is not the key and when a difference is within the precision's rounding, and names the first
layer whose output diverges, with its error statistics and its place in the XML. A tensor the
reference does not expose (a layer OpenVINO fused away under another name, an IR-only tensor) is
listed as not compared; a comparison that compared nothing fails, naming what each side has.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import InputError, IrParseError, printable
from irgraph.graph import InputPort, Model, Node, OutputPort
from irgraph.runtime.interpreter import Interpreter
from irgraph.runtime.marking import reference_names
from irgraph.tools import backends
from irgraph.tools.compare import (
    ErrorBound,
    TensorComparison,
    TensorTolerance,
    ToleranceOverride,
    close_names,
    compare_arrays,
    error_bounds,
    format_histogram,
    precision_tolerance,
    resolve_tolerance,
    tolerance_text,
)
from irgraph.tools.progress import Progress

__all__ = [
    "ComparedTensor", "LayerwiseReport", "compare_with_onnxruntime", "compare_with_openvino", "format_report",
]

@dataclass
class ComparedTensor:
    """One tensor of the run: its key, the layer and output that produce it, and how it compared.

    ``comparison`` is None when the reference does not expose the tensor.
    """

    key: str
    node: Node
    index: int
    is_output: bool
    comparison: TensorComparison | None = None
    reference_name: str | None = None
    names: tuple[str, ...] = ()
    """Every name the tensor was looked for under in the reference, its key first."""

    @property
    def diverges(self) -> bool:
        """True when compared and not within the tolerance."""
        return self.comparison is not None and not self.comparison.passed

    def where(self) -> str:
        """``FILE:LINE`` of the producing layer (or less, when unknown)."""
        return self.node.location.prefix()


_SHOWN_NAMES = 8
"""Names listed per side when nothing was compared."""


@dataclass
class LayerwiseReport:
    """Every tensor compared with a reference runtime, in topological order, and irgraph's values.

    ``atol``/``rtol`` are the tolerances given (None: each tensor's precision default).
    """

    reference: str
    atol: float | None
    rtol: float | None
    tensors: list[ComparedTensor]
    values: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    """irgraph's outputs and marked tensors, by key (what ``ir-run --output`` saves)."""
    reference_names: list[str] = field(repr=False, default_factory=list)
    """Every tensor name (and ``LAYER:PORT``) the reference offered: what it has when nothing matched."""
    counters: list[backends.PerfCounter] | None = field(repr=False, default=None)
    """OpenVINO's performance counters (``compare_with_openvino(profile=True)``), else None."""

    @property
    def compared(self) -> list[ComparedTensor]:
        """The tensors both runtimes expose."""
        return [tensor for tensor in self.tensors if tensor.comparison is not None]

    @property
    def first_divergence(self) -> ComparedTensor | None:
        """The first tensor, in topological order, beyond its tolerance."""
        return next((tensor for tensor in self.tensors if tensor.diverges), None)

    @property
    def passed(self) -> bool:
        """True when something was compared and every compared tensor matches."""
        return bool(self.compared) and self.first_divergence is None

    def closest(self, limit: int = _SHOWN_NAMES) -> dict[str, list[str]]:
        """For the first ``limit`` tensors the reference did not expose, the reference's names closest to any
        of theirs (difflib), best first."""
        missing = [tensor for tensor in self.tensors if tensor.comparison is None][:limit]
        return {tensor.key: _closest_to_any(tensor.names or (tensor.key,), self.reference_names) for tensor in missing}

    def to_json(self) -> dict[str, object]:
        """The report as JSON: reference, tolerances, verdict, first divergence and every tensor."""
        first = self.first_divergence
        report: dict[str, object] = {
            "reference": self.reference, "atol": self.atol, "rtol": self.rtol, "passed": self.passed,
            "compared": len(self.compared), "not_compared": len(self.tensors) - len(self.compared),
            "first_divergence": _tensor_json(first) if first is not None else None,
            "tensors": [_tensor_json(tensor) for tensor in self.tensors],
        }
        if not self.compared:
            report["closest_reference_names"] = self.closest()
        return report

    def divergence_message(self) -> str:
        """The one-line verdict on a failure: the layer, its output and the error; or that nothing was compared."""
        if not self.compared:
            return (f"nothing was compared: {self.reference} exposes none of the {_count(len(self.tensors), 'tensor')} "
                    f"of this run ({_listed([t.key for t in self.tensors])}) under any of their names; it has "
                    f"{_listed(self.reference_names)}")
        first = self.first_divergence
        if first is None:
            return f"every compared tensor matches {self.reference}"
        item = first.comparison
        assert item is not None
        return (f"layer {first.node.name!r} ({first.node.type_name}) is the first whose output differs from "
                f"{self.reference}: output {first.index} ({first.key}): {item.reason}")


def _tensor_json(tensor: ComparedTensor) -> dict[str, object]:
    location = tensor.node.location
    return {
        "key": tensor.key, "layer": tensor.node.name, "layer_id": tensor.node.id, "type": tensor.node.type_name,
        "port": tensor.index, "output": tensor.is_output, "file": location.file, "line": location.line,
        "reference_name": tensor.reference_name,
        "comparison": tensor.comparison.to_json(detailed=True) if tensor.comparison is not None else None,
    }


# ------------------------------------------------------------------------------------ running both
def _run_ours(interpreter: Interpreter, feeds: Mapping[str, np.ndarray], progress: Progress
              ) -> tuple[list[ComparedTensor], dict[str, np.ndarray]]:
    """irgraph's outputs and marked tensors, in topological order of their producers."""
    model = interpreter.model
    progress.stage("irgraph: running", interpreter.steps)
    hook = interpreter.on_step
    interpreter.on_step = progress.step
    try:
        values = interpreter.run(feeds)
    finally:
        interpreter.on_step = hook
    position = {node.id: order for order, node in enumerate(model.topological_order())}
    tensors = []
    output_keys = model.output_keys()
    for result in model.results:
        source = model.producer(InputPort(result.id, 0))
        if source is not None:
            tensors.append(ComparedTensor(output_keys[result.id], model.node(source.node_id), source.index, True))
    tensors += [ComparedTensor(mark.key, mark.node, mark.port.index, False) for mark in interpreter.marks]
    tensors.sort(key=lambda tensor: (position[tensor.node.id], tensor.index, not tensor.is_output))
    return tensors, values


def _by_parameter(model: Model, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The feeds under every name their Parameter answers to (layer name and tensor names)."""
    index = model.input_index()
    arrays: dict[int, np.ndarray] = {}
    for name, array in feeds.items():
        parameter = index.get(name)
        if parameter is None:
            raise InputError(f"the model has no input named {name!r}")
        arrays[parameter.id] = array
    return {name: arrays[parameter.id] for name, parameter in index.items() if parameter.id in arrays}


class _Tolerances:
    """Each tensor's tolerance: its precision default (the reference's precision, the ops on the way), with the
    tolerances given in place of its parts."""

    def __init__(self, model: Model, precision: ElementType | None, atol: float | None, rtol: float | None,
                 overrides: Mapping[str, TensorTolerance | ToleranceOverride] | None) -> None:
        self.bounds = error_bounds(model)
        self.precision, self.atol, self.rtol = precision, atol, rtol
        self.overrides = overrides or {}

    def of(self, tensor: ComparedTensor, array: np.ndarray) -> tuple[TensorTolerance, TensorTolerance]:
        """(the tolerance to judge by, the precision default) of a tensor; an override is looked up by the
        tensor's key, any of its tensor names or its layer's name."""
        try:
            element_type = ElementType.from_numpy(array.dtype)
        except IrParseError:
            element_type = ElementType.STRING
        default = precision_tolerance(element_type, self.bounds.get(tensor.node.id, ErrorBound()), self.precision)
        names = [tensor.key, *tensor.node.tensor_names[tensor.index], tensor.node.name]
        given = next((self.overrides[name] for name in names if name in self.overrides), None)
        return resolve_tolerance(given, default.overridden(self.atol, self.rtol)), default


def _compare(tensor: ComparedTensor, ours: np.ndarray, theirs: np.ndarray, tolerances: _Tolerances) -> None:
    theirs = np.asarray(theirs)
    if theirs.dtype != ours.dtype and theirs.dtype.kind in "biuf" and ours.dtype.kind in "biuf":
        theirs = theirs.astype(ours.dtype)  # a runtime may hand i64 out as i32 and so on: compare the values
    tolerance, default = tolerances.of(tensor, ours)
    tensor.comparison = compare_arrays(tensor.key, ours, theirs, tolerance, precision=default)
    tensor.comparison.reference_name = tensor.reference_name


def _requests(model: Model, tensors: list[ComparedTensor]) -> list[backends.TensorRequest]:
    """What to ask the reference for: each tensor's layer and output, and every other name it may have there."""
    names = reference_names(model, {tensor.key: OutputPort(tensor.node.id, tensor.index) for tensor in tensors})
    for tensor in tensors:
        tensor.names = (tensor.key, *names[tensor.key])
    return [backends.TensorRequest(tensor.node.name, tensor.index, tensor.names) for tensor in tensors]


def _closest_to_any(names: tuple[str, ...], candidates: list[str]) -> list[str]:
    """Up to three candidates, those closest to any of ``names`` first."""
    scores: dict[str, float] = {}
    for name in names:
        for candidate in close_names(name, candidates):
            score = difflib.SequenceMatcher(None, name, candidate).ratio()
            scores[candidate] = max(scores.get(candidate, 0.0), score)
    return sorted(scores, key=lambda candidate: -scores[candidate])[:3]


def compare_with_openvino(
    interpreter: Interpreter,
    feeds: Mapping[str, np.ndarray],
    *,
    xml: str | os.PathLike[str] | None = None,
    weights: str | os.PathLike[str] | None = None,
    device: str = "CPU",
    precision: str = "f32",
    atol: float | None = None,
    rtol: float | None = None,
    tolerances: Mapping[str, TensorTolerance | ToleranceOverride] | None = None,
    progress: Progress | None = None,
    profile: bool = False,
) -> LayerwiseReport:
    """Run the interpreter's model (outputs and marked tensors) and the IR ``xml`` (default: the model's own
    file) with OpenVINO; compare.

    Tensors are matched by producing layer name and output index, else by any of their names, so ``xml`` may be
    another version of the model (a reference to find where an edited IR goes wrong). ``atol``/``rtol`` replace
    the parts of each tensor's precision default (``precision``, the inference precision hint, and the ops on
    the way); ``tolerances`` set them per tensor (by key, tensor name or layer name). ``profile``: the report
    holds OpenVINO's performance counters (``counters``; see :func:`irgraph.tools.backends.run_openvino`).
    """
    model = interpreter.model
    path = xml if xml is not None else model.source
    if path is None:
        raise InputError("the model was not read from a file: give the IR for OpenVINO to run (xml=...)")
    backends.require("openvino")
    progress = progress or Progress(enabled=False)
    tensors, values = _run_ours(interpreter, feeds, progress)
    version = backends.backend_version("openvino")  # imported after irgraph's run: see backends.require
    progress.stage(f"openvino: compiling and running ({device}, {precision})")
    run = backends.run_openvino(path, weights, _by_parameter(model, feeds), _requests(model, tensors),
                                device=device, precision=precision, profile=profile)
    judge = _Tolerances(model, ElementType.from_ir_name(precision), atol, rtol, tolerances)
    progress.stage("comparing tensors", len(tensors))
    for tensor, found in zip(tensors, run.tensors, strict=True):
        progress.advance()
        if found is not None:
            tensor.reference_name = found.name
            _compare(tensor, values[tensor.key], found.array, judge)
    return LayerwiseReport(f"{version} ({device}, {precision})", atol, rtol, tensors, values, run.names,
                           run.counters)


def compare_with_onnxruntime(
    interpreter: Interpreter,
    feeds: Mapping[str, np.ndarray],
    onnx: str | os.PathLike[str],
    *,
    atol: float | None = None,
    rtol: float | None = None,
    tolerances: Mapping[str, TensorTolerance | ToleranceOverride] | None = None,
    progress: Progress | None = None,
) -> LayerwiseReport:
    """Run the interpreter's model and the ONNX model ``onnx`` with onnxruntime; compare tensors of the same name
    (any of a tensor's names). Default tolerances take each tensor's own element type as the precision."""
    model = interpreter.model
    backends.require("onnxruntime")
    progress = progress or Progress(enabled=False)
    tensors, values = _run_ours(interpreter, feeds, progress)
    version = backends.backend_version("onnxruntime")
    candidates = {request.names[0]: list(request.names) for request in _requests(model, tensors)}
    wanted = list(dict.fromkeys(name for names in candidates.values() for name in names))
    progress.stage("onnxruntime: running")
    theirs, available = backends.run_onnxruntime(onnx, _by_parameter(model, feeds), wanted)
    judge = _Tolerances(model, None, atol, rtol, tolerances)
    progress.stage("comparing tensors", len(tensors))
    for tensor in tensors:
        progress.advance()
        name = next((name for name in candidates[tensor.key] if name in theirs), None)
        if name is not None:
            tensor.reference_name = name
            _compare(tensor, values[tensor.key], theirs[name], judge)
    return LayerwiseReport(f"{version} (CPU)", atol, rtol, tensors, values, available)


# ------------------------------------------------------------------------------------ the text report
def format_report(report: LayerwiseReport, verbose: bool = False) -> list[str]:
    """A line per tensor (mismatches and outputs; ``verbose``: every one), then the first divergence in detail,
    or what each side has when nothing was compared."""
    compared, hidden = len(report.compared), len(report.tensors) - len(report.compared)
    lines = [f"compare with {report.reference} ({tolerance_text(report.atol, report.rtol)}): "
             f"{_count(compared, 'tensor')} compared, {hidden} not exposed by the reference"]
    rows = []
    for tensor in report.tensors:
        item = tensor.comparison
        if not (verbose or tensor.is_output or tensor.diverges):
            continue
        if item is None:
            verdict, errors = "-       ", "(not exposed by the reference)"
        else:
            verdict = "ok      " if item.passed else "MISMATCH"
            errors = (f"max abs error {_g(item.max_abs_error)}  max rel error {_g(item.max_rel_error)}"
                      if item.max_abs_error is not None else f"({item.reason})")
            notes = [note for note in (item.note, _matched_as(tensor)) if note]
            if notes:
                errors += f"  ({'; '.join(notes)})"
        rows.append((verdict, printable(tensor.key), tensor.node.type_name, errors))
    width = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
    lines += [f"  {v}  {k.ljust(width[1])}  {t.ljust(width[2])}  {e}".rstrip() for v, k, t, e in rows]
    if not report.compared:
        lines += _nothing_compared(report)
        return lines
    within = sum(1 for tensor in report.compared if tensor.comparison and tensor.comparison.within_precision)
    if within:
        lines.append(f"{_count(within, 'tensor')} differ{'s' if within == 1 else ''} only within what the "
                     "precision allows (docs/tolerances.md, 'Comparing whole models')")
    first = report.first_divergence
    if first is None:
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
        lines.append(f"  max abs error {_g(item.max_abs_error)}  mean abs error {_g(item.mean_abs_error)}  "
                     f"max rel error {_g(item.max_rel_error)}  mean rel error {_g(item.mean_rel_error)}")
        lines.append(f"  mismatches: {item.mismatches} of {item.size}{share}")
        if item.histogram:
            lines.append("  |error| histogram of the elements that differ:")
            lines += format_histogram(item.histogram)
    later = sum(1 for tensor in report.tensors if tensor.diverges) - 1
    if later:
        lines.append(f"  ({_count(later, 'tensor')} after it differ{'s' if later == 1 else ''} too)")
    return lines


def _matched_as(tensor: ComparedTensor) -> str:
    name = tensor.reference_name
    if name is None or name == tensor.key or name == f"{tensor.node.name}:{tensor.index}":
        return ""
    return f"as {printable(name)!r} in the reference"


def _nothing_compared(report: LayerwiseReport) -> list[str]:
    lines = ["", f"nothing was compared: {report.reference} exposes none of these tensors under any of their names",
             f"  irgraph:   {_listed([tensor.key for tensor in report.tensors])}",
             f"  reference: {_listed(report.reference_names)}"]
    close = [(key, names) for key, names in report.closest().items() if names][:_SHOWN_NAMES]
    if close:
        lines.append("  closest:")
        lines += [f"    {printable(key)}: {', '.join(printable(name) for name in names)}" for key, names in close]
    return lines


def _listed(names: list[str]) -> str:
    """Up to _SHOWN_NAMES names and how many there are."""
    shown = ", ".join(printable(name) for name in names[:_SHOWN_NAMES])
    more = f", ... ({len(names)} in all)" if len(names) > _SHOWN_NAMES else ""
    return (shown + more) if names else "nothing"


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _g(value: float | None) -> str:
    if value is None:
        return "-"
    return "inf" if math.isinf(value) else f"{value:.3g}"
