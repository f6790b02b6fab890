"""IR -> ONNX export of what today's real OpenVINO exports contain (issue 25, item 6): NNCF's int4 weights. Each
export runs in onnxruntime 1.31.1 with irgraph's values; each refusal that remains names the ONNX rule that
forbids it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

import irgraph as ir
from irgraph.errors import ConversionError
from irgraph.ops.type.convert import Convert
from tests.io.onnx_cases import same
from tests.io.test_onnx_export import onnxruntime_run

pytestmark = pytest.mark.oracle

INT4 = Path(__file__).resolve().parent / "data" / "int4"
RNG = np.random.default_rng(20261127)


def layer(model: ir.Model, op, inputs, name: str | None = None, outputs: int = 1):
    node = model.add_node(op, name, list(inputs), num_outputs=outputs)
    ports = [ir.OutputPort(node.id, i) for i in range(outputs)]
    return ports[0] if outputs == 1 else ports


def assert_onnxruntime_agrees(model: ir.Model, feeds: dict, opsets=(13, 18)) -> list[onnx.ModelProto]:
    """Exported at each opset, onnxruntime 1.31.1 gives irgraph's outputs bit for bit."""
    ours = ir.run(model, feeds)
    protos = []
    for opset in opsets:
        proto = ir.export_onnx(model, opset=opset)
        theirs = onnxruntime_run(proto, feeds)
        assert list(theirs) == list(ours)
        for name, value in ours.items():
            assert same(theirs[name], value), (opset, name, theirs[name], value)
        protos.append(proto)
    return protos


# ------------------------------------------------------------------------------------ int4 weights
def decompressed_weights(model: ir.Model) -> list[str]:
    """Every Convert -> f32 of the NNCF chains becomes an output too, so the weights are compared exactly."""
    names = []
    for node in list(model):
        if isinstance(node.op, Convert) and node.op.destination_type is ir.ElementType.F32:
            names.append(f"weight_{node.name}")
            model.result(ir.OutputPort(node.id, 0), name=names[-1])
    return names


@pytest.mark.parametrize("opset", [18, 21, 25])
@pytest.mark.parametrize("name, weight_type", [("int4_sym", "i4"), ("int4_asym", "u4")])
def test_nncf_int4_weights_export_and_run_in_onnxruntime(name, weight_type, opset):
    """NNCF 3.4's int4 chains: from opset 21 the u4/i4 Consts stay 4-bit ONNX initializers behind Cast-21, which
    onnxruntime 1.31.1 runs; below it (no ONNX op takes 4-bit tensors) they are stored as u8/i8, with a note."""
    model = ir.read_model(INT4 / f"{name}.xml")
    weights = decompressed_weights(model)
    assert len(weights) == 3
    explained: list[str] = []
    proto = ir.export_onnx(model, opset=opset, explain=explained)
    four_bit = {"i4": onnx.TensorProto.INT4, "u4": onnx.TensorProto.UINT4}[weight_type]
    eight_bit = {"i4": onnx.TensorProto.INT8, "u4": onnx.TensorProto.UINT8}[weight_type]
    types = [tensor.data_type for tensor in proto.graph.initializer]
    notes = [line for line in explained if "Const input is stored as" in line]
    chains = 3 if weight_type == "i4" else 6  # asymmetric: the zero points are u4 too
    if opset >= 21:
        assert types.count(four_bit) == chains and eight_bit not in types and not notes
        assert proto.ir_version == (10 if opset == 21 else 13)  # the opset's own IR version
    else:
        assert types.count(eight_bit) == chains and four_bit not in types and len(notes) == chains
        assert f"ONNX takes {'INT4' if weight_type == 'i4' else 'UINT4'} tensors from opset 21, Cast-21; this " \
               f"export writes opset {opset}" in notes[0]
    feeds = {"input_ids": np.asarray([[0, 5, 31, 7, 2, 2]], np.int64)}
    ours, theirs = ir.run(model, feeds), onnxruntime_run(proto, feeds)
    assert list(theirs) == list(ours)
    for weight in weights:  # Cast, Sub and Mul in f16, each rounding once as the IR's types say: the same bits
        assert same(theirs[weight], ours[weight]), weight
    # two MatMuls in f32: onnxruntime sums in another order than NumPy's BLAS
    np.testing.assert_allclose(theirs["logits"], ours["logits"], rtol=1e-5, atol=1e-7)


def test_a_4_bit_tensor_other_than_a_convert_of_a_const_is_refused_below_opset_21():
    model = ir.Model("u4")
    x = model.parameter("x", [4], "u4")
    model.result(layer(model, Convert(destination_type=ir.ElementType.F32), [x]), name="y")
    with pytest.raises(ConversionError, match=r"ONNX Cast-13 \(opset 18\) does not take u4 tensors"):
        ir.export_onnx(model)
    proto = ir.export_onnx(model, opset=21)
    assert proto.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.UINT4
