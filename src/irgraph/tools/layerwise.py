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

Each compared layer is also run on the reference's own inputs (:mod:`irgraph.tools.local_error`; its inputs are
asked of the reference too): its *local* error is what the layer itself adds, judged by its tolerance class, and
the verdict names the first layer whose own error exceeds it, or says that a mismatch is only inherited rounding.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import InputError, IrParseError
from irgraph.core.text import counted
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
    precision_tolerance,
    resolve_tolerance,
)
from irgraph.tools.layerwise_text import SHOWN_NAMES, format_report, listed, short
from irgraph.tools.local_error import LocalError, LocalRuns
from irgraph.tools.progress import Progress

__all__ = [
    "ComparedTensor", "LayerwiseReport", "compare_with_onnxruntime", "compare_with_openvino", "format_report",
    "own_error_warning",
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
    local: LocalError | None = None
    """The layer run on the reference's own inputs (None: not a computed layer, or local errors not asked for)."""

    @property
    def diverges(self) -> bool:
        """True when compared and not within the tolerance."""
        return self.comparison is not None and not self.comparison.passed

    def where(self) -> str:
        """``FILE:LINE`` of the producing layer (or less, when unknown)."""
        return self.node.location.prefix()


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
    local: LocalRuns | None = field(repr=False, default=None)
    """What ran layers on the reference's inputs (None: local errors not asked for)."""
    reference_values: dict[OutputPort, np.ndarray] = field(repr=False, default_factory=dict)
    """The reference's tensors (compared ones and the inputs of compared layers), by port of irgraph's model."""

    @property
    def compared(self) -> list[ComparedTensor]:
        """The tensors both runtimes expose."""
        return [tensor for tensor in self.tensors if tensor.comparison is not None]

    @property
    def first_divergence(self) -> ComparedTensor | None:
        """The first tensor, in topological order, beyond its tolerance."""
        return next((tensor for tensor in self.tensors if tensor.diverges), None)

    @property
    def first_local_divergence(self) -> ComparedTensor | None:
        """The first tensor, in topological order, whose layer's own error exceeds its tolerance class."""
        return next((tensor for tensor in self.tensors if tensor.local is not None and tensor.local.exceeds), None)

    @property
    def culprit(self) -> ComparedTensor | None:
        """The layer to blame: the first whose own error exceeds its class, unless a divergent tensor before it could
        not be judged on its own (that one may be to blame); else the first divergent one."""
        first, own = self.first_divergence, self.first_local_divergence
        if own is None or first is None or own is first:
            return own or first
        position = {id(tensor): order for order, tensor in enumerate(self.tensors)}
        unjudged = first.local is None or first.local.comparison is None
        return first if unjudged and position[id(first)] < position[id(own)] else own

    @property
    def passed(self) -> bool:
        """True when something was compared and every compared tensor matches."""
        return bool(self.compared) and self.first_divergence is None

    def closest(self, limit: int = SHOWN_NAMES) -> dict[str, list[str]]:
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
            "first_local_divergence": _tensor_json(local) if (local := self.first_local_divergence) else None,
            "tensors": [_tensor_json(tensor) for tensor in self.tensors],
        }
        if not self.compared:
            report["closest_reference_names"] = self.closest()
        return report

    def divergence_message(self) -> str:
        """The one-line verdict on a failure: the layer, its output and the error; or that nothing was compared."""
        if not self.compared:
            return (f"nothing was compared: {self.reference} exposes none of the "
                    f"{counted(len(self.tensors), 'tensor')} of this run ({listed([t.key for t in self.tensors])}) "
                    f"under any of their names; it has {listed(self.reference_names)}")
        first = self.first_divergence
        if first is None:
            return f"every compared tensor matches {self.reference}"
        item = first.comparison
        assert item is not None
        own = self.first_local_divergence
        if own is not None and own is not first and self.culprit is first:
            return (f"layer {first.node.name!r} ({first.node.type_name}) is the first whose output differs from "
                    f"{self.reference}: output {first.index} ({first.key}): {item.reason}{_own_verdict(first)}; the "
                    f"first layer whose own error exceeds its tolerance class is {own.node.name!r} ({own.key})")
        if own is not None and own is not first:
            assert own.local is not None and own.local.comparison is not None
            return (f"layer {own.node.name!r} ({own.node.type_name}) is the first whose own error exceeds its "
                    f"tolerance class: output {own.index} ({own.key}) on {self.reference}'s own inputs: "
                    f"{own.local.comparison.reason}; the first output beyond tolerance, {first.key} of layer "
                    f"{first.node.name!r}, {_inherited(first)}")
        return (f"layer {first.node.name!r} ({first.node.type_name}) is the first whose output differs from "
                f"{self.reference}: output {first.index} ({first.key}): {item.reason}" + _own_verdict(first))


