"""ONNX -> IR rules for the ops of the convolutional networks users bring (the onnx wheel's model zoo: ResNet,
DenseNet, Inception, SqueezeNet, ShuffleNet, AlexNet, VGG, ZFNet): convolution, pooling, normalization,
Gemm, element-wise arithmetic (their shape ops are in ``shape``). Each rule explains where ONNX and IR differ.

Rules read attributes with the context's checks (an unknown attribute is an error), take their inputs as
ports, and name the last layer's outputs after the ONNX outputs (``ctx.emit``); helper layers a pattern needs
are named ``NODE/what``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.io.onnx.import_rules.helpers import (
    alias_output,
    helper_layer,
    node_inputs,
    one_output,
    ports_of,
    static_rank,
    text,
)
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.ops import Op
from irgraph.ops.activation.relu import Relu
from irgraph.ops.activation.soft_max import SoftMax1
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.divide import Divide
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.subtract import Subtract
from irgraph.ops.convolution.convolution import Convolution
from irgraph.ops.convolution.group_convolution import GroupConvolution
from irgraph.ops.matrix.mat_mul import MatMul
from irgraph.ops.movement.broadcast import Broadcast3
from irgraph.ops.normalization.batch_norm_inference import BatchNormInference5
from irgraph.ops.normalization.lrn import LRN
from irgraph.ops.pooling.avg_pool import AvgPool, AvgPool14, AvgPool16
from irgraph.ops.pooling.max_pool import MaxPool, MaxPool8, MaxPool14
from irgraph.ops.reduction.reduce_mean import ReduceMean
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.shape.shape_of import ShapeOf3 as ShapeOf
from irgraph.ops.shape.unsqueeze import Unsqueeze

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext

AUTO_PADS = {"NOTSET": "explicit", "SAME_UPPER": "same_upper", "SAME_LOWER": "same_lower", "VALID": "valid"}
"""ONNX auto_pad -> IR auto_pad."""


# ------------------------------------------------------------------------------------ helpers
def _spatial(context: ImportContext, attributes: dict[str, Any], rank: int) -> tuple[list[int], list[int], list[int]]:
    """strides, pads_begin, pads_end of a convolution or pooling over ``rank`` spatial dims."""
    strides = list(attributes.get("strides", [1] * rank))
    pads = list(attributes.get("pads", [0] * (2 * rank)))
    if len(strides) != rank or len(pads) != 2 * rank:
        raise context.fail(f"strides {strides} and pads {pads} do not fit {rank} spatial dims")
    return strides, pads[:rank], pads[rank:]


def _auto_pad(context: ImportContext, attributes: dict[str, Any]) -> str:
    mode = text(attributes.get("auto_pad", b"NOTSET"))
    if mode not in AUTO_PADS:
        raise context.fail(f"auto_pad must be one of {', '.join(AUTO_PADS)}; got {mode!r}")
    return AUTO_PADS[mode]


# ------------------------------------------------------------------------------------ element-wise
@imports("Relu", versions=(1, 6, 13, 14))
def relu(context: ImportContext) -> None:
    """Relu -> ReLU-1."""
    context.attributes({"consumed_inputs": "INTS"} if context.version == 1 else {})
    one_output(context)
    context.emit(Relu(), ports_of(context, node_inputs(context, 1, 1)))


@imports("Add", "Mul", "Sum", versions=(1, 6, 7, 8, 13, 14))
def arithmetic(context: ImportContext) -> None:
    """Add, Mul -> Add-1/Multiply-1 (before opset 7 through ``legacy_operands``); Sum of n inputs -> a chain of
    Add-1 (before opset 8 its inputs have one shape, so numpy broadcasting changes nothing)."""
    op_type = context.node.op_type
    attributes = context.attributes(legacy_attributes(context))
    one_output(context)
    ports = ports_of(context, node_inputs(context, 1 if op_type == "Sum" else 2, 2**31 if op_type == "Sum" else 2))
    if op_type != "Sum":
        ports = legacy_operands(context, attributes, ports)
    kind = Multiply if op_type == "Mul" else Add
    if len(ports) == 1:  # a Sum of one input is its input
        alias_output(context, context.node.input[0])
        return
    total = ports[0]
    for index, port in enumerate(ports[1:-1], start=1):
        total = helper_layer(context, kind(), [total, port], f"partial{index}")
    context.emit(kind(), [total, ports[-1]])
    if len(ports) > 2:
        context.explain(f"{context.label}: {len(ports)} inputs -> {len(ports) - 1} Add-1 layers, left to right "
                        "(the order onnxruntime sums in)")


def legacy_attributes(context: ImportContext) -> dict[str, str]:
    """The attributes of a binary op before opset 7 (``broadcast``, ``axis``; ``consumed_inputs`` in opset 1)."""
    if context.version >= 7:
        return {}
    if context.node.op_type in ("Sum", "Max", "Min", "Mean"):
        return {"consumed_inputs": "INTS"} if context.version == 1 else {}
    allowed = {"broadcast": "INT", "axis": "INT"}
    return allowed | ({"consumed_inputs": "INTS"} if context.version == 1 else {})


def legacy_operands(context: ImportContext, attributes: dict[str, Any],
                    ports: list[OutputPort]) -> list[OutputPort]:
    """Before opset 7, ``broadcast=1`` broadcasts B to A with B's dims placed from ``axis`` on (the trailing dims
    by default): B gets leading and trailing 1s (Unsqueeze-1) so numpy broadcasting means the same. Without it the
    shapes are equal and the ports are returned as they are."""
    if context.version >= 7 or not attributes.get("broadcast", 0):
        return ports
    a, b = ports
    rank_a = static_rank(a, context, "A")
    rank_b = static_rank(b, context, "B")
    axis = attributes.get("axis", rank_a - rank_b)
    axis = axis + rank_a if axis < 0 else axis
    if not 0 <= axis <= rank_a - rank_b:
        raise context.fail(f"axis {attributes.get('axis')} cannot place B of rank {rank_b} in A of rank {rank_a}")
    axes = list(range(axis)) + list(range(axis + rank_b, rank_a))
    if not axes:
        return ports
    placed = helper_layer(context, Unsqueeze(), [b, context.const(axes, ElementType.I64, "b_axes")],
                          "b_placed")
    context.explain(f"{context.label}: broadcast=1, axis {axis} -> B unsqueezed at {axes} (numpy broadcasting)")
    return [a, placed]


@imports("Dropout", versions=(1, 6, 7, 10, 12, 13, 22))
def dropout(context: ImportContext) -> None:
    """Dropout at inference is its input: the output becomes another name of the input tensor (no layer)."""
    allowed = {"ratio": "FLOAT", "is_test": "INT", "consumed_inputs": "INTS", "seed": "INT"}
    attributes = context.attributes(allowed)
    if attributes.get("is_test", 1) == 0:
        raise context.fail("is_test=0 asks for training-mode dropout, which IR has no op for")
    names = node_inputs(context, 1, 3)
    if len(names) == 3:
        mode = context.constant(names[2])
        if mode is None or bool(np.asarray(mode[1]).reshape(-1)[0]):
            raise context.fail("training_mode is not a constant false: dropout would be random")
    outputs = list(context.node.output)
    alias_output(context, names[0])
    if len(outputs) > 1 and outputs[1]:
        # at inference the mask is all true; made only when something reads it
        if any(outputs[1] in node.input for node in context.graph.node) or any(
                value.name == outputs[1] for value in context.graph.output):
            data = context.tensor(names[0])
            shape = helper_layer(context, ShapeOf(), [data], "shape")
            # the mask is boolean from Dropout-10 on; before, it has the data's type (ones)
            mask_type = ElementType.BOOLEAN if context.version >= 10 else context.type_of(data).element_type
            true = context.const(True, mask_type, "true")
            if context.version < 10:
                context.explain(f"{context.label}: the mask -> ones of the data's type (every element kept: "
                                "onnxruntime 1.31.1 gives zeros, onnx.reference 1.23.2 booleans)")
            mask = context.add(Broadcast3(mode="numpy"), f"{context.name}/mask", [true, shape])
            context.bind(OutputPort(mask.id, 0), outputs[1])
        else:
            context.explain(f"{context.label}: its mask output {outputs[1]!r} is read by nothing: not made")


# ------------------------------------------------------------------------------------ convolution, Gemm
@imports("Conv", versions=(1, 11, 22))
def conv(context: ImportContext) -> None:
    """Conv -> Convolution-1 (group 1) or GroupConvolution-1 (its weights reshaped to [G, O/G, I/G, ...]), and
    the bias as an Add-1 of the bias reshaped to [1, C, 1, ...]."""
    attributes = context.attributes(CONV_ATTRIBUTES)
    one_output(context)
    names = node_inputs(context, 2, 3)
    data, weights, *bias = ports_of(context, names)
    rank = static_rank(data, context, f"input {names[0]!r}") - 2
    op, weights = convolution(context, attributes, data, weights)
    if not bias:
        context.emit(op, [data, weights])
        return
    convolved = helper_layer(context, op, [data, weights], "convolution")
    shaped = helper_layer(context, Reshape(special_zero=False),
                     [bias[0], context.const([1, -1] + [1] * rank, ElementType.I64, "bias_shape")], "bias")
    context.emit(Add(), [convolved, shaped])
    context.explain(f"{context.label}: the bias B -> Add-1 of B reshaped to [1, C{', 1' * rank}] (IR convolutions have "
                    "no bias input)")


CONV_ATTRIBUTES = {"auto_pad": "STRING", "dilations": "INTS", "group": "INT", "kernel_shape": "INTS", "pads": "INTS",
                   "strides": "INTS"}


def convolution(context: ImportContext, attributes: dict[str, Any], data: OutputPort,
                weights: OutputPort) -> tuple[Op, OutputPort]:
    """The IR convolution of ONNX Conv's attributes, and the weights it takes (reshaped to [G, O/G, I/G, ...] for
    GroupConvolution-1 when ``group`` > 1)."""
    rank = static_rank(data, context, "X") - 2
    strides, begin, end = _spatial(context, attributes, rank)
    dilations = list(attributes.get("dilations", [1] * rank))
    auto_pad = _auto_pad(context, attributes)
    group = attributes.get("group", 1)
    common: dict[str, Any] = {"strides": tuple(strides), "dilations": tuple(dilations), "pads_begin": tuple(begin),
              "pads_end": tuple(end), "auto_pad": auto_pad}
    if group == 1:
        return Convolution(**common), weights
    shape = context.type_of(weights).shape
    if not shape.is_static or shape.to_tuple()[0] % group:
        raise context.fail(f"group {group} needs static weights whose first dim is a multiple of it; got {shape}")
    sizes = shape.to_tuple()
    grouped = [group, sizes[0] // group, *sizes[1:]]
    weights = helper_layer(context, Reshape(special_zero=True),
                           [weights, context.const(grouped, ElementType.I64, "group_shape")], "grouped_weights")
    context.explain(f"{context.label}: group={group} -> GroupConvolution-1, weights reshaped to [G, O/G, I/G, ...]")
    return GroupConvolution(**common), weights


@imports("Gemm", versions=(1, 6, 7, 9, 11, 13))
def gemm(context: ImportContext) -> None:
    """Gemm -> MatMul-1 with transpose_a/b, a Multiply-1 by alpha (unless 1), an Add-1 of beta * C."""
    attributes = context.attributes({"alpha": "FLOAT", "beta": "FLOAT", "transA": "INT", "transB": "INT",
                                     "broadcast": "INT"})
    one_output(context)
    names = node_inputs(context, 2, 3)
    a, b, *c = ports_of(context, names)
    element_type = context.type_of(a).element_type
    alpha, beta = attributes.get("alpha", 1.0), attributes.get("beta", 1.0)
    product_op = MatMul(transpose_a=bool(attributes.get("transA", 0)), transpose_b=bool(attributes.get("transB", 0)))
    steps: list[tuple[Op, list[OutputPort], str]] = []
    if alpha != 1.0:
        steps.append((Multiply(), [context.const(alpha, element_type, "alpha")], "scaled"))
    if c:
        addend = c[0]
        if beta != 1.0:
            addend = helper_layer(context, Multiply(), [addend, context.const(beta, element_type, "beta")],
                             "beta_c")
        steps.append((Add(), [addend], "sum"))
    if not steps:
        context.emit(product_op, [a, b])
        return
    value = helper_layer(context, product_op, [a, b], "product")
    for index, (op, others, what) in enumerate(steps):
        if index == len(steps) - 1:
            context.emit(op, [value, *others])
        else:
            value = helper_layer(context, op, [value, *others], what)
    context.explain(f"{context.label}: alpha={alpha}, beta={beta} -> MatMul-1 (transpose_a={product_op.transpose_a}, "
                    f"transpose_b={product_op.transpose_b}) then Multiply-1/Add-1 (IR MatMul has no alpha, beta or C)")


# ------------------------------------------------------------------------------------ pooling
def _pool_attributes(context: ImportContext, attributes: dict[str, Any], data: OutputPort) -> dict[str, Any]:
    """The IR attributes MaxPool and AveragePool share (kernel, strides, pads, rounding_type, auto_pad), from the
    ONNX ones; the kernel must have one size per spatial dim of ``data``."""
    kernel = list(attributes.get("kernel_shape", []))
    rank = static_rank(data, context, "the input") - 2
    if len(kernel) != rank:
        raise context.fail(f"kernel_shape {kernel} must have one size per spatial dim ({rank})")
    strides, begin, end = _spatial(context, attributes, rank)
    return {"strides": tuple(strides), "pads_begin": tuple(begin), "pads_end": tuple(end), "kernel": tuple(kernel),
            "rounding_type": "ceil_torch" if attributes.get("ceil_mode", 0) else "floor",
            "auto_pad": _auto_pad(context, attributes)}


@imports("MaxPool", versions=(1, 8, 10, 11, 12, 22))
def max_pool(context: ImportContext) -> None:
    """MaxPool -> MaxPool-1, or MaxPool-8 with dilations or the Indices output, MaxPool-14 with ceil_mode. The
    Indices (storage_order 0) are flat positions in the whole input: MaxPool-8/14's with axis 0; storage_order 1
    (column-major positions) has no IR equivalent and is refused."""
    attributes = context.attributes({"auto_pad": "STRING", "ceil_mode": "INT", "dilations": "INTS",
                                     "kernel_shape": "INTS", "pads": "INTS", "storage_order": "INT",
                                     "strides": "INTS"})
    outputs = list(context.node.output)
    indices = len(outputs) > 1 and bool(outputs[1])
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    column_major = indices and bool(attributes.get("storage_order", 0))
    if column_major:
        shape = context.type_of(data).shape
        if shape.rank_is_dynamic or shape.rank != 4 or not all(d.is_static for d in list(shape)[2:]):
            raise context.fail(f"its Indices output is used with storage_order=1 (column-major positions); irgraph "
                               f"recounts them for a 2-D pooling of static height and width only, got {shape}")
    common = _pool_attributes(context, attributes, data)
    dilations = tuple(attributes.get("dilations", [1] * len(common["kernel"])))
    with_indices: dict[str, Any] = {"index_element_type": ElementType.I64, "axis": 0}
    if common["rounding_type"] == "ceil_torch":
        context.emit(MaxPool14(dilations=dilations, **common, **with_indices), [data], num_outputs=2)
        _explain_ceil(context, "MaxPool-14")
    elif indices or any(d != 1 for d in dilations):
        context.emit(MaxPool8(dilations=dilations, **common, **with_indices), [data], num_outputs=2)
    else:
        context.emit(MaxPool(**common), [data])
    if column_major:
        _column_major(context, context.type_of(data).shape.to_tuple()[2:])
    elif indices:
        context.explain(f"{context.label}: Indices -> MaxPool's i64 indices with axis 0 (flat in the whole input, as "
                        "storage_order 0 counts them)")


def _column_major(context: ImportContext, plane: tuple[int, ...]) -> None:
    """Recount MaxPool's row-major indices (``i = p*H*W + h*W + w``) column-major within each H x W plane
    (``p*H*W + w*H + h``, storage_order 1), and make that the ONNX Indices output."""
    height, width = plane
    name = context.node.output[1]
    row_major = context.unbind(name)

    def constant(value: int, what: str) -> OutputPort:
        return context.const(value, ElementType.I64, what)

    def layer(op: Op, inputs: list[OutputPort], what: str) -> OutputPort:
        return helper_layer(context, op, inputs, what)

    area = constant(height * width, "area")
    base = layer(Multiply(), [layer(Divide(m_pythondiv=True), [row_major, area], "plane"), area], "plane_start")
    within = layer(Subtract(), [row_major, base], "within")
    row = layer(Divide(m_pythondiv=True), [within, constant(width, "width")], "row")
    column = layer(Subtract(), [within, layer(Multiply(), [row, constant(width, "width_again")], "row_start")],
                   "column")
    recounted = layer(Add(), [base, layer(Add(), [layer(Multiply(), [column, constant(height, "height")],
                                                        "column_start"), row], "column_major")], "indices")
    context.bind(recounted, name)
    context.explain(f"{context.label}: storage_order=1 -> the indices recounted column-major within each "
                    f"{height}x{width} plane (Divide-1, Multiply-1, Subtract-1, Add-1)")


def _explain_ceil(context: ImportContext, title: str) -> None:
    context.explain(f"{context.label}: ceil_mode=1 -> {title} rounding_type=ceil_torch (a last window that would start "
                    "in the end padding is dropped, as onnxruntime and the ONNX spec do)")


@imports("AveragePool", versions=(1, 7, 10, 11, 19, 22))
def average_pool(context: ImportContext) -> None:
    """AveragePool -> AvgPool-1 (count_include_pad=0 is exclude-pad=true), AvgPool-14 with ceil_mode, AvgPool-16
    with dilations (as OpenVINO's ONNX frontend converts them)."""
    attributes = context.attributes({"auto_pad": "STRING", "ceil_mode": "INT", "count_include_pad": "INT",
                                     "dilations": "INTS", "kernel_shape": "INTS", "pads": "INTS",
                                     "strides": "INTS"})
    one_output(context)
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    common = _pool_attributes(context, attributes, data)
    exclude_pad = not attributes.get("count_include_pad", 0)
    dilations = tuple(attributes.get("dilations", ()))
    if any(d != 1 for d in dilations):
        if len(dilations) != len(common["kernel"]):
            raise context.fail(f"dilations {list(dilations)} must have one value per spatial dim "
                               f"({len(common['kernel'])})")
        op: AvgPool = AvgPool16(exclude_pad=exclude_pad, dilations=dilations, **common)
        context.explain(f"{context.label}: dilations {list(dilations)} -> AvgPool-16")
    elif common["rounding_type"] == "ceil_torch":
        op = AvgPool14(exclude_pad=exclude_pad, **common)
    else:
        op = AvgPool(exclude_pad=exclude_pad, **common)
    context.emit(op, [data])
    if common["rounding_type"] == "ceil_torch":
        _explain_ceil(context, op.title())


@imports("GlobalAveragePool", versions=(1, 22))
def global_average_pool(context: ImportContext) -> None:
    """GlobalAveragePool -> ReduceMean-1 over the spatial dims, kept."""
    context.attributes({})
    one_output(context)
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    rank = static_rank(data, context, "the input")
    axes = context.const(list(range(2, rank)), ElementType.I64, "axes")
    context.emit(ReduceMean(keep_dims=True), [data, axes])
    context.explain(f"{context.label}: -> ReduceMean-1 over axes {list(range(2, rank))}, keep_dims=true")


# ------------------------------------------------------------------------------------ normalization
@imports("BatchNormalization", versions=(1, 6, 7, 9, 14, 15))
def batch_normalization(context: ImportContext) -> None:
    """BatchNormalization in inference mode -> BatchNormInference-5 (momentum is unused at inference)."""
    attributes = context.attributes({"epsilon": "FLOAT", "momentum": "FLOAT", "spatial": "INT",
                                     "is_test": "INT", "consumed_inputs": "INTS", "training_mode": "INT"})
    if attributes.get("training_mode", 0) or attributes.get("is_test", 1) == 0:
        raise context.fail("training mode computes batch statistics; irgraph converts inference mode only")
    if attributes.get("spatial", 1) == 0:
        raise context.fail("spatial=0 (per-element statistics) has no IR op")
    if len([name for name in context.node.output if name]) != 1:
        raise context.fail("only the Y output exists at inference; the running statistics outputs are used")
    ports = ports_of(context, node_inputs(context, 5, 5))
    context.emit(BatchNormInference5(epsilon=attributes.get("epsilon", 1e-5)), ports)


@imports("LRN", versions=(1, 13))
def lrn(context: ImportContext) -> None:
    """LRN across channels -> LRN-1 with axes [1] (both divide alpha by size)."""
    attributes = context.attributes({"alpha": "FLOAT", "beta": "FLOAT", "bias": "FLOAT", "size": "INT"})
    one_output(context)
    if "size" not in attributes:
        raise context.fail("the 'size' attribute is required")
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    axes = context.const([1], ElementType.I64, "axes")
    context.emit(LRN(alpha=attributes.get("alpha", 1e-4), beta=attributes.get("beta", 0.75),
                     bias=attributes.get("bias", 1.0), size=attributes["size"]), [data, axes])


@imports("Softmax", versions=(1, 11, 13))
def softmax(context: ImportContext) -> None:
    """Softmax -> SoftMax-1. Before opset 13 it normalizes the input flattened to 2D at ``axis``: that is one IR
    axis only when ``axis`` is the last one; otherwise the input is reshaped to 2D and back."""
    softmax_like(context, lambda axis: SoftMax1(axis=axis), "SoftMax-1")


def softmax_like(context: ImportContext, make: Callable[[int], Op], title: str) -> None:
    """Softmax and LogSoftmax: the IR op ``make(axis)`` on the axis, or on the input flattened to 2D at ``axis``
    (before opset 13, when the axis is not the last one) and reshaped back."""
    attributes = context.attributes({"axis": "INT"})
    one_output(context)
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    shape = context.type_of(data).shape
    rank = static_rank(data, context, "the input")
    axis = attributes.get("axis", -1 if context.version >= 13 else 1)
    if not -rank <= axis < rank:
        raise context.fail(f"axis {axis} is out of range for rank {rank}")
    axis %= rank
    if context.version >= 13 or axis == rank - 1:
        context.emit(make(axis), [data])
        return
    if not shape.is_static:
        raise context.fail(f"{context.node.op_type}-{context.version} on axis {axis} of {rank} flattens the input to "
                           f"2D; irgraph needs a static shape for that, got {shape}")
    sizes = shape.to_tuple()
    flat = helper_layer(context, Reshape(special_zero=False),
                   [data, context.const([math.prod(sizes[:axis]), -1], ElementType.I64, "2d")], "flat")
    normalized = helper_layer(context, make(1), [flat], "softmax")
    context.emit(Reshape(special_zero=False), [normalized, context.const(list(sizes), ElementType.I64,
                                                                        "shape")])
    context.explain(f"{context.label}: axis {axis} of {rank} -> Reshape to 2D, {title} axis 1, Reshape back "
                    f"({context.node.op_type} before opset 13 normalizes the flattened trailing dims together)")
