"""ONNX -> IR rules for indexing, sorting and data movement: ArgMax/ArgMin, TopK, CumSum, NonZero, OneHot,
GatherElements, GatherND, ScatterND, ScatterElements, DepthToSpace, SpaceToDepth, Einsum, EyeLike.

ONNX gives one-element operands (TopK's K, CumSum's axis, OneHot's depth) as 1-D tensors where IR takes
scalars: constants become scalar Consts, computed ones a Reshape-1 to a scalar.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.io.onnx.common import element_type_from_onnx, port_type
from irgraph.io.onnx.import_registry import rule
from irgraph.io.onnx.import_rules import (
    const_of,
    helper_layer,
    node_inputs,
    one_output,
    ports_of,
    static_rank,
    text,
)
from irgraph.ops.arithmetic.cum_sum import CumSum
from irgraph.ops.arithmetic.subtract import Subtract
from irgraph.ops.condition.non_zero import NonZero
from irgraph.ops.generation.eye import Eye
from irgraph.ops.matrix.einsum import Einsum
from irgraph.ops.movement.col2im import Col2Im
from irgraph.ops.movement.depth_to_space import DepthToSpace
from irgraph.ops.movement.gather import Gather8
from irgraph.ops.movement.gather_elements import GatherElements
from irgraph.ops.movement.gather_nd import GatherND8
from irgraph.ops.movement.reverse import Reverse
from irgraph.ops.movement.reverse_sequence import ReverseSequence
from irgraph.ops.movement.scatter_elements_update import ScatterElementsUpdate12
from irgraph.ops.movement.scatter_nd_update import ScatterNDUpdate15
from irgraph.ops.movement.space_to_depth import SpaceToDepth
from irgraph.ops.movement.unique import Unique
from irgraph.ops.sequence.one_hot import OneHot16
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.shape.shape_of import ShapeOf3
from irgraph.ops.shape.squeeze import Squeeze
from irgraph.ops.sort.top_k import TopK11
from irgraph.ops.type.convert import Convert

if TYPE_CHECKING:
    from irgraph.io.onnx.split import NodeContext, NodeConverter


def bind(cv: NodeConverter, context: NodeContext, port: OutputPort, name: str) -> None:
    """Make ``port`` the producer of ONNX tensor ``name`` (an output of the node)."""
    cv._check_unproduced(context, name)
    cv.im.model.node(port.node_id).tensor_names[port.index] = [name]
    cv.im.ports[name] = port


def scalar_of(cv: NodeConverter, context: NodeContext, name: str, what: str,
              element_type: ElementType | None = None) -> OutputPort:
    """ONNX tensor ``name`` of one element as an IR scalar (optionally converted to ``element_type``)."""
    found = cv.im.constant(name)
    if found is not None:
        if np.size(found[1]) != 1:
            raise context.fail(f"its {what} {name!r} must hold one value; got shape {list(np.shape(found[1]))}")
        target = element_type or found[0]
        value = np.asarray(found[1]).reshape(())
        if target.is_integral and found[0].is_real:
            value = np.trunc(value)
        return const_of(cv, context, value, target, what)
    port = cv.im.tensor(name, context.label)
    if element_type is not None and port_type(cv.im.model, port).element_type is not element_type:
        port = helper_layer(cv, context, Convert(destination_type=element_type), [port], f"{what}_converted")
    return helper_layer(cv, context, Reshape(special_zero=False),
                        [port, const_of(cv, context, np.zeros((0,), np.int64), ElementType.I64, f"{what}_scalar")],
                        what)


# ------------------------------------------------------------------------------------ sorting
@rule("ArgMax", "ArgMin", versions=(1, 11, 12, 13))
def arg_max_min(cv: NodeConverter, context: NodeContext) -> None:
    """ArgMax/ArgMin -> the indices (i64) of TopK-11 with k=1, stable (the first of equal values), and a Squeeze-1 of
    the axis unless keepdims. select_last_index=1: the same on the input reversed along the axis (Reverse-1), the
    index then counted from the end (dim - 1 - index)."""
    attributes = cv._attributes(context, {"axis": "INT", "keepdims": "INT", "select_last_index": "INT"})
    one_output(context)
    (data,) = ports_of(cv, context, node_inputs(context, 1, 1))
    axis = attributes.get("axis", 0)
    last = bool(attributes.get("select_last_index", 0))
    axis_port = const_of(cv, context, [axis], ElementType.I64, "axis")
    source = helper_layer(cv, context, Reverse(mode="index"), [data, axis_port], "reversed") if last else data
    mode = "max" if context.node.op_type == "ArgMax" else "min"
    op = TopK11(axis=axis, mode=mode, sort="value", index_element_type=ElementType.I64, stable=True)
    k = const_of(cv, context, 1, ElementType.I64, "k")
    keep = attributes.get("keepdims", 1)
    indices = OutputPort(cv.im.add(op, f"{context.name}/top", [source, k]).id, 1)
    if last:
        shape = helper_layer(cv, context, ShapeOf3(output_type=ElementType.I64), [data], "shape")
        dim = helper_layer(cv, context, Gather8(batch_dims=0), [shape, axis_port, const_of(
            cv, context, 0, ElementType.I64, "zero")], "dim")
        top_index = helper_layer(cv, context, Subtract(), [dim, const_of(cv, context, 1, ElementType.I64, "one")],
                                 "top_index")
        if keep:
            cv._emit(context, Subtract(), [top_index, indices])
        else:
            counted = helper_layer(cv, context, Subtract(), [top_index, indices], "counted")
            cv._emit(context, Squeeze(), [counted, axis_port])
    elif keep:
        bind(cv, context, indices, context.node.output[0])
    else:
        cv._emit(context, Squeeze(), [indices, axis_port])
    cv.im.explain(f"{context.label}: -> TopK-11 k=1 mode={mode} stable, its i64 indices"
                  f"{' of the input reversed (Reverse-1), counted from the end (select_last_index=1)' if last else ''}"
                  f"{'' if keep else ', Squeeze-1 of the axis (keepdims=0)'}")


@rule("TopK", versions=(1, 10, 11, 24))
def top_k(cv: NodeConverter, context: NodeContext) -> None:
    """TopK -> TopK-11 (i64 indices, stable: equal values by lower index, as onnxruntime orders them). ``sorted=0``
    leaves the order to the implementation: irgraph sorts by value."""
    if context.version == 1:
        attributes = cv._attributes(context, {"axis": "INT", "k": "INT"})
        (data,) = ports_of(cv, context, node_inputs(context, 1, 1))
        if "k" not in attributes:
            raise context.fail("the 'k' attribute is required")
        k = const_of(cv, context, attributes["k"], ElementType.I64, "k")
    else:
        allowed = {"axis": "INT"} | ({"largest": "INT", "sorted": "INT"} if context.version >= 11 else {})
        attributes = cv._attributes(context, allowed)
        names = node_inputs(context, 2, 2)
        data = cv.im.tensor(names[0], context.label)
        k = scalar_of(cv, context, names[1], "k")
    outputs = list(context.node.output)
    if len(outputs) != 2:
        raise context.fail(f"has the outputs Values and Indices; got {outputs}")
    mode = "max" if attributes.get("largest", 1) else "min"
    if not attributes.get("sorted", 1):
        cv.im.explain(f"{context.label}: sorted=0 leaves the order unspecified; irgraph gives it sorted by value")
    cv._emit(context, TopK11(axis=attributes.get("axis", -1), mode=mode, sort="value",
                             index_element_type=ElementType.I64, stable=True), [data, k], num_outputs=2)


@rule("Hardmax", versions=(1, 11, 13))
def hardmax(cv: NodeConverter, context: NodeContext) -> None:
    """Hardmax -> OneHot-16 (1 and 0 of the data's type) of the stable TopK-11 k=1 index on the axis (the first
    maximum, as ONNX picks). Before opset 13 Hardmax works on the input flattened to 2D at ``axis``: converted
    when that axis is the last one (the same thing), refused otherwise."""
    attributes = cv._attributes(context, {"axis": "INT"})
    one_output(context)
    (data,) = ports_of(cv, context, node_inputs(context, 1, 1))
    tensor = port_type(cv.im.model, data)
    rank = static_rank(cv, data, context, "the input")
    axis = attributes.get("axis", -1 if context.version >= 13 else 1)
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise context.fail(f"axis {attributes.get('axis')} is out of range for rank {rank}")
    if context.version < 13 and axis != rank - 1:
        raise context.fail(f"Hardmax-{context.version} on axis {axis} of {rank} flattens the input to 2D; irgraph "
                           "converts it on the last axis only")
    top = cv.im.add(TopK11(axis=axis, mode="max", sort="value", index_element_type=ElementType.I64, stable=True),
                    f"{context.name}/top", [data, const_of(cv, context, 1, ElementType.I64, "k")])
    index = helper_layer(cv, context, Squeeze(), [OutputPort(top.id, 1), const_of(cv, context, [axis], ElementType.I64,
                                                                                   "axis")], "index")
    dim = tensor.shape[axis]
    if dim.is_static:
        depth = const_of(cv, context, dim.value, ElementType.I64, "depth")
    else:
        shape = helper_layer(cv, context, ShapeOf3(output_type=ElementType.I64), [data], "shape")
        depth = helper_layer(cv, context, Gather8(batch_dims=0), [shape, const_of(cv, context, axis, ElementType.I64,
                                                                                   "depth_index"),
                                                                   const_of(cv, context, 0, ElementType.I64, "zero")],
                             "depth")
    on, off = (const_of(cv, context, v, tensor.element_type, what) for v, what in ((1, "on"), (0, "off")))
    cv._emit(context, OneHot16(axis=axis), [index, depth, on, off])
    cv.im.explain(f"{context.label}: -> OneHot-16 of the TopK-11 (k=1, stable) index on axis {axis}")


@rule("ReverseSequence", versions=(10, 28))
def reverse_sequence(cv: NodeConverter, context: NodeContext) -> None:
    """ReverseSequence -> ReverseSequence-1 (time_axis is IR's seq_axis)."""
    attributes = cv._attributes(context, {"batch_axis": "INT", "time_axis": "INT"})
    one_output(context)
    cv._emit(context, ReverseSequence(batch_axis=attributes.get("batch_axis", 1),
                                      seq_axis=attributes.get("time_axis", 0)),
             ports_of(cv, context, node_inputs(context, 2, 2)))


@rule("Unique", versions=(11, 28))
def unique(cv: NodeConverter, context: NodeContext) -> None:
    """Unique -> Unique-10 (i64 indices and counts; the axis as a Const when given, else the flattened input):
    Y, indices, inverse_indices and counts in ONNX's order."""
    attributes = cv._attributes(context, {"axis": "INT", "sorted": "INT"})
    (data,) = ports_of(cv, context, node_inputs(context, 1, 1))
    inputs = [data] + ([const_of(cv, context, attributes["axis"], ElementType.I64, "axis")]
                       if "axis" in attributes else [])
    cv._emit(context, Unique(sorted=bool(attributes.get("sorted", 1))), inputs, num_outputs=4)


@rule("Compress", versions=(9, 11, 28))
def compress(cv: NodeConverter, context: NodeContext) -> None:
    """Compress -> Gather-8 of the positions NonZero-3 finds in the condition (squeezed to 1-D), along ``axis``
    or over the flattened input without it."""
    attributes = cv._attributes(context, {"axis": "INT"})
    one_output(context)
    data, condition = ports_of(cv, context, node_inputs(context, 2, 2))
    positions = helper_layer(cv, context, NonZero(output_type=ElementType.I64), [condition], "positions")
    indices = helper_layer(cv, context, Squeeze(), [positions, const_of(cv, context, [0], ElementType.I64,
                                                                        "positions_axis")], "indices")
    if "axis" not in attributes:
        data = helper_layer(cv, context, Reshape(special_zero=False), [data, const_of(
            cv, context, [-1], ElementType.I64, "flat_shape")], "flat")
    axis = const_of(cv, context, attributes.get("axis", 0), ElementType.I64, "axis")
    cv._emit(context, Gather8(batch_dims=0), [data, indices, axis])
    flat = "" if "axis" in attributes else " over the flattened input"
    cv.im.explain(f"{context.label}: -> Gather-8 of NonZero-3(condition){flat}")


@rule("Col2Im", versions=(18,))
def col2im(cv: NodeConverter, context: NodeContext) -> None:
    """Col2Im -> Col2Im-15 (image_shape is output_size, block_shape kernel_size; pads split into begins and ends)."""
    attributes = cv._attributes(context, {"dilations": "INTS", "pads": "INTS", "strides": "INTS"})
    one_output(context)
    pads = list(attributes.get("pads", [0, 0, 0, 0]))
    ports = ports_of(cv, context, node_inputs(context, 3, 3))
    image = port_type(cv.im.model, ports[1]).shape
    if len(pads) != 4 or image.rank_is_dynamic or not image.is_static or image.to_tuple() != (2,):
        raise context.fail(f"Col2Im-15 rebuilds 2-D images (image_shape of 2 values, 4 pads); got image_shape "
                           f"{image}, pads {pads}")
    op = Col2Im(strides=tuple(attributes.get("strides", (1, 1))), dilations=tuple(attributes.get("dilations", (1, 1))),
                pads_begin=tuple(pads[:2]), pads_end=tuple(pads[2:]))
    cv._emit(context, op, ports)


@rule("CumSum", versions=(11, 14))
def cum_sum(cv: NodeConverter, context: NodeContext) -> None:
    """CumSum -> CumSum-3 with exclusive and reverse; the axis as a scalar."""
    attributes = cv._attributes(context, {"exclusive": "INT", "reverse": "INT"})
    one_output(context)
    names = node_inputs(context, 2, 2)
    data = cv.im.tensor(names[0], context.label)
    axis = scalar_of(cv, context, names[1], "axis")
    cv._emit(context, CumSum(exclusive=bool(attributes.get("exclusive", 0)),
                             reverse=bool(attributes.get("reverse", 0))), [data, axis])


@rule("NonZero", versions=(9, 13))
def non_zero(cv: NodeConverter, context: NodeContext) -> None:
    """NonZero -> NonZero-3 (i64, [rank, count], row-major order in both)."""
    cv._attributes(context, {})
    one_output(context)
    cv._emit(context, NonZero(output_type=ElementType.I64), ports_of(cv, context, node_inputs(context, 1, 1)))


@rule("OneHot", versions=(9, 11, 28))
def one_hot(cv: NodeConverter, context: NodeContext) -> None:
    """OneHot -> OneHot-16 with negative_indices_mode=normalize (an index in [-depth, -1] counts from the end);
    depth becomes an i64 scalar, values [off, on] two scalars, non-integer indices are converted to i64."""
    attributes = cv._attributes(context, {"axis": "INT"})
    one_output(context)
    names = node_inputs(context, 3, 3)
    indices = cv.im.tensor(names[0], context.label)
    if not port_type(cv.im.model, indices).element_type.is_integral:
        indices = helper_layer(cv, context, Convert(destination_type=ElementType.I64), [indices], "indices")
        cv.im.explain(f"{context.label}: float indices -> Convert-1 to i64 (truncation, as onnxruntime casts them)")
    depth = scalar_of(cv, context, names[1], "depth", ElementType.I64)
    found = cv.im.constant(names[2])
    if found is not None:
        if np.size(found[1]) != 2:
            raise context.fail(f"values must hold [off_value, on_value]; got shape {list(np.shape(found[1]))}")
        off, on = (const_of(cv, context, value, found[0], what)
                   for value, what in zip(np.asarray(found[1]).reshape(-1), ("off", "on"), strict=True))
    else:
        values = cv.im.tensor(names[2], context.label)
        zero = const_of(cv, context, 0, ElementType.I64, "axis0")
        off, on = (helper_layer(cv, context, Gather8(batch_dims=0),
                                [values, const_of(cv, context, index, ElementType.I64, f"{what}_index"), zero], what)
                   for index, what in ((0, "off"), (1, "on")))
    cv._emit(context, OneHot16(axis=attributes.get("axis", -1), negative_indices_mode="normalize"),
             [indices, depth, on, off])
    if context.version < 11:
        cv.im.explain(f"{context.label}: negative indices count from the end as OneHot-11 says (onnxruntime 1.31.1 "
                      "does so for OneHot-9 too)")


# ------------------------------------------------------------------------------------ gather, scatter
@rule("GatherElements", versions=(11, 13))
def gather_elements(cv: NodeConverter, context: NodeContext) -> None:
    """GatherElements -> GatherElements-6 (negative indices count from the end in both)."""
    attributes = cv._attributes(context, {"axis": "INT"})
    one_output(context)
    cv._emit(context, GatherElements(axis=attributes.get("axis", 0)), ports_of(cv, context, node_inputs(context, 2, 2)))


@rule("GatherND", versions=(11, 12, 13))
def gather_nd(cv: NodeConverter, context: NodeContext) -> None:
    """GatherND -> GatherND-8 (the batch dims kept in the output, as ONNX keeps them)."""
    attributes = cv._attributes(context, {"batch_dims": "INT"})
    one_output(context)
    cv._emit(context, GatherND8(batch_dims=attributes.get("batch_dims", 0)),
             ports_of(cv, context, node_inputs(context, 2, 2)))


SCATTER_REDUCTIONS = {"none": "none", "add": "sum", "mul": "prod", "max": "max", "min": "min"}
"""ONNX reduction -> the IR scatter reduction."""


def _reduction(cv: NodeConverter, context: NodeContext, attributes: dict[str, Any]) -> str:
    found = text(attributes.get("reduction", "none"))
    if found not in SCATTER_REDUCTIONS:
        raise context.fail(f"reduction must be one of {', '.join(SCATTER_REDUCTIONS)}; got {found!r}")
    return SCATTER_REDUCTIONS[found]


@rule("ScatterND", versions=(11, 13, 16, 18))
def scatter_nd(cv: NodeConverter, context: NodeContext) -> None:
    """ScatterND -> ScatterNDUpdate-15 (reduction add -> sum, mul -> prod). Duplicate indices without a reduction
    are undefined in ONNX; IR applies the updates in order (the last wins)."""
    attributes = cv._attributes(context, {"reduction": "STRING"})
    one_output(context)
    cv._emit(context, ScatterNDUpdate15(reduction=_reduction(cv, context, attributes)),
             ports_of(cv, context, node_inputs(context, 3, 3)))


@rule("ScatterElements", versions=(11, 13, 16, 18))
@rule("Scatter", versions=(9, 11))
def scatter_elements(cv: NodeConverter, context: NodeContext) -> None:
    """ScatterElements (and the deprecated Scatter) -> ScatterElementsUpdate-12 with the axis as a Const, the data
    taking part in the reduction (use_init_val, as ONNX's reductions start from the data)."""
    allowed = {"axis": "INT"} | ({"reduction": "STRING"} if context.node.op_type == "ScatterElements" else {})
    attributes = cv._attributes(context, allowed)
    one_output(context)
    ports = ports_of(cv, context, node_inputs(context, 3, 3))
    axis = const_of(cv, context, attributes.get("axis", 0), ElementType.I64, "axis")
    cv._emit(context, ScatterElementsUpdate12(reduction=_reduction(cv, context, attributes), use_init_val=True),
             [*ports, axis])


# ------------------------------------------------------------------------------------ rearranging
BLOCK_MODES = {"DCR": "blocks_first", "CRD": "depth_first"}
"""ONNX DepthToSpace/SpaceToDepth mode -> the IR mode."""


@rule("DepthToSpace", versions=(1, 11, 13, 28))
def depth_to_space(cv: NodeConverter, context: NodeContext) -> None:
    """DepthToSpace -> DepthToSpace-1: mode DCR is blocks_first, CRD depth_first."""
    attributes = cv._attributes(context, {"blocksize": "INT", "mode": "STRING"})
    one_output(context)
    mode = text(attributes.get("mode", "DCR"))
    if mode not in BLOCK_MODES:
        raise context.fail(f"mode must be DCR or CRD; got {mode!r}")
    if "blocksize" not in attributes:
        raise context.fail("the 'blocksize' attribute is required")
    cv._emit(context, DepthToSpace(mode=BLOCK_MODES[mode], block_size=attributes["blocksize"]),
             ports_of(cv, context, node_inputs(context, 1, 1)))
    cv.im.explain(f"{context.label}: mode {mode} -> DepthToSpace-1 mode={BLOCK_MODES[mode]}")


@rule("SpaceToDepth", versions=(1, 13, 28))
def space_to_depth(cv: NodeConverter, context: NodeContext) -> None:
    """SpaceToDepth -> SpaceToDepth-1: ONNX's order (block offsets before the channels; mode DCR, the only one
    before opset 28) is blocks_first, CRD depth_first."""
    attributes = cv._attributes(context, {"blocksize": "INT"} | ({"mode": "STRING"} if context.version >= 28 else {}))
    one_output(context)
    if "blocksize" not in attributes:
        raise context.fail("the 'blocksize' attribute is required")
    mode = text(attributes.get("mode", "DCR"))
    if mode not in BLOCK_MODES:
        raise context.fail(f"mode must be DCR or CRD; got {mode!r}")
    cv._emit(context, SpaceToDepth(mode=BLOCK_MODES[mode], block_size=attributes["blocksize"]),
             ports_of(cv, context, node_inputs(context, 1, 1)))


@rule("Einsum", versions=(12, 28))
def einsum(cv: NodeConverter, context: NodeContext) -> None:
    """Einsum -> Einsum-7 with the equation (spaces removed)."""
    attributes = cv._attributes(context, {"equation": "STRING"})
    one_output(context)
    equation = text(attributes.get("equation", "")).replace(" ", "")
    if not equation:
        raise context.fail("the 'equation' attribute is required")
    cv._emit(context, Einsum(equation=equation), ports_of(cv, context, node_inputs(context, 1, 2**31)))


@rule("EyeLike", versions=(9, 22))
def eye_like(cv: NodeConverter, context: NodeContext) -> None:
    """EyeLike -> Eye-9 with the input's two dims (ShapeOf-3 and Gather-8 unless static), diagonal k and the type
    ``dtype`` (the input's without it)."""
    attributes = cv._attributes(context, {"dtype": "INT", "k": "INT"})
    one_output(context)
    (data,) = ports_of(cv, context, node_inputs(context, 1, 1))
    tensor = port_type(cv.im.model, data)
    if static_rank(cv, data, context, "the input") != 2:
        raise context.fail(f"takes a 2-D input; got {tensor.shape}")
    output_type = element_type_from_onnx(cv.onnx, attributes["dtype"], f"{context.label} dtype") \
        if "dtype" in attributes else tensor.element_type
    dims: list[OutputPort] = []
    shape = None
    for axis, what in ((0, "rows"), (1, "columns")):
        dim = tensor.shape[axis]
        if dim.is_static:
            dims.append(const_of(cv, context, dim.value, ElementType.I64, what))
            continue
        if shape is None:
            shape = helper_layer(cv, context, ShapeOf3(output_type=ElementType.I64), [data], "shape")
        dims.append(helper_layer(cv, context, Gather8(batch_dims=0), [
            shape, const_of(cv, context, axis, ElementType.I64, f"{what}_index"),
            const_of(cv, context, 0, ElementType.I64, f"{what}_axis")], what))
    diagonal = const_of(cv, context, attributes.get("k", 0), ElementType.I64, "k")
    cv._emit(context, Eye(output_type=output_type), [*dims, diagonal])

