"""LRN, BatchNormInference, MVN, NormalizeL2, GRN and GroupNormalization."""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import constant_ints, input_rank
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.normalization.batch_norm_inference import BatchNormInference, BatchNormInference5
from irgraph.ops.normalization.grn import GRN
from irgraph.ops.normalization.group_normalization import GroupNormalization
from irgraph.ops.normalization.lrn import LRN
from irgraph.ops.normalization.mvn import MVN, MVN6
from irgraph.ops.normalization.normalize_l2 import NormalizeL2
from irgraph.ops.op import normalize_axis


@exports(LRN)
def lrn(node: Node, op: LRN, ctx: ExportContext) -> list:
    """LRN across channels (axes [1]) is ONNX LRN. OpenVINO's window is (size-1)//2 either side and its
    alpha is divided by size; ONNX's window reaches one further up for an even size, so an even size
    exports as size-1 with alpha scaled by (size-1)/size (the same window and the same factor)."""
    axes = sorted(set(constant_ints(ctx, node, 1, "axes")))
    if axes != [1]:
        raise ctx.refuse(f"LRN over axes {axes} has no ONNX form (ONNX LRN normalizes across channels, axes [1])")
    size, alpha = op.size, float(op.alpha)
    if size % 2 == 0:
        size, alpha = size - 1, alpha * (size - 1) / size
    return [ctx.make(node, "LRN", ctx.inputs(node)[:1], ctx.outputs(node), size=size, alpha=alpha,
                     beta=float(op.beta), bias=float(op.bias))]


@exports(BatchNormInference, BatchNormInference5)
def batch_norm(node: Node, op: Any, ctx: ExportContext) -> list:
    """BatchNormalization (X, scale, B, mean, var); BatchNormInference-1 lists gamma and beta before the data."""
    names = ctx.inputs(node)
    if isinstance(op, BatchNormInference):
        gamma, beta, data, mean, variance = names
    else:
        data, gamma, beta, mean, variance = names
    return [ctx.make(node, "BatchNormalization", [data, gamma, beta, mean, variance], ctx.outputs(node),
                     epsilon=float(op.epsilon))]


def _axes_initializer(ctx: ExportContext, node: Node, axes: list[int]) -> str:
    return ctx.initializer(node, "axes", np.asarray(axes, np.int64))


def _reduce_mean(ctx: ExportContext, node: Node, data: str, axes: list[int], step: str) -> tuple[str, Any]:
    out = ctx.temp(node, step)
    if ctx.opset >= 18:
        return out, ctx.make(node, "ReduceMean", [data, _axes_initializer(ctx, node, axes)], [out], step=step,
                             keepdims=1)
    return out, ctx.make(node, "ReduceMean", [data], [out], step=step, axes=axes, keepdims=1)


def _scalar(ctx: ExportContext, node: Node, step: str, value: float) -> str:
    return ctx.initializer(node, step, np.asarray(value, dtype=ctx.input_type(node, 0).element_type.numpy_dtype))


def _mvn(ctx: ExportContext, node: Node, axes: list[int], normalize_variance: bool, eps: float, inside: bool) -> list:
    """(x - mean) [/ sqrt(var + eps) or / (sqrt(var) + eps)] over ``axes``."""
    data = ctx.inputs(node)[0]
    output = ctx.outputs(node)[0]
    made: list = []
    mean, node_mean = _reduce_mean(ctx, node, data, axes, "mean")
    made.append(node_mean)
    centered = output if not normalize_variance else ctx.temp(node, "centered")
    made.append(ctx.make(node, "Sub", [data, mean], [centered], **({} if centered == output else
                                                                  {"step": "centered"})))
    if not normalize_variance:
        return made
    squared = ctx.temp(node, "squared")
    made.append(ctx.make(node, "Mul", [centered, centered], [squared], step="squared"))
    variance, node_variance = _reduce_mean(ctx, node, squared, axes, "variance")
    made.append(node_variance)
    epsilon = _scalar(ctx, node, "eps", eps)
    scale = ctx.temp(node, "scale")
    if inside:
        shifted = ctx.temp(node, "shifted")
        made += [ctx.make(node, "Add", [variance, epsilon], [shifted], step="shifted"),
                 ctx.make(node, "Sqrt", [shifted], [scale], step="scale")]
    else:
        root = ctx.temp(node, "root")
        made += [ctx.make(node, "Sqrt", [variance], [root], step="root"),
                 ctx.make(node, "Add", [root, epsilon], [scale], step="scale")]
    made.append(ctx.make(node, "Div", [centered, scale], [output]))
    return made


@exports(MVN)
def mvn1(node: Node, op: MVN, ctx: ExportContext) -> list:
    """MVN-1 as ReduceMean / Sub / Mul / ReduceMean / Add / Sqrt / Div (eps inside the root)."""
    return _mvn(ctx, node, op.axes(input_rank(ctx, node, 0)), op.normalize_variance, float(op.eps), True)


