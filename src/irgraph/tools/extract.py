"""extract(model, inputs, outputs): cut the sub-graph between tensors into a new, valid model.

As ``polygraphy surgeon extract`` does for ONNX: every edge that leaves a cut input is fed by a new
Parameter of the tensor's inferred (partial) type, every requested output gets a Result, and the
layers needed to compute the outputs from the inputs are copied (with their Consts, tensor names,
rt_info and ids; ops are immutable, so Const values are shared with the source, not copied).

Tensors are named as :mod:`irgraph.graph.names` resolves them (a tensor name, a Parameter or
Result name, or ``LAYER:PORT``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from irgraph.core.collector import paused_collector
from irgraph.core.errors import ExtractError, IrError, Location, printable
from irgraph.core.shapes import TensorType
from irgraph.core.text import plural
from irgraph.graph import Input, InputPort, Model, Node, Output, OutputPort
from irgraph.graph.names import TensorNames
from irgraph.ops import Parameter, Result

__all__ = ["Tensor", "extract"]


@dataclass(frozen=True, slots=True)
class Tensor:
    """A tensor of a model named by the user: the output port it is, and the name it was given by."""

    spec: str
    port: OutputPort


def extract(
    model: Model, inputs: Sequence[str] | None, outputs: Sequence[str], *, name: str | None = None
) -> Model:
    """The sub-graph of ``model`` computing ``outputs`` from ``inputs`` (tensor specs; see the module docstring).

    The cut inputs become Parameters (a cut input that is a Parameter stays that Parameter) named after
    the tensor (the name given when it is a tensor name, else the tensor's first name, else the
    ``LAYER:PORT`` given), their ports keeping the tensor's names; ``inputs=None`` starts at the model's own
    Parameters the outputs need (in model order). Each output becomes a Result named as given
    (an output named as a Result that receives the tensor keeps that Result). Shapes of ``model`` are inferred first (in
    place) to type the new Parameters. Raises ExtractError when a name is unknown (naming close
    matches), is given twice, or names an input no output needs, or when an output depends on a
    model input that is not among ``inputs``; ShapeInferenceError when the cut graph cannot be typed.
    """
    with paused_collector():
        return _Extraction(model, inputs, outputs, name).run()


class _Extraction:
    def __init__(self, model: Model, inputs: Sequence[str] | None, outputs: Sequence[str], name: str | None
                 ) -> None:
        self.model = model
        self.name = name or model.name
        self.from_model_inputs = inputs is None
        if inputs is None:
            inputs = []
        if isinstance(inputs, str) or isinstance(outputs, str):
            raise TypeError("inputs and outputs are sequences of names, not one string")
        if not outputs:
            raise ExtractError("no outputs were given: name at least one tensor to compute", Location(model.source))
        names = TensorNames(model)
        self.inputs = _unique([Tensor(spec, names.resolve(spec)) for spec in inputs], "input", model)
        self.outputs = _unique([Tensor(spec, names.resolve(spec)) for spec in outputs], "output", model)
        # An output named as a Result of the model that receives that tensor keeps the Result (its id,
        # output names and rt_info): extracting every output gives back the same Results.
        self.results: dict[str, Node] = {}
        for tensor in self.outputs:
            for node in names.layers.get(tensor.spec, ()):
                if isinstance(node.op, Result) and model.producer(InputPort(node.id, 0)) == tensor.port:
                    self.results[tensor.spec] = node
                    break
        self.cut: dict[OutputPort, Tensor] = {}
        for tensor in self.inputs:
            earlier = self.cut.setdefault(tensor.port, tensor)
            if earlier is not tensor:
                raise ExtractError(f"inputs {_q(earlier.spec)} and {_q(tensor.spec)} name the same tensor "
                                   f"({self._port_text(tensor.port)})", Location(model.source))

    def run(self) -> Model:
        from irgraph.analysis.shape_inference import ensure_shapes, infer_shapes, walk

        try:  # types for the new Parameters; a model inferred since its last edit is not walked again
            ensure_shapes(self.model)
        except IrError:
            walk(self.model, on_error=lambda node, error: None)  # as far as they go
        kept, used = self._needed()
        if self.from_model_inputs:
            order = {node.id: index for index, node in enumerate(self.model.parameters)}
            self.inputs = sorted(self.cut.values(), key=lambda tensor: order[tensor.port.node_id])
        unused = [tensor for tensor in self.inputs if tensor.port not in used]
        if unused:
            wanted = ", ".join(_q(t.spec) for t in self.outputs)
            listed = ", ".join(_q(t.spec) for t in unused)
            raise ExtractError(
                f"{plural(len(unused), 'input')} {listed} {plural(len(unused), 'is', 'are')} not needed to compute "
                f"{wanted} (the outputs do not depend on {plural(len(unused), 'it', 'them')}, or only through the "
                f"other cut inputs); leave {plural(len(unused), 'it', 'them')} out", Location(self.model.source))
        sub = self._build(kept)
        try:
            infer_shapes(sub)
        except IrError as err:
            layer = err.location.layer_id  # copied layers keep their ids: point at the layer in the source file
            where = self.model.node(layer).location if layer is not None and layer in self.model else err.location
            raise ExtractError(f"the extracted graph fails shape inference: {err.message}", where) from None
        return sub

    # -------------------------------------------------------------------------------- walking
    def _needed(self) -> tuple[set[int], set[OutputPort]]:
        """The ids of the layers the outputs need (walking back to the cut inputs), and the cut inputs used."""
        model, cut = self.model, self.cut
        kept: set[int] = set()
        used: set[OutputPort] = set()
        for tensor in self.outputs:
            if tensor.port in cut:
                used.add(tensor.port)
                continue
            stack = [tensor.port.node_id]
            while stack:
                node_id = stack.pop()
                if node_id in kept:
                    continue
                node = model.node(node_id)
                if isinstance(node.op, Parameter):
                    if not self.from_model_inputs:
                        raise self._missing_input(tensor, node)
                    port = OutputPort(node_id, 0)  # starting from the model inputs: cut at each one reached
                    if port not in cut:
                        cut[port] = Tensor(node.name, port)
                        used.add(port)
                    continue
                kept.add(node_id)
                for source in model.input_sources(node):
                    if source is None:
                        continue
                    if source in cut:
                        used.add(source)
                    elif source.node_id not in kept:
                        stack.append(source.node_id)
        return kept, used

    def _missing_input(self, output: Tensor, parameter: Node) -> ExtractError:
        given = ", ".join(_q(t.spec) for t in self.inputs) or "none"
        return ExtractError(
            f"output {_q(output.spec)} depends on model input {_q(parameter.name)}, which is not among the cut "
            f"inputs ({given}): add it to the inputs, or cut between it and the output", parameter.location)

    # -------------------------------------------------------------------------------- building
    def _build(self, kept: set[int]) -> Model:
        model = self.model
        sub = Model(self.name, ir_version=model.ir_version)
        sub.rt_info = model.rt_info
        next_id = max((node.id for node in model), default=-1) + 1
        fed: dict[OutputPort, OutputPort] = {}  # source port -> the port that feeds its consumers in `sub`
        taken = {model.node(node_id).name for node_id in kept}
        taken.update(model.node(t.port.node_id).name for t in self.inputs
                     if isinstance(model.node(t.port.node_id).op, Parameter))
        for tensor in self.inputs:
            node = model.node(tensor.port.node_id)
            if isinstance(node.op, Parameter):
                copy = _copy_node(sub, node)
            else:
                tensor_type = self._type_of(tensor)
                names = node.outputs[tensor.port.index].tensor_names
                name = _parameter_name(tensor, names, taken)
                taken.add(name)
                copy = sub.add_node(Parameter(shape=tensor_type.shape, element_type=tensor_type.element_type),
                                    name, node_id=next_id)
                next_id += 1
                copy.outputs[0].tensor_names = list(names) or [tensor.spec]
            fed[tensor.port] = OutputPort(copy.id, 0)
        for node in model.topological_order():
            if node.id not in kept:
                continue
            copy = _copy_node(sub, node)
            for index, source in enumerate(model.input_sources(node)):
                if source is not None:
                    sub.connect(fed.get(source, source), InputPort(copy.id, index))
            for output in copy.outputs:  # kept for another output: a cut one's names go to its Parameter
                if output in fed:
                    output.tensor_names = []
        for tensor in self.outputs:
            source = fed.get(tensor.port, tensor.port)
            original = self.results.get(tensor.spec)
            if original is not None:
                result = _copy_node(sub, original)
                sub.connect(source, InputPort(result.id, 0))
            else:
                result = sub.add_node(Result(), tensor.spec, [source], node_id=next_id)
                next_id += 1
                result.result_names = [tensor.spec]
        return sub

    def _type_of(self, tensor: Tensor) -> TensorType:
        node = self.model.node(tensor.port.node_id)
        index = tensor.port.index
        found = node.outputs[index].type or node.outputs[index].declared_type
        if found is None:
            raise ExtractError(f"the type of input {_q(tensor.spec)} is unknown: shape inference could not type it "
                               "and the file does not declare it (see ir-validate)", node.location)
        return found

    def _port_text(self, port: OutputPort) -> str:
        node = self.model.node(port.node_id)
        return f"output {port.index} of layer {node.id} {_q(node.name)}"


def _copy_node(sub: Model, node: Node) -> Node:
    """A copy of ``node`` in ``sub`` (same id, name, op object, bodies, names, declared types and rt_info),
    unconnected."""
    node_id = node.id
    return sub.place(Node(
        node_id, node.name, node.op,
        [Input(node_id, port.index, port.declared_type, port.rt_info) for port in node.inputs],
        [Output(node_id, output.index, list(output.tensor_names), output.declared_type, None, output.rt_info)
         for output in node.outputs],
        result_names=None if node.result_names is None else list(node.result_names),
        rt_info=node.rt_info,
        extra_attributes=dict(node.extra_attributes),
        # TensorIterator, Loop, If: their bodies are models of their own, shared as the op is
        bodies=node.bodies,
    ))


def _parameter_name(tensor: Tensor, names: Sequence[str], taken: set[str]) -> str:
    """The name of the Parameter that replaces a cut tensor: the tensor name it was given by, else the tensor's
    first name (``x.1``, what OpenVINO and users call it), else the spec as given (``LAYER:PORT``); the spec
    too when that name is already a layer's name in the cut."""
    if tensor.spec in names or not names:
        return tensor.spec
    return names[0] if names[0] not in taken else tensor.spec


def _unique(tensors: list[Tensor], role: str, model: Model) -> list[Tensor]:
    seen: set[str] = set()
    for tensor in tensors:
        if tensor.spec in seen:
            raise ExtractError(f"{role} {_q(tensor.spec)} is given twice", Location(model.source))
        seen.add(tensor.spec)
    return tensors


def _q(text: str) -> str:
    return f"'{printable(text)}'"
