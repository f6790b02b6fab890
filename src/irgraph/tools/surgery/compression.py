"""fp16 weight compression written as OpenVINO's ``save_model(compress_to_fp16=True)`` writes it.

Each f32 (or f64) Const that fits f16 becomes ``Const NAME_compressed (f16) -> Convert NAME (f32)`` with the
``decompression`` rt_info mark on the Convert; the Const keeps the tensor names, the Convert takes the layer name and
the Const's rt_info. OpenVINO reads such a file as its own: its plugins decompress the weight once, at compile time.

Which Consts stay in f32, as openvino 2026.4.1 decides (its CompressFloatConstants; the thresholds measured on it):

* a Const of no elements;
* an f32 Const where any element that f16 can hold is more than 1.0 away from its f16 value (60010 -> 60000);
* a Const where at least 3/4 of the elements are "out of range": non-zero below f16's smallest subnormal, beyond
  +-65504 (infinities too), NaN, or (f32 only) with a relative f16 error above 1e-3, or above 1e-4 when the Const
  holds one element (a scale factor such as log(16) keeps f32);
* every Const, when the model is already optimized: it holds a FakeQuantize or FakeConvert, or a compressed weight
  (a decompression chain, analysis.decompression_chains, of a Const of i4/u4/i8/u8/nf4/f8 -> Convert ->
  [Subtract] -> Multiply by a Const; openvino 2026.4.1 leaves f4e2m1 weights out and compresses beside them).

Elements beyond f16's range are clamped to +-65504 (NaN too, to 65504, as openvino 2026.4.1's conversion does).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irgraph.analysis.decompression_chains import COMPRESSED_TYPES, DecompressionChain, decompression_chains
from irgraph.core.element_types import ElementType
from irgraph.core.errors import Location
from irgraph.graph import Model, Node, OutputPort
from irgraph.graph.node import RtEntry
from irgraph.ops import Const
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.subtract import Subtract
from irgraph.ops.quantization.fake_convert import FakeConvert
from irgraph.ops.quantization.fake_quantize import FakeQuantize
from irgraph.ops.type.convert import Convert

F16_MAX = 65504.0
SMALLEST_SUBNORMAL = 2.0**-24
KEEP_SHARE = 0.75
"""The share of out-of-range elements at which a Const stays in its type."""
MAX_ABS_ERROR = 1.0
RELATIVE_ERROR = 1e-3
RELATIVE_ERROR_OF_ONE = 1e-4
"""The relative f16 error above which an element counts as out of range: of a tensor, of a one-element Const."""
CHUNK_ELEMENTS = 1 << 20

DETECTED_WEIGHT_TYPES = COMPRESSED_TYPES - {ElementType.F4E2M1}
"""The stored types of a compressed weight that OpenVINO's DetectCompressedWeights matches: openvino 2026.4.1's
save_model(compress_to_fp16=True) still compresses the f32 Consts of a model whose weights are f4e2m1."""

DECOMPRESSION_ENTRY = RtEntry("attribute", (("name", "decompression"), ("version", "0")))


@dataclass(frozen=True)
class CompressionReport:
    """Consts written in f16, float Consts kept in their type, and why nothing was compressed (empty if not)."""

    compressed: int
    kept: int
    skipped: str = ""


def compress_to_fp16(model: Model) -> CompressionReport:
    """Compress the float Consts of ``model`` and of its bodies to f16 (in place), as OpenVINO's save_model does."""
    optimized = _optimization(model)
    if optimized:
        return CompressionReport(0, 0, optimized)
    compressed = kept = 0
    pending = [model]
    while pending:
        current = pending.pop()
        for node in list(current):
            pending.extend(body.model for body in node.bodies)
            if isinstance(node.op, Const) and node.op.element_type in (ElementType.F32, ElementType.F64):
                value = node.op.value
                half = None if value is None else f16_value(value)
                if half is None:
                    kept += 1
                else:
                    _compress(current, node, half)
                    compressed += 1
    return CompressionReport(compressed, kept)


