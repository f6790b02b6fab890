"""Op builders: one function per op version, made from its class, that adds a layer and infers it at once.

``make_builder(MatMul)`` is ``mat_mul(a, b, *, transpose_a=False, transpose_b=False, name=None, model=None)``:
inputs are OutputPorts or values (a value becomes a Const: Python ints i64, floats f32, arrays their dtype),
attributes are keywords checked against their declared types, and the new layer's output types are
inferred before the builder returns, so a mistake raises at the call that made it (ShapeInferenceError naming
the op's rule, OpError for a bad attribute) and leaves the model as it was.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from irgraph.analysis.shape_inference import infer_added_node, walk
from irgraph.builders.spec import AttributeSpec, BuilderSpec, Returns, shape_of, spec_of
from irgraph.core.element_types import ElementType
from irgraph.core.errors import GraphError, IrError, OpError, ShapeInferenceError
from irgraph.core.shapes import PartialValue, Shape
from irgraph.graph import Model, Node, OutputPort
from irgraph.ops import Op


def make_builder(op_class: type[Op]) -> Callable[..., Any]:
    """The builder of ``op_class``, with its signature and a docstring made from the op's."""
    spec = spec_of(op_class)
    signature = _signature(spec)

    def builder(*args: Any, **kwargs: Any) -> Any:
        arguments = signature.bind(*args, **kwargs)  # Python's own TypeError for a wrong call
        arguments.apply_defaults()
        return build(spec, arguments.arguments)

    builder.__name__ = builder.__qualname__ = spec.name
    builder.__signature__ = signature  # type: ignore[attr-defined]  # read by inspect.signature and help()
    builder.__doc__ = docstring(spec)
    return builder


def docstring(spec: BuilderSpec) -> str:
    """The op's docstring, then what the builder takes and returns."""
    doc = inspect.getdoc(spec.op_class) or spec.title
    inputs = ", ".join(spec.inputs) if spec.variadic is None else f"a sequence of {spec.variadic}"
    attributes = ", ".join(
        a.name if a.required else f"{a.name}={a.default!r}" for a in spec.attributes
    ) or "none"
    returns = {Returns.PORT: "its OutputPort", Returns.PORTS: "a tuple of its OutputPorts",
               Returns.NODE: "its Node (it has no output)"}[spec.returns]
    return (f"Add a {spec.title} layer: {doc}\n\nInputs (OutputPorts or values made Consts): {inputs or 'none'}."
            f"\nAttributes (keywords): {attributes}.\nReturns {returns}; the output types are inferred at once.")


def _signature(spec: BuilderSpec) -> inspect.Signature:
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [
        inspect.Parameter(name, positional, default=inspect.Parameter.empty if i < spec.required_inputs else None)
        for i, name in enumerate(spec.inputs)
    ]
    if spec.variadic is not None:
        parameters.append(inspect.Parameter(spec.variadic, positional))
    parameters += [
        inspect.Parameter(a.name, keyword, default=inspect.Parameter.empty if a.required else a.default)
        for a in spec.attributes
    ]
    parameters += [inspect.Parameter("name", keyword, default=None), inspect.Parameter("model", keyword, default=None)]
    return inspect.Signature(parameters)


def build(spec: BuilderSpec, arguments: dict[str, Any]) -> Any:
    """Add ``spec``'s op with ``arguments`` (bound to its signature) and infer it; the model is unchanged on error."""
    values = _input_values(spec, arguments)
    model = model_of(spec.name, values, arguments["model"])
    op = _make_op(spec, arguments)
    added: list[int] = []
    try:
        ports = []
        for value in values:
            if isinstance(value, OutputPort):
                ports.append(value)
                continue
            port = model.const(value)
            added.append(port.node_id)
            infer_new(model, model.node(port.node_id))
            ports.append(port)
        node = model.add_node(op, arguments["name"], ports)
        added.append(node.id)
        infer_new(model, node, spec.name)
    except IrError:
        for node_id in reversed(added):
            model.remove_node(node_id)
        raise
    if spec.returns == Returns.NODE:
        return node
    outputs = tuple(OutputPort(node.id, index, model) for index in range(node.num_outputs))
    return outputs[0] if spec.returns == Returns.PORT else outputs


def _input_values(spec: BuilderSpec, arguments: dict[str, Any]) -> list[Any]:
    if spec.variadic is not None:
        given = arguments[spec.variadic]
        if isinstance(given, OutputPort) or not isinstance(given, Sequence):
            raise OpError(f"{spec.name}: '{spec.variadic}' takes a sequence of inputs (a list of OutputPorts). "
                          f"Got: {type(given).__name__}")
        return list(given)
    values = [arguments[name] for name in spec.inputs]
    while len(values) > spec.required_inputs and values[-1] is None:
        values.pop()  # optional inputs left out
    for name, value in zip(spec.inputs, values, strict=False):
        if value is None:
            raise OpError(f"{spec.name}: input '{name}' is left out (None) but an input after it is given")
    return values


