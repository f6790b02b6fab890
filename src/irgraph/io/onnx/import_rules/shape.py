"""ONNX -> IR rules for the shape ops of convolutional networks: Reshape, Flatten, Unsqueeze, Transpose and
ConstantOfShape.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.io.onnx.import_rules.helpers import (
    node_inputs,
    one_output,
    ports_of,
    static_rank,
)
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.ops.movement.broadcast import Broadcast3
from irgraph.ops.movement.transpose import Transpose
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.shape.unsqueeze import Unsqueeze

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext


# ------------------------------------------------------------------------------------ shape ops
@imports("Reshape", versions=(5, 13, 14, 19, 21, 23, 24, 25))
def reshape(context: ImportContext) -> None:
    """Reshape -> Reshape-1; ONNX's 0 copies the input dim (special_zero=true) unless allowzero=1."""
    attributes = context.attributes({"allowzero": "INT"})
    one_output(context)
    ports = ports_of(context, node_inputs(context, 2, 2))
    context.emit(Reshape(special_zero=not attributes.get("allowzero", 0)), ports)


@imports("Flatten", versions=(1, 9, 11, 13, 21, 23, 24, 25))
def flatten(context: ImportContext) -> None:
    """Flatten -> Reshape-1 to [d0 * ... * d(axis-1), -1] (for axis 1: [0, -1] with special_zero)."""
    attributes = context.attributes({"axis": "INT"})
    one_output(context)
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    shape = context.type_of(data).shape
    rank = static_rank(data, context, "the input")
    axis = attributes.get("axis", 1)
    axis = axis + rank if axis < 0 else axis
    if axis == 0:
        target = [1, -1]
    elif axis == 1:
        target = [0, -1]
    elif all(dim.is_static for dim in list(shape)[:axis]):
        target = [math.prod(dim.value for dim in list(shape)[:axis]), -1]
    else:
        raise context.fail(f"axis {axis} with dynamic leading dims {shape} needs a computed shape; not converted")
    context.emit(Reshape(special_zero=True), [data, context.const(target, ElementType.I64, "shape")])


@imports("Unsqueeze", versions=(1, 11, 13, 21, 23, 24, 25))
def unsqueeze(context: ImportContext) -> None:
    """Unsqueeze -> Unsqueeze-1 (axes from the attribute before opset 13, the input after)."""
    if context.version < 13:
        attributes = context.attributes({"axes": "INTS"})
        (data,) = ports_of(context, node_inputs(context, 1, 1))
        axes = context.const(list(attributes.get("axes", [])), ElementType.I64, "axes")
    else:
        context.attributes({})
        data, axes = ports_of(context, node_inputs(context, 2, 2))
    one_output(context)
    context.emit(Unsqueeze(), [data, axes])


@imports("Transpose", versions=(1, 13, 21, 23, 24, 25))
def transpose(context: ImportContext) -> None:
    """Transpose -> Transpose-1 with the permutation as a Const (reversed dims without ``perm``)."""
    attributes = context.attributes({"perm": "INTS"})
    one_output(context)
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    perm = list(attributes.get("perm", range(static_rank(data, context, "the input") - 1, -1, -1)))
    context.emit(Transpose(), [data, context.const(perm, ElementType.I64, "perm")])


@imports("ConstantOfShape", versions=(9, 20, 21, 23, 24, 25))
def constant_of_shape(context: ImportContext) -> None:
    """ConstantOfShape -> Broadcast-3 of its value (a one-element tensor, float 0 by default) to the shape."""
    attributes = context.attributes({"value": "TENSOR"})
    one_output(context)
    (shape,) = ports_of(context, node_inputs(context, 1, 1))
    if "value" in attributes:
        element_type, value = context.read_tensor(attributes["value"], f"{context.label} value")
        if value.size != 1:
            raise context.fail(f"value must hold one element; it has shape {list(value.shape)}")
    else:
        element_type, value = ElementType.F32, np.zeros((1,), np.float32)
    scalar = context.const(value.reshape(()), element_type, "value")
    context.emit(Broadcast3(mode="numpy"), [scalar, shape])
