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
from irgraph.io.onnx.common import element_type_from_onnx
from irgraph.io.onnx.import_rules.helpers import helper_layer, node_inputs, one_output, ports_of, static_rank, text
from irgraph.io.onnx.import_rules.registry import imports
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
    from irgraph.io.onnx.import_rules.registry import ImportContext


def scalar_of(context: ImportContext, name: str, what: str,
              element_type: ElementType | None = None) -> OutputPort:
    """ONNX tensor ``name`` of one element as an IR scalar (optionally converted to ``element_type``)."""
    found = context.constant(name)
    if found is not None:
        if np.size(found[1]) != 1:
            raise context.fail(f"its {what} {name!r} must hold one value; got shape {list(np.shape(found[1]))}")
        target = element_type or found[0]
        value = np.asarray(found[1]).reshape(())
        if target.is_integral and found[0].is_real:
            value = np.trunc(value)
        return context.const(value, target, what)
    port = context.tensor(name)
    if element_type is not None and context.type_of(port).element_type is not element_type:
        port = helper_layer(context, Convert(destination_type=element_type), [port], f"{what}_converted")
    return helper_layer(context, Reshape(special_zero=False),
                        [port, context.const(np.zeros((0,), np.int64), ElementType.I64, f"{what}_scalar")],
                        what)


# ------------------------------------------------------------------------------------ sorting
@imports("ArgMax", "ArgMin", versions=(1, 11, 12, 13))
def arg_max_min(context: ImportContext) -> None:
    """ArgMax/ArgMin -> the indices (i64) of TopK-11 with k=1, stable (the first of equal values), and a Squeeze-1 of
    the axis unless keepdims. select_last_index=1: the same on the input reversed along the axis (Reverse-1), the
    index then counted from the end (dim - 1 - index)."""
    attributes = context.attributes({"axis": "INT", "keepdims": "INT", "select_last_index": "INT"})
    one_output(context)
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    axis = attributes.get("axis", 0)
    last = bool(attributes.get("select_last_index", 0))
    axis_port = context.const([axis], ElementType.I64, "axis")
    source = helper_layer(context, Reverse(mode="index"), [data, axis_port], "reversed") if last else data
    mode = "max" if context.node.op_type == "ArgMax" else "min"
    op = TopK11(axis=axis, mode=mode, sort="value", index_element_type=ElementType.I64, stable=True)
    k = context.const(1, ElementType.I64, "k")
    keep = attributes.get("keepdims", 1)
    indices = OutputPort(context.add(op, f"{context.name}/top", [source, k]).id, 1)
    if last:
        shape = helper_layer(context, ShapeOf3(output_type=ElementType.I64), [data], "shape")
        dim = helper_layer(context, Gather8(batch_dims=0), [shape, axis_port, context.const(
            0, ElementType.I64, "zero")], "dim")
        top_index = helper_layer(context, Subtract(), [dim, context.const(1, ElementType.I64, "one")],
                                 "top_index")
        if keep:
            context.emit(Subtract(), [top_index, indices])
        else:
            counted = helper_layer(context, Subtract(), [top_index, indices], "counted")
            context.emit(Squeeze(), [counted, axis_port])
    elif keep:
        context.bind(indices, context.node.output[0])
    else:
        context.emit(Squeeze(), [indices, axis_port])
    reversed_note = " of the input reversed (Reverse-1), counted from the end (select_last_index=1)" if last else ""
    context.explain(f"{context.label}: -> TopK-11 k=1 mode={mode} stable, its i64 indices{reversed_note}"
                    f"{'' if keep else ', Squeeze-1 of the axis (keepdims=0)'}")


