"""Layer-by-layer comparison with another runtime: which layer's output diverges first?

irgraph runs the model with the requested tensors marked (:mod:`irgraph.runtime.marking`, ``"all"`` for every
computed tensor); the reference runtime computes the same tensors on the same inputs:

* **OpenVINO** runs the IR (the same file, or another one such as the model before an edit): a tensor
  is matched by its producing layer's name and output index, and added to OpenVINO's model outputs
  (``Model.add_outputs``) before it is compiled, with the inference precision hint (f32 by default);
* **onnxruntime** runs the ONNX original: a tensor is matched by name (its key or any of its tensor
  names), and added to the graph outputs.

Every tensor both expose is compared (:func:`irgraph.tools.compare.compare_arrays`, per-tensor tolerances
allowed); the report lists them in topological order and names the first layer whose output
diverges, with its error statistics and its place in the XML. A tensor the reference does not
expose (a layer OpenVINO fused away under another name, an IR-only tensor) is listed as not compared.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from irgraph.core.errors import InputError, printable
from irgraph.graph import InputPort, Model, Node
from irgraph.runtime.interpreter import Interpreter
from irgraph.tools import backends
from irgraph.tools.compare import TensorComparison, Tolerance, compare_arrays, format_histogram
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

    @property
    def diverges(self) -> bool:
        """True when compared and not within the tolerance."""
        return self.comparison is not None and not self.comparison.passed

    def where(self) -> str:
        """``FILE:LINE`` of the producing layer (or less, when unknown)."""
        return self.node.location.prefix()


@dataclass
class LayerwiseReport:
    """Every tensor compared with a reference runtime, in topological order, and irgraph's values."""

    reference: str
    atol: float
    rtol: float
    tensors: list[ComparedTensor]
    values: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    """irgraph's outputs and marked tensors, by key (what ``ir-run --output`` saves)."""

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
        """True when every compared tensor matches."""
        return self.first_divergence is None

    def to_json(self) -> dict[str, object]:
        """The report as JSON: reference, tolerances, verdict, first divergence and every tensor."""
        first = self.first_divergence
        return {
            "reference": self.reference, "atol": self.atol, "rtol": self.rtol, "passed": self.passed,
            "compared": len(self.compared), "not_compared": len(self.tensors) - len(self.compared),
            "first_divergence": _tensor_json(first) if first is not None else None,
            "tensors": [_tensor_json(tensor) for tensor in self.tensors],
        }

    def divergence_message(self) -> str:
        """The one-line verdict on a mismatch: the layer, its output and the error."""
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
    for result in model.results:
        source = model.producer(InputPort(result.id, 0))
        if source is not None:
            tensors.append(ComparedTensor(model.output_key(result), model.node(source.node_id), source.index, True))
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


def _tolerance(tensor: ComparedTensor, default: Tolerance, tolerances: Mapping[str, Tolerance]) -> Tolerance:
    """The override for the tensor's key, any of its tensor names, or its layer's name; else the default."""
    names = [tensor.key, *tensor.node.tensor_names[tensor.index], tensor.node.name]
    return next((tolerances[name] for name in names if name in tolerances), default)


def _compare(tensor: ComparedTensor, ours: np.ndarray, theirs: np.ndarray, tolerance: Tolerance) -> None:
    theirs = np.asarray(theirs)
    if theirs.dtype != ours.dtype and theirs.dtype.kind in "biuf" and ours.dtype.kind in "biuf":
        theirs = theirs.astype(ours.dtype)  # OpenVINO's CPU plugin may return i32 for i64 and so on: compare values
    tensor.comparison = compare_arrays(tensor.key, ours, theirs, tolerance)


