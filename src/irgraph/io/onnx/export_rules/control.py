"""If: ONNX If with then/else branch graphs that read the If's inputs from the enclosing scope.

A branch's body Parameters become the outer tensors their port map entries name (ONNX branches have
no inputs), its Results the branch outputs in the If's output order.
"""

from __future__ import annotations

from irgraph.graph import Node
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.condition.if_ import If


@exports(If)
def if_(node: Node, op: If, ctx: ExportContext) -> list:
    """If(cond) with both bodies as branches."""
    names = ctx.inputs(node)
    outputs = ctx.outputs(node)
    branches = {}
    for body in node.bodies:
        outer = {entry.internal_layer_id: names[entry.external_port] for entry in body.inputs
                 if entry.external_port >= 0}
        by_port = {entry.external_port: entry.internal_layer_id for entry in body.outputs}
        missing = [index for index in range(len(outputs)) if index not in by_port]
        if missing:
            raise ctx.refuse(f"<{body.tag}> gives no value for outputs {missing}")
        branches[body.tag] = ctx.body_graph(node, body, outer, [by_port[i] for i in range(len(outputs))])
    return [ctx.make(node, "If", [names[0]], outputs, then_branch=branches["then_body"],
                     else_branch=branches["else_body"])]
