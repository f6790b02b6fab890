"""If layers export as ONNX If (branches reading the If's inputs from the enclosing scope): on the If
files openvino 2026.4.1 wrote, onnxruntime 1.31.1 gives OpenVINO's CPU outputs for both conditions
(irgraph does not run bodies yet, so OpenVINO is the oracle here). Loop and TensorIterator have no
export rule yet and are refused by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.errors import ConversionError
from tests.io.test_onnx_export import onnxruntime_run

pytestmark = pytest.mark.oracle

CORPUS = Path(__file__).resolve().parents[1] / "data" / "ov-subgraphs"


@pytest.mark.parametrize("case", ["if", "if-v10", "if-shapes-differ", "onnx-if"])
@pytest.mark.parametrize("condition", [True, False])
def test_if_runs_in_onnxruntime_as_in_openvino(case, condition):
    import openvino as ov

    path = CORPUS / case / "model.xml"
    model = ir.read_model(path)
    proto = ir.export_onnx(model)
    (if_node,) = [node for node in proto.graph.node if node.op_type == "If"]
    assert {a.name for a in if_node.attribute} == {"then_branch", "else_branch"}
    feeds = {}
    for parameter in model.parameters:
        shape = [dim.value for dim in parameter.op.shape.dims]
        if parameter.op.element_type.ir_name == "boolean":
            feeds[parameter.name] = np.full(shape, condition)
        else:
            values = np.random.default_rng(len(feeds)).standard_normal(shape)
            feeds[parameter.name] = values.astype(parameter.op.element_type.numpy_dtype)
    theirs = onnxruntime_run(proto, feeds)
    expected = ov.Core().compile_model(str(path), "CPU")([feeds[p.name] for p in model.parameters])
    for index, output in enumerate(proto.graph.output):
        np.testing.assert_array_equal(theirs[output.name], expected[index])


def test_loops_and_tensor_iterators_are_refused_by_name():
    with pytest.raises(ConversionError, match=r"^1 layer cannot be exported to ONNX \(no export rule\): "
                                              r"TensorIterator \(opset1\) x1: 'TensorIterator_409' "):
        ir.export_onnx(ir.read_model(CORPUS / "nested-if-loop-ti" / "model.xml"))
