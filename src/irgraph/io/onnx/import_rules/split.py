"""ONNX -> IR rules for Split (opsets 1, 2, 11, 13, 18) and Concat (1, 4, 11, 13).

Decisions where the tools disagree (each one is explained when it applies):

* no lengths and an uneven dim before opset 18: refused (onnxruntime and OpenVINO refuse,
  onnx.reference returns uneven parts);
* a ``split`` attribute in opset 13 or later: refused (the checker and onnxruntime reject it,
  OpenVINO ignores it, onnx.reference obeys it);
* Split-18 with neither ``split`` nor ``num_outputs``: equal parts over the outputs, the dim must
  divide evenly (the checker and onnxruntime reject the node; OpenVINO and onnx.reference split it);
* Split-18 ``num_outputs`` leaving an empty or negative last chunk (6 or 5 into 4): refused;
* Split-1's optional second input is honoured (OpenVINO ignores it);
* Concat-1 without ``axis`` uses axis 1, its spec's default (OpenVINO and onnx.reference fail);
* negative axes before opset 11 count from the end (onnxruntime and onnx.reference accept them).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Shape
from irgraph.graph import OutputPort
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.ops import Concat, Parameter, Split, VariadicSplit
from irgraph.ops.op import shape_text

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext


def _check_axis(context: ImportContext, axis: int, shape: Shape, what: str) -> None:
    """Check ``axis`` against the rank and explain negative axes before opset 11."""
    if not shape.rank_is_dynamic and not -shape.rank <= axis < shape.rank:
        raise context.fail(
            f"axis {axis} is out of range [{-shape.rank}, {shape.rank - 1}] for {what} of shape {shape}"
        )
    if axis < 0 and context.version < 11:
        context.explain(
            f"{context.label}: negative axis {axis} counts from the end (opset {context.version} predates "
            "negative axes; onnxruntime and onnx.reference accept them)"
        )


# ------------------------------------------------------------------------------------ Concat
@imports("Concat", versions=(1, 4, 11, 13))
def concat(context: ImportContext) -> None:
    """Concat -> Concat-1 (module docstring)."""
    attributes = context.attributes({"axis": "INT"})
    axis = attributes.get("axis")
    inputs, outputs = list(context.node.input), list(context.node.output)
    if not inputs or any(not name for name in inputs) or len(outputs) != 1:
        raise context.fail(f"needs at least one named input and one output; got inputs {inputs}, outputs {outputs}")
    ports = [context.tensor(name) for name in inputs]
    if axis is None:
        if context.version != 1:
            raise context.fail(f"Concat-{context.version} requires the 'axis' attribute; it is missing")
        axis = 1
        context.explain(f"{context.label}: no axis attribute -> axis 1, the Concat-1 spec's default "
                        "(OpenVINO and onnx.reference fail on it instead)")
    first = context.type_of(ports[0]).shape
    _check_axis(context, axis, first, f"input {inputs[0]!r}")
    context.emit(Concat(axis=axis), ports)
    context.explain(f"{context.label}: {len(ports)} inputs on axis {axis} -> Concat-1 axis={axis}")


# ------------------------------------------------------------------------------------ Split
@imports("Split", versions=(1, 2, 11, 13, 18))
def split(context: ImportContext) -> None:
    """Split -> Split-1 or VariadicSplit-1 (``convert_onnx``'s docstring says which)."""
    version = context.version
    allowed = {"axis": "INT"}
    if version < 13:
        allowed["split"] = "INTS"
    if version >= 18:
        allowed["num_outputs"] = "INT"
    _refuse_split_attribute(context, allowed)
    attributes = context.attributes(allowed)
    inputs = list(context.node.input)
    while inputs and not inputs[-1]:
        inputs.pop()
    takes = 2 if version == 1 or version >= 13 else 1
    if not inputs or not inputs[0] or len(inputs) > takes:
        raise context.fail(f"takes the data input{' and an optional split input' if takes == 2 else ''}; "
                           f"got inputs {list(context.node.input)}")
    outputs = list(context.node.output)
    if not outputs:
        raise context.fail("has no outputs")
    data = context.tensor(inputs[0])
    shape = context.type_of(data).shape
    axis = attributes.get("axis")
    if axis is None:
        axis = 0
        if version == 1:
            context.explain(f"{context.label}: no axis attribute -> axis 0 (Split-1's spec gives no default; "
                            "0 is the default from Split-2 on and OpenVINO's)")
    _check_axis(context, axis, shape, f"input {inputs[0]!r}")
    dim = None if shape.rank_is_dynamic else shape[axis]
    size = dim.value if dim is not None and dim.is_static else None
    where = f"axis {axis} of size {size}" if size is not None else f"axis {axis} (dynamic {dim or 'rank'})"
    axis_port = context.const(axis, ElementType.I64, "axis")
    count = len(outputs)
    lengths = _lengths(context, inputs, attributes, count)
    if isinstance(lengths, OutputPort):
        context.emit(VariadicSplit(), [data, axis_port, lengths], num_outputs=count)
        context.explain(f"{context.label}: lengths from the non-constant input {inputs[1]!r} on {where} "
                        "-> VariadicSplit-1 taking them as its split_lengths input (their sum is checked at run "
                        "time; a -1 fed there means 'the rest' as in VariadicSplit, where ONNX forbids it)")
        return
    if lengths is not None:
        values, source = lengths
        _check_lengths(context, values, size, count)
        if size is not None and len(set(values)) == 1:
            context.emit(Split(num_splits=count), [data, axis_port])
            context.explain(f"{context.label}: equal lengths {values} from {source} on {where} "
                            f"-> Split-1 num_splits={count}")
            return
        lengths_port = _lengths_port(context, values, inputs)
        context.emit(VariadicSplit(), [data, axis_port, lengths_port])
        context.explain(f"{context.label}: lengths {values} from {source} on {where} -> VariadicSplit-1")
        return
    if version >= 18 and "num_outputs" in attributes:
        _num_outputs(context, attributes["num_outputs"], data, axis_port, size, where)
        return
    if version >= 18:
        context.explain(
            f"{context.label}: neither 'split' nor 'num_outputs' (the checker and onnxruntime reject this; "
            f"OpenVINO and onnx.reference split into the {count} outputs) -> equal parts as before opset 18"
        )
    if size is not None and size % count:
        raise context.fail(
            f"without 'split' the input is cut into {count} equal parts (one per output), so {where} must "
            f"divide by {count}. The tools disagree on uneven cuts (onnxruntime and OpenVINO refuse, "
            "onnx.reference gives uneven parts), so irgraph refuses too: give explicit 'split' lengths"
        )
    context.emit(Split(num_splits=count), [data, axis_port])
    rule = "" if size is not None else f"; the dim must divide by {count} at run time"
    context.explain(f"{context.label}: no lengths, {count} outputs on {where} -> Split-1 num_splits={count}{rule}")


def _num_outputs(context: ImportContext, parts: int, data: OutputPort, axis_port: OutputPort,
                 size: int | None, where: str) -> None:
    count = len(context.node.output)
    if parts < 1 or parts != count:
        raise context.fail(f"num_outputs must be >= 1 and equal the number of outputs ({count}); got {parts}")
    if size is None:
        context.emit(Split(num_splits=parts), [data, axis_port])
        context.explain(
            f"{context.label}: num_outputs={parts} on {where} -> Split-1 num_splits={parts}: the dim must divide "
            f"by {parts} at run time (the spec's uneven chunks need a static dim; OpenVINO does the same)"
        )
        return
    if size % parts == 0:
        context.emit(Split(num_splits=parts), [data, axis_port])
        context.explain(f"{context.label}: num_outputs={parts} on {where} -> Split-1 num_splits={parts}")
        return
    chunk = math.ceil(size / parts)
    last = size - chunk * (parts - 1)
    if last <= 0:
        raise context.fail(
            f"num_outputs={parts} on {where}: the spec's ceil-sized chunks ({chunk} each) leave "
            f"{last} for the last output, and an output cannot be {'empty' if last == 0 else 'negative'}. "
            "The tools disagree here (onnx shape inference, onnx.reference, onnxruntime and OpenVINO give "
            "four different answers), so irgraph refuses: give explicit 'split' lengths"
        )
    values = [chunk] * (parts - 1) + [last]
    lengths = context.const(values, ElementType.I64, "split")
    context.emit(VariadicSplit(), [data, axis_port, lengths])
    context.explain(f"{context.label}: num_outputs={parts} on {where} -> VariadicSplit-1 lengths {values} "
                    f"(ceil-sized chunks of {chunk}, the last smaller, as the Split-18 spec says)")


def _lengths(context: ImportContext, inputs: list[str], attributes: dict[str, Any],
             count: int) -> tuple[list[int], str] | OutputPort | None:
    """Explicit lengths as values (and where they came from), a non-constant port, or None."""
    attribute = [int(v) for v in attributes["split"]] if "split" in attributes else None
    name = inputs[1] if len(inputs) > 1 else None
    if context.version >= 18 and name is not None and "num_outputs" in attributes:
        raise context.fail("takes either the 'split' input or the 'num_outputs' attribute, not both")
    if name is None:
        return None if attribute is None else (attribute, "the 'split' attribute")
    found = context.constant(name)
    if context.version == 1:
        if found is None:
            raise context.fail(f"the optional second input {name!r} (the lengths) must be an initializer or a "
                               "Constant so its values are known: IR lengths cannot be a float tensor")
        values = _integral(context, found[1], name)
        if attribute is not None and attribute != values:
            raise context.fail(f"the 'split' attribute {attribute} and the second input {name!r} {values} disagree")
        context.explain(f"{context.label}: the optional second input {name!r} gives the lengths (honoured; "
                        "OpenVINO ignores it)")
        return values, f"the second input {name!r}"
    if found is not None:
        element_type, array = found
        if element_type is not ElementType.I64 or array.ndim != 1:
            raise context.fail(f"input 'split' ({name!r}) must be a 1-D int64 tensor; "
                               f"got {element_type}{shape_text(array.shape)}")
        return [int(v) for v in array.tolist()], f"the constant {name!r}"
    return _lengths_input(context, name, count)


def _lengths_input(context: ImportContext, name: str, count: int) -> OutputPort:
    port = context.tensor(name)
    tensor_type = context.type_of(port)
    wanted = Shape.static([count])
    if tensor_type.element_type is not ElementType.I64 or not tensor_type.shape.compatible(wanted):
        raise context.fail(f"input 'split' ({name!r}) must be int64 of shape [{count}] (one length per output); "
                           f"got {tensor_type}")
    node = context.model.node(port.node_id)
    if not tensor_type.shape.is_static and isinstance(node.op, Parameter):
        node.op = Parameter(shape=wanted, element_type=ElementType.I64)
        node.outputs[0].type = node.op.infer([], [])[0]
        context.explain(f"input {name!r}: Parameter shape {tensor_type.shape} -> {wanted}, "
                        f"as {context.label} has {count} outputs")
    elif not tensor_type.shape.is_static:
        raise context.fail(f"input 'split' ({name!r}) must have a static shape [{count}]; got {tensor_type.shape}")
    return port


def _integral(context: ImportContext, array: np.ndarray, name: str) -> list[int]:
    flat = np.asarray(array).reshape(-1)
    numbers = flat.astype(np.float64) if flat.dtype.kind in "iuf" else None
    if numbers is None or not np.all(np.isfinite(numbers)) or np.any(numbers != np.floor(numbers)):
        raise context.fail(f"the lengths in {name!r} must be whole numbers; got {flat.tolist()}")
    return [int(v) for v in flat.tolist()]


def _check_lengths(context: ImportContext, values: list[int], size: int | None, count: int) -> None:
    if len(values) != count:
        raise context.fail(f"has {count} outputs but 'split' lists {len(values)} lengths: {values}")
    if any(v < 0 for v in values):
        raise context.fail(f"'split' lengths must be >= 0 (the ONNX rule; VariadicSplit's -1 does not apply); "
                           f"got {values}")
    if size is not None and sum(values) != size:
        raise context.fail(f"'split' lengths {values} sum to {sum(values)}, but the axis dim is {size}")


def _lengths_port(context: ImportContext, values: list[int], inputs: list[str]) -> OutputPort:
    """The lengths Const: the ONNX int64 initializer itself when there is one (keeps its name)."""
    name = inputs[1] if len(inputs) > 1 else None
    found = context.constant(name) if name else None
    if name and found is not None and found[0] is ElementType.I64:
        return context.tensor(name)
    return context.const(values, ElementType.I64, "split")


def _refuse_split_attribute(context: ImportContext, allowed: dict[str, str]) -> None:
    """From opset 13 the lengths are an input: a ``split`` attribute met before any other wrong attribute is
    refused with its own reason (the tools disagree on it)."""
    if context.version < 13:
        return
    for attribute in context.node.attribute:
        if attribute.name == "split":
            raise context.fail(
                "has a 'split' attribute, but from opset 13 the lengths are the optional second input. "
                "The tools disagree on this invalid node (the checker and onnxruntime reject it, OpenVINO "
                "ignores the attribute, onnx.reference obeys it), so irgraph refuses it: move the lengths to "
                f"an int64 initializer input. Got split={list(attribute.ints)}"
            )
        type_name = context.onnx.AttributeProto.AttributeType.Name(attribute.type)
        if allowed.get(attribute.name) != type_name:
            return  # context.attributes names this one
