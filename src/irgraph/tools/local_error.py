"""The layer's own error, not the error it inherited: irgraph's layer run on the reference's own inputs.

f32 rounding accumulates through a network, so the first tensor beyond its tolerance in a layer-by-layer
comparison is often only where inherited noise crosses the line. For a layer whose output was compared, the
*local* run cuts the layer out (:func:`irgraph.tools.extract.extract`: its Const inputs and weight decompression
chains stay, every computed input becomes a Parameter) and runs it on the tensors the reference produced for
those inputs. Its *local error* against the reference's output is what the layer itself adds, judged by its
*tolerance class*: the default tolerance of the cut-out layer alone (its own op's bound, the reference's
precision; docs/tolerances.md), which is also what ``ir-run --compare`` applies to the cut-out model, so a repro
bundle (:mod:`irgraph.tools.repro`) judges it the same way.

With ``truth``, the layer is also evaluated in float64 on the same inputs (f16/bf16/f32 values widened
exactly): a third opinion that says whether irgraph or the reference is closer to the exact result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrError, printable
from irgraph.graph import Model, Node, OutputPort
from irgraph.graph.names import TensorNames
from irgraph.runtime.interpreter import Interpreter
from irgraph.runtime.marking import computed_layers
from irgraph.tools.compare import ErrorBound, TensorComparison, compare_arrays, error_bounds, precision_tolerance
from irgraph.tools.extract import extract
from irgraph.tools.stats import array_element_type

__all__ = ["Block", "LocalError", "LocalRuns", "Truth", "tensor_spec"]


@dataclass(frozen=True, slots=True)
class Truth:
    """Largest absolute difference of irgraph's and of the reference's output from the layer computed in f64."""

    ours: float
    theirs: float

    @property
    def closer(self) -> str:
        """``irgraph``, ``the reference`` or ``neither``: which side is closer to exact."""
        if self.ours == self.theirs:
            return "neither"
        return "irgraph" if self.ours < self.theirs else "the reference"

    def describe(self) -> str:
        """``f64: irgraph closer (1e-08 vs 3e-08)``."""
        return f"f64: {self.closer} closer ({self.ours:.3g} vs {self.theirs:.3g})"


@dataclass
class LocalError:
    """One output of a layer run on the reference's inputs, compared with the reference's output; or why not."""

    comparison: TensorComparison | None = None
    missing: str = ""
    """Why the layer was not run on the reference's inputs (an input the reference does not expose...)."""
    truth: Truth | None = None
    truth_missing: str = ""

    @property
    def exceeds(self) -> bool:
        """True when the layer's own error is beyond its tolerance class."""
        return self.comparison is not None and not self.comparison.passed

    def to_json(self) -> dict[str, object]:
        """``passed, max_abs_error, ...`` of the local comparison, its tolerance, the f64 opinion; or ``missing``."""
        if self.comparison is None:
            return {"missing": self.missing}
        item = self.comparison.to_json(detailed=True)
        if self.truth is not None:
            item["f64"] = {"irgraph": self.truth.ours, "reference": self.truth.theirs, "closer": self.truth.closer}
        elif self.truth_missing:
            item["f64"] = {"missing": self.truth_missing}
        return item


@dataclass
class Block:
    """A piece of a model cut out as a model of its own, with the feeds of its Parameters."""

    model: Model
    feeds: dict[str, np.ndarray]
    """By the cut-out model's Parameter names."""
    outputs: dict[str, OutputPort] = field(default_factory=dict)
    """The cut-out model's output keys and the tensors of the original model they are."""


def tensor_spec(names: TensorNames, port: OutputPort) -> str | None:
    """A name that resolves to ``port`` (its tensor name, ``LAYER:PORT``, ``ID:PORT``), or None."""
    node = names.model.node(port.node_id)
    for spec in (*node.outputs[port.index].tensor_names, f"{node.name}:{port.index}", f"{node.id}:{port.index}"):
        try:
            if names.resolve(spec) == port:
                return spec
        except IrError:
            continue
    return None


