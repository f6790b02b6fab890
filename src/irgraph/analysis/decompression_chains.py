"""Weight decompression chains, recognised once for the runtime's precision policy, folding and ``ir-diff``.

A compressed weight is a Const in a compressed type and the constant sub-graph that computes the weight from it::

    OpenVINO's fp16:  Const(f16) -> Convert(f32)                                     (marked ``decompression``)
    NNCF's int8/int4/nf4/fp4:  Const(u8/i8/u4/i4/nf4/f4) -> Convert(f16) -> [Subtract(Convert(zero point))]
                               -> Multiply(scale) -> [Reshape of the groups] -> [Convert(f32)]

:func:`decompression_chains` finds them by structure, as OpenVINO's CPU plugin does (NNCF's chains carry no mark):
a chain is a maximal constant sub-graph of Convert, Subtract, Multiply, Reshape, Unsqueeze, Squeeze and Transpose
layers, each of one output, that ends at a layer something else reads, reads nothing but Consts and its own
layers, keeps its inner values to itself, and converts a Const stored compressed to a float type. Each user takes
what it needs of a chain: the runtime the layers it widens to f32, folding where it starts (and the rt_info marks
OpenVINO writes, :func:`decompression_starts`), ``ir-diff`` its end, its weight and the code's neighbour.
Ops are told apart by their classes: a layer irgraph cannot run (an OpaqueOp) is no part of a chain.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.records import Record
from irgraph.graph import Model, Node, OutputPort
from irgraph.ops import Const, Op, registry

if TYPE_CHECKING:
    from irgraph.ops.type.convert import Convert

COMPRESSED_TYPES = frozenset({
    ElementType.U8, ElementType.I8, ElementType.U4, ElementType.I4, ElementType.NF4,
    ElementType.F8E4M3, ElementType.F8E5M2, ElementType.F4E2M1,
})
"""Element types NNCF stores a compressed weight (and its zero point) in."""

HALF_TYPES = frozenset({ElementType.F16, ElementType.BF16})
"""Stored types of OpenVINO's fp16 compression: a weight when a Convert widens it to f32."""



def chain_ops() -> tuple[type[Op], ...]:
    """What a decompression chain is made of between its Consts and the layer the model reads: Convert first,
    then Subtract, Multiply, Reshape, Unsqueeze, Squeeze (both versions) and Transpose. Imported when a model has a
    Convert (see :func:`decompression_chains`)."""
    from irgraph.ops.arithmetic.multiply import Multiply
    from irgraph.ops.arithmetic.subtract import Subtract
    from irgraph.ops.movement.transpose import Transpose
    from irgraph.ops.shape.reshape import Reshape
    from irgraph.ops.shape.squeeze import Squeeze, Squeeze15
    from irgraph.ops.shape.unsqueeze import Unsqueeze
    from irgraph.ops.type.convert import Convert

    return Convert, Subtract, Multiply, Reshape, Unsqueeze, Squeeze, Squeeze15, Transpose

DECOMPRESSION_MARK = "decompression"
"""The rt_info attribute OpenVINO puts on the Convert that decompresses a weight (save_model's fp16 compression)."""
KEEP_PRECISION_MARK = "keep_const_precision"
"""The rt_info attribute OpenVINO puts on a compressed weight Const whose type must stay as it is."""


class DecompressionChain(Record):
    """One chain, by layer id.

    ``end`` is the layer the rest of the model reads (its value is the weight); ``layers`` the chain's computing
    layers, ``end`` included; ``consts`` the Consts they read; ``weight`` the Const of the codes (the largest
    compressed Const a Convert widens: a zero point is compressed too, but smaller), stored as ``stored``;
    ``zero_point`` and ``scale`` the Consts a Subtract and a Multiply read, when there are. ``starts`` are where a
    plugin's decompression begins, the Converts of Consts stored in a compressed type (none in an fp16 chain:
    OpenVINO marks those instead). ``widened`` are the layers above a Convert from f16 to f32 that close
    NNCF's chain: OpenVINO's CPU plugin computes them in f32.
    """

    __slots__ = ("end", "layers", "consts", "weight", "stored", "zero_point", "scale", "starts", "widened")

    end: int
    layers: frozenset[int]
    consts: frozenset[int]
    weight: int
    stored: ElementType
    zero_point: int | None
    scale: int | None
    starts: frozenset[int]
    widened: frozenset[int]

    def __init__(self, end: int, layers: frozenset[int], consts: frozenset[int], weight: int, stored: ElementType,
                 zero_point: int | None, scale: int | None, starts: frozenset[int], widened: frozenset[int]) -> None:
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "layers", layers)
        object.__setattr__(self, "consts", consts)
        object.__setattr__(self, "weight", weight)
        object.__setattr__(self, "stored", stored)
        object.__setattr__(self, "zero_point", zero_point)
        object.__setattr__(self, "scale", scale)
        object.__setattr__(self, "starts", starts)
        object.__setattr__(self, "widened", widened)

    @property
    def nodes(self) -> frozenset[int]:
        """Every node of the chain: its layers and its Consts."""
        return self.layers | self.consts


