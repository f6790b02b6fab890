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
chain carries the ``decompression`` rt_info mark, so chains are recognised by their structure, as the plugin does
(:mod:`irgraph.analysis.decompression_chains`, which folding and ``ir-diff`` share).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeVar, cast

import numpy as np

from irgraph.analysis.shape_inference import ensure_shapes
from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrError
from irgraph.graph import Model
from irgraph.ops import registry
from irgraph.ops.plan_step import PlanStep

if TYPE_CHECKING:
    from irgraph.ops.type.convert import Convert

DecompressionPolicy = Literal["ir", "f32"]
POLICIES: tuple[DecompressionPolicy, ...] = ("ir", "f32")


def widened_nodes(model: Model) -> frozenset[int]:
    """The layers of ``model`` whose f16 values the ``"f32"`` policy computes in f32: in each decompression chain
    (:func:`irgraph.analysis.decompression_chains.decompression_chains`) that holds a Convert of a Const in a
    compressed type, the layers above the Convert from f16 to f32 that closes it. A chain whose values something
    else reads is no chain, so the rest of the model sees what the IR says.
    """
    from irgraph.analysis.decompression_chains import widened_layers  # the "f32" policy only (a plan asks for it)

    ensure_shapes(model)
    return widened_layers(model)


def chain_nodes(model: Model) -> frozenset[int]:
    """Every computing layer of the weight decompression chains of ``model`` (fp16 weights' Converts too, and each
    chain's end): the layers an Interpreter built with ``keep_weights_compressed=True`` runs at every run instead of
    folding them once."""
    from irgraph.analysis.decompression_chains import decompression_chains  # keep_weights_compressed only

    ensure_shapes(model)
    return frozenset(layer for chain in decompression_chains(model) for layer in chain.layers)


class WidenedStep(PlanStep):
    """A layer of a decompression chain run at every step (weights kept compressed) under the ``"f32"`` policy:
    its f16 arguments are widened as ``widen`` widens them when the chain is folded, so both give the same
    values."""

    def __init__(self, op: PlanStep) -> None:
        self.op = op

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        op, arguments = widen(self.op, inputs)
        return op.evaluate(arguments)


SMALL_INTEGERS = frozenset((ElementType.U8, ElementType.I8, ElementType.U4, ElementType.I4, ElementType.U2,
                            ElementType.U1))
"""Types of weight codes whose every value is an f16 (integers of magnitude <= 2048): converting them to f16 and
widening to f32 is converting them to f32. Not nf4, whose uint8 codes stand for levels (a tagged dtype)."""


@functools.cache
def _to_f32() -> Convert:
    """Convert to f32 (made on first use: a model without Converts does not import Convert's module)."""
    from irgraph.ops.type.convert import Convert

    return Convert(destination_type=ElementType.F32)


StepT = TypeVar("StepT", bound=PlanStep)


def _element_type(dtype: np.dtype) -> ElementType | None:
    try:
        return ElementType.from_numpy(dtype)
    except IrError:
        return None


def widen(op: StepT, arguments: Sequence[np.ndarray]) -> tuple[StepT, list[np.ndarray]]:
    """``op`` and its arguments as the f32 policy evaluates them: f16 arrays as f32, so a chain's arithmetic
    (Subtract, Multiply) is f32. A Convert to f16 still rounds, as in the CPU plugin: exact for integer, f8 and f4
    weights, and what it does to nf4's levels (``Convert nf4 -> f16`` then an f32 Multiply, measured). Small integer
    codes (u8, u4, ...) are converted to f32 directly: the same values, without two slow f16 conversions."""
    if registry.loaded("Convert") and _small_codes_to_f16(op, arguments):
        return cast(StepT, _to_f32()), list(arguments)  # op is a Convert: so is _to_f32()
    return op, [a.astype(np.float32) if a.dtype == np.float16 else a for a in arguments]


def _small_codes_to_f16(op: PlanStep, arguments: Sequence[np.ndarray]) -> bool:
    """Whether ``op`` converts small integer codes (SMALL_INTEGERS) to f16 (asked once Convert's module is loaded)."""
    from irgraph.ops.type.convert import Convert

    return isinstance(op, Convert) and op.destination_type is ElementType.F16 and bool(arguments) and \
        arguments[0].dtype.kind in "iuV" and _element_type(arguments[0].dtype) in SMALL_INTEGERS


def already_f32(op: PlanStep, arguments: Sequence[np.ndarray]) -> bool:
    """Whether ``op`` converts to f32 an array that is f32 already: the Convert closing a decompression chain the
    f32 policy computed in f32. Folding it may keep its argument as it is (the copy a Convert makes has the same
    values), so a folded weight is not allocated twice."""
    if not registry.loaded("Convert") or len(arguments) != 1 or arguments[0].dtype != np.float32:
        return False
    from irgraph.ops.type.convert import Convert

    return isinstance(op, Convert) and op.destination_type is ElementType.F32