def own_error_warning(report: LayerwiseReport) -> str | None:
    """For a comparison that passed: the layer whose own error still exceeds its tolerance class (a tolerance given
    looser than the class lets it through), ``FILE:LINE: ...``; None when there is none."""
    own = report.first_local_divergence
    if not report.passed or own is None or own.local is None or own.local.comparison is None:
        return None
    where = own.where()
    return (f"{where + ': ' if where else ''}every compared tensor is within its tolerance, but the own error of layer "
            f"{own.node.name!r} ({own.node.type_name}) on {report.reference}'s inputs exceeds its tolerance class: "
            f"output {own.index} ({own.key}): {own.local.comparison.reason}")


def _inherited(tensor: ComparedTensor) -> str:
    """What the layer's own error says of an accumulated mismatch before the culprit."""
    local = tensor.local
    if local is None or local.comparison is None:
        return f"could not be judged on its own ({local.missing if local else 'not a computed layer'})"
    if local.exceeds:
        return f"exceeds its class on its own too (max abs error {short(local.comparison.max_abs_error)})"
    return f"differs only by {_rounding(tensor, local.comparison)}"


def _own_verdict(tensor: ComparedTensor) -> str:
    """``; its own error ...`` after the verdict on the first divergent layer (empty without local errors)."""
    local = tensor.local
    if local is None:
        return ""
    if local.comparison is None:
        return f"; its own error could not be judged: {local.missing}"
    error = f"max abs error {short(local.comparison.max_abs_error)}"
    if local.exceeds:
        return f"; on the reference's own inputs it differs too ({error}, beyond its tolerance class)"
    return f"; only {_rounding(tensor, local.comparison)}"


def _rounding(tensor: ComparedTensor, own: TensorComparison) -> str:
    """``inherited rounding (...)`` when the layer's own error is below its accumulated one, else ``rounding``: its
    own error is within its class, and only a tolerance tighter than that class fails it."""
    accumulated = tensor.comparison.max_abs_error if tensor.comparison is not None else None
    inherited = accumulated is not None and own.max_abs_error is not None and own.max_abs_error < accumulated
    return (f"{'inherited ' if inherited else ''}rounding: on the reference's own inputs it is within its tolerance "
            f"class (max abs error {short(own.max_abs_error)})")