def decompression_chains(model: Model) -> list[DecompressionChain]:
    """The weight decompression chains of ``model`` (not of its bodies), in the order of their ends."""
    chains: list[DecompressionChain] = []
    for graph, end, (layers, consts, converts, weight, starts) in _recognised(model):
        subtract, multiply = graph.chain_classes[1:3]
        chains.append(DecompressionChain(
            end=end.id, layers=frozenset(layers), consts=frozenset(consts), weight=weight,
            stored=_const(model, weight).element_type, zero_point=_operand(graph, layers, subtract),
            scale=_operand(graph, layers, multiply), starts=starts,
            widened=_widened(graph, converts, layers, starts),
        ))
    return chains


def widened_layers(model: Model) -> frozenset[int]:
    """Every chain's ``widened`` layers, united: what an Interpreter build asks for (the same recognition as
    :func:`decompression_chains`, without making the chains' other fields)."""
    widened: set[int] = set()
    for graph, _, (layers, _, converts, _, starts) in _recognised(model):
        widened |= _widened(graph, converts, layers, starts)
    return frozenset(widened)


def decompression_starts(model: Model, chains: list[DecompressionChain] | None = None) -> frozenset[int]:
    """The layers where a weight decompression sub-graph begins, as OpenVINO's ConstantFolding keeps them: a layer
    marked ``decompression``, a layer reading a Const marked ``keep_const_precision``, and a chain's ``starts``
    (NNCF's chains carry no mark)."""
    starts: set[int] = set()
    for chain in decompression_chains(model) if chains is None else chains:
        starts.update(chain.starts)
    for node in model:
        if has_mark(node, DECOMPRESSION_MARK) or any(
                source is not None and _is_const(model, source.node_id)
                and has_mark(model.node(source.node_id), KEEP_PRECISION_MARK) for source in model.input_sources(node)):
            starts.add(node.id)
    return frozenset(starts)


def has_mark(node: Node, name: str) -> bool:
    """Whether ``node``'s rt_info holds ``<attribute name="NAME" .../>``."""
    return any(entry.tag == "attribute" and ("name", name) in entry.attributes for entry in node.rt_info)


def neighbouring_codes(codes: np.ndarray) -> np.ndarray:
    """``codes`` with the lowest bit of each flipped: the stored values next to them, whose decompressed values
    are one step away (one f16 ulp, one int8 level times the scale, the next nf4 level)."""
    contiguous = codes if codes.flags.c_contiguous else codes.copy(order="C")  # a scalar stays 0-d
    unsigned = np.dtype(f"u{contiguous.dtype.itemsize}")
    return (contiguous.view(unsigned) ^ 1).view(contiguous.dtype)  # view keeps nf4's tagged dtype: codes stay codes


class _ChainGraph:
    """The model's Consts and its chain layers' producers, looked up once: a chain is walked several times, and
    ``Model.input_sources`` builds a new list at each call (an int4 LLM: 4 ms per Interpreter build with them)."""

    def __init__(self, model: Model, chain_classes: tuple[type[Op], ...]) -> None:
        self.model, self.chain_classes = model, chain_classes
        self.consts: set[int] = set()
        self.sources: dict[int, list[OutputPort | None]] = {}
        """Chain layer id -> the producer of each of its inputs (every one a Const or a chain layer)."""
        consts, sources = self.consts, self.sources
        kinds: dict[type[Op], tuple[bool, bool]] = {}  # op class -> (a Const, a chain op): asked once per class
        for node in model.topological_order():  # a Const comes before the layers reading it
            kind = kinds.get(type(node.op))
            if kind is None:
                kind = kinds[type(node.op)] = (isinstance(node.op, Const), isinstance(node.op, chain_classes))
            if kind[0]:
                consts.add(node.id)
            if kind[1] and len(node.outputs) == 1 and node.inputs:
                found = model.input_sources(node)
                for source in found:  # a loop, not all(): a generator per layer was a third of this walk
                    if source is None or (source.node_id not in consts and source.node_id not in sources):
                        break
                else:
                    sources[node.id] = found

    def ends(self) -> Iterator[Node]:
        """The chain layers something outside the chain layers reads, in model order: where chains may end."""
        for node in self.model:
            if node.id not in self.sources:
                continue
            for reader in self.model.consumers(OutputPort(node.id, 0)):
                if reader.node_id not in self.sources:
                    yield node
                    break


Recognised = tuple[set[int], set[int], "dict[int, Converted]", int, frozenset[int]]
"""A chain's layers, Consts, Converts, weight and starts."""


