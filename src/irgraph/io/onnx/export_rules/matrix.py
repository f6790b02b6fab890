"""MatMul (transpose_a / transpose_b become Transposes of the last two dims), Einsum and ScaledDotProductAttention."""

from __future__ import annotations

import math

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import input_rank
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.matrix.einsum import Einsum
from irgraph.ops.matrix.mat_mul import MatMul
from irgraph.ops.sequence.scaled_dot_product_attention import ScaledDotProductAttention


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


@exports(ScaledDotProductAttention)
def scaled_dot_product_attention(node: Node, op: ScaledDotProductAttention, ctx: ExportContext) -> list:
    """softmax(Q K^T * scale + bias) V as MatMul, Mul, Add, Softmax and MatMul; the scale is the input or
    1/sqrt(E) (a static E), the bias the causal -inf upper triangle (static L and S), -inf where a
    boolean mask is false, or the float mask."""
    names = ctx.inputs(node)
    query, key, value = names[:3]
    element_type = ctx.input_type(node, 0).element_type
    dtype = element_type.numpy_dtype
    key_rank = input_rank(ctx, node, 1)
    made: list = []
    steps = {s: ctx.temp(node, s) for s in ("key_t", "scores", "scaled", "biased", "weights")}
    made += [ctx.make(node, "Transpose", [key], [steps["key_t"]], step="key_t",
                      perm=[*range(key_rank - 2), key_rank - 1, key_rank - 2]),
             ctx.make(node, "MatMul", [query, steps["key_t"]], [steps["scores"]], step="scores")]
    if len(names) > 4 and names[4]:
        scale = names[4]
    else:
        embedding = ctx.input_type(node, 0).shape
        if embedding.rank_is_dynamic or not embedding[-1].is_static:
            raise ctx.refuse("the default scale 1/sqrt(E) needs a static embedding dim E")
        scale = ctx.initializer(node, "scale", np.asarray(1.0 / math.sqrt(embedding[-1].value), dtype))
    made.append(ctx.make(node, "Mul", [steps["scores"], scale], [steps["scaled"]], step="scaled"))
    current = steps["scaled"]
    bias = None
    if op.causal:
        query_shape, key_shape = ctx.input_type(node, 0).shape, ctx.input_type(node, 1).shape
        length, source = query_shape[-2], key_shape[-2]
        if not (length.is_static and source.is_static):
            raise ctx.refuse("a causal mask needs static query and key lengths")
        bias = ctx.initializer(node, "causal", np.triu(np.full((length.value, source.value), -np.inf, dtype), k=1))
    elif len(names) > 3 and names[3]:
        if ctx.input_type(node, 3).element_type is ElementType.BOOLEAN:
            bias = ctx.temp(node, "mask_bias")
            made.append(ctx.make(node, "Where", [names[3], ctx.initializer(node, "zero", np.asarray(0, dtype)),
                                                 ctx.initializer(node, "minus_inf", np.asarray(-np.inf, dtype))],
                                 [bias], step="mask_bias"))
        else:
            bias = names[3]
    if bias is not None:
        made.append(ctx.make(node, "Add", [current, bias], [steps["biased"]], step="biased"))
        current = steps["biased"]
    made += [ctx.make(node, "Softmax", [current], [steps["weights"]], step="weights", axis=-1),
             ctx.make(node, "MatMul", [steps["weights"], value], ctx.outputs(node))]
    return made