def _tensor_json(tensor: ComparedTensor) -> dict[str, object]:
    location = tensor.node.location
    return {
        "key": tensor.key, "layer": tensor.node.name, "layer_id": tensor.node.id, "type": tensor.node.type_name,
        "port": tensor.index, "output": tensor.is_output, "file": location.file, "line": location.line,
        "reference_name": tensor.reference_name,
        "comparison": tensor.comparison.to_json(detailed=True) if tensor.comparison is not None else None,
        "local": tensor.local.to_json() if tensor.local is not None else None,
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
        names = [tensor.key, *tensor.node.outputs[tensor.index].tensor_names, tensor.node.name]
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


def _local_runs(interpreter: Interpreter, feeds: Mapping[str, np.ndarray], precision: ElementType | None,
                local: bool, truth: bool, tensors: list[ComparedTensor]
                ) -> tuple[LocalRuns | None, list[OutputPort], dict[str, list[str]]]:
    """What runs layers on the reference's inputs, the inputs to ask the reference for besides the compared
    tensors, and every name of each (by ``LAYER:PORT``, in the order of the ports)."""
    if not (local or truth):
        return None, [], {}
    runs = LocalRuns(interpreter, feeds, precision, truth)
    have = {OutputPort(tensor.node.id, tensor.index) for tensor in tensors}
    extra = [port for port in runs.needed(t.node for t in tensors if t.node.id in runs.computed) if port not in have]
    model = interpreter.model
    keys = {f"{model.node(port.node_id).name}:{port.index}": port for port in extra}
    names = reference_names(model, keys)
    return runs, list(keys.values()), {key: [key, *names[key]] for key in keys}


def _judge_locally(report: LayerwiseReport, progress: Progress) -> None:
    """Run every compared computed layer on the reference's inputs; set each tensor's ``local``."""
    runs, reference = report.local, report.reference_values
    if runs is None:
        return
    layers: dict[int, list[ComparedTensor]] = {}
    for tensor in report.compared:
        if tensor.node.id in runs.computed and OutputPort(tensor.node.id, tensor.index) in reference:
            layers.setdefault(tensor.node.id, []).append(tensor)
    progress.stage("irgraph: each layer on the reference's inputs", len(layers))
    for tensors in layers.values():
        progress.advance()
        node = tensors[0].node
        found = runs.judge(node, {t.index: reference[OutputPort(node.id, t.index)] for t in tensors}, reference)
        for tensor in tensors:
            tensor.local = found[tensor.index]


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
    local: bool = True,
    truth: bool = False,
) -> LayerwiseReport:
    """Run the interpreter's model (outputs and marked tensors) and the IR ``xml`` (default: the model's own
    file) with OpenVINO; compare.

    Tensors are matched by producing layer name and output index, else by any of their names, so ``xml`` may be
    another version of the model (a reference to find where an edited IR goes wrong). ``atol``/``rtol`` replace
    the parts of each tensor's precision default (``precision``, the inference precision hint, and the ops on
    the way); ``tolerances`` set them per tensor (by key, tensor name or layer name). ``profile``: the report
    holds OpenVINO's performance counters (``counters``; see :func:`irgraph.tools.backends.run_openvino`).
    ``local``: each compared layer also runs on OpenVINO's own inputs (asked of it too); ``truth``: and in f64.
    """
    model = interpreter.model
    path = xml if xml is not None else model.source
    if path is None:
        raise InputError("the model was not read from a file: give the IR for OpenVINO to run (xml=...)")
    backends.require("openvino")
    progress = progress or Progress(enabled=False)
    tensors, values = _run_ours(interpreter, feeds, progress)
    element_type = ElementType.from_ir_name(precision)
    runs, extra, extra_names = _local_runs(interpreter, feeds, element_type, local, truth, tensors)
    requests = _requests(model, tensors) + [backends.TensorRequest(model.node(port.node_id).name, port.index,
                                                                   tuple(names))
                                            for port, names in zip(extra, extra_names.values(), strict=True)]
    version = backends.backend_version("openvino")  # imported after irgraph's run: see backends.require
    progress.stage(f"openvino: compiling and running ({device}, {precision})")
    run = backends.run_openvino(path, weights, _by_parameter(model, feeds), requests,
                                device=device, precision=precision, profile=profile)
    judge = _Tolerances(model, element_type, atol, rtol, tolerances)
    report = LayerwiseReport(f"{version} ({device}, {precision})", atol, rtol, tensors, values, run.names,
                             run.counters, runs)
    progress.stage("comparing tensors", len(tensors))
    for tensor, found in zip(tensors, run.tensors[:len(tensors)], strict=True):
        progress.advance()
        if found is not None:
            tensor.reference_name = found.name
            report.reference_values[OutputPort(tensor.node.id, tensor.index)] = found.array
            _compare(tensor, values[tensor.key], found.array, judge)
    report.reference_values.update({port: found.array for port, found in zip(extra, run.tensors[len(tensors):],
                                                                                strict=True) if found is not None})
    _judge_locally(report, progress)
    return report


def compare_with_onnxruntime(
    interpreter: Interpreter,
    feeds: Mapping[str, np.ndarray],
    onnx: str | os.PathLike[str],
    *,
    atol: float | None = None,
    rtol: float | None = None,
    tolerances: Mapping[str, TensorTolerance | ToleranceOverride] | None = None,
    progress: Progress | None = None,
    local: bool = True,
    truth: bool = False,
) -> LayerwiseReport:
    """Run the interpreter's model and the ONNX model ``onnx`` with onnxruntime; compare tensors of the same name
    (any of a tensor's names). Default tolerances take each tensor's own element type as the precision.
    ``local`` and ``truth`` as :func:`compare_with_openvino` says."""
    model = interpreter.model
    backends.require("onnxruntime")
    progress = progress or Progress(enabled=False)
    tensors, values = _run_ours(interpreter, feeds, progress)
    version = backends.backend_version("onnxruntime")
    candidates = {request.names[0]: list(request.names) for request in _requests(model, tensors)}
    runs, extra, extra_names = _local_runs(interpreter, feeds, None, local, truth, tensors)
    wanted = list(dict.fromkeys(name for names in [*candidates.values(), *extra_names.values()] for name in names))
    progress.stage("onnxruntime: running")
    theirs, available = backends.run_onnxruntime(onnx, _by_parameter(model, feeds), wanted)
    judge = _Tolerances(model, None, atol, rtol, tolerances)
    report = LayerwiseReport(f"{version} (CPU)", atol, rtol, tensors, values, available, local=runs)
    progress.stage("comparing tensors", len(tensors))
    for tensor in tensors:
        progress.advance()
        name = next((name for name in candidates[tensor.key] if name in theirs), None)
        if name is not None:
            tensor.reference_name = name
            report.reference_values[OutputPort(tensor.node.id, tensor.index)] = theirs[name]
            _compare(tensor, values[tensor.key], theirs[name], judge)
    for port, names in zip(extra, extra_names.values(), strict=True):
        name = next((name for name in names if name in theirs), None)
        if name is not None:
            report.reference_values[port] = theirs[name]
    _judge_locally(report, progress)
    return report
