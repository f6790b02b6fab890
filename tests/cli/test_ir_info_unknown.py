"""ir-info's summary of a model whose output type nothing can infer (a custom op without declared ports): '?'."""

from __future__ import annotations

import irgraph as ir
from irgraph.cli import ir_info
from irgraph.graph import OutputPort
from irgraph.ops import OpaqueOp


def test_an_output_of_unknown_type_is_shown_as_question_marks() -> None:
    m = ir.Model("u")
    x = m.parameter("x", [2])
    node = m.add_node(OpaqueOp(op_type="Mystery", op_version="custom", attributes={}), "mys", [x], num_outputs=1)
    m.result(OutputPort(node.id, 0), name="y")
    text = ir_info.format_info(ir_info.describe(m, "u.xml", "u.bin"))
    assert "outputs:\n  y  ?  ?\n" in text and "inputs:\n  x  f32  [2]\n" in text