@imports("TopK", versions=(1, 10, 11, 24))
def top_k(context: ImportContext) -> None:
    """TopK -> TopK-11 (i64 indices, stable: equal values by lower index, as onnxruntime orders them). ``sorted=0``
    leaves the order to the implementation: irgraph sorts by value."""
    if context.version == 1:
        attributes = context.attributes({"axis": "INT", "k": "INT"})
        (data,) = ports_of(context, node_inputs(context, 1, 1))
        if "k" not in attributes:
            raise context.fail("the 'k' attribute is required")
        k = context.const(attributes["k"], ElementType.I64, "k")
    else:
        allowed = {"axis": "INT"} | ({"largest": "INT", "sorted": "INT"} if context.version >= 11 else {})
        attributes = context.attributes(allowed)
        names = node_inputs(context, 2, 2)
        data = context.tensor(names[0])
        k = scalar_of(context, names[1], "k")
    outputs = list(context.node.output)
    if len(outputs) != 2:
        raise context.fail(f"has the outputs Values and Indices; got {outputs}")
    mode = "max" if attributes.get("largest", 1) else "min"
    if not attributes.get("sorted", 1):
        context.explain(f"{context.label}: sorted=0 leaves the order unspecified; irgraph gives it sorted by value")
    context.emit(TopK11(axis=attributes.get("axis", -1), mode=mode, sort="value",
                        index_element_type=ElementType.I64, stable=True), [data, k], num_outputs=2)


@imports("Hardmax", versions=(1, 11, 13))
def hardmax(context: ImportContext) -> None:
    """Hardmax -> OneHot-16 (1 and 0 of the data's type) of the stable TopK-11 k=1 index on the axis (the first
    maximum, as ONNX picks). Before opset 13 Hardmax works on the input flattened to 2D at ``axis``: converted
    when that axis is the last one (the same thing), refused otherwise."""
    attributes = context.attributes({"axis": "INT"})
    one_output(context)
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    tensor = context.type_of(data)
    rank = static_rank(data, context, "the input")
    axis = attributes.get("axis", -1 if context.version >= 13 else 1)
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise context.fail(f"axis {attributes.get('axis')} is out of range for rank {rank}")
    if context.version < 13 and axis != rank - 1:
        raise context.fail(f"Hardmax-{context.version} on axis {axis} of {rank} flattens the input to 2D; irgraph "
                           "converts it on the last axis only")
    top = context.add(TopK11(axis=axis, mode="max", sort="value", index_element_type=ElementType.I64, stable=True),
                      f"{context.name}/top", [data, context.const(1, ElementType.I64, "k")])
    index = helper_layer(context, Squeeze(), [OutputPort(top.id, 1), context.const([axis], ElementType.I64,
                                                                                   "axis")], "index")
    dim = tensor.shape[axis]
    if dim.is_static:
        depth = context.const(dim.value, ElementType.I64, "depth")
    else:
        shape = helper_layer(context, ShapeOf3(output_type=ElementType.I64), [data], "shape")
        depth = helper_layer(context, Gather8(batch_dims=0), [shape, context.const(axis, ElementType.I64,
                                                                                   "depth_index"),
                                                                   context.const(0, ElementType.I64, "zero")],
                             "depth")
    on, off = (context.const(v, tensor.element_type, what) for v, what in ((1, "on"), (0, "off")))
    context.emit(OneHot16(axis=axis), [index, depth, on, off])
    context.explain(f"{context.label}: -> OneHot-16 of the TopK-11 (k=1, stable) index on axis {axis}")


@imports("ReverseSequence", versions=(10, 28))
def reverse_sequence(context: ImportContext) -> None:
    """ReverseSequence -> ReverseSequence-1 (time_axis is IR's seq_axis)."""
    attributes = context.attributes({"batch_axis": "INT", "time_axis": "INT"})
    one_output(context)
    context.emit(ReverseSequence(batch_axis=attributes.get("batch_axis", 1),
                                 seq_axis=attributes.get("time_axis", 0)),
             ports_of(context, node_inputs(context, 2, 2)))


@imports("Unique", versions=(11, 28))
def unique(context: ImportContext) -> None:
    """Unique -> Unique-10 (i64 indices and counts; the axis as a Const when given, else the flattened input):
    Y, indices, inverse_indices and counts in ONNX's order."""
    attributes = context.attributes({"axis": "INT", "sorted": "INT"})
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    inputs = [data] + ([context.const(attributes["axis"], ElementType.I64, "axis")]
                       if "axis" in attributes else [])
    context.emit(Unique(sorted=bool(attributes.get("sorted", 1))), inputs, num_outputs=4)


