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
  (Const of i4/u4/i8/u8/nf4/f8 -> Convert -> [Subtract] -> Multiply by a Const).

Elements beyond f16's range are clamped to +-65504 (NaN too, to 65504, as openvino 2026.4.1's conversion does).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import Location
from irgraph.graph import Model, Node, OutputPort
from irgraph.graph.node import RtEntry
from irgraph.ops import Const
from irgraph.ops.type.convert import Convert

F16_MAX = 65504.0
SMALLEST_SUBNORMAL = 2.0**-24
KEEP_SHARE = 0.75
"""The share of out-of-range elements at which a Const stays in its type."""
MAX_ABS_ERROR = 1.0
RELATIVE_ERROR = 1e-3
RELATIVE_ERROR_OF_ONE = 1e-4
"""The relative f16 error above which an element counts as out of range: of a tensor, of a one-element Const."""

_QUANTIZING_OPS = frozenset({"FakeQuantize", "FakeConvert"})
_WEIGHT_TYPES = frozenset({
    ElementType.I4, ElementType.U4, ElementType.I8, ElementType.U8, ElementType.NF4,
    ElementType.F8E4M3, ElementType.F8E5M2,
})
"""The Const types of a compressed weight, as OpenVINO's DetectCompressedWeights matches them."""

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
    wide = value.astype(np.float64)
    magnitude = np.abs(wide)
    out_of_range = (magnitude < SMALLEST_SUBNORMAL) & (wide != 0)
    out_of_range |= (magnitude > F16_MAX) | np.isnan(wide)
    with np.errstate(over="ignore", invalid="ignore"):
        half = np.clip(np.nan_to_num(value, nan=F16_MAX), -F16_MAX, F16_MAX).astype(np.float16)
    if value.dtype == np.float32:
        in_range = ~out_of_range
        error = np.abs(wide - half.astype(np.float64))
        if np.any(error[in_range] > MAX_ABS_ERROR):
            return None
        limit = RELATIVE_ERROR_OF_ONE if value.size == 1 else RELATIVE_ERROR
        with np.errstate(divide="ignore", invalid="ignore"):
            out_of_range |= in_range & (wide != 0) & (error / magnitude > limit)
    if np.count_nonzero(out_of_range) / value.size >= KEEP_SHARE:
        return None
    return half


def _compress(model: Model, node: Node, half: np.ndarray) -> None:
    """``node`` (a float Const) becomes NAME_compressed (f16) read by a decompression Convert named NAME."""
    op = node.op
    assert isinstance(op, Const)
    readers = model.consumers(OutputPort(node.id, 0))
    where = Location(node.location.file, node.location.line)
    model.remove_node(node.id)
    const = model.add_node(Const(element_type=ElementType.F16, shape=op.shape, value=half), f"{node.name}_compressed",
                           node_id=node.id, location=where)
    const.tensor_names[0] = list(node.tensor_names[0])
    convert = model.add_node(Convert(destination_type=op.element_type), node.name, [OutputPort(const.id, 0)],
                             location=where)
    convert.rt_info = (*node.rt_info, DECOMPRESSION_ENTRY)
    for reader in readers:
        model.connect(OutputPort(convert.id, 0), reader)


def _optimization(model: Model) -> str:
    """Why OpenVINO compresses nothing in ``model`` (its is_model_optimized), or "" when it compresses."""
    for node in model:
        if node.op.type_name in _QUANTIZING_OPS:
            return f"the model is quantized ({node.op.type_name} layer {node.name!r})"
        if isinstance(node.op, Const) and _is_compressed_weight(model, node):
            return f"the model's weights are compressed already (Const {node.name!r} of {node.op.element_type})"
    return ""


def _is_compressed_weight(model: Model, node: Node) -> bool:
    """Const(i4/u4/i8/u8/nf4/f8) -> Convert -> [Subtract(zero point)] -> Multiply(Const): OpenVINO's pattern."""
    if not isinstance(node.op, Const) or node.op.element_type not in _WEIGHT_TYPES:
        return False
    for convert in _readers(model, node):
        if convert.op.type_name != "Convert":
            continue
        for reader in _readers(model, convert):
            if reader.op.type_name == "Subtract" and _other_is_zero_point(model, reader, convert):
                if any(_scales_by_const(model, multiply, reader) for multiply in _readers(model, reader)):
                    return True
            elif _scales_by_const(model, reader, convert):
                return True
    return False


def _readers(model: Model, node: Node) -> list[Node]:
    return [model.node(port.node_id) for port in model.consumers(OutputPort(node.id, 0))]


def _other_input(model: Model, node: Node, known: Node) -> Node | None:
    sources = [s for s in model.input_sources(node) if s is not None and s.node_id != known.id]
    return model.node(sources[0].node_id) if len(sources) == 1 else None


def _other_is_zero_point(model: Model, subtract: Node, convert: Node) -> bool:
    other = _other_input(model, subtract, convert)
    if other is not None and other.op.type_name == "Convert":
        (source,) = model.input_sources(other)
        other = None if source is None else model.node(source.node_id)
    return other is not None and isinstance(other.op, Const)


def _scales_by_const(model: Model, multiply: Node, source: Node) -> bool:
    other = _other_input(model, multiply, source)
    return multiply.op.type_name == "Multiply" and other is not None and isinstance(other.op, Const)
