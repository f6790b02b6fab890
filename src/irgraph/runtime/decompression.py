"""Weight decompression chains, and the precision a run computes them in.

Weight-compressed IR (NNCF's ``compress_weights``, optimum-intel's exports) stores a weight as a u8, i8, u4, i4, nf4
or f8 Const and decompresses it with a constant sub-graph::

    Const(u4) -> Convert(f16) -> Subtract(Convert(f16) of a zero point) -> Multiply(f16 scale)
              -> [Reshape of the groups] -> Convert(f32) -> MatMul / Gather

The IR's types say f16, and OpenVINO's reference evaluation rounds every step of the chain to f16: the ``"ir"``
policy, irgraph's default. OpenVINO's CPU plugin fuses the chain into the MatMul or Gather that reads it and computes
it in f32, so its weights are ``(w - zero_point) * scale`` rounded once, to f32: the ``"f32"`` policy. Measured on
openvino 2026.4.1 with NNCF 3.4 output (int8, int4, int3, nf4 and fp4, symmetric and asymmetric, grouped): the CPU
plugin's Gather of such a weight equals the f32 policy's values bit for bit, and it does so whether or not the
chain carries the ``decompression`` rt_info mark, so chains are recognised by their structure, as the plugin does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from irgraph.analysis.shape_inference import ensure_shapes
from irgraph.core.element_types import ElementType
from irgraph.graph import Model, Node, OutputPort
from irgraph.ops import Op
from irgraph.ops.plan_step import PlanStep

DecompressionPolicy = Literal["ir", "f32"]
POLICIES: tuple[DecompressionPolicy, ...] = ("ir", "f32")

COMPRESSED_TYPES = frozenset({
    ElementType.U8, ElementType.I8, ElementType.U4, ElementType.I4, ElementType.NF4,
    ElementType.F8E4M3, ElementType.F8E5M2, ElementType.F4E2M1,
})
"""Element types a compressed weight is stored in."""

_CHAIN_OPS = frozenset({"Convert", "Subtract", "Multiply", "Reshape", "Unsqueeze", "Squeeze", "Transpose"})
"""What a decompression chain is made of between its Consts and its closing Convert to f32."""


def widened_nodes(model: Model) -> frozenset[int]:
    """The layers of ``model`` whose f16 values the ``"f32"`` policy computes in f32.

    A chain is a constant sub-graph of ``_CHAIN_OPS`` that closes with a Convert from f16 to f32, holds at least one
    Convert of a Const in a compressed type, and whose values nothing outside the chain reads (a value read
    elsewhere keeps the IR's f16, so the rest of the model sees what the IR says).
    """
    ensure_shapes(model)
    widened: set[int] = set()
    for node in model:
        if _closes_chain(model, node):
            chain = _chain_above(model, node)
            if chain is not None:
                widened.update(chain)
    return frozenset(widened)


def chain_nodes(model: Model) -> frozenset[int]:
    """Every non-Const layer of the weight decompression chains of ``model`` (fp16 weights' Converts too): the
    layers an Interpreter built with ``keep_weights_compressed=True`` runs each time instead of folding once."""
    ensure_shapes(model)
    kept: set[int] = set()
    for node in model:
        if _closes_chain(model, node):
            (source,) = model.input_sources(node)
            if source is not None and model.node(source.node_id).op.type_name == "Const":
                kept.add(node.id)  # an fp16 weight (save_model's compress_to_fp16): Const f16 -> Convert f32
                continue
            chain = _chain_above(model, node)
            if chain is not None:
                kept.update(chain)
                kept.add(node.id)
    return frozenset(kept)


class WidenedStep(PlanStep):
    """A layer of a decompression chain run at every step (weights kept compressed) under the ``"f32"`` policy:
    its f16 arguments are widened as ``widen`` widens them when the chain is folded, so both give the same
    values."""

    def __init__(self, op: PlanStep) -> None:
        self.op = op

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return self.op.evaluate([a.astype(np.float32) if a.dtype == np.float16 else a for a in inputs])


def widen(op: Op, arguments: Sequence[np.ndarray]) -> tuple[Op, list[np.ndarray]]:
    """``op`` and its arguments as the f32 policy evaluates them: f16 arrays as f32, so a chain's arithmetic
    (Subtract, Multiply) is f32. A Convert to f16 still rounds, as in the CPU plugin: exact for integer, f8 and f4
    weights, and what it does to nf4's levels (``Convert nf4 -> f16`` then an f32 Multiply, measured)."""
    return op, [a.astype(np.float32) if a.dtype == np.float16 else a for a in arguments]


def _closes_chain(model: Model, node: Node) -> bool:
    if node.op.type_name != "Convert" or getattr(node.op, "destination_type", None) is not ElementType.F32:
        return False
    (source,) = model.input_sources(node)
    source_type = model.output_type(source) if source is not None else None
    return source_type is not None and source_type.element_type is ElementType.F16


def _chain_above(model: Model, end: Node) -> set[int] | None:
    """The non-Const layers of the chain that ``end`` closes, or None when what feeds it is no chain."""
    chain: set[int] = set()
    compressed = False
    pending = list(model.input_sources(end))
    while pending:
        source = pending.pop()
        if source is None:
            return None
        node = model.node(source.node_id)
        if node.op.type_name == "Const":
            continue
        if node.op.type_name not in _CHAIN_OPS or node.num_outputs != 1:
            return None
        if node.id in chain:
            continue
        chain.add(node.id)
        sources = model.input_sources(node)
        if node.op.type_name == "Convert" and sources[0] is not None:
            producer = model.node(sources[0].node_id)
            source_type = model.output_type(sources[0])
            compressed |= producer.op.type_name == "Const" and source_type is not None \
                and source_type.element_type in COMPRESSED_TYPES
        pending.extend(sources)
    if not compressed:
        return None
    for node_id in chain:
        for port in model.consumers(OutputPort(node_id, 0)):
            if port.node_id not in chain and port.node_id != end.id:
                return None
    return chain