@imports("Compress", versions=(9, 11, 28))
def compress(context: ImportContext) -> None:
    """Compress -> Gather-8 of the positions NonZero-3 finds in the condition (squeezed to 1-D), along ``axis``
    or over the flattened input without it."""
    attributes = context.attributes({"axis": "INT"})
    one_output(context)
    data, condition = ports_of(context, node_inputs(context, 2, 2))
    positions = helper_layer(context, NonZero(output_type=ElementType.I64), [condition], "positions")
    indices = helper_layer(context, Squeeze(), [positions, context.const([0], ElementType.I64,
                                                                         "positions_axis")], "indices")
    if "axis" not in attributes:
        data = helper_layer(context, Reshape(special_zero=False), [data, context.const(
            [-1], ElementType.I64, "flat_shape")], "flat")
    axis = context.const(attributes.get("axis", 0), ElementType.I64, "axis")
    context.emit(Gather8(batch_dims=0), [data, indices, axis])
    flat = "" if "axis" in attributes else " over the flattened input"
    context.explain(f"{context.label}: -> Gather-8 of NonZero-3(condition){flat}")


@imports("Col2Im", versions=(18,))
def col2im(context: ImportContext) -> None:
    """Col2Im -> Col2Im-15 (image_shape is output_size, block_shape kernel_size; pads split into begins and ends)."""
    attributes = context.attributes({"dilations": "INTS", "pads": "INTS", "strides": "INTS"})
    one_output(context)
    pads = list(attributes.get("pads", [0, 0, 0, 0]))
    ports = ports_of(context, node_inputs(context, 3, 3))
    image = context.type_of(ports[1]).shape
    if len(pads) != 4 or image.rank_is_dynamic or not image.is_static or image.to_tuple() != (2,):
        raise context.fail(f"Col2Im-15 rebuilds 2-D images (image_shape of 2 values, 4 pads); got image_shape "
                           f"{image}, pads {pads}")
    op = Col2Im(strides=tuple(attributes.get("strides", (1, 1))), dilations=tuple(attributes.get("dilations", (1, 1))),
                pads_begin=tuple(pads[:2]), pads_end=tuple(pads[2:]))
    context.emit(op, ports)


@imports("CumSum", versions=(11, 14))
def cum_sum(context: ImportContext) -> None:
    """CumSum -> CumSum-3 with exclusive and reverse; the axis as a scalar."""
    attributes = context.attributes({"exclusive": "INT", "reverse": "INT"})
    one_output(context)
    names = node_inputs(context, 2, 2)
    data = context.tensor(names[0])
    axis = scalar_of(context, names[1], "axis")
    context.emit(CumSum(exclusive=bool(attributes.get("exclusive", 0)),
                        reverse=bool(attributes.get("reverse", 0))), [data, axis])


@imports("NonZero", versions=(9, 13))
def non_zero(context: ImportContext) -> None:
    """NonZero -> NonZero-3 (i64, [rank, count], row-major order in both)."""
    context.attributes({})
    one_output(context)
    context.emit(NonZero(output_type=ElementType.I64), ports_of(context, node_inputs(context, 1, 1)))


