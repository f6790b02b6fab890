"""ONNX node rules for ``convert_onnx``: Split (opsets 1, 2, 11, 13, 18), Concat (1, 4, 11, 13), Constant, Identity.

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

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError, OpError
from irgraph.core.shapes import Shape
from irgraph.graph import OutputPort
from irgraph.io.onnx.common import ImportContext, port_type
from irgraph.io.onnx.import_registry import RULES
from irgraph.ops import Concat, Const, Op, Parameter, Split, VariadicSplit
from irgraph.ops.op import shape_text

if TYPE_CHECKING:
    import onnx as onnx_types


KNOWN_VERSIONS: dict[str, tuple[int, ...] | None] = {
    "Split": (1, 2, 11, 13, 18), "Concat": (1, 4, 11, 13), "Constant": None, "Identity": None}
"""The ONNX ops converted here (``NodeConverter.handlers`` has one rule each) and the op versions known, None for
any; the other rules are in ``import_registry.RULES`` (``import_rules``)."""


def supported_ops() -> list[str]:
    """Every ONNX op type (ai.onnx domain) a rule converts."""
    return sorted(set(KNOWN_VERSIONS) | set(RULES))


@dataclass(frozen=True)
class NodeContext:
    """The ONNX node being converted and how to name it in messages."""

    node: onnx_types.NodeProto
    version: int
    label: str
    name: str

    def fail(self, message: str) -> ConversionError:
        return ConversionError(f"{self.label}: {message}")


class NodeConverter:
    """Converts ONNX nodes one by one into the importer's model."""

    def __init__(self, importer: ImportContext) -> None:
        self.im = importer
        self.onnx = importer.onnx
        self.handlers: dict[str, Callable[[NodeContext], None]] = {
            "Concat": self._concat, "Constant": self._constant, "Identity": self._identity, "Split": self._split,
        }

    def convert(self, node: onnx_types.NodeProto, index: int) -> None:
        """Convert one node; ConversionError for ops, domains and opsets irgraph does not convert."""
        outputs = [o for o in node.output if o]
        where = f"node {node.name!r}" if node.name else f"node #{index}"
        if not node.name and outputs:
            where += f" (output {outputs[0]!r})"
        standard = node.domain in ("", "ai.onnx")
        handler = self.handlers.get(node.op_type) if standard else None
        known = KNOWN_VERSIONS.get(node.op_type)
        if handler is None and standard and node.op_type in RULES:
            found = RULES[node.op_type]
            handler, known = functools.partial(found.handler, self), found.versions
        if handler is None:
            domain = f" (domain {node.domain!r})" if node.domain else ""
            raise self.im.error(
                f"{node.op_type}{domain} {where}: this ONNX op is not supported; "
                f"supported ops (ai.onnx domain): {', '.join(supported_ops())}"
            )
        version = self.onnx.defs.get_schema(node.op_type, self.im.opset, "").since_version
        if known is not None and version not in known:
            raise self.im.error(
                f"{node.op_type}-{version} {where}: irgraph converts {node.op_type} versions "
                f"{', '.join(map(str, known))}; this opset ({self.im.opset}) has a newer one"
            )
        name = node.name or f"{node.op_type}_{index}"
        context = NodeContext(node, version, f"{node.op_type}-{version} {where}", name)
        try:
            handler(context)
        except ConversionError as err:
            raise err.locate(self.im.location) from None

    # ---------------------------------------------------------------------------- shared
    def _attributes(self, context: NodeContext, allowed: dict[str, str]) -> dict[str, Any]:
        """Attribute values by name; unknown attributes and wrong attribute types are errors."""
        found: dict[str, Any] = {}
        for attribute in context.node.attribute:
            name = attribute.name
            if name == "split" and context.node.op_type == "Split" and context.version >= 13:
                raise context.fail(
                    f"has a 'split' attribute, but from opset 13 the lengths are the optional second input. "
                    "The tools disagree on this invalid node (the checker and onnxruntime reject it, OpenVINO "
                    "ignores the attribute, onnx.reference obeys it), so irgraph refuses it: move the lengths to "
                    f"an int64 initializer input. Got split={list(attribute.ints)}"
                )
            if name not in allowed:
                takes = ", ".join(sorted(allowed)) or "no attributes"
                raise context.fail(
                    f"has the attribute {name!r}, which this op version does not define (it takes: {takes})"
                )
            type_name = self.onnx.AttributeProto.AttributeType.Name(attribute.type)
            if type_name != allowed[name]:
                raise context.fail(f"attribute {name!r} must be {allowed[name]}; got {type_name}")
            found[name] = self.onnx.helper.get_attribute_value(attribute)
        return found

    def _emit(self, context: NodeContext, op: Op, inputs: Sequence[OutputPort], num_outputs: int | None = None) -> None:
        """Place the IR node for ``context`` and name its output ports after the ONNX outputs."""
        outputs = list(context.node.output)
        try:
            node = self.im.add(op, context.name, inputs, num_outputs=num_outputs)
        except OpError as err:
            pairs = zip(context.node.input, inputs, strict=False)
            described = ", ".join(f"{name!r} {port_type(self.im.model, port)}" for name, port in pairs)
            raise context.fail(f"{err.message} Inputs: {described}") from None
        for index, name in enumerate(outputs):
            if not name:
                continue
            self._check_unproduced(context, name)
            node.tensor_names[index] = [name]
            self.im.ports[name] = OutputPort(node.id, index)

    def _check_unproduced(self, context: NodeContext, name: str) -> None:
        """Refuse an output name some input, initializer or earlier node already gave a tensor."""
        if name in self.im.ports or name in self.im.constants:
            raise context.fail(f"output {name!r} is already produced elsewhere (ONNX tensor names are unique)")

    def _const(self, value: np.ndarray, name: str) -> OutputPort:
        """A Const made by the conversion (an axis or lengths), with no tensor name."""
        array = np.asarray(value, dtype=np.int64)
        op = Const(element_type=ElementType.I64, shape=tuple(array.shape), value=array)
        return OutputPort(self.im.add(op, name, []).id, 0)

    def _check_axis(self, context: NodeContext, axis: int, shape: Shape, what: str) -> None:
        """Check ``axis`` against the rank and explain negative axes before opset 11."""
        if not shape.rank_is_dynamic and not -shape.rank <= axis < shape.rank:
            raise context.fail(
                f"axis {axis} is out of range [{-shape.rank}, {shape.rank - 1}] for {what} of shape {shape}"
            )
        if axis < 0 and context.version < 11:
            self.im.explain(
                f"{context.label}: negative axis {axis} counts from the end (opset {context.version} predates "
                "negative axes; onnxruntime and onnx.reference accept them)"
            )

    # ---------------------------------------------------------------------------- Constant, Identity
    def _constant(self, context: NodeContext) -> None:
        attributes = self._attributes(context, {
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
            element_type, array = self.im.read_tensor(value, f"{context.label} value")
        else:
            element_type, dtype = {
                "value_float": (ElementType.F32, np.float32), "value_floats": (ElementType.F32, np.float32),
                "value_int": (ElementType.I64, np.int64), "value_ints": (ElementType.I64, np.int64),
            }.get(kind, (ElementType.STRING, object))
            if element_type is ElementType.STRING:
                value = [v.decode("utf-8") for v in value] if isinstance(value, list) else value.decode("utf-8")
            array = np.asarray(value, dtype=dtype)
        name = outputs[0]
        self._check_unproduced(context, name)
        self.im.constants[name] = (element_type, array)
        self.im.origins[name] = f"Constant {name!r}"
        self.im.explain(f"{context.label}: constant {name!r} {element_type}{shape_text(array.shape)}, "
                        "a Const where it is consumed as a tensor")

    def _identity(self, context: NodeContext) -> None:
        inputs, outputs = list(context.node.input), list(context.node.output)
        if len(inputs) != 1 or len(outputs) != 1 or not inputs[0] or not outputs[0]:
            raise context.fail(f"needs one input and one output; got inputs {inputs} and outputs {outputs}")
        port = self.im.tensor(inputs[0], context.label)
        self._check_unproduced(context, outputs[0])
        self.im.model.node(port.node_id).tensor_names[port.index].append(outputs[0])
        self.im.ports[outputs[0]] = port
        self.im.explain(f"{context.label}: {outputs[0]!r} becomes another tensor name of {inputs[0]!r} (no IR layer)")

    # ---------------------------------------------------------------------------- Concat
    def _concat(self, context: NodeContext) -> None:
        attributes = self._attributes(context, {"axis": "INT"})
        axis = attributes.get("axis")
        inputs, outputs = list(context.node.input), list(context.node.output)
        if not inputs or any(not name for name in inputs) or len(outputs) != 1:
            raise context.fail(f"needs at least one named input and one output; got inputs {inputs}, outputs {outputs}")
        ports = [self.im.tensor(name, context.label) for name in inputs]
        if axis is None:
            if context.version != 1:
                raise context.fail(f"Concat-{context.version} requires the 'axis' attribute; it is missing")
            axis = 1
            self.im.explain(f"{context.label}: no axis attribute -> axis 1, the Concat-1 spec's default "
                            "(OpenVINO and onnx.reference fail on it instead)")
        first = port_type(self.im.model, ports[0]).shape
        self._check_axis(context, axis, first, f"input {inputs[0]!r}")
        self._emit(context, Concat(axis=axis), ports)
        self.im.explain(f"{context.label}: {len(ports)} inputs on axis {axis} -> Concat-1 axis={axis}")

    # ---------------------------------------------------------------------------- Split
    def _split(self, context: NodeContext) -> None:
        version = context.version
        allowed = {"axis": "INT"}
        if version < 13:
            allowed["split"] = "INTS"
        if version >= 18:
            allowed["num_outputs"] = "INT"
        attributes = self._attributes(context, allowed)
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
        data = self.im.tensor(inputs[0], context.label)
        shape = port_type(self.im.model, data).shape
        axis = attributes.get("axis")
        if axis is None:
            axis = 0
            if version == 1:
                self.im.explain(f"{context.label}: no axis attribute -> axis 0 (Split-1's spec gives no default; "
                                "0 is the default from Split-2 on and OpenVINO's)")
        self._check_axis(context, axis, shape, f"input {inputs[0]!r}")
        dim = None if shape.rank_is_dynamic else shape[axis]
        size = dim.value if dim is not None and dim.is_static else None
        where = f"axis {axis} of size {size}" if size is not None else f"axis {axis} (dynamic {dim or 'rank'})"
        axis_port = self._const(np.int64(axis), f"{context.name}/axis")
        count = len(outputs)
        lengths = self._lengths(context, inputs, attributes, count)
        if isinstance(lengths, OutputPort):
            self._emit(context, VariadicSplit(), [data, axis_port, lengths], num_outputs=count)
            self.im.explain(f"{context.label}: lengths from the non-constant input {inputs[1]!r} on {where} "
                            "-> VariadicSplit-1 taking them as its split_lengths input (their sum is checked at run "
                            "time; a -1 fed there means 'the rest' as in VariadicSplit, where ONNX forbids it)")
            return
        if lengths is not None:
            values, source = lengths
            self._check_lengths(context, values, size, count)
            if size is not None and len(set(values)) == 1:
                self._emit(context, Split(num_splits=count), [data, axis_port])
                self.im.explain(f"{context.label}: equal lengths {values} from {source} on {where} "
                                f"-> Split-1 num_splits={count}")
                return
            lengths_port = self._lengths_port(context, values, inputs)
            self._emit(context, VariadicSplit(), [data, axis_port, lengths_port])
            self.im.explain(f"{context.label}: lengths {values} from {source} on {where} -> VariadicSplit-1")
            return
        if version >= 18 and "num_outputs" in attributes:
            self._num_outputs(context, attributes["num_outputs"], data, axis_port, size, where)
            return
        if version >= 18:
            self.im.explain(
                f"{context.label}: neither 'split' nor 'num_outputs' (the checker and onnxruntime reject this; "
                f"OpenVINO and onnx.reference split into the {count} outputs) -> equal parts as before opset 18"
            )
        if size is not None and size % count:
            raise context.fail(
                f"without 'split' the input is cut into {count} equal parts (one per output), so {where} must "
                f"divide by {count}. The tools disagree on uneven cuts (onnxruntime and OpenVINO refuse, "
                "onnx.reference gives uneven parts), so irgraph refuses too: give explicit 'split' lengths"
            )
        self._emit(context, Split(num_splits=count), [data, axis_port])
        rule = "" if size is not None else f"; the dim must divide by {count} at run time"
        self.im.explain(f"{context.label}: no lengths, {count} outputs on {where} -> Split-1 num_splits={count}{rule}")

    def _num_outputs(self, context: NodeContext, parts: int, data: OutputPort, axis_port: OutputPort,
                     size: int | None, where: str) -> None:
        count = len(context.node.output)
        if parts < 1 or parts != count:
            raise context.fail(f"num_outputs must be >= 1 and equal the number of outputs ({count}); got {parts}")
        if size is None:
            self._emit(context, Split(num_splits=parts), [data, axis_port])
            self.im.explain(
                f"{context.label}: num_outputs={parts} on {where} -> Split-1 num_splits={parts}: the dim must divide "
                f"by {parts} at run time (the spec's uneven chunks need a static dim; OpenVINO does the same)"
            )
            return
        if size % parts == 0:
            self._emit(context, Split(num_splits=parts), [data, axis_port])
            self.im.explain(f"{context.label}: num_outputs={parts} on {where} -> Split-1 num_splits={parts}")
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
        lengths = self._const(np.asarray(values), f"{context.name}/split")
        self._emit(context, VariadicSplit(), [data, axis_port, lengths])
        self.im.explain(f"{context.label}: num_outputs={parts} on {where} -> VariadicSplit-1 lengths {values} "
                        f"(ceil-sized chunks of {chunk}, the last smaller, as the Split-18 spec says)")

    def _lengths(self, context: NodeContext, inputs: list[str], attributes: dict[str, Any],
                 count: int) -> tuple[list[int], str] | OutputPort | None:
        """Explicit lengths as values (and where they came from), a non-constant port, or None."""
        attribute = [int(v) for v in attributes["split"]] if "split" in attributes else None
        name = inputs[1] if len(inputs) > 1 else None
        if context.version >= 18 and name is not None and "num_outputs" in attributes:
            raise context.fail("takes either the 'split' input or the 'num_outputs' attribute, not both")
        if name is None:
            return None if attribute is None else (attribute, "the 'split' attribute")
        found = self.im.constant(name)
        if context.version == 1:
            if found is None:
                raise context.fail(f"the optional second input {name!r} (the lengths) must be an initializer or a "
                                   "Constant so its values are known: IR lengths cannot be a float tensor")
            values = self._integral(context, found[1], name)
            if attribute is not None and attribute != values:
                raise context.fail(f"the 'split' attribute {attribute} and the second input {name!r} {values} disagree")
            self.im.explain(f"{context.label}: the optional second input {name!r} gives the lengths (honoured; "
                            "OpenVINO ignores it)")
            return values, f"the second input {name!r}"
        if found is not None:
            element_type, array = found
            if element_type is not ElementType.I64 or array.ndim != 1:
                raise context.fail(f"input 'split' ({name!r}) must be a 1-D int64 tensor; "
                                   f"got {element_type}{shape_text(array.shape)}")
            return [int(v) for v in array.tolist()], f"the constant {name!r}"
        return self._lengths_input(context, name, count)

    def _lengths_input(self, context: NodeContext, name: str, count: int) -> OutputPort:
        port = self.im.tensor(name, context.label)
        tensor_type = port_type(self.im.model, port)
        wanted = Shape.static([count])
        if tensor_type.element_type is not ElementType.I64 or not tensor_type.shape.compatible(wanted):
            raise context.fail(f"input 'split' ({name!r}) must be int64 of shape [{count}] (one length per output); "
                               f"got {tensor_type}")
        node = self.im.model.node(port.node_id)
        if not tensor_type.shape.is_static and isinstance(node.op, Parameter):
            node.op = Parameter(shape=wanted, element_type=ElementType.I64)
            node.output_types = [node.op.infer([], [])[0]]
            self.im.explain(f"input {name!r}: Parameter shape {tensor_type.shape} -> {wanted}, "
                            f"as {context.label} has {count} outputs")
        elif not tensor_type.shape.is_static:
            raise context.fail(f"input 'split' ({name!r}) must have a static shape [{count}]; got {tensor_type.shape}")
        return port

    def _integral(self, context: NodeContext, array: np.ndarray, name: str) -> list[int]:
        flat = np.asarray(array).reshape(-1)
        numbers = flat.astype(np.float64) if flat.dtype.kind in "iuf" else None
        if numbers is None or not np.all(np.isfinite(numbers)) or np.any(numbers != np.floor(numbers)):
            raise context.fail(f"the lengths in {name!r} must be whole numbers; got {flat.tolist()}")
        return [int(v) for v in flat.tolist()]

    def _check_lengths(self, context: NodeContext, values: list[int], size: int | None, count: int) -> None:
        if len(values) != count:
            raise context.fail(f"has {count} outputs but 'split' lists {len(values)} lengths: {values}")
        if any(v < 0 for v in values):
            raise context.fail(f"'split' lengths must be >= 0 (the ONNX rule; VariadicSplit's -1 does not apply); "
                               f"got {values}")
        if size is not None and sum(values) != size:
            raise context.fail(f"'split' lengths {values} sum to {sum(values)}, but the axis dim is {size}")

    def _lengths_port(self, context: NodeContext, values: list[int], inputs: list[str]) -> OutputPort:
        """The lengths Const: the ONNX int64 initializer itself when there is one (keeps its name)."""
        name = inputs[1] if len(inputs) > 1 else None
        found = self.im.constant(name) if name else None
        if name and found is not None and found[0] is ElementType.I64:
            return self.im.tensor(name, context.label)
        return self._const(np.asarray(values, dtype=np.int64), f"{context.name}/split")
