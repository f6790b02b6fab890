"""Convert and ConvertLike: Cast. With ``fold_decompression`` a Convert of a constant float (OpenVINO's
fp16-compressed weights) becomes an initializer of the converted values instead."""

from __future__ import annotations

from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.type.convert import Convert
from irgraph.ops.type.convert_like import ConvertLike


@exports(Convert)
def convert(node: Node, op: Convert, ctx: ExportContext) -> list:
    """Cast to destination_type, or the folded initializer (float to float of a Const, when asked)."""
    value = ctx.constant(node, 0)
    source = ctx.input_type(node, 0).element_type
    if ctx.fold_decompression and value is not None and source.is_real and op.destination_type.is_real:
        (folded,) = op.evaluate([value])
        ctx.define(ctx.outputs(node)[0], folded)
        return []
    return [ctx.make(node, "Cast", ctx.inputs(node), ctx.outputs(node), to=onnx_type_code(op.destination_type))]


@exports(ConvertLike)
def convert_like(node: Node, op: ConvertLike, ctx: ExportContext) -> list:
    """Cast to the element type of the second input."""
    target = ctx.input_type(node, 1).element_type
    return [ctx.make(node, "Cast", ctx.inputs(node)[:1], ctx.outputs(node), to=onnx_type_code(target))]