@imports("OneHot", versions=(9, 11, 28))
def one_hot(context: ImportContext) -> None:
    """OneHot -> OneHot-16 with negative_indices_mode=normalize (an index in [-depth, -1] counts from the end);
    depth becomes an i64 scalar, values [off, on] two scalars, non-integer indices are converted to i64."""
    attributes = context.attributes({"axis": "INT"})
    one_output(context)
    names = node_inputs(context, 3, 3)
    indices = context.tensor(names[0])
    if not context.type_of(indices).element_type.is_integral:
        indices = helper_layer(context, Convert(destination_type=ElementType.I64), [indices], "indices")
        context.explain(f"{context.label}: float indices -> Convert-1 to i64 (truncation, as onnxruntime casts them)")
    depth = scalar_of(context, names[1], "depth", ElementType.I64)
    found = context.constant(names[2])
    if found is not None:
        if np.size(found[1]) != 2:
            raise context.fail(f"values must hold [off_value, on_value]; got shape {list(np.shape(found[1]))}")
        off, on = (context.const(value, found[0], what)
                   for value, what in zip(np.asarray(found[1]).reshape(-1), ("off", "on"), strict=True))
    else:
        values = context.tensor(names[2])
        zero = context.const(0, ElementType.I64, "axis0")
        off, on = (helper_layer(context, Gather8(batch_dims=0),
                                [values, context.const(index, ElementType.I64, f"{what}_index"), zero], what)
                   for index, what in ((0, "off"), (1, "on")))
    context.emit(OneHot16(axis=attributes.get("axis", -1), negative_indices_mode="normalize"),
                 [indices, depth, on, off])
    if context.version < 11:
        context.explain(f"{context.label}: negative indices count from the end as OneHot-11 says (onnxruntime 1.31.1 "
                        "does so for OneHot-9 too)")


# ------------------------------------------------------------------------------------ gather, scatter
@imports("GatherElements", versions=(11, 13))
def gather_elements(context: ImportContext) -> None:
    """GatherElements -> GatherElements-6 (negative indices count from the end in both)."""
    attributes = context.attributes({"axis": "INT"})
    one_output(context)
    context.emit(GatherElements(axis=attributes.get("axis", 0)), ports_of(context, node_inputs(context, 2, 2)))


@imports("GatherND", versions=(11, 12, 13))
def gather_nd(context: ImportContext) -> None:
    """GatherND -> GatherND-8 (the batch dims kept in the output, as ONNX keeps them)."""
    attributes = context.attributes({"batch_dims": "INT"})
    one_output(context)
    context.emit(GatherND8(batch_dims=attributes.get("batch_dims", 0)),
                 ports_of(context, node_inputs(context, 2, 2)))


SCATTER_REDUCTIONS = {"none": "none", "add": "sum", "mul": "prod", "max": "max", "min": "min"}
"""ONNX reduction -> the IR scatter reduction."""


def _reduction(context: ImportContext, attributes: dict[str, Any]) -> str:
    found = text(attributes.get("reduction", "none"))
    if found not in SCATTER_REDUCTIONS:
        raise context.fail(f"reduction must be one of {', '.join(SCATTER_REDUCTIONS)}; got {found!r}")
    return SCATTER_REDUCTIONS[found]


@imports("ScatterND", versions=(11, 13, 16, 18))
def scatter_nd(context: ImportContext) -> None:
    """ScatterND -> ScatterNDUpdate-15 (reduction add -> sum, mul -> prod). Duplicate indices without a reduction
    are undefined in ONNX; IR applies the updates in order (the last wins)."""
    attributes = context.attributes({"reduction": "STRING"})
    one_output(context)
    context.emit(ScatterNDUpdate15(reduction=_reduction(context, attributes)),
                 ports_of(context, node_inputs(context, 3, 3)))


@imports("ScatterElements", versions=(11, 13, 16, 18))
@imports("Scatter", versions=(9, 11))
def scatter_elements(context: ImportContext) -> None:
    """ScatterElements (and the deprecated Scatter) -> ScatterElementsUpdate-12 with the axis as a Const, the data
    taking part in the reduction (use_init_val, as ONNX's reductions start from the data)."""
    allowed = {"axis": "INT"} | ({"reduction": "STRING"} if context.node.op_type == "ScatterElements" else {})
    attributes = context.attributes(allowed)
    one_output(context)
    ports = ports_of(context, node_inputs(context, 3, 3))
    axis = context.const(attributes.get("axis", 0), ElementType.I64, "axis")
    context.emit(ScatterElementsUpdate12(reduction=_reduction(context, attributes), use_init_val=True),
                 [*ports, axis])


