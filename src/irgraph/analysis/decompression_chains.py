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

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.records import Record
from irgraph.graph import Model, Node, OutputPort
from irgraph.ops import Const, Op, registry

COMPRESSED_TYPES = frozenset({
    ElementType.U8, ElementType.I8, ElementType.U4, ElementType.I4, ElementType.NF4,
    ElementType.F8E4M3, ElementType.F8E5M2, ElementType.F4E2M1,
})
"""Element types NNCF stores a compressed weight (and its zero point) in."""

HALF_TYPES = frozenset({ElementType.F16, ElementType.BF16})
"""Stored types of OpenVINO's fp16 compression: a weight when a Convert widens it to f32."""



def chain_ops() -> tuple[type[Op], ...]:
    """What a decompression chain is made of between its Consts and the layer the model reads: Convert first,
    then Subtract, Multiply, Reshape, Unsqueeze, Squeeze (both versions) and Transpose."""
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
    if not registry.loaded("Convert"):
        # Every chain widens a Const through a Convert: a model without one (no Convert class loaded) has no
        # chain, and does not import (and create the classes of) seven op modules it does not use.
        return []
    chain_classes = chain_ops()
    subtract, multiply = chain_classes[1:3]
    chain_layers: set[int] = set()
    for node in model.topological_order():
        if isinstance(node.op, chain_classes) and node.num_outputs == 1 and node.num_inputs and all(
                source is not None and (_is_const(model, source.node_id) or source.node_id in chain_layers)
                for source in model.input_sources(node)):
            chain_layers.add(node.id)
    chains: list[DecompressionChain] = []
    for node in model:
        if node.id not in chain_layers:
            continue
        readers = model.consumers(OutputPort(node.id, 0))
        if not readers or all(port.node_id in chain_layers for port in readers):
            continue  # an inner layer, or one nothing reads
        chain = _chain(model, node, chain_layers, subtract, multiply)
        if chain is not None:
            chains.append(chain)
    return chains


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


def _chain(model: Model, end: Node, chain_layers: set[int], subtract: type[Op], multiply: type[Op],
           ) -> DecompressionChain | None:
    """The chain ``end`` closes, or None when an inner layer is read elsewhere or no compressed Const is widened."""
    layers, consts = {end.id}, set()
    pending = [end]
    while pending:
        for source in model.input_sources(pending.pop()):
            assert source is not None  # chain layers read every input
            if source.node_id in layers or source.node_id in consts:
                continue
            if _is_const(model, source.node_id):
                consts.add(source.node_id)
            else:
                layers.add(source.node_id)
                pending.append(model.node(source.node_id))
    if any(port.node_id not in layers for layer in layers - {end.id}
           for port in model.consumers(OutputPort(layer, 0))):
        return None
    weight = _weight(model, layers)
    if weight is None:
        return None
    stored = _const(model, weight).element_type
    starts = frozenset(layer for layer in layers if _converts_const(model, model.node(layer), COMPRESSED_TYPES))
    return DecompressionChain(
        end=end.id, layers=frozenset(layers), consts=frozenset(consts), weight=weight, stored=stored,
        zero_point=_operand(model, layers, subtract), scale=_operand(model, layers, multiply), starts=starts,
        widened=_widened(model, layers, starts))


def _weight(model: Model, layers: set[int]) -> int | None:
    """The largest Const in a compressed type that a Convert of ``layers`` widens to a float type (f16 and bf16
    only to f32), or None when there is none (a constant expression, no weight)."""
    from irgraph.ops.type.convert import Convert  # loaded: decompression_chains checked

    best: tuple[int, int] | None = None
    for layer in layers:
        node = model.node(layer)
        destination = node.op.destination_type if isinstance(node.op, Convert) else None
        const = _converts_const(model, node, COMPRESSED_TYPES | HALF_TYPES)
        if destination is None or const is None or const.element_type is destination or (
                const.element_type in HALF_TYPES and destination is not ElementType.F32):
            continue
        (source,) = model.input_sources(node)
        assert source is not None
        size = int(np.prod(const.shape))
        if best is None or size > best[0]:
            best = size, source.node_id
    return None if best is None else best[1]


def _converts_const(model: Model, node: Node, stored_in: frozenset[ElementType]) -> Const | None:
    """The Const ``node`` converts to a float type when it is stored in one of ``stored_in``, else None."""
    from irgraph.ops.type.convert import Convert  # loaded: decompression_chains checked

    if not isinstance(node.op, Convert) or not node.op.destination_type.is_real:
        return None
    (source,) = model.input_sources(node)
    if source is None or not _is_const(model, source.node_id):
        return None
    const = _const(model, source.node_id)
    return const if const.element_type in stored_in else None


def _operand(model: Model, layers: set[int], kind: type[Op]) -> int | None:
    """The Const a layer of ``kind`` in ``layers`` takes as its second input (through Converts and reshapes)."""
    for layer in sorted(layers):
        node = model.node(layer)
        if not isinstance(node.op, kind):
            continue
        source = model.input_sources(node)[1]
        while source is not None and not _is_const(model, source.node_id):
            source = model.input_sources(model.node(source.node_id))[0]
        if source is not None:
            return source.node_id
    return None


def _widened(model: Model, layers: set[int], starts: frozenset[int]) -> frozenset[int]:
    """The layers above each Convert from f16 to f32 of ``layers`` whose ancestors start from a compressed Const
    (the Convert itself computes nothing more in f32)."""
    from irgraph.ops.type.convert import Convert  # loaded: decompression_chains checked

    widened: set[int] = set()
    for layer in layers:
        node = model.node(layer)
        if not isinstance(node.op, Convert) or node.op.destination_type is not ElementType.F32:
            continue
        (source,) = model.input_sources(node)
        if source is None or source.node_id not in layers \
                or _element_type(model.node(source.node_id)) is not ElementType.F16:
            continue
        above = _layers_above(model, node, layers)
        if above & starts:
            widened |= above
    return frozenset(widened)


def _layers_above(model: Model, node: Node, layers: set[int]) -> set[int]:
    above: set[int] = set()
    pending = [node]
    while pending:
        for source in model.input_sources(pending.pop()):
            if source is not None and source.node_id in layers and source.node_id not in above:
                above.add(source.node_id)
                pending.append(model.node(source.node_id))
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