def model_of(builder: str, values: Sequence[Any], model: Model | None) -> Model:
    """The model to build in: ``model``, or the one the input ports were made in (they must agree)."""
    found = {id(v.model): v.model for v in values if isinstance(v, OutputPort) and v.model is not None}
    if model is not None:
        found.setdefault(id(model), model)
    if len(found) > 1:
        raise GraphError(f"{builder}: the inputs belong to {len(found)} different models; build in one model")
    if not found:
        raise GraphError(f"{builder}: no input says which model to build in; pass model=MODEL "
                         "(ports made by Model.parameter, Model.const and the builders carry theirs)")
    return next(iter(found.values()))


def _make_op(spec: BuilderSpec, arguments: dict[str, Any]) -> Op:
    values = {a.name: _attribute_value(spec, a, arguments[a.name]) for a in spec.attributes}
    try:
        return spec.op_class(**values)
    except IrError as err:
        raise OpError(f"{spec.name}: {err.message}") from None


def _attribute_value(spec: BuilderSpec, attribute: AttributeSpec, value: Any) -> Any:
    kind = attribute.kind
    try:
        if kind is bool and isinstance(value, bool | np.bool_):
            return bool(value)
        if kind is int and isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
            return int(value)
        if kind is float and isinstance(value, int | float | np.integer | np.floating) and not isinstance(
                value, bool | np.bool_):
            return float(value)
        if kind is str and attribute.names_element_type and not isinstance(value, str):
            return ElementType.of(value).ir_name
        if kind is str and isinstance(value, str):
            return value
        if kind is ElementType:
            return ElementType.of(value)
        if kind is Shape:
            return shape_of(value)
        item = {tuple[int, ...]: int, tuple[float, ...]: float, tuple[str, ...]: str}.get(kind)
        if item is not None and not isinstance(value, str) and isinstance(value, Sequence | np.ndarray):
            items = [_attribute_value(spec, AttributeSpec(attribute.name, item), v) for v in value]
            return tuple(items)
    except (IrError, ValueError, TypeError):
        pass
    raise OpError(f"{spec.name}: attribute '{attribute.name}' must be {_describe(kind)}. Got: {value!r}")


def _describe(kind: Any) -> str:
    return {bool: "a bool", int: "an int", float: "a number", str: "a str", ElementType: "an element type",
            Shape: "a shape", tuple[int, ...]: "a sequence of ints", tuple[float, ...]: "a sequence of numbers",
            tuple[str, ...]: "a sequence of str"}.get(kind, str(kind))


# ------------------------------------------------------------------------------------ inference as you build
class _Folded:
    """What shape inference folded in one model so far: values and bounds of the builders' outputs."""

    def __init__(self) -> None:
        self.values: dict[tuple[int, int], np.ndarray] = {}
        self.partials: dict[tuple[int, int], PartialValue] = {}
        self.nodes: dict[int, Node] = {}
        """The node each key's values came from: a removed node's values go with it."""


_FOLDED: weakref.WeakKeyDictionary[Model, _Folded] = weakref.WeakKeyDictionary()


def infer_new(model: Model, node: Node, builder: str | None = None) -> None:
    """Infer ``node``, just added, as a whole walk would; ShapeInferenceError naming the rule when it fails."""
    folded = _FOLDED.setdefault(model, _Folded())
    sources = model.input_sources(node)
    for source in sources:  # values folded from a node since removed (and its id given to another) are gone
        if source is not None and source.node_id in folded.nodes and folded.nodes[source.node_id] is not (
                model.node(source.node_id)):
            _forget(folded, source.node_id)
    if any(source is not None and model.output_type(source) is None for source in sources):
        walk(model, on_error=lambda _node, _error: None)  # layers added without a builder: infer what can be
    for index, source in enumerate(sources):
        if source is not None and model.output_type(source) is None:
            raise ShapeInferenceError(f"input {index} comes from {model.node(source.node_id).name}, whose type "
                                      "cannot be inferred (ir.infer_shapes(model) says why)", node.location)
    try:
        infer_added_node(model, node, folded.values, folded.partials)
    except ShapeInferenceError as err:
        types = ", ".join(str(model.output_type(s)) for s in sources if s is not None)
        prefix = f"{builder}: {node.op.title()} refuses its inputs ({types}): " if builder else ""
        raise ShapeInferenceError(prefix + err.message, err.location) from None
    folded.nodes[node.id] = node


def _forget(folded: _Folded, node_id: int) -> None:
    del folded.nodes[node_id]
    for store in (folded.values, folded.partials):
        for key in [key for key in store if key[0] == node_id]:
            del store[key]
