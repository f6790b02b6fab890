"""ONNX -> IR rules for Constant and Identity, which place no layer: a Constant's value becomes a Const where
it is consumed as a tensor, an Identity's output another tensor name of its input."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.ops.op import shape_text

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext


@imports("Constant")
def constant(context: ImportContext) -> None:
    """Constant -> no layer: its value becomes a Const where it is consumed as a tensor."""
    attributes = context.attributes({
        "value": "TENSOR", "value_float": "FLOAT", "value_floats": "FLOATS", "value_int": "INT",
        "value_ints": "INTS", "value_string": "STRING", "value_strings": "STRINGS", "sparse_value": "SPARSE_TENSOR",
    })
    outputs = list(context.node.output)
    if len(attributes) != 1 or len(outputs) != 1 or context.node.input:
        raise context.fail(
            "needs exactly one value attribute, no inputs and one output; got attributes "
            f"{sorted(attributes)}, {len(context.node.input)} inputs, {len(outputs)} outputs"
        )
    (kind, value), = attributes.items()
    if kind == "sparse_value":
        raise context.fail("sparse_value constants are not supported; use a dense 'value' tensor")
    if kind == "value":
        element_type, array = context.read_tensor(value, f"{context.label} value")
    else:
        element_type, dtype = {
            "value_float": (ElementType.F32, np.float32), "value_floats": (ElementType.F32, np.float32),
            "value_int": (ElementType.I64, np.int64), "value_ints": (ElementType.I64, np.int64),
        }.get(kind, (ElementType.STRING, object))
        if element_type is ElementType.STRING:
            value = [v.decode("utf-8") for v in value] if isinstance(value, list) else value.decode("utf-8")
        array = np.asarray(value, dtype=dtype)
    name = outputs[0]
    context.define(name, element_type, array)
    context.explain(f"{context.label}: constant {name!r} {element_type}{shape_text(array.shape)}, "
                    "a Const where it is consumed as a tensor")


@imports("Identity")
def identity(context: ImportContext) -> None:
    """Identity -> no layer: its output becomes another tensor name of its input."""
    inputs, outputs = list(context.node.input), list(context.node.output)
    if len(inputs) != 1 or len(outputs) != 1 or not inputs[0] or not outputs[0]:
        raise context.fail(f"needs one input and one output; got inputs {inputs} and outputs {outputs}")
    context.alias(outputs[0], context.tensor(inputs[0]))
    context.explain(f"{context.label}: {outputs[0]!r} becomes another tensor name of {inputs[0]!r} (no IR layer)")
