"""Activations with parameters or a pattern: Clamp, Elu, HardSigmoid, Selu, HSigmoid, HSwish, Mish, Swish, Gelu
and PReLU (the plain unary ones are in ``elementwise``'s table).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import scalar_initializer
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.activation.clamp import Clamp
from irgraph.ops.activation.elu import Elu
from irgraph.ops.activation.gelu import Gelu2, Gelu7
from irgraph.ops.activation.h_sigmoid import HSigmoid
from irgraph.ops.activation.h_swish import HSwish
from irgraph.ops.activation.hard_sigmoid import HardSigmoid
from irgraph.ops.activation.mish import Mish
from irgraph.ops.activation.p_re_lu import PReLU
from irgraph.ops.activation.selu import Selu
from irgraph.ops.activation.swish import Swish


@exports(Clamp)
def clamp(node: Node, op: Clamp, ctx: ExportContext) -> list:
    """Clip with min and max initializers of the data type (integers: ceil(min), floor(max), saturated)."""
    (x,) = ctx.inputs(node)
    element_type = ctx.input_type(node, 0).element_type
    dtype = element_type.numpy_dtype
    low: float
    high: float
    if element_type.is_integral:
        info = np.iinfo(dtype)
        low = min(max(math.ceil(op.min), info.min), info.max)
        high = min(max(math.floor(op.max), info.min), info.max)
    else:
        low, high = op.min, op.max
    bounds = [ctx.initializer(node, "min", np.asarray(low).astype(dtype)),
              ctx.initializer(node, "max", np.asarray(high).astype(dtype))]
    return [ctx.make(node, "Clip", [x, *bounds], ctx.outputs(node))]


@exports(Elu)
def elu(node: Node, op: Elu, ctx: ExportContext) -> list:
    """Elu with the same alpha."""
    return [ctx.make(node, "Elu", ctx.inputs(node), ctx.outputs(node), alpha=float(op.alpha))]


def _scalar_input(ctx: ExportContext, node: Node, index: int, what: str) -> float:
    """The value of a one-element Const input, which ONNX takes as an attribute."""
    value = ctx.constant(node, index)
    if value is None or np.size(value) != 1:
        raise ctx.refuse(f"its {what} input is not a one-element Const; ONNX takes it as an attribute")
    return float(np.asarray(value).reshape(()))


@exports(HardSigmoid)
def hard_sigmoid(node: Node, op: HardSigmoid, ctx: ExportContext) -> list:
    """HardSigmoid with its alpha and beta inputs as attributes (ONNX's computes max(0, min(1, alpha*x + beta)))."""
    alpha, beta = _scalar_input(ctx, node, 1, "alpha"), _scalar_input(ctx, node, 2, "beta")
    return [ctx.make(node, "HardSigmoid", ctx.inputs(node)[:1], ctx.outputs(node), alpha=alpha, beta=beta)]


@exports(Selu)
def selu(node: Node, op: Selu, ctx: ExportContext) -> list:
    """Selu: IR's lambda is ONNX's gamma, both constant inputs become attributes."""
    alpha, gamma = _scalar_input(ctx, node, 1, "alpha"), _scalar_input(ctx, node, 2, "lambda")
    return [ctx.make(node, "Selu", ctx.inputs(node)[:1], ctx.outputs(node), alpha=alpha, gamma=gamma)]


@exports(HSigmoid)
def h_sigmoid(node: Node, op: HSigmoid, ctx: ExportContext) -> list:
    """min(max(x + 3, 0), 6) / 6 is HardSigmoid alpha=1/6 beta=0.5."""
    return [ctx.make(node, "HardSigmoid", ctx.inputs(node), ctx.outputs(node), alpha=1.0 / 6.0, beta=0.5)]


@exports(HSwish)
def h_swish(node: Node, op: HSwish, ctx: ExportContext) -> list:
    """HardSwish (opset 14); x * HardSigmoid(x) before."""
    (x,) = ctx.inputs(node)
    if ctx.opset >= 14:
        return [ctx.make(node, "HardSwish", [x], ctx.outputs(node))]
    gate = ctx.temp(node, "gate")
    return [ctx.make(node, "HardSigmoid", [x], [gate], step="gate", alpha=1.0 / 6.0, beta=0.5),
            ctx.make(node, "Mul", [x, gate], ctx.outputs(node))]


@exports(Mish)
def mish(node: Node, op: Mish, ctx: ExportContext) -> list:
    """Mish (opset 18); x * tanh(softplus(x)) before."""
    (x,) = ctx.inputs(node)
    if ctx.opset >= 18:
        return [ctx.make(node, "Mish", [x], ctx.outputs(node))]
    soft, tanh = ctx.temp(node, "softplus"), ctx.temp(node, "tanh")
    return [ctx.make(node, "Softplus", [x], [soft], step="softplus"),
            ctx.make(node, "Tanh", [soft], [tanh], step="tanh"),
            ctx.make(node, "Mul", [x, tanh], ctx.outputs(node))]


@exports(Swish)
def swish(node: Node, op: Swish, ctx: ExportContext) -> list:
    """x * sigmoid(beta * x) (beta 1 when absent)."""
    names = ctx.inputs(node)
    x = names[0]
    made: list = []
    scaled = x
    if len(names) > 1 and names[1]:
        scaled = ctx.temp(node, "scaled")
        made.append(ctx.make(node, "Mul", [x, names[1]], [scaled], step="scaled"))
    gate = ctx.temp(node, "gate")
    made += [ctx.make(node, "Sigmoid", [scaled], [gate], step="gate"),
             ctx.make(node, "Mul", [x, gate], ctx.outputs(node))]
    return made


@exports(Gelu2, Gelu7)
def gelu(node: Node, op: Any, ctx: ExportContext) -> list:
    """ONNX Gelu (opset 20, approximate none/tanh); before it, 0.5 x (1 + erf(x / sqrt 2)) or the tanh form."""
    (x,) = ctx.inputs(node)
    tanh_mode = getattr(op, "approximation_mode", "ERF") == "TANH"
    if ctx.opset >= 20:
        return [ctx.make(node, "Gelu", [x], ctx.outputs(node), approximate="tanh" if tanh_mode else "none")]
    element_type = ctx.input_type(node, 0).element_type
    made: list = []
    if tanh_mode:  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        names = {s: ctx.temp(node, s) for s in ("cube", "scaled_cube", "inner", "arg", "tanh", "one_plus", "half_x")}
        made += [
            ctx.make(node, "Mul", [x, x], [names["cube"] + "_sq"], step="square"),
            ctx.make(node, "Mul", [names["cube"] + "_sq", x], [names["cube"]], step="cube"),
            ctx.make(node, "Mul", [names["cube"], scalar_initializer(ctx, node, "c", 0.044715, element_type)],
                     [names["scaled_cube"]], step="scaled_cube"),
            ctx.make(node, "Add", [x, names["scaled_cube"]], [names["inner"]], step="inner"),
            ctx.make(node, "Mul", [names["inner"],
                                   scalar_initializer(ctx, node, "k", math.sqrt(2 / math.pi), element_type)],
                     [names["arg"]], step="arg"),
            ctx.make(node, "Tanh", [names["arg"]], [names["tanh"]], step="tanh"),
        ]
        inner = names["tanh"]
    else:
        names = {s: ctx.temp(node, s) for s in ("arg", "erf", "one_plus", "half_x")}
        made += [
            ctx.make(node, "Mul", [x, scalar_initializer(ctx, node, "k", 1 / math.sqrt(2), element_type)],
                     [names["arg"]], step="arg"),
            ctx.make(node, "Erf", [names["arg"]], [names["erf"]], step="erf"),
        ]
        inner = names["erf"]
    made += [
        ctx.make(node, "Add", [inner, scalar_initializer(ctx, node, "one", 1.0, element_type)], [names["one_plus"]],
                 step="one_plus"),
        ctx.make(node, "Mul", [x, scalar_initializer(ctx, node, "half", 0.5, element_type)], [names["half_x"]],
                 step="half_x"),
        ctx.make(node, "Mul", [names["half_x"], names["one_plus"]], ctx.outputs(node)),
    ]
    return made


@exports(PReLU)
def prelu(node: Node, op: PReLU, ctx: ExportContext) -> list:
    """PRelu; a 1-D slope as long as the channel dim (OpenVINO's per-channel form) is unsqueezed to
    (C, 1, ...) so ONNX's numpy broadcasting puts it on dim 1."""
    x, slope = ctx.inputs(node)
    data, slope_shape = ctx.input_type(node, 0).shape, ctx.input_type(node, 1).shape
    made: list = []
    if data.rank_is_dynamic or slope_shape.rank_is_dynamic:
        raise ctx.refuse("PReLU's slope placement depends on ranks and shapes; they must be known")
    if slope_shape.rank == 1 and data.rank > 2:
        channels, length = data[1], slope_shape[0]
        if not (channels.is_static and length.is_static):
            raise ctx.refuse("a 1-D PReLU slope needs static channel and slope dims to place it")
        if channels.value == length.value != 1:
            axes = ctx.initializer(node, "slope_axes", np.arange(1, data.rank - 1, dtype=np.int64))
            placed = ctx.temp(node, "slope")
            made.append(ctx.make(node, "Unsqueeze", [slope, axes], [placed], step="slope"))
            slope = placed
    made.append(ctx.make(node, "PRelu", [x, slope], ctx.outputs(node)))
    return made
