"""ONNX -> IR rules for the remaining network layers: Pad, ConvTranspose, LpPool, InstanceNormalization,
GroupNormalization, MeanVarianceNormalization and NonMaxSuppression (resampling is in ``image``).

Where ONNX computes something from the shapes (ConvTranspose's pads from ``output_shape`` or ``auto_pad``),
irgraph computes it at conversion time by ONNX's formula and gives IR the result explicitly, so the IR op's own
rule for it (which can differ) never applies.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.io.onnx.import_rules.cnn import convolution
from irgraph.io.onnx.import_rules.helpers import helper_layer, node_inputs, one_output, ports_of, static_rank, text
from irgraph.io.onnx.import_rules.indexing import scalar_of
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.ops import Op
from irgraph.ops.arithmetic.abs import Abs
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.floor_mod import FloorMod
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.power import Power
from irgraph.ops.convolution.convolution_backprop_data import ConvolutionBackpropData
from irgraph.ops.convolution.group_convolution import GroupConvolution
from irgraph.ops.convolution.group_convolution_backprop_data import GroupConvolutionBackpropData
from irgraph.ops.movement.pad import Pad12
from irgraph.ops.movement.scatter_update import ScatterUpdate
from irgraph.ops.movement.split import Split
from irgraph.ops.normalization.group_normalization import GroupNormalization
from irgraph.ops.normalization.mvn import MVN6
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.sort.non_max_suppression import NonMaxSuppression
from irgraph.ops.type.convert import Convert

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext

PAD_MODES = {"constant": "constant", "reflect": "reflect", "edge": "edge"}
"""ONNX Pad mode -> IR pad_mode (ONNX's wrap has no IR mode)."""


def _channel_vector(context: ImportContext, port: OutputPort, rank: int, what: str) -> OutputPort:
    """A per-channel vector [C] reshaped to [1, C, 1, ...] for numpy broadcasting against NC... data."""
    return helper_layer(context, Reshape(special_zero=False),
                        [port, context.const([1, -1] + [1] * (rank - 2), ElementType.I64, f"{what}_shape")],
                        what)


# ------------------------------------------------------------------------------------ Pad
@imports("Pad", versions=(1, 2, 11, 13, 18, 19, 21, 23, 24, 25))
def pad(context: ImportContext) -> None:
    """Pad -> Pad-12: ONNX's pads [b1, ..., bn, e1, ..., en] become pads_begin and pads_end (Consts, or a Split-1
    of computed pads), ``axes`` (opset 18) spread onto every axis, the constant value a scalar. Modes constant,
    reflect and edge are IR's; wrap (opset 19) has no IR mode and is refused."""
    version = context.version
    if version < 11:
        key = "paddings" if version == 1 else "pads"
        attributes = context.attributes({"mode": "STRING", key: "INTS", "value": "FLOAT"})
        (data,) = ports_of(context, node_inputs(context, 1, 1))
        pads_value: Any = attributes.get(key)
        if pads_value is None:
            raise context.fail(f"the {key!r} attribute is required")
        pads_value = np.asarray(pads_value, np.int64)
        names: list[str] = []
        fill: OutputPort | None = context.const(attributes.get("value", 0.0),
                                                context.type_of(data).element_type, "value")
    else:
        attributes = context.attributes({"mode": "STRING"})
        names = node_inputs(context, 2, 4 if version >= 18 else 3)
        data = context.tensor(names[0])
        found = context.constant(names[1])
        pads_value = None if found is None else np.asarray(found[1]).astype(np.int64).reshape(-1)
        fill = scalar_of(context, names[2], "value") if len(names) > 2 and names[2] else None
    one_output(context)
    mode = text(attributes.get("mode", "constant"))
    if mode not in PAD_MODES:
        raise context.fail(f"mode {mode!r} has no IR Pad mode (IR pads constant, reflect, edge and symmetric)"
                           if mode == "wrap" else f"mode must be constant, reflect, edge or wrap; got {mode!r}")
    if mode != "constant":
        fill = None
    if len(names) > 3 and names[3] and (context.constant(names[3]) is None or pads_value is None):
        begin, end = _spread_pads(context, data, names[1], names[3])
        context.emit(Pad12(pad_mode=PAD_MODES[mode]), [data, begin, end, *([fill] if fill is not None else [])])
        return
    if len(names) > 3 and names[3]:
        axes_found = context.constant(names[3])
        assert axes_found is not None and pads_value is not None
        rank = static_rank(data, context, "the data")
        axes = [int(a) + rank if int(a) < 0 else int(a) for a in np.asarray(axes_found[1]).reshape(-1)]
        if len(pads_value) != 2 * len(axes) or any(not 0 <= a < rank for a in axes) or len(set(axes)) != len(axes):
            raise context.fail(f"axes {axes} and pads {pads_value.tolist()} do not fit a rank-{rank} input")
        full = np.zeros(2 * rank, np.int64)
        for index, axis in enumerate(axes):
            full[axis], full[rank + axis] = pads_value[index], pads_value[len(axes) + index]
        pads_value = full
    if pads_value is not None:
        if len(pads_value) % 2:
            raise context.fail(f"pads must have an even length (begins then ends); got {pads_value.tolist()}")
        half = len(pads_value) // 2
        begin = context.const(pads_value[:half], ElementType.I64, "pads_begin")
        end = context.const(pads_value[half:], ElementType.I64, "pads_end")
    else:
        pads_port = context.tensor(names[1])
        halves = context.add(Split(num_splits=2), f"{context.name}/pads",
                             [pads_port, context.const(0, ElementType.I64, "pads_axis")])
        begin, end = OutputPort(halves.id, 0), OutputPort(halves.id, 1)
        context.explain(f"{context.label}: computed pads -> Split-1 into pads_begin and pads_end")
    context.emit(Pad12(pad_mode=PAD_MODES[mode]), [data, begin, end, *([fill] if fill is not None else [])])


def _spread_pads(context: ImportContext, data: OutputPort, pads_name: str,
                 axes_name: str) -> tuple[OutputPort, OutputPort]:
    """Computed pads or axes (Pad-18): zeros of the data's rank with each half of the pads scattered to the axes
    (ScatterUpdate-3; negative axes made positive by FloorMod-1 of the rank)."""
    rank = static_rank(data, context, "the data")
    axes = context.tensor(axes_name)
    if context.type_of(axes).element_type is not ElementType.I64:
        axes = helper_layer(context, Convert(destination_type=ElementType.I64), [axes], "axes_i64")
    axes = helper_layer(context, FloorMod(), [axes, context.const(rank, ElementType.I64, "rank")],
                        "axes_positive")
    pads = context.tensor(pads_name)
    if context.type_of(pads).element_type is not ElementType.I64:
        pads = helper_layer(context, Convert(destination_type=ElementType.I64), [pads], "pads_i64")
    halves = context.add(Split(num_splits=2), f"{context.name}/pads", [pads, context.const(0, ElementType.I64,
                                                                                      "pads_axis")])
    zeros = context.const(np.zeros(rank, np.int64), ElementType.I64, "zeros")
    axis = context.const(0, ElementType.I64, "scatter_axis")
    spread = [helper_layer(context, ScatterUpdate(), [zeros, axes, OutputPort(halves.id, index), axis], what)
              for index, what in ((0, "pads_begin"), (1, "pads_end"))]
    context.explain(f"{context.label}: computed pads or axes -> Split-1 of the pads, each half scattered onto zeros of "
                    f"rank {rank} at the axes (ScatterUpdate-3)")
    return spread[0], spread[1]


# ------------------------------------------------------------------------------------ ConvTranspose
@imports("ConvTranspose", versions=(1, 11, 22))
def conv_transpose(context: ImportContext) -> None:
    """ConvTranspose -> ConvolutionBackpropData-1 (group 1) or GroupConvolutionBackpropData-1 (weights [C, O/G,
    ...] reshaped to [G, C/G, O/G, ...]), and the bias as an Add-1 as for Conv. ``output_shape`` and auto_pad
    SAME_* give pads by ONNX's formula (the odd unit at the end for SAME_UPPER, else at the start), computed
    here from the static spatial dims and given to IR explicitly; a negative end pad (an output_shape larger than
    the convolution gives) becomes output_padding."""
    attributes = context.attributes({"auto_pad": "STRING", "dilations": "INTS", "group": "INT",
                                     "kernel_shape": "INTS", "output_padding": "INTS", "output_shape": "INTS",
                                     "pads": "INTS", "strides": "INTS"})
    one_output(context)
    names = node_inputs(context, 2, 3)
    data, weights, *bias = ports_of(context, names)
    rank = static_rank(data, context, f"input {names[0]!r}") - 2
    weight_shape = context.type_of(weights).shape
    kernel = list(attributes.get("kernel_shape", []))
    if not kernel:
        if weight_shape.rank_is_dynamic or not all(d.is_static for d in list(weight_shape)[2:]):
            raise context.fail(f"needs kernel_shape or static weights; got weights {weight_shape}")
        kernel = [d.value for d in list(weight_shape)[2:]]
    strides = list(attributes.get("strides", [1] * rank))
    dilations = list(attributes.get("dilations", [1] * rank))
    padding = list(attributes.get("output_padding", [0] * rank))
    pads = list(attributes.get("pads", [0] * (2 * rank)))
    if not len(kernel) == len(strides) == len(dilations) == len(padding) == rank or len(pads) != 2 * rank:
        raise context.fail(f"kernel_shape {kernel}, strides {strides}, dilations {dilations}, output_padding "
                           f"{padding} and pads {pads} do not fit {rank} spatial dims")
    auto_pad = text(attributes.get("auto_pad", "NOTSET"))
    if auto_pad not in ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"):
        raise context.fail(f"auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID; got {auto_pad!r}")
    output_shape = list(attributes.get("output_shape", []))
    if len(output_shape) == rank + 2:
        output_shape = output_shape[2:]
    if output_shape or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        spatial = list(context.type_of(data).shape)[2:]
        if not all(d.is_static for d in spatial):
            raise context.fail(f"output_shape/auto_pad={auto_pad} need static spatial dims to compute the pads; got "
                               f"{context.type_of(data).shape}")
        sizes = [d.value for d in spatial]
        if output_shape and len(output_shape) != rank:
            raise context.fail(f"output_shape {output_shape} does not fit {rank} spatial dims")
        wanted = output_shape or [size * stride for size, stride in zip(sizes, strides, strict=True)]
        begin, end = [], []
        for axis, (size, stride, k, d, out) in enumerate(zip(sizes, strides, kernel, dilations, wanted, strict=True)):
            total = stride * (size - 1) + padding[axis] + (k - 1) * d + 1 - out
            small, large = total // 2, total - total // 2
            first, last = (small, large) if auto_pad == "SAME_UPPER" else (large, small)
            if first < 0:
                raise context.fail(f"output_shape {wanted} needs a negative pad before spatial dim {axis} ({first}), "
                                   "which IR's transposed convolutions cannot hold")
            if last < 0:  # the output grows at the end: IR's output_padding
                padding[axis] -= last
                last = 0
            begin.append(first)
            end.append(last)
        pads = begin + end
        context.explain(f"{context.label}: {'output_shape ' + str(wanted) if output_shape else 'auto_pad ' + auto_pad}"
                        f" -> explicit pads_begin {begin}, pads_end {end} (ONNX's formula)")
    elif auto_pad == "VALID":
        pads = [0] * (2 * rank)
    common: dict[str, Any]  # mixed values, spread into the op
    common = {"strides": tuple(strides), "dilations": tuple(dilations), "pads_begin": tuple(pads[:rank]),
              "pads_end": tuple(pads[rank:]), "auto_pad": "explicit", "output_padding": tuple(padding)}
    group = attributes.get("group", 1)
    op: Op
    if group == 1:
        op = ConvolutionBackpropData(**common)
    else:
        if not weight_shape.is_static or weight_shape.to_tuple()[0] % group:
            raise context.fail(f"group {group} needs static weights whose first dim is a multiple of it; got "
                               f"{weight_shape}")
        dims = weight_shape.to_tuple()
        grouped = [group, dims[0] // group, *dims[1:]]
        weights = helper_layer(context, Reshape(special_zero=False),
                               [weights, context.const(grouped, ElementType.I64, "group_shape")],
                               "grouped_weights")
        op = GroupConvolutionBackpropData(**common)
        context.explain(f"{context.label}: group={group} -> GroupConvolutionBackpropData-1, weights reshaped to "
                        "[G, C/G, O/G, ...]")
    if not bias:
        context.emit(op, [data, weights])
        return
    convolved = helper_layer(context, op, [data, weights], "convolution")
    context.emit(Add(), [convolved, _channel_vector(context, bias[0], rank + 2, "bias")])
    context.explain(f"{context.label}: the bias B -> Add-1 of B reshaped to [1, C{', 1' * rank}]")


# ------------------------------------------------------------------------------------ LpPool
@imports("LpPool", versions=(2, 11, 18, 22))
def lp_pool(context: ImportContext) -> None:
    """LpPool -> (sum over each window of |x|^p)^(1/p): Abs-1, Power-1, a depthwise GroupConvolution-1 with a
    kernel of ones (the window sum, zero padding and dilations as ONNX's), Power-1 by 1/p (p=1: no powers).
    ceil_mode=1 is refused (a convolution has no ceil rounding)."""
    attributes = context.attributes({"auto_pad": "STRING", "ceil_mode": "INT", "dilations": "INTS",
                                     "kernel_shape": "INTS", "p": "INT", "pads": "INTS", "strides": "INTS"})
    one_output(context)
    if attributes.get("ceil_mode", 0):
        raise context.fail("ceil_mode=1: the window sum is a convolution, which rounds its output size down only")
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    shape = context.type_of(data).shape
    element_type = context.type_of(data).element_type
    if shape.rank_is_dynamic or shape.rank < 3 or not shape[1].is_static or not element_type.is_real:
        raise context.fail(f"needs float data of static rank and channels to sum its windows; got "
                           f"{context.type_of(data)}")
    kernel = list(attributes.get("kernel_shape", []))
    if len(kernel) != shape.rank - 2:
        raise context.fail(f"kernel_shape {kernel} must have one size per spatial dim ({shape.rank - 2})")
    p = attributes.get("p", 2)
    if p < 1:
        raise context.fail(f"p must be >= 1; got {p}")
    magnitude = helper_layer(context, Abs(), [data], "abs")
    if p != 1:
        magnitude = helper_layer(context, Power(), [magnitude, context.const(p, element_type, "p")],
                                 "powered")
    channels = shape[1].value
    ones = context.const(np.ones((channels, 1, 1, *kernel)), element_type, "window")
    conv_attributes = {key: value for key, value in attributes.items() if key not in ("ceil_mode", "p", "kernel_shape")}
    plain, ones = convolution(context, conv_attributes | {"group": 1}, magnitude, ones)
    op = GroupConvolution(**{field.name: getattr(plain, field.name) for field in dataclasses.fields(plain)})
    if p == 1:
        context.emit(op, [magnitude, ones])
    else:
        total = helper_layer(context, op, [magnitude, ones], "sum")
        context.emit(Power(), [total, context.const(1.0 / p, element_type, "inverse_p")])
    context.explain(f"{context.label}: -> (window sums of |x|^{p}, a GroupConvolution-1 with ones)^(1/{p})")


# ------------------------------------------------------------------------------------ normalization
@imports("InstanceNormalization", versions=(1, 6, 22))
def instance_normalization(context: ImportContext) -> None:
    """InstanceNormalization -> MVN-6 over the spatial axes (eps inside the root), Multiply-1 by the scale and
    Add-1 of the bias, both reshaped to [1, C, 1, ...]."""
    attributes = context.attributes({"epsilon": "FLOAT", "consumed_inputs": "INTS"})
    one_output(context)
    data, scale, bias = ports_of(context, node_inputs(context, 3, 3))
    rank = static_rank(data, context, "the input")
    if rank < 3:
        raise context.fail(f"normalizes over spatial dims; the input has rank {rank}")
    axes = list(range(2, rank))
    normalized = helper_layer(context, MVN6(normalize_variance=True, eps=attributes.get("epsilon", 1e-5),
                                            eps_mode="INSIDE_SQRT"),
                              [data, context.const(axes, ElementType.I64, "axes")], "mvn")
    scaled = helper_layer(context, Multiply(), [normalized, _channel_vector(context, scale, rank, "scale")],
                          "scaled")
    context.emit(Add(), [scaled, _channel_vector(context, bias, rank, "bias")])
    context.explain(f"{context.label}: -> MVN-6 over axes {axes} (eps inside the root), Multiply-1 by the scale, "
                    "Add-1 of the bias")


@imports("GroupNormalization", versions=(18, 21))
def group_normalization(context: ImportContext) -> None:
    """GroupNormalization -> GroupNormalization-12. Opset 21's scale and bias are per channel, as IR's; opset 18's
    are per group and are repeated to the channels at conversion time (they must be constants)."""
    attributes = context.attributes({"epsilon": "FLOAT", "num_groups": "INT", "stash_type": "INT"})
    one_output(context)
    names = node_inputs(context, 3, 3)
    data, scale, bias = ports_of(context, names)
    if "num_groups" not in attributes:
        raise context.fail("the 'num_groups' attribute is required")
    groups = attributes["num_groups"]
    if attributes.get("stash_type", 1) != 1:
        raise context.fail("stash_type other than 1 (f32) asks for statistics in another precision; IR computes "
                           "them in the data's type")
    if context.version < 21:
        shape = context.type_of(data).shape
        found = [f for f in (context.constant(name) for name in names[1:]) if f is not None]
        if shape.rank_is_dynamic or shape.rank < 2 or not shape[1].is_static or len(found) != 2:
            raise context.fail("opset 18's scale and bias are per group: irgraph repeats them per channel, which "
                               "needs them constant and a static channel dim")
        channels = shape[1].value
        if groups <= 0 or channels % groups:
            raise context.fail(f"{channels} channels do not divide into {groups} groups")
        scale, bias = (context.const(np.repeat(np.asarray(f[1]).reshape(-1), channels // groups), f[0], what)
                       for f, what in zip(found, ("scale", "bias"), strict=True))
        context.explain(f"{context.label}: the per-group scale and bias are repeated to {channels} channels")
    context.emit(GroupNormalization(num_groups=groups, epsilon=attributes.get("epsilon", 1e-5)),
                 [data, scale, bias])


@imports("MeanVarianceNormalization", versions=(1, 9, 13))
def mean_variance_normalization(context: ImportContext) -> None:
    """MeanVarianceNormalization -> MVN-6 over ``axes`` ([0, 2, 3] by default), eps 1e-9 outside the root (ONNX's
    function body divides by sqrt(variance) + 1e-9)."""
    if context.version < 9:
        raise context.fail("MeanVarianceNormalization-1 (across_channels, normalize_variance) is an experimental "
                           "op; irgraph converts opset 9 on")
    attributes = context.attributes({"axes": "INTS"})
    one_output(context)
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    axes = list(attributes.get("axes", [0, 2, 3]))
    context.emit(MVN6(normalize_variance=True, eps=1e-9, eps_mode="OUTSIDE_SQRT"),
                 [data, context.const(axes, ElementType.I64, "axes")])


# ------------------------------------------------------------------------------------ NonMaxSuppression
@imports("NonMaxSuppression", versions=(10, 11))
def non_max_suppression(context: ImportContext) -> None:
    """NonMaxSuppression -> NonMaxSuppression-9 (i64 selected indices, ordered by batch, class, then score as
    ONNX orders them: sort_result_descending=false). ONNX's absent operands are given explicitly: at most 0 boxes,
    iou_threshold 0, and no score threshold (-inf)."""
    attributes = context.attributes({"center_point_box": "INT"})
    one_output(context)
    names = node_inputs(context, 2, 5)
    boxes, scores = ports_of(context, names[:2])
    element_type = context.type_of(boxes).element_type
    defaults = ((0, ElementType.I64, "max_output_boxes_per_class"), (0.0, element_type, "iou_threshold"),
                (-np.inf, element_type, "score_threshold"))
    operands = []
    for index, (default, kind, what) in enumerate(defaults, start=2):
        if len(names) > index and names[index]:
            operands.append(scalar_of(context, names[index], what))
        else:
            operands.append(context.const(default, kind, what))
    encoding = "center" if attributes.get("center_point_box", 0) else "corner"
    op = NonMaxSuppression(box_encoding=encoding, sort_result_descending=False, output_type=ElementType.I64)
    node = context.add(op, context.name, [boxes, scores, *operands], num_outputs=3)
    context.bind(OutputPort(node.id, 0), context.node.output[0])
    context.explain(f"{context.label}: -> NonMaxSuppression-9 box_encoding={encoding}, its selected indices")
