"""Convert and ConvertLike: Cast. With ``fold_decompression`` a Convert of a constant float (OpenVINO's
fp16-compressed weights) becomes an initializer of the converted values instead.

u4/i4 weights (NNCF's int4 compression: a u4/i4 Const, Convert f16, Subtract, Multiply, Reshape, Convert f32):
ONNX holds UINT4/INT4 tensors and Cast-21 converts them from opset 21, which onnxruntime 1.31.1 runs; below
opset 21 no ONNX op takes them, so the Const's values are stored widened to uint8/int8 (twice the bytes of the
packed weights, half those of f16) and cast from there, the same values. A constant of another type no Cast of
the opset takes (nf4, which ONNX has no type for; f8 before opset 19, f8e8m0 before 24) or onnxruntime 1.31.1 cannot
cast (f4e2m1) is decompressed at export: the Convert becomes an initializer of its values, with a note.
"""

from __future__ import annotations

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError
from irgraph.graph import Node
from irgraph.io.onnx.common import onnx_type_name, require_onnx
from irgraph.io.onnx.export_rules.patterns import onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.type.convert import Convert
from irgraph.ops.type.convert_like import ConvertLike

INT4_OPSET = 21
"""The opset of Cast-21, the first ONNX op that takes INT4/UINT4 tensors."""
_NO_RUNTIME_CAST = {ElementType.F4E2M1: "onnxruntime 1.31.1 has no Cast kernel for FLOAT4E2M1 (ONNX's Cast-23 has one)"}
"""Types ONNX casts from but onnxruntime cannot: their constants are decompressed at every opset."""
_WIDENED = {ElementType.U4: (ElementType.U8, np.uint8), ElementType.I4: (ElementType.I8, np.int8)}


@exports(Convert)
def convert(node: Node, op: Convert, ctx: ExportContext) -> list:
    """Cast to destination_type, or the folded initializer (float to float of a Const, when asked)."""
    value = ctx.constant(node, 0)
    source = ctx.input_type(node, 0).element_type
    if ctx.fold_decompression and value is not None and source.is_real and op.destination_type.is_real:
        (folded,) = op.evaluate([value])
        ctx.define(ctx.outputs(node)[0], folded)
        return []
    if value is not None and source in _WIDENED and not _cast_takes(ctx.opset, source):
        data = _widened(node, ctx, value, source)
    elif value is not None and (not _cast_takes(ctx.opset, source) or source in _NO_RUNTIME_CAST):
        (folded,) = op.evaluate([value])
        why = _NO_RUNTIME_CAST.get(source) or f"no ONNX Cast of opset {ctx.opset} takes {source} tensors"
        ctx.explain(f"layer {node.id} {node.name!r}: {why}, so its constant input is decompressed at export: an "
                    f"initializer of {op.destination_type} ({folded.nbytes} bytes for the {source} weights' "
                    f"{_packed_bytes(value, source)})")
        ctx.define(ctx.outputs(node)[0], folded)
        return []
    else:
        data = ctx.inputs(node)[0]
    return [ctx.make(node, "Cast", [data], ctx.outputs(node), to=onnx_type_code(op.destination_type))]


def _cast_takes(opset: int, element_type: ElementType) -> bool:
    """True when ONNX's Cast of ``opset`` takes ``element_type`` tensors (and ONNX has the type at all)."""
    try:
        name = onnx_type_name(element_type, "a Cast input").lower()
    except ConversionError:
        return False
    schema = require_onnx().defs.get_schema("Cast", opset, "")
    return any(f"tensor({name})" in c.allowed_type_strs for c in schema.type_constraints if c.type_param_str == "T1")


def _packed_bytes(value: np.ndarray, element_type: ElementType) -> int:
    return (np.size(value) * element_type.bitwidth + 7) // 8


def _widened(node: Node, ctx: ExportContext, value: np.ndarray, source: ElementType) -> str:
    """A constant u4/i4 input as a uint8/int8 initializer (no ONNX op before opset 21 takes 4-bit tensors)."""
    wide, dtype = _WIDENED[source]
    ctx.explain(f"layer {node.id} {node.name!r}: its {source} Const input is stored as {wide} (ONNX takes "
                f"{'UINT4' if source is ElementType.U4 else 'INT4'} tensors from opset {INT4_OPSET}, Cast-21; "
                f"this export writes opset {ctx.opset}): the same values in twice the bytes")
    return ctx.initializer(node, f"{wide}", np.asarray(value).astype(dtype))


@exports(ConvertLike)
def convert_like(node: Node, op: ConvertLike, ctx: ExportContext) -> list:
    """Cast to the element type of the second input."""
    target = ctx.input_type(node, 1).element_type
    return [ctx.make(node, "Cast", ctx.inputs(node)[:1], ctx.outputs(node), to=onnx_type_code(target))]