# ------------------------------------------------------------------------------------ rearranging
BLOCK_MODES = {"DCR": "blocks_first", "CRD": "depth_first"}
"""ONNX DepthToSpace/SpaceToDepth mode -> the IR mode."""


@imports("DepthToSpace", versions=(1, 11, 13, 28))
def depth_to_space(context: ImportContext) -> None:
    """DepthToSpace -> DepthToSpace-1: mode DCR is blocks_first, CRD depth_first."""
    attributes = context.attributes({"blocksize": "INT", "mode": "STRING"})
    one_output(context)
    mode = text(attributes.get("mode", "DCR"))
    if mode not in BLOCK_MODES:
        raise context.fail(f"mode must be DCR or CRD; got {mode!r}")
    if "blocksize" not in attributes:
        raise context.fail("the 'blocksize' attribute is required")
    context.emit(DepthToSpace(mode=BLOCK_MODES[mode], block_size=attributes["blocksize"]),
                 ports_of(context, node_inputs(context, 1, 1)))
    context.explain(f"{context.label}: mode {mode} -> DepthToSpace-1 mode={BLOCK_MODES[mode]}")


@imports("SpaceToDepth", versions=(1, 13, 28))
def space_to_depth(context: ImportContext) -> None:
    """SpaceToDepth -> SpaceToDepth-1: ONNX's order (block offsets before the channels; mode DCR, the only one
    before opset 28) is blocks_first, CRD depth_first."""
    attributes = context.attributes({"blocksize": "INT"} | ({"mode": "STRING"} if context.version >= 28 else {}))
    one_output(context)
    if "blocksize" not in attributes:
        raise context.fail("the 'blocksize' attribute is required")
    mode = text(attributes.get("mode", "DCR"))
    if mode not in BLOCK_MODES:
        raise context.fail(f"mode must be DCR or CRD; got {mode!r}")
    context.emit(SpaceToDepth(mode=BLOCK_MODES[mode], block_size=attributes["blocksize"]),
                 ports_of(context, node_inputs(context, 1, 1)))


@imports("Einsum", versions=(12, 28))
def einsum(context: ImportContext) -> None:
    """Einsum -> Einsum-7 with the equation (spaces removed)."""
    attributes = context.attributes({"equation": "STRING"})
    one_output(context)
    equation = text(attributes.get("equation", "")).replace(" ", "")
    if not equation:
        raise context.fail("the 'equation' attribute is required")
    context.emit(Einsum(equation=equation), ports_of(context, node_inputs(context, 1, 2**31)))


@imports("EyeLike", versions=(9, 22))
def eye_like(context: ImportContext) -> None:
    """EyeLike -> Eye-9 with the input's two dims (ShapeOf-3 and Gather-8 unless static), diagonal k and the type
    ``dtype`` (the input's without it)."""
    attributes = context.attributes({"dtype": "INT", "k": "INT"})
    one_output(context)
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    tensor = context.type_of(data)
    if static_rank(data, context, "the input") != 2:
        raise context.fail(f"takes a 2-D input; got {tensor.shape}")
    output_type = element_type_from_onnx(context.onnx, attributes["dtype"], f"{context.label} dtype") \
        if "dtype" in attributes else tensor.element_type
    dims: list[OutputPort] = []
    shape = None
    for axis, what in ((0, "rows"), (1, "columns")):
        dim = tensor.shape[axis]
        if dim.is_static:
            dims.append(context.const(dim.value, ElementType.I64, what))
            continue
        if shape is None:
            shape = helper_layer(context, ShapeOf3(output_type=ElementType.I64), [data], "shape")
        dims.append(helper_layer(context, Gather8(batch_dims=0), [
            shape, context.const(axis, ElementType.I64, f"{what}_index"),
            context.const(0, ElementType.I64, f"{what}_axis")], what))
    diagonal = context.const(attributes.get("k", 0), ElementType.I64, "k")
    context.emit(Eye(output_type=output_type), [*dims, diagonal])

