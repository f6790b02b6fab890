"""Shape inference folds layers whose inputs are all constant, so a shape computed from constants by ops that
propagate no bounds (Ceiling, Convert) still gives a static output, as OpenVINO's constant folding does."""

from __future__ import annotations

import numpy as np

import irgraph as ir
from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.ops.arithmetic.ceiling import Ceiling
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.type.convert import Convert


def test_a_reshape_target_computed_from_constants_is_folded() -> None:
    m = ir.Model()
    x = m.parameter("x", [2, 3])
    rounded = OutputPort(m.add_node(Ceiling(), "ceil", [m.const(np.array([2.6, 1.2], np.float32))]).id, 0)
    target = OutputPort(m.add_node(Convert(destination_type=ElementType.I64), "target", [rounded]).id, 0)
    reshaped = m.add_node(Reshape(special_zero=False), "r", [x, target])
    m.result(OutputPort(reshaped.id, 0), name="y")
    ir.infer_shapes(m)
    assert str(reshaped.outputs[0].type) == "f32[3,2]"
