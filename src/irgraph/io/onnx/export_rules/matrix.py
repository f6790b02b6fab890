"""MatMul (transpose_a / transpose_b become Transposes of the last two dims) and Einsum."""

from __future__ import annotations

from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import input_rank
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.matrix.einsum import Einsum
from irgraph.ops.matrix.mat_mul import MatMul


@exports(MatMul)
def mat_mul(node: Node, op: MatMul, ctx: ExportContext) -> list:
    """MatMul; a transposed input of rank >= 2 goes through a Transpose swapping its last two dims
    (OpenVINO ignores the flag on 1-D inputs, as this does)."""
    names = ctx.inputs(node)
    made: list = []
    for index, flag in ((0, op.transpose_a), (1, op.transpose_b)):
        if not flag:
            continue
        rank = input_rank(ctx, node, index)
        if rank < 2:
            continue
        perm = [*range(rank - 2), rank - 1, rank - 2]
        step = "transpose_a" if index == 0 else "transpose_b"
        swapped = ctx.temp(node, step)
        made.append(ctx.make(node, "Transpose", [names[index]], [swapped], step=step, perm=perm))
        names[index] = swapped
    made.append(ctx.make(node, "MatMul", names, ctx.outputs(node)))
    return made


@exports(Einsum)
def einsum(node: Node, op: Einsum, ctx: ExportContext) -> list:
    """Einsum with the same equation (both spell it numpy's way)."""
    return [ctx.make(node, "Einsum", ctx.inputs(node), ctx.outputs(node), equation=op.equation)]
