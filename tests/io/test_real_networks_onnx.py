"""Real networks (OpenVINO 2026.4.1's fp16-compressed IR of the onnx 1.23.2 wheel's light models) export
to ONNX that passes onnx.checker (full check) and runs in onnxruntime 1.31.1 with irgraph's outputs, the
fp16 weights kept behind Casts or folded into f32 initializers (``fold_decompression``)."""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from tests.io.test_onnx_export import onnxruntime_run
from tests.io.test_real_networks import networks  # noqa: F401 - the session fixture, converted once
from tests.real_networks import SMALL_NETWORKS

pytestmark = pytest.mark.oracle


def with_logits(model: ir.Model) -> ir.Model:
    """The network with its SoftMax's input as a second output, 'logits' (one run checks both)."""
    softmax = next((node for node in model if node.op.type_name == "SoftMax"), None)
    if softmax is not None:
        model.result(model.input_sources(softmax)[0], name="logits")
    return model


def assert_close(ours: dict[str, np.ndarray], theirs: dict[str, np.ndarray]) -> None:
    """Equal keys and shapes, values within 1e-4 relative to the largest magnitude (summation order)."""
    assert ours.keys() == theirs.keys()
    for name, value in ours.items():
        assert theirs[name].shape == value.shape and theirs[name].dtype == value.dtype, name
        scale = max(float(np.max(np.abs(value))), 1e-30)
        np.testing.assert_allclose(theirs[name], value, rtol=1e-4, atol=1e-4 * scale, err_msg=name)


def assert_names_kept(model: ir.Model, proto, *, folded: bool) -> None:
    """Every computing layer's name names an ONNX node, and its first tensor name the ONNX value it computes
    (a folded Convert's value is an initializer)."""
    node_names = {node.name for node in proto.graph.node}
    values = {name for node in proto.graph.node for name in node.output} | {i.name for i in proto.graph.initializer}
    for node in model:
        if node.op.type_name in ("Parameter", "Const", "Result"):
            continue
        if not (folded and node.op.type_name == "Convert"):
            assert node.name in node_names, node.name
        if node.outputs[0].tensor_names:
            assert node.outputs[0].tensor_names[0] in values, (node.name, node.outputs[0].tensor_names)


@pytest.mark.parametrize("name", SMALL_NETWORKS)
def test_exports_and_runs_in_onnxruntime_with_irgraphs_outputs(networks, name):  # noqa: F811
    model = with_logits(ir.read_model(networks[(name, True)].xml))
    (parameter,) = model.parameters
    shape = tuple(dim.value for dim in parameter.op.shape.dims)
    feeds = {parameter.name: np.random.default_rng(0).standard_normal(shape).astype(np.float32)}
    ours = ir.run(model, feeds)
    converts = sum(node.op.type_name == "Convert" for node in model)
    for fold in (False, True):
        proto = ir.export_onnx(model, fold_decompression=fold)
        assert sum(node.op_type == "Cast" for node in proto.graph.node) == (0 if fold else converts)
        assert [i.name for i in proto.graph.input] == [parameter.name]
        assert_names_kept(model, proto, folded=fold)
        theirs = onnxruntime_run(proto, feeds)
        assert_close(ours, {key: theirs[key] for key in ours})
