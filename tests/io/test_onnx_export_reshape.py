"""Reshape export: special_zero=false needs ONNX's allowzero (opset 14) only when the shape holds a 0 or is computed."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import irgraph as ir
from irgraph.core.errors import ConversionError
from irgraph.ops.shape.reshape import Reshape
from tests.io.test_onnx_export_rules import Case, f32, i64, one_op_model


def _reshape_node(case: Case, opset: int) -> onnx.NodeProto:
    model, _ = one_op_model(case)
    return next(node for node in ir.export_onnx(model, opset=opset).graph.node if node.op_type == "Reshape")


def test_a_constant_shape_without_zeros_needs_no_allowzero() -> None:
    node = _reshape_node(Case(Reshape(special_zero=False), [f32(2, 3), i64(3, 2)], constant=(1,)), 13)
    assert [a.name for a in node.attribute] == []


def test_a_zero_in_the_shape_needs_allowzero_from_opset_14() -> None:
    case = Case(Reshape(special_zero=False), [np.zeros((0, 3), np.float32), i64(3, 0)], constant=(1,))
    with pytest.raises(ConversionError, match=r"special_zero=false with a 0 \(or a computed shape\) needs ONNX "
                                              r"allowzero \(opset 14\)"):
        _reshape_node(case, 13)
    assert [(a.name, a.i) for a in _reshape_node(case, 14).attribute] == [("allowzero", 1)]


def test_a_computed_shape_needs_allowzero() -> None:
    node = _reshape_node(Case(Reshape(special_zero=False), [f32(2, 3), i64(3, 2)]), 14)
    assert [(a.name, a.i) for a in node.attribute] == [("allowzero", 1)]