def _recognise(graph: _ChainGraph, end: Node) -> Recognised | None:
    """The chain ``end`` closes, or None when an inner layer is read elsewhere or no compressed Const is widened."""
    model, sources, all_consts = graph.model, graph.sources, graph.consts
    layers, consts = {end.id}, set()
    pending = [end.id]
    while pending:
        for source in sources[pending.pop()]:
            assert source is not None  # chain layers read every input
            node_id = source.node_id
            if node_id in layers or node_id in consts:
                continue
            if node_id in all_consts:
                consts.add(node_id)
            else:
                layers.add(node_id)
                pending.append(node_id)
    for layer in layers:
        if layer != end.id and any(port.node_id not in layers for port in model.consumers(OutputPort(layer, 0))):
            return None
    converts = _converts(graph, layers)
    weight = _weight(converts)
    if weight is None:
        return None
    starts = frozenset(layer for layer, (_, const, _) in converts.items()
                       if const is not None and const.element_type in COMPRESSED_TYPES)
    return layers, consts, converts, weight, starts


Converted = tuple["Convert", "Const | None", OutputPort]
"""A chain's Convert to a float type, the Const it converts (None: it converts a layer), and its input."""


def _recognised(model: Model) -> Iterator[tuple[_ChainGraph, Node, Recognised]]:
    """Each chain end of ``model`` with what :func:`_recognise` found there."""
    if not registry.loaded("Convert"):
        # Every chain widens a Const through a Convert: a model without one (no Convert class loaded) has no
        # chain, and does not import (and create the classes of) seven op modules it does not use.
        return
    graph = _ChainGraph(model, chain_ops())
    for end in graph.ends():
        found = _recognise(graph, end)
        if found is not None:
            yield graph, end, found


def _converts(graph: _ChainGraph, layers: set[int]) -> dict[int, Converted]:
    """The Converts of ``layers`` to a float type (every chain question is about them), by layer."""
    from irgraph.ops.type.convert import Convert  # loaded: the chain's callers checked

    found: dict[int, Converted] = {}
    for layer in layers:
        op = graph.model.node(layer).op
        if isinstance(op, Convert) and op.destination_type.is_real:
            (source,) = graph.sources[layer]
            assert source is not None  # chain layers read every input
            const = _const(graph.model, source.node_id) if source.node_id in graph.consts else None
            found[layer] = (op, const, source)
    return found


def _weight(converts: dict[int, Converted]) -> int | None:
    """The largest Const in a compressed type that a Convert of the chain widens to a float type (f16 and bf16
    only to f32), or None when there is none (a constant expression, no weight)."""
    best: tuple[int, int] | None = None
    for op, const, source in converts.values():
        destination = op.destination_type
        if const is None or const.element_type not in _WEIGHT_TYPES or const.element_type is destination or (
                const.element_type in HALF_TYPES and destination is not ElementType.F32):
            continue
        size = math.prod(const.shape)
        if best is None or size > best[0]:
            best = size, source.node_id
    return None if best is None else best[1]


_WEIGHT_TYPES = COMPRESSED_TYPES | HALF_TYPES


def _operand(graph: _ChainGraph, layers: set[int], kind: type[Op]) -> int | None:
    """The Const a layer of ``kind`` in ``layers`` takes as its second input (through Converts and reshapes)."""
    for layer in sorted(layers):
        if not isinstance(graph.model.node(layer).op, kind):
            continue
        source = graph.sources[layer][1]
        while source is not None and source.node_id not in graph.consts:
            source = graph.sources[source.node_id][0]
        if source is not None:
            return source.node_id
    return None


def _widened(graph: _ChainGraph, converts: dict[int, Converted], layers: set[int], starts: frozenset[int]) \
        -> frozenset[int]:
    """The layers above each Convert from f16 to f32 of ``layers`` whose ancestors start from a compressed Const
    (the Convert itself computes nothing more in f32)."""
    model = graph.model
    widened: set[int] = set()
    for layer, (op, _, source) in converts.items():
        if op.destination_type is not ElementType.F32 or source.node_id not in layers \
                or _element_type(model.node(source.node_id)) is not ElementType.F16:
            continue
        above = _layers_above(graph, layer, layers)
        if above & starts:
            widened |= above
    return frozenset(widened)


def _layers_above(graph: _ChainGraph, layer: int, layers: set[int]) -> set[int]:
    above: set[int] = set()
    pending = [layer]
    while pending:
        for source in graph.sources[pending.pop()]:
            if source is not None and source.node_id in layers and source.node_id not in above:
                above.add(source.node_id)
                pending.append(source.node_id)
    return above


def _element_type(node: Node) -> ElementType | None:
    """The element type of ``node``'s first output: inferred, else as the file declares it."""
    tensor_type = node.outputs[0].type or node.outputs[0].declared_type
    return None if tensor_type is None else tensor_type.element_type


def _is_const(model: Model, node_id: int) -> bool:
    return isinstance(model.node(node_id).op, Const)


def _const(model: Model, node_id: int) -> Const:
    op = model.node(node_id).op
    assert isinstance(op, Const)
    return op