def f16_value(value: np.ndarray) -> np.ndarray | None:
    """``value`` as OpenVINO writes it compressed, or None when OpenVINO keeps it in its type (module docstring)."""
    if value.size == 0:
        return None
    flat = value.reshape(-1)
    half = np.empty(flat.shape, np.float16)
    limit = RELATIVE_ERROR_OF_ONE if value.size == 1 else RELATIVE_ERROR
    out_of_range = 0
    # In chunks: the f64 work copies would otherwise cost 4-5x a large weight's own size at once.
    for start in range(0, flat.size, CHUNK_ELEMENTS):
        count = _compress_chunk(flat[start : start + CHUNK_ELEMENTS], half[start : start + CHUNK_ELEMENTS], limit)
        if count is None:
            return None
        out_of_range += count
    if out_of_range / value.size >= KEEP_SHARE:
        return None
    return half.reshape(value.shape)


def _compress_chunk(part: np.ndarray, half: np.ndarray, limit: float) -> int | None:
    """Write ``part`` in f16 into ``half``; its count of out-of-range elements, None if one is more than
    MAX_ABS_ERROR away (the whole Const then keeps its type)."""
    wide = part.astype(np.float64)
    magnitude = np.abs(wide)
    out_of_range = (magnitude < SMALLEST_SUBNORMAL) & (wide != 0)
    out_of_range |= (magnitude > F16_MAX) | np.isnan(wide)
    with np.errstate(over="ignore", invalid="ignore"):
        half[...] = np.clip(np.nan_to_num(part, nan=F16_MAX), -F16_MAX, F16_MAX)
    if part.dtype == np.float32:
        in_range = ~out_of_range
        error = np.abs(wide - half.astype(np.float64))
        if np.any(error[in_range] > MAX_ABS_ERROR):
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            out_of_range |= in_range & (wide != 0) & (error / magnitude > limit)
    return int(np.count_nonzero(out_of_range))


def _compress(model: Model, node: Node, half: np.ndarray) -> None:
    """``node`` (a float Const) becomes NAME_compressed (f16) read by a decompression Convert named NAME."""
    op = node.op
    assert isinstance(op, Const)
    readers = model.consumers(OutputPort(node.id, 0))
    where = Location(node.location.file, node.location.line)
    model.remove_node(node.id)
    const = model.add_node(Const(element_type=ElementType.F16, shape=op.shape, value=half), f"{node.name}_compressed",
                           node_id=node.id, location=where)
    const.outputs[0].tensor_names = list(node.outputs[0].tensor_names)
    convert = model.add_node(Convert(destination_type=op.element_type), node.name, [OutputPort(const.id, 0)],
                             location=where)
    convert.rt_info = (*node.rt_info, DECOMPRESSION_ENTRY)
    for reader in readers:
        model.connect(OutputPort(convert.id, 0), reader)


def _optimization(model: Model) -> str:
    """Why OpenVINO compresses nothing in ``model`` (its is_model_optimized), or "" when it compresses."""
    for node in model:
        if isinstance(node.op, (FakeQuantize, FakeConvert)):
            return f"the model is quantized ({node.op.type_name} layer {node.name!r})"
    for chain in decompression_chains(model):
        codes = _detected_codes(model, chain)
        if codes is not None:
            assert isinstance(codes.op, Const)
            return f"the model's weights are compressed already (Const {codes.name!r} of {codes.op.element_type})"
    return ""


def _detected_codes(model: Model, chain: DecompressionChain) -> Node | None:
    """The Const of ``chain`` that OpenVINO's DetectCompressedWeights matches, or None: stored in one of
    ``DETECTED_WEIGHT_TYPES`` and widened by a Convert that a Multiply by a Const reads, directly or through the
    Subtract of a zero point."""
    for layer in chain.layers:
        multiply = model.node(layer)
        if not isinstance(multiply.op, Multiply):
            continue
        sources = [model.node(source.node_id) for source in model.input_sources(multiply) if source is not None]
        if not any(isinstance(source.op, Const) for source in sources):
            continue  # OpenVINO's pattern takes the scale as a Const itself, not computed
        for source in sources:
            if isinstance(source.op, Subtract):
                minuend = model.input_sources(source)[0]
                source = model.node(minuend.node_id) if minuend is not None else source
            if source.id in chain.starts:
                (stored,) = model.input_sources(source)  # a start converts a Const
                assert stored is not None
                codes = model.node(stored.node_id)
                if isinstance(codes.op, Const) and codes.op.element_type in DETECTED_WEIGHT_TYPES:
                    return codes
    return None