def compare_with_openvino(
    interpreter: Interpreter,
    feeds: Mapping[str, np.ndarray],
    *,
    xml: str | os.PathLike[str] | None = None,
    weights: str | os.PathLike[str] | None = None,
    device: str = "CPU",
    precision: str = "f32",
    atol: float = 1e-5,
    rtol: float = 1e-5,
    tolerances: Mapping[str, Tolerance] | None = None,
    progress: Progress | None = None,
) -> LayerwiseReport:
    """Run the interpreter's model (outputs and marked tensors) and the IR ``xml`` (default: the model's own
    file) with OpenVINO; compare.

    Tensors are matched by producing layer name and output index, so ``xml`` may be another version
    of the model (a reference to find where an edited IR goes wrong).
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
    theirs = backends.run_openvino(path, weights, _by_parameter(model, feeds),
                                   [(tensor.node.name, tensor.index) for tensor in tensors],
                                   device=device, precision=precision)
    default = Tolerance(atol, rtol)
    progress.stage("comparing tensors", len(tensors))
    for tensor, array in zip(tensors, theirs, strict=True):
        progress.advance()
        if array is not None:
            tensor.reference_name = f"{tensor.node.name}:{tensor.index}"
            _compare(tensor, values[tensor.key], array, _tolerance(tensor, default, tolerances or {}))
    return LayerwiseReport(f"{version} ({device}, {precision})", atol, rtol, tensors, values)


def compare_with_onnxruntime(
    interpreter: Interpreter,
    feeds: Mapping[str, np.ndarray],
    onnx: str | os.PathLike[str],
    *,
    atol: float = 1e-5,
    rtol: float = 1e-5,
    tolerances: Mapping[str, Tolerance] | None = None,
    progress: Progress | None = None,
) -> LayerwiseReport:
    """Run the interpreter's model and the ONNX model ``onnx`` with onnxruntime; compare tensors of the same name."""
    model = interpreter.model
    backends.require("onnxruntime")
    progress = progress or Progress(enabled=False)
    tensors, values = _run_ours(interpreter, feeds, progress)
    version = backends.backend_version("onnxruntime")
    candidates = {tensor.key: _names(model, tensor) for tensor in tensors}
    wanted = list(dict.fromkeys(name for names in candidates.values() for name in names))
    progress.stage("onnxruntime: running")
    theirs = backends.run_onnxruntime(onnx, _by_parameter(model, feeds), wanted)
    default = Tolerance(atol, rtol)
    progress.stage("comparing tensors", len(tensors))
    for tensor in tensors:
        progress.advance()
        name = next((name for name in candidates[tensor.key] if name in theirs), None)
        if name is not None:
            tensor.reference_name = name
            _compare(tensor, values[tensor.key], theirs[name], _tolerance(tensor, default, tolerances or {}))
    return LayerwiseReport(f"{version} (CPU)", atol, rtol, tensors, values)


def _names(model: Model, tensor: ComparedTensor) -> list[str]:
    """The names a tensor may have in the ONNX original: its key, its tensor names, a Result's output names."""
    names = [tensor.key, *tensor.node.tensor_names[tensor.index]]
    if tensor.is_output:
        for result in model.results:
            if model.output_key(result) == tensor.key:
                names += result.result_names or []
    return list(dict.fromkeys(names))


# ------------------------------------------------------------------------------------ the text report
def format_report(report: LayerwiseReport, verbose: bool = False) -> list[str]:
    """A line per tensor (mismatches and outputs; ``verbose``: every one), then the first divergence in detail."""
    compared, hidden = len(report.compared), len(report.tensors) - len(report.compared)
    lines = [f"compare with {report.reference} (atol {report.atol:g}, rtol {report.rtol:g}): "
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
        rows.append((verdict, printable(tensor.key), tensor.node.type_name, errors))
    width = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
    lines += [f"  {v}  {k.ljust(width[1])}  {t.ljust(width[2])}  {e}".rstrip() for v, k, t, e in rows]
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


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _g(value: float | None) -> str:
    if value is None:
        return "-"
    return "inf" if math.isinf(value) else f"{value:.3g}"
