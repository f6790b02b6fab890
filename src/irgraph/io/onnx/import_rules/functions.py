"""ONNX -> IR for ops ONNX defines as functions of other ops (Attention, RMSNormalization, RotaryEmbedding,
SwiGLU, CenterCropPad, the window functions, ...): the node is expanded into its function body, as onnx 1.23.2's
schema gives it for the model's opset (context-dependent bodies built from the inputs' types), and each body
node is converted by its own rule. The values are then those of ONNX's own definition, node for node; the body's
internal tensors are named ``NODE::name``.

Only ops listed in FUNCTION_OPS are expanded (deterministic ones whose body irgraph converts); Bernoulli (random)
and SequenceMap (sequences) stay refused.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from irgraph.io.onnx.common import onnx_type_name
from irgraph.io.onnx.import_rules.registry import imports

if TYPE_CHECKING:
    import onnx as onnx_types

    from irgraph.io.onnx.import_rules.registry import ImportContext

FUNCTION_OPS: dict[str, tuple[int, ...]] = {
    "AffineGrid": (20,), "Attention": (23, 24, 25), "BlackmanWindow": (17,), "CausalConvWithState": (27,),
    "CenterCropPad": (18,), "DynamicQuantizeLinear": (11,), "HammingWindow": (17,), "HannWindow": (17,),
    "LinearAttention": (27,), "NegativeLogLikelihoodLoss": (12, 13, 22), "RMSNormalization": (23,),
    "RotaryEmbedding": (23,), "SoftmaxCrossEntropyLoss": (12, 13), "SwiGLU": (28,),
}
"""ONNX op type -> the versions whose function body irgraph expands."""


def expand_function(context: ImportContext) -> None:
    """Expand the node into its ONNX function body and convert each body node (module docstring)."""
    onnx = context.onnx
    node = context.node
    schema = onnx.defs.get_schema(node.op_type, context.opset, "")
    expanded = onnx.NodeProto()
    expanded.CopyFrom(node)
    present = {attribute.name for attribute in node.attribute}
    for name, declared in schema.attributes.items():  # the schema's defaults, as onnx's own expansion adds them
        if name not in present and declared.default_value.type:
            expanded.attribute.append(declared.default_value)
    if schema.has_function:
        function = schema.function_body
    elif schema.has_context_dependent_function:
        types = [_type_proto(context, name) for name in node.input]
        function = onnx.FunctionProto()
        try:
            function.ParseFromString(schema.get_context_dependent_function(
                expanded.SerializeToString(), [t.SerializeToString() for t in types]))
        except Exception as err:  # noqa: BLE001 - onnx raises its own error types for a body it cannot build
            raise context.fail(f"onnx cannot build its function body for these inputs: {err}") from None
    else:
        raise context.fail("onnx defines no function body for it at this opset")
    body = _inlined(onnx, expanded, function, f"{context.name}::", context)
    context.explain(f"{context.label}: -> its ONNX function body of {len(body)} nodes "
                    f"({', '.join(sorted({n.op_type for n in body}))}), each converted by its rule")
    for index, inner in enumerate(body):
        context.convert(inner, index)


for _op_type, _versions in FUNCTION_OPS.items():
    imports(_op_type, versions=_versions)(expand_function)


def _type_proto(context: ImportContext, name: str) -> onnx_types.TypeProto:
    """The ONNX type of input ``name`` from irgraph's inferred type (empty for an absent optional input)."""
    onnx = context.onnx
    if not name:
        return onnx.TypeProto()
    tensor = context.type_of(context.tensor(name))
    element = onnx.TensorProto.DataType.Value(onnx_type_name(tensor.element_type, f"input {name!r}"))
    shape = None if tensor.shape.rank_is_dynamic else [d.value if d.is_static else None for d in tensor.shape]
    return onnx.helper.make_tensor_type_proto(element, shape)


def _inlined(onnx: ModuleType, node: onnx_types.NodeProto, function: onnx_types.FunctionProto, prefix: str,
             context: ImportContext) -> list[onnx_types.NodeProto]:
    """The function's nodes with its formal inputs and outputs renamed to the node's, other names prefixed, and
    attribute references replaced by the node's attributes (absent ones dropped, as ONNX says); sub-graphs of body
    nodes are renamed the same way."""
    names = {formal: (node.input[i] if i < len(node.input) else "") for i, formal in enumerate(function.input)}
    names |= {formal: node.output[i] for i, formal in enumerate(function.output)
              if i < len(node.output) and node.output[i]}
    attributes = {attribute.name: attribute for attribute in node.attribute}

    def rename(name: str) -> str:
        return names.get(name, prefix + name if name else "")

    body = []
    for inner in function.node:
        copy = onnx.NodeProto()
        copy.CopyFrom(inner)
        copy.name = prefix + inner.name if inner.name else ""
        copy.input[:] = [rename(name) for name in inner.input]
        copy.output[:] = [rename(name) for name in inner.output]
        del copy.attribute[:]
        for attribute in inner.attribute:
            if attribute.HasField("g") or attribute.graphs:
                renamed = onnx.AttributeProto()
                renamed.CopyFrom(attribute)
                for graph in ([renamed.g] if renamed.HasField("g") else []) + list(renamed.graphs):
                    _rename_graph(graph, rename)
                copy.attribute.append(renamed)
                continue
            if attribute.ref_attr_name:
                if attribute.ref_attr_name in attributes:
                    given = onnx.AttributeProto()
                    given.CopyFrom(attributes[attribute.ref_attr_name])
                    given.name = attribute.name
                    copy.attribute.append(given)
                continue
            copy.attribute.append(attribute)
        body.append(copy)
    return body


def _rename_graph(graph: onnx_types.GraphProto, rename: Callable[[str], str]) -> None:
    """Rename every tensor name of a body node's sub-graph (and of the sub-graphs in it) in place, so its reads of
    the function's names follow them; its own names are prefixed like the body's (no recursion)."""
    pending = [graph]
    while pending:
        current = pending.pop()
        for value in (*current.input, *current.output, *current.value_info):
            value.name = rename(value.name)
        for tensor in current.initializer:
            tensor.name = rename(tensor.name)
        for inner in current.node:
            inner.input[:] = [rename(name) for name in inner.input]
            inner.output[:] = [rename(name) for name in inner.output]
            for attribute in inner.attribute:
                if attribute.HasField("g"):
                    pending.append(attribute.g)
                pending.extend(attribute.graphs)
