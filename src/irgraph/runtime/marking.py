"""Marking intermediate tensors: which ports ``Interpreter(model, mark=...)`` returns besides the outputs.

A mark names a tensor as :func:`irgraph.graph.names.resolve_tensor` does (a tensor name, a Parameter or
Result name, ``LAYER:PORT`` with LAYER a layer name or id), or a layer by its name (all of its
outputs), or is ``"all"``: every tensor computed from the inputs, in topological order, that is every
output of every layer a Result needs, except Parameters, Consts, Results and layers whose inputs are
all constant (weights decompression, folded once: their values are the model's data, not its
computation).

Each marked tensor is returned under its *key*: its first tensor name, else ``LAYER:PORT`` (with the
layer's id instead of its name when two layers share the name, or when the name is already taken).
A marked tensor that is a model output is returned once, under its output key.

Tensors inside the bodies of TensorIterator, Loop and If are marked per body execution (:func:`body_marks`):
``"all"`` marks every computed tensor of every body too, and ``OWNER/NAME`` marks tensor or layer NAME of
the bodies of layer OWNER (nested: ``OUTER/INNER/NAME``). A marked body returns its marked tensors and its
outputs after every execution, keyed ``OWNER/iterK/KEY`` (K from 0, as OpenVINO's current_iteration
counts) for TensorIterator and Loop and ``OWNER/then/KEY`` or ``OWNER/else/KEY`` for If.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from irgraph.core.errors import ExtractError, InputError, printable
from irgraph.core.records import Record
from irgraph.graph import InputPort, Model, Node, OutputPort
from irgraph.graph.names import resolve_tensor
from irgraph.ops import Const, Parameter, Result

__all__ = ["ALL", "Mark", "body_marks", "computed_layers", "reference_names", "resolve_marks"]

ALL = "all"
"""The mark that means every computed tensor."""


class Mark(Record):
    """A marked tensor: the key it is returned under and the output port it is."""

    __slots__ = ("key", "port", "node")

    key: str
    port: OutputPort
    node: Node

    def __init__(self, key: str, port: OutputPort, node: Node) -> None:
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "port", port)
        object.__setattr__(self, "node", node)

    @property
    def spec(self) -> str:
        """``LAYER:PORT`` with the layer's name: how the tensor is named in messages."""
        return f"{self.node.name}:{self.port.index}"


def computed_layers(model: Model) -> list[Node]:
    """The layers a run computes from its inputs, in topological order (see the module docstring)."""
    needed = model.reachable_from_results()
    constant: set[int] = set()
    layers = []
    for node in model.topological_order():
        if node.id not in needed or isinstance(node.op, Result | Parameter):
            continue
        sources = model.input_sources(node)
        if isinstance(node.op, Const) or (sources and all(s is not None and s.node_id in constant for s in sources)):
            constant.add(node.id)
            continue
        layers.append(node)
    return layers


def resolve_marks(model: Model, specs: str | Iterable[str]) -> list[Mark]:
    """The marks ``specs`` names, in topological order, each port once, none that is a model output.

    Raises InputError for a name that is no tensor or layer, or for a tensor no Result needs (a run
    does not compute it).
    """
    if isinstance(specs, str):
        specs = [specs]
    specs = list(specs)
    outputs = {port for result in model.results if (port := _source(model, result)) is not None}
    ports: set[OutputPort] = set()
    if ALL in specs:
        for node in computed_layers(model):
            ports.update(OutputPort(node.id, index) for index in range(node.num_outputs))
    needed = model.reachable_from_results()
    layers = _layers_by_name(model)
    tensor_names = {name for node in model for output in node.outputs for name in output.tensor_names}
    for spec in specs:
        if spec == ALL or _body_target(spec, layers, tensor_names) is not None:
            continue
        for port in _ports_of(model, spec, layers, tensor_names):
            if port.node_id not in needed:
                node = model.node(port.node_id)
                raise InputError(f"cannot mark {printable(spec)!r}: no Result needs layer {node.name!r}, so a run "
                                 "does not compute it", node.location)
            ports.add(port)
    ports -= outputs
    return _keyed(model, ports, layers)