class LocalRuns:
    """Runs layers of ``interpreter``'s model on given input tensors (see the module docstring).

    ``feeds`` are the run's inputs (by any name of each Parameter); ``precision`` the reference's (None: each
    tensor's own type).
    """

    def __init__(self, interpreter: Interpreter, feeds: Mapping[str, np.ndarray], precision: ElementType | None,
                 truth: bool = False) -> None:
        self.model = model = interpreter.model
        self.element_limit, self.decompression = interpreter.element_limit, interpreter.decompression
        self.precision, self.truth = precision, truth
        self.names = TensorNames(model)
        self.computed = {node.id for node in computed_layers(model)}
        index = model.input_index()
        self.feeds = {OutputPort(index[name].id, 0): np.asarray(array) for name, array in feeds.items()
                      if name in index}
        self._model_bounds: dict[int, ErrorBound] | None = None

    def inputs_of(self, node: Node) -> list[OutputPort]:
        """The computed tensors ``node`` reads (model inputs included), each once, in input order."""
        return [source for source in dict.fromkeys(self.model.input_sources(node))
                if source is not None and (source.node_id in self.computed or source in self.feeds)]

    def needed(self, nodes: Iterable[Node]) -> list[OutputPort]:
        """The tensors the reference must give to run ``nodes`` locally (their computed inputs but model inputs)."""
        return list(dict.fromkeys(port for node in nodes for port in self.inputs_of(node) if port not in self.feeds))

    def block(self, node: Node, reference: Mapping[OutputPort, np.ndarray], indices: Iterable[int] | None = None
              ) -> Block:
        """``node`` cut out with its constant inputs (its outputs ``indices``, default all), its computed inputs fed
        the reference's tensors.

        Raises IrError naming an input the reference does not have, or why the layer cannot be cut out.
        """
        feeds = []
        for port in self.inputs_of(node):
            array = self.feeds.get(port, reference.get(port))
            if array is None:
                raise IrError(f"its input {self._text(port)} is not exposed by the reference")
            feeds.append(self._typed(port, np.asarray(array)))
        outputs = [OutputPort(node.id, index) for index in (range(node.num_outputs) if indices is None else indices)]
        return self._cut([self._spec(port) for port in self.inputs_of(node)], outputs, feeds)

    def prefix(self, port: OutputPort) -> Block:
        """The model from its inputs to the tensor ``port``, fed the run's inputs."""
        sub = extract(self.model, None, [self._spec(port)])
        feeds = {parameter.name: self.feeds[OutputPort(parameter.id, 0)] for parameter in sub.parameters}
        return Block(sub, feeds, {key: port for key in sub.output_keys().values()})

    def _cut(self, inputs: list[str], outputs: list[OutputPort], feeds: list[np.ndarray]) -> Block:
        sub = extract(self.model, inputs, [self._spec(port) for port in outputs])
        named = {parameter.name: array for parameter, array in zip(sub.parameters, feeds, strict=True)}
        keys = sub.output_keys()
        return Block(sub, named, {keys[result.id]: port for result, port in zip(sub.results, outputs, strict=True)})

    def _typed(self, port: OutputPort, array: np.ndarray) -> np.ndarray:
        """The reference's values of a tensor in its element type in irgraph's model (a runtime may hand i64 out as
        i32, another conversion of the network may type it otherwise): numbers are cast, anything else kept."""
        found = self.model.node(port.node_id).outputs[port.index].type
        wanted = found.element_type.numpy_dtype if found is not None and not found.element_type.is_dynamic else None
        if wanted is None or array.dtype == wanted or array.dtype.kind not in "biuf" or wanted.kind not in "biuf":
            return array
        return array.astype(wanted)

    def _spec(self, port: OutputPort) -> str:
        spec = tensor_spec(self.names, port)
        if spec is None:
            raise IrError(f"{self._text(port)} has no name that names it alone")
        return spec

    def _text(self, port: OutputPort) -> str:
        node = self.model.node(port.node_id)
        return f"'{printable(node.name)}:{port.index}'"

    def judge(self, node: Node, wanted: Mapping[int, np.ndarray], reference: Mapping[OutputPort, np.ndarray]
              ) -> dict[int, LocalError]:
        """Per output index of ``node`` in ``wanted`` (the reference's output), the layer's local error."""
        try:
            block = self.block(node, reference)
            constants = self._constant_inputs(node, block.model) if self.truth else []
            interpreter = Interpreter(block.model, element_limit=self.element_limit, decompression=self.decompression,
                                      mark=[spec for _, spec in constants] or None)
            values = interpreter.run(block.feeds)
        except IrError as err:
            return {index: LocalError(missing=err.message) for index in wanted}
        bound = error_bounds(block.model)[node.id]
        found: dict[int, LocalError] = {}
        ours_by_index = {port.index: values[key] for key, port in block.outputs.items()}
        for index, theirs in wanted.items():
            ours = ours_by_index[index]
            theirs = _like(np.asarray(theirs), ours)
            element_type = array_element_type(ours)
            # Integers from rounded floats (an arg-max, a Convert) are noted, not failed, as the whole model's are.
            own = bound if element_type.is_real else self._bounds()[node.id]
            tolerance = precision_tolerance(element_type, own, self.precision)
            found[index] = LocalError(compare_arrays(f"{node.name}:{index}", ours, theirs, tolerance,
                                                     precision=tolerance))
        if self.truth:
            marked = {mark.port: values[mark.key] for mark in interpreter.marks}
            self._add_truth(node, reference, marked, ours_by_index, wanted, found)
        return found

    def _bounds(self) -> dict[int, ErrorBound]:
        """The error bounds of the whole model's layers (computed once, when first asked)."""
        if self._model_bounds is None:
            self._model_bounds = error_bounds(self.model)
        return self._model_bounds

    def _constant_inputs(self, node: Node, sub: Model) -> list[tuple[OutputPort, str]]:
        """The inputs of ``node`` that are constant (weights, decompressed ones too), named in the cut-out model."""
        names = TensorNames(sub)
        found = []
        for source in dict.fromkeys(self.model.input_sources(node)):
            if source is not None and source not in self.inputs_of(node):
                spec = tensor_spec(names, source)
                if spec is None:
                    raise IrError(f"constant input {self._text(source)} has no name in the cut-out layer")
                found.append((source, spec))
        return found

    def _add_truth(self, node: Node, reference: Mapping[OutputPort, np.ndarray],
                   constants: Mapping[OutputPort, np.ndarray], ours: Mapping[int, np.ndarray],
                   wanted: Mapping[int, np.ndarray], found: dict[int, LocalError]) -> None:
        """The f64 opinion on each output: the layer's op evaluated on its inputs widened to float64."""
        reason = ""
        try:
            if node.bodies:
                raise IrError("a layer with sub-graph bodies is not evaluated in f64")
            inputs = []
            for source in self.model.input_sources(node):
                if source is None:
                    raise IrError("an input is not connected")
                inputs.append(_wide(self.feeds.get(source, reference.get(source, constants.get(source)))))
            exact = node.op.evaluate(inputs)
        except (IrError, ArithmeticError, ValueError, TypeError) as err:  # an op that takes no f64 says so its way
            reason = getattr(err, "message", None) or str(err) or type(err).__name__
            exact = []
        for index, theirs in wanted.items():
            if reason or index >= len(exact):
                found[index].truth_missing = reason or "the f64 evaluation gave no such output"
                continue
            if not array_element_type(ours[index]).is_real:
                found[index].truth_missing = "not a float tensor"
                continue
            truth = np.asarray(exact[index], dtype=np.float64)
            found[index].truth = Truth(_distance(ours[index], truth), _distance(theirs, truth))


def _wide(array: np.ndarray | None) -> np.ndarray:
    """A float tensor widened to float64 (exactly); other types as they are."""
    if array is None:
        raise IrError("an input of the layer is not known")
    return array.astype(np.float64) if array_element_type(array).is_real else array


def _distance(array: np.ndarray, truth: np.ndarray) -> float:
    """Largest |array - truth| over the elements where both are finite (inf where the shapes differ)."""
    values = np.asarray(array).astype(np.float64)
    if values.shape != truth.shape:
        return float("inf")
    finite = np.isfinite(values) & np.isfinite(truth)
    return float(np.abs(values[finite] - truth[finite]).max()) if finite.any() else 0.0


def _like(theirs: np.ndarray, ours: np.ndarray) -> np.ndarray:
    """The reference's array in irgraph's dtype when both are numbers (a runtime may hand i64 out as i32)."""
    if theirs.dtype != ours.dtype and theirs.dtype.kind in "biuf" and ours.dtype.kind in "biuf":
        return theirs.astype(ours.dtype)
    return theirs