@exports(MVN6)
def mvn6(node: Node, op: MVN6, ctx: ExportContext) -> list:
    """MVN-6 over constant axes, eps inside or outside the root as eps_mode says."""
    rank = input_rank(ctx, node, 0)
    axes = sorted({normalize_axis(a, rank) for a in constant_ints(ctx, node, 1, "axes")})
    if not axes:
        raise ctx.refuse("MVN over no axes")
    return _mvn(ctx, node, axes, op.normalize_variance, float(op.eps), op.eps_mode.lower() == "inside_sqrt")


@exports(NormalizeL2)
def normalize_l2(node: Node, op: NormalizeL2, ctx: ExportContext) -> list:
    """x / sqrt(sum(x^2) + eps) (eps_mode add) or x / sqrt(max(sum(x^2), eps)) (max)."""
    rank = input_rank(ctx, node, 0)
    axes = sorted({normalize_axis(a, rank) for a in constant_ints(ctx, node, 1, "axes")})
    data = ctx.inputs(node)[0]
    if not axes:
        raise ctx.refuse("NormalizeL2 over no axes")
    squared, total, bounded, root = (ctx.temp(node, s) for s in ("squared", "sum", "bounded", "root"))
    made = [ctx.make(node, "Mul", [data, data], [squared], step="squared")]
    if ctx.opset >= 13:
        made.append(ctx.make(node, "ReduceSum", [squared, _axes_initializer(ctx, node, axes)], [total], step="sum",
                             keepdims=1))
    epsilon = _scalar(ctx, node, "eps", float(op.eps))
    made.append(ctx.make(node, "Add" if op.eps_mode.lower() == "add" else "Max", [total, epsilon], [bounded],
                         step="bounded"))
    made += [ctx.make(node, "Sqrt", [bounded], [root], step="root"),
             ctx.make(node, "Div", [data, root], ctx.outputs(node))]
    return made


@exports(GRN)
def grn(node: Node, op: GRN, ctx: ExportContext) -> list:
    """GRN: x / sqrt(sum of x^2 over the channels + bias), NormalizeL2's pattern over axis 1."""
    data = ctx.inputs(node)[0]
    squared, total, bounded, root = (ctx.temp(node, s) for s in ("squared", "sum", "bounded", "root"))
    return [ctx.make(node, "Mul", [data, data], [squared], step="squared"),
            ctx.make(node, "ReduceSum", [squared, _axes_initializer(ctx, node, [1])], [total], step="sum",
                     keepdims=1),
            ctx.make(node, "Add", [total, _scalar(ctx, node, "bias", float(op.bias))], [bounded], step="bounded"),
            ctx.make(node, "Sqrt", [bounded], [root], step="root"),
            ctx.make(node, "Div", [data, root], ctx.outputs(node))]


@exports(GroupNormalization)
def group_normalization(node: Node, op: GroupNormalization, ctx: ExportContext) -> list:
    """The data reshaped to [N, groups, -1], normalized over axis 2 (MVN's pattern, eps inside the root),
    reshaped back and scaled and shifted per channel. ONNX's own GroupNormalization changed at opset 21 (a
    per-group scale before, per-channel after) and onnxruntime 1.31 runs neither for every opset, so the
    pattern is exported at every opset."""
    rank = input_rank(ctx, node, 0)
    data, scale, bias = ctx.inputs(node)
    output = ctx.outputs(node)[0]
    grouped, shape, normalized, restored, scaled = (ctx.temp(node, s) for s in
                                                    ("grouped", "shape", "normalized", "restored", "scaled"))
    made = [ctx.make(node, "Reshape", [data, ctx.initializer(node, "groups", np.asarray([0, op.num_groups, -1],
                                                                                         np.int64))],
                     [grouped], step="grouped")]
    mean, node_mean = _reduce_mean(ctx, node, grouped, [2], "mean")
    centered, squared, shifted, root = (ctx.temp(node, s) for s in ("centered", "squared", "shifted", "root"))
    made += [node_mean, ctx.make(node, "Sub", [grouped, mean], [centered], step="centered"),
             ctx.make(node, "Mul", [centered, centered], [squared], step="squared")]
    variance, node_variance = _reduce_mean(ctx, node, squared, [2], "variance")
    channel_shape = ctx.initializer(node, "channel_shape", np.asarray([-1] + [1] * (rank - 2), np.int64))
    per_channel = [ctx.temp(node, s) for s in ("scale", "bias")]
    made += [node_variance,
             ctx.make(node, "Add", [variance, _scalar(ctx, node, "eps", float(op.epsilon))], [shifted],
                      step="shifted"),
             ctx.make(node, "Sqrt", [shifted], [root], step="root"),
             ctx.make(node, "Div", [centered, root], [normalized], step="normalized"),
             ctx.make(node, "Shape", [data], [shape], step="shape"),
             ctx.make(node, "Reshape", [normalized, shape], [restored], step="restored"),
             ctx.make(node, "Reshape", [scale, channel_shape], [per_channel[0]], step="scale"),
             ctx.make(node, "Reshape", [bias, channel_shape], [per_channel[1]], step="bias"),
             ctx.make(node, "Mul", [restored, per_channel[0]], [scaled], step="scaled"),
             ctx.make(node, "Add", [scaled, per_channel[1]], [output])]
    return made