def body_marks(model: Model, specs: str | Iterable[str]) -> dict[int, tuple[Model, list[str]]]:
    """Per body (keyed by ``id`` of its Model), the body and the marks its Interpreter takes: ``"all"`` for every
    body of a computed layer when ``specs`` hold it, NAME for the bodies of layer OWNER that have it when they
    hold ``OWNER/NAME``; bodies inside those bodies included. Raises InputError for an ``OWNER/NAME`` no body of
    OWNER has."""
    specs = [specs] if isinstance(specs, str) else list(specs)
    found: dict[int, tuple[Model, list[str]]] = {}

    def add(body: Model, spec: str) -> None:
        found.setdefault(id(body), (body, []))[1].append(spec)

    if ALL in specs:
        for node in computed_layers(model):
            for body in node.bodies or ():
                add(body.model, ALL)
    layers = _layers_by_name(model)
    tensor_names = {name for node in model for output in node.outputs for name in output.tensor_names}
    for spec in specs:
        target = _body_target(spec, layers, tensor_names) if spec != ALL else None
        if target is None:
            continue
        owner, rest = target
        having = [body.model for body in owner.bodies or () if _has(body.model, rest)]
        if not having:
            raise InputError(f"cannot mark {printable(spec)!r}: no body of layer {owner.name!r} has a tensor or layer "
                             f"{printable(rest)!r}", owner.location)
        for body_model in having:
            add(body_model, rest)
    for body_model, body_specs in list(found.values()):  # bodies inside bodies: an Interpreter prepares them all
        for key, (inner, inner_specs) in body_marks(body_model, body_specs).items():
            found.setdefault(key, (inner, []))[1].extend(inner_specs)
    return found


def _body_target(spec: str, layers: dict[str, list[Node]], tensor_names: set[str]) -> tuple[Node, str] | None:
    """(the layer, the rest) when ``spec`` is ``OWNER/REST`` for a layer OWNER with bodies and names nothing of this
    model itself (layer names hold slashes too: the model's own names come first)."""
    if spec in tensor_names or spec in layers:
        return None
    for position, char in enumerate(spec):
        named = layers.get(spec[:position]) if char == "/" else None
        if named is not None and len(named) == 1 and named[0].bodies and spec[position + 1:]:
            return named[0], spec[position + 1:]
    return None


def _has(body: Model, spec: str) -> bool:
    """Whether ``spec`` names a tensor or layer of ``body`` (or of a body inside it)."""
    try:
        resolve_marks(body, [spec])
        body_marks(body, [spec])
    except InputError:
        return False
    return True


def _source(model: Model, result: Node) -> OutputPort | None:
    sources = model.input_sources(result)
    return sources[0] if sources else None


def _layers_by_name(model: Model) -> dict[str, list[Node]]:
    layers: dict[str, list[Node]] = {}
    for node in model:
        layers.setdefault(node.name, []).append(node)
    return layers


def _ports_of(model: Model, spec: str, layers: dict[str, list[Node]], tensor_names: set[str]) -> list[OutputPort]:
    """The ports ``spec`` names: a tensor as resolve_tensor says, or every output of a layer named ``spec``."""
    named = layers.get(spec, [])
    if spec not in tensor_names and len(named) == 1 and not isinstance(named[0].op, Parameter | Result):
        node = named[0]
        if not node.num_outputs:
            raise InputError(f"cannot mark layer {printable(spec)!r}: it has no outputs", node.location)
        return [OutputPort(node.id, index) for index in range(node.num_outputs)]
    try:
        return [resolve_tensor(model, spec)]
    except ExtractError as err:  # a name the caller gave: an input error of the run, as an unknown feed name is
        raise InputError(err.message, err.location.with_file(model.source)) from None


def _keyed(model: Model, ports: set[OutputPort], layers: dict[str, list[Node]]) -> list[Mark]:
    """Marks in topological order, keyed by first tensor name, else ``LAYER:PORT``; keys unique, none an output key."""
    taken = set(model.output_keys().values())
    position = {node.id: order for order, node in enumerate(model.topological_order())}
    marks = []
    for port in sorted(ports, key=lambda p: (position[p.node_id], p.index)):
        node = model.node(port.node_id)
        names = node.outputs[port.index].tensor_names if port.index < len(node.outputs) else []
        candidates = [names[0]] if names else []
        if len(layers.get(node.name, ())) == 1:
            candidates.append(f"{node.name}:{port.index}")
        candidates.append(f"{node.id}:{port.index}")
        key = next((c for c in candidates if c not in taken), f"{node.id}:{port.index}")
        taken.add(key)
        marks.append(Mark(key, port, node))
    return marks



def reference_names(model: Model, ports: Mapping[str, OutputPort]) -> dict[str, list[str]]:
    """Per key, every name a reference may give the tensor at its port, most specific first: its tensor names,
    the output names and layer name of each Result it feeds, ``LAYER:PORT``, then Polygraphy's spellings
    (TensorFlow's ``NAME:0`` for each of those names, and ``NAME`` for a name ``NAME:0``). The key itself is not
    repeated."""
    feeds: dict[OutputPort, list[Node]] = {}
    for result in model.results:
        source = model.producer(InputPort(result.id, 0))
        if source is not None:
            feeds.setdefault(source, []).append(result)
    found = {}
    for key, port in ports.items():
        node = model.node(port.node_id)
        names = list(node.outputs[port.index].tensor_names) if port.index < len(node.outputs) else []
        for result in feeds.get(port, ()):
            names += [*(result.result_names or []), result.name]
        names.append(f"{node.name}:{port.index}")
        spelled = [name[:-2] if name.endswith(":0") else f"{name}:0" for name in [key, *names]]
        found[key] = [name for name in dict.fromkeys([*names, *spelled]) if name != key]
    return found
