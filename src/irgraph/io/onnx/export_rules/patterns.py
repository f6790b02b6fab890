"""Helpers the export rules share: a pattern's node list, constant inputs, int64 inputs, static shapes,
broadcasting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.graph import Node
from irgraph.io.onnx.common import onnx_type_name, require_onnx
from irgraph.io.onnx.export_rules.registry import ExportContext
from irgraph.ops.op import normalize_axis


class Pattern:
    """The ONNX nodes a rule writes for one layer, made step by step (``made`` is the rule's return value)."""

    def __init__(self, ctx: ExportContext, node: Node) -> None:
        self.ctx = ctx
        self.node = node
        self.made: list = []

    def step(self, op_type: str, inputs: list[str], name: str, outputs: int = 1, **attributes: object) -> Any:
        """Add a node named after the layer and ``name``; its output name (a list of ``outputs`` names if > 1)."""
        out = [self.ctx.temp(self.node, f"{name}{i}" if outputs > 1 else name) for i in range(outputs)]
        self.made.append(self.ctx.make(self.node, op_type, inputs, out, step=name, **attributes))
        return out if outputs > 1 else out[0]

    def int64(self, name: str, value: object) -> str:
        """An int64 initializer holding ``value``; its name."""
        return self.ctx.initializer(self.node, name, np.asarray(value, np.int64))


def scalar_initializer(ctx: ExportContext, node: Node, step: str, value: float, element_type: ElementType) -> str:
    """An initializer holding ``value`` as a 0-d tensor of ``element_type``."""
    return ctx.initializer(node, step, np.asarray(value, dtype=element_type.numpy_dtype))


def constant_ints(ctx: ExportContext, node: Node, index: int, what: str) -> list[int]:
    """The integer values of a constant input; refused when a computed tensor feeds it."""
    value = ctx.constant(node, index)
    if value is None:
        raise ctx.refuse(f"its {what} (input {index}) must come straight from a Const to export it "
                         "(ONNX takes it as an attribute or needs its value)")
    return [int(v) for v in np.asarray(value).reshape(-1)]


def constant_axis(ctx: ExportContext, node: Node, index: int, rank_of: int = 0) -> int:
    """A one-element constant axis input, checked against the rank of input ``rank_of`` when known."""
    value = ctx.constant(node, index)
    if value is None or np.size(value) != 1:
        raise ctx.refuse(f"{node.type_name}'s axis must come straight from a one-element Const to export it (ONNX "
                         "takes the axis as an attribute)")
    axis = int(np.asarray(value).reshape(-1)[0])
    shape = ctx.input_type(node, rank_of).shape
    if not shape.rank_is_dynamic:
        try:
            normalize_axis(axis, shape.rank)
        except OpError as err:
            raise ctx.refuse(err.message) from None
    return axis


def int64_input(ctx: ExportContext, node: Node, index: int, step: str, made: list, *,
                scalar: bool | None = None) -> str:
    """Input ``index`` as an int64 tensor (ONNX shape, axes and index inputs are int64): a Const becomes
    an int64 initializer, a computed tensor of another type goes through a Cast appended to ``made``.
    ``scalar`` True makes a constant a 0-d tensor, False a 1-d one (None keeps its shape)."""
    value = ctx.constant(node, index)
    if value is not None:
        array = np.asarray(value).astype(np.int64)
        if scalar is True:
            array = array.reshape(())
        elif scalar is False:
            array = array.reshape(-1)
        if np.asarray(value).dtype == np.int64 and array.shape == np.shape(value):
            return ctx.inputs(node)[index]
        return ctx.initializer(node, step, array)
    name = ctx.inputs(node)[index]
    if ctx.input_type(node, index).element_type is ElementType.I64:
        return name
    return cast(ctx, node, name, ElementType.I64, f"{step}_i64", made)


def cast(ctx: ExportContext, node: Node, name: str, element_type: ElementType, step: str, made: list) -> str:
    """Append a Cast of tensor ``name`` to ``element_type`` to ``made``; the cast tensor's name."""
    code = onnx_type_code(element_type)
    out = ctx.temp(node, step)
    made.append(ctx.make(node, "Cast", [name], [out], step=step, to=code))
    return out


def input_rank(ctx: ExportContext, node: Node, index: int) -> int:
    """The rank of input ``index``; refused when it is dynamic."""
    shape = ctx.input_type(node, index).shape
    if shape.rank_is_dynamic:
        raise ctx.refuse(f"input {index} has a dynamic rank; this export needs to know it")
    return shape.rank


def broadcast_inputs(
    ctx: ExportContext, node: Node, mode: str, made: list, indices: Sequence[int] = (0, 1)
) -> list[str]:
    """The inputs for an ONNX op with numpy broadcasting under IR ``auto_broadcast`` ``mode``.

    numpy is ONNX's own; none has equal shapes (shape inference checked); pdpd aligns input 1 to
    input 0 from axis 0 after dropping input 1's trailing 1s, which a Squeeze of those and an
    Unsqueeze of new trailing axes make numpy's.
    """
    names = list(ctx.inputs(node))
    if mode != "pdpd":
        return names
    first, second = indices
    target, source = input_rank(ctx, node, first), ctx.input_type(node, second).shape
    if source.rank_is_dynamic:
        raise ctx.refuse("pdpd broadcast of an input of dynamic rank has no ONNX form")
    dims = list(source)
    while dims and dims[-1].is_static and dims[-1].value == 1:  # OpenVINO drops trailing 1s first
        dims.pop()
    if dims and not dims[-1].is_static and dims[-1].contains(1):
        raise ctx.refuse(f"pdpd broadcast of {source}: whether its last dim is dropped depends on the run")
    kept, current = len(dims), names[second]
    if kept < source.rank:
        axes = ctx.initializer(node, "pdpd_squeeze_axes", np.arange(kept, source.rank, dtype=np.int64))
        squeezed = ctx.temp(node, "pdpd_squeeze")
        made.append(ctx.make(node, "Squeeze", [current, axes], [squeezed], step="pdpd_squeeze"))
        current = squeezed
    if kept < target:
        axes = ctx.initializer(node, "pdpd_axes", np.arange(kept, target, dtype=np.int64))
        aligned = ctx.temp(node, "pdpd")
        made.append(ctx.make(node, "Unsqueeze", [current, axes], [aligned], step="pdpd"))
        current = aligned
    names[second] = current
    return names


def onnx_type_code(element_type: ElementType) -> int:
    """The ONNX TensorProto data type code of an IR element type."""
    return int(require_onnx().TensorProto.DataType.Value(onnx_type_name(element_type, "a tensor")))
