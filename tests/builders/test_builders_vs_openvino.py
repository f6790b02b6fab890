"""A model built with irgraph's generated builders equals the same model built with openvino 2026.4.1's
``openvino.opset16`` builders: the same layers, the same output types, and the same outputs on the same inputs.

Two judges: OpenVINO runs both builds (irgraph's written as IR and read back) and must give bit-identical
outputs, whatever the CPU's instruction set, since it is one graph on one plugin; irgraph's interpreter
must match OpenVINO's outputs within the ops' tolerance.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import irgraph as ir

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(27)
WEIGHTS = {
    "filters": RNG.standard_normal((4, 3, 3, 3)).astype(np.float32),
    "bias": RNG.standard_normal((1, 4, 1, 1)).astype(np.float32),
    "dense": (RNG.standard_normal((4, 6)) / 4).astype(np.float32),  # small: tanh does not saturate
    "shift": RNG.standard_normal((6,)).astype(np.float32),
}
IMAGE = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)

OP_TYPES = {"Convolution", "Add", "Relu", "MaxPool", "Sigmoid", "Multiply", "ReduceMean", "ShapeOf", "Gather",
            "Concat", "Reshape", "MatMul", "Subtract", "Clamp", "Exp", "Softmax", "Tanh", "Transpose", "TopK",
            "Convert", "Sqrt", "Unsqueeze", "Squeeze"}


def _build(ops, parameter, constant):
    """The network in irgraph's spelling: ``ops`` is ``ir.opset16`` or :class:`_OpenVinoSpelling`."""
    x = parameter()
    conv = ops.convolution(x, constant(WEIGHTS["filters"]), strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1],
                           dilations=[1, 1])
    features = ops.relu(ops.add(conv, constant(WEIGHTS["bias"])))
    pooled, _ = ops.max_pool(features, kernel=[2, 2], strides=[2, 2], dilations=[1, 1], pads_begin=[0, 0],
                             pads_end=[0, 0])
    gated = ops.multiply(pooled, ops.sigmoid(pooled))
    mean = ops.reduce_mean(gated, constant(np.array([2, 3], np.int64)), keep_dims=True)
    batch = ops.gather(ops.shape_of(mean), constant(np.array([0], np.int64)), constant(np.int64(0)))
    flat = ops.reshape(mean, ops.concat([batch, constant(np.array([-1], np.int64))], axis=0), special_zero=False)
    product = ops.mat_mul(flat, constant(WEIGHTS["dense"]), transpose_a=False, transpose_b=False)
    dense = ops.subtract(product, constant(WEIGHTS["shift"]))
    probabilities = ops.softmax(ops.exp(ops.clamp(dense, min=-0.5, max=0.5)), axis=-1)
    joined = ops.concat([probabilities, ops.tanh(dense)], axis=1)  # [N, 12]
    turned = ops.transpose(joined, constant(np.array([1, 0], np.int64)))  # [12, N]
    column = ops.squeeze(ops.unsqueeze(turned, constant(np.int64(0))), constant(np.int64(0)))
    values, indices = ops.top_k(column, constant(np.int64(3)), axis=0, mode="max", sort="value",
                                index_element_type=np.int32)
    return {"values": ops.sqrt(ops.add(values, constant(np.float32(3.0)))),
            "indices": ops.convert(indices, destination_type=np.float32)}


class _OpenVinoSpelling:
    """``openvino.opset16`` under irgraph's names and keywords (the only differences the network meets), NumPy
    types as OpenVINO's type names, and several outputs as a tuple."""

    NAMES = {"mat_mul": "matmul", "top_k": "topk"}
    KEYWORDS = {"kernel": "kernel_shape", "min": "min_value", "max": "max_value"}

    def __getattr__(self, name):
        import openvino.opset16 as ops

        build = getattr(ops, self.NAMES.get(name, name))

        def spelled(*args, **kwargs):
            kwargs = {self.KEYWORDS.get(k, k): ir.ElementType.of(v).ir_name if isinstance(v, type) else v
                      for k, v in kwargs.items()}
            node = build(*args, **kwargs)
            outputs = node.outputs()
            return tuple(outputs) if len(outputs) > 1 else node

        return spelled


def _irgraph_model():
    model = ir.Model("built")
    outputs = _build(ir.opset16, lambda: model.parameter("image", [-1, 3, 8, 8], np.float32),
                     lambda value: ir.ops.constant(value, model=model))
    for name, port in outputs.items():
        ir.ops.result(port, name=name)
    return model


def _openvino_model():
    import openvino as ov
    import openvino.opset16 as ops

    parameters = []

    def parameter():
        node = ops.parameter(ov.PartialShape([-1, 3, 8, 8]), np.float32, name="image")
        node.output(0).get_tensor().set_names({"image"})
        parameters.append(node)
        return node

    outputs = _build(_OpenVinoSpelling(), parameter, ops.constant)
    results = []
    for name, node in outputs.items():
        node.output(0).get_tensor().set_names({name})
        results.append(ops.result(node))
    return ov.Model(results, parameters, "built")


def _run_openvino(model, image):
    import openvino as ov

    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    request.infer({"image": image})
    return {name: np.array(request.get_tensor(name).data) for name in ("values", "indices")}


def test_a_model_built_with_the_generated_builders_validates_and_equals_openvino_s_build(tmp_path):
    import openvino as ov

    assert ov.get_version().startswith("2026.4.1")
    model = _irgraph_model()
    assert ir.validate(model) == []
    written = tmp_path / "built.xml"
    ir.write_model(model, written)
    theirs, ours = _openvino_model(), ov.Core().read_model(written)

    def layer_types(ov_model):
        return Counter(op.get_type_name() for op in ov_model.get_ordered_ops())

    assert layer_types(ours) == layer_types(theirs)
    assert {name for name in layer_types(theirs)} - {"Parameter", "Constant", "Result"} == OP_TYPES  # 23 types
    for mine, reference in zip(ours.outputs, theirs.outputs, strict=True):
        assert (mine.get_any_name(), str(mine.get_partial_shape()), mine.get_element_type()) == (
            reference.get_any_name(), str(reference.get_partial_shape()), reference.get_element_type())
    # irgraph's types as it built them are OpenVINO's.
    assert {model.output_key(r): str(model.output_type(model.input_sources(r)[0])) for r in model.results} == {
        "values": "f32[3,?]", "indices": "f32[3,?]"}
    assert [str(o.get_partial_shape()) for o in theirs.outputs] == ["[3,?]", "[3,?]"]

    image = IMAGE
    expected = _run_openvino(theirs, image)
    same_graph = _run_openvino(ours, image)
    for name in expected:
        np.testing.assert_array_equal(same_graph[name], expected[name])  # one graph, one plugin: bit for bit
    mine = ir.run(model, {"image": image})
    np.testing.assert_array_equal(mine["indices"], expected["indices"])
    np.testing.assert_allclose(mine["values"], expected["values"], rtol=1e-5, atol=1e-6)
    assert expected["values"].shape == (3, 2)  # the 3 largest of 12 features, for each of 2 images
