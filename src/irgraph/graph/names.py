"""Naming a tensor of a model: resolve_tensor(model, spec) and TensorNames.

A tensor is named by any of its tensor names, by the name of a Parameter (its output) or of a
Result (the tensor it receives), or as ``LAYER:PORT`` where LAYER is a layer name or id and PORT
counts the layer's outputs from 0 (``split:1`` is a Split's second output, whatever port id the
XML gives it). Tensor names are looked up first, so a name such as ``x:0`` means the tensor.
Extraction (``irgraph.tools.extract``) and marking (``irgraph.runtime.marking``) name tensors this way.
"""

from __future__ import annotations

from irgraph.core.errors import ExtractError, Location, printable
from irgraph.graph.model import Model
from irgraph.graph.node import Node
from irgraph.graph.ports import InputPort, OutputPort
from irgraph.ops import Parameter, Result

__all__ = ["TensorNames", "resolve_tensor"]

MAX_SUGGESTIONS = 5


def resolve_tensor(model: Model, spec: str) -> OutputPort:
    """The output port ``spec`` names: a tensor name, a Parameter or Result name, or ``LAYER:PORT``."""
    return TensorNames(model).resolve(spec)


class TensorNames:
    """Name lookups of one model, built once (linear): resolve many specs against one model with one of these."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.tensors: dict[str, OutputPort] = {}
        self.layers: dict[str, list[Node]] = {}
        for node in model:
            self.layers.setdefault(node.name, []).append(node)
            for output in node.outputs:
                for tensor_name in output.tensor_names:
                    self.tensors.setdefault(tensor_name, OutputPort(node.id, output.index))

    def resolve(self, spec: str) -> OutputPort:
        port = self.tensors.get(spec)
        if port is not None:
            return port
        for node in self.layers.get(spec, ()):
            if isinstance(node.op, Parameter):
                return OutputPort(node.id, 0)
            if isinstance(node.op, Result):
                source = self.model.producer(InputPort(node.id, 0))
                if source is None:
                    raise ExtractError(f"Result {_q(spec)} has no input to take as the tensor", node.location)
                return source
        layer_text, colon, port_text = spec.rpartition(":")
        if colon and port_text.isdecimal() and port_text.isascii():
            return self._layer_port(spec, layer_text, int(port_text))
        if self.layers.get(spec):
            node = self.layers[spec][0]
            ways = [f"{_q(names[0])} or {_q(f'{spec}:{index}')}" if names else _q(f"{spec}:{index}")
                    for index, names in enumerate(output.tensor_names for output in node.outputs[:MAX_SUGGESTIONS])]
            hint = f": name {'its output' if len(ways) == 1 else 'one of its outputs'}: {'; '.join(ways)}" if ways \
                else " and has no outputs"
            raise ExtractError(f"{_q(spec)} is a {node.type_name} layer, not a tensor{hint}", node.location)
        raise ExtractError(f"no tensor is called {_q(spec)}{self._suggestions(spec)}", Location(self.model.source))

    def _layer_port(self, spec: str, layer_text: str, index: int) -> OutputPort:
        candidates = self.layers.get(layer_text, [])
        if len(candidates) > 1:
            ids = ", ".join(str(node.id) for node in candidates)
            raise ExtractError(f"{_q(spec)}: {len(candidates)} layers are called {_q(layer_text)} (ids {ids}); "
                               "name the layer by its id", Location(self.model.source))
        node = candidates[0] if candidates else None
        if node is None and layer_text.isdecimal() and layer_text.isascii() and int(layer_text) in self.model:
            node = self.model.node(int(layer_text))
        if node is None:
            raise ExtractError(f"no layer is called {_q(layer_text)} (in {_q(spec)}){self._suggestions(layer_text)}",
                               Location(self.model.source))
        if index >= node.num_outputs:
            count = node.num_outputs
            have = {0: "no outputs", 1: "1 output (port 0)"}.get(count, f"{count} outputs (ports 0..{count - 1})")
            raise ExtractError(f"{_q(spec)}: the layer has {have}; ports count the layer's outputs from 0",
                               node.location)
        return OutputPort(node.id, index)

    def _suggestions(self, spec: str) -> str:
        candidates = list(dict.fromkeys([*self.tensors, *self.layers]))
        import difflib  # here: only a name not found pays for it
        close = difflib.get_close_matches(spec, candidates, n=MAX_SUGGESTIONS, cutoff=0.6)
        return f"; close matches: {', '.join(_q(c) for c in close)}" if close else ""


def _q(text: str) -> str:
    return f"'{printable(text)}'"
