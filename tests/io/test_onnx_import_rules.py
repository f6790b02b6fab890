"""ONNX -> IR for the models users bring: every rule of irgraph.io.onnx.import_rules on small one-node models
(attributes and their defaults, the patterns where IR has no single op), and the onnx wheel's model zoo
(onnx 1.23.2's light ResNet-50, DenseNet-121, Inception v1/v2, SqueezeNet, ShuffleNet), each converted, run by
irgraph and compared with onnxruntime 1.31.1 on the same inputs."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import irgraph as ir
from irgraph.errors import ConversionError
from tests.real_networks import SMALL_NETWORKS, onnx_test_data

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, opset, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "rule", inputs, outputs, initializer=list(initializers))
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    proto.ir_version = min(helper.find_min_ir_version_for(proto.opset_import), 13)
    return proto


def value(name, shape, element_type=F):
    return helper.make_tensor_value_info(name, element_type, shape)


def init(name, array):
    return onnx.numpy_helper.from_array(np.asarray(array), name)


def weights(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def agree(proto, feeds, rtol=1e-5, atol=1e-6):
    """irgraph's outputs equal onnxruntime's (same keys: the ONNX output names)."""
    ours = ir.run(ir.convert_onnx(proto), feeds)
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    theirs = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds), strict=True))
    assert sorted(ours) == sorted(theirs)
    for key, expected in theirs.items():
        assert ours[key].dtype == expected.dtype and ours[key].shape == expected.shape, key
        np.testing.assert_allclose(ours[key], expected, rtol=rtol, atol=atol, err_msg=key)


X = value("x", [2, 4, 7, 6])
FEED = {"x": weights(2, 4, 7, 6, seed=9)}

CASES = {
    "conv-bias-pads-strides": ([helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 0, 2, 1], strides=[2, 1])],
                               [init("w", weights(3, 4, 3, 2)), init("b", weights(3))], 11),
    "conv-group-dilation": ([helper.make_node("Conv", ["x", "w"], ["y"], group=2, dilations=[2, 1])],
                            [init("w", weights(6, 2, 2, 3))], 11),
    "conv-same-upper": ([helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2])],
                        [init("w", weights(2, 4, 3, 3))], 9),
    "maxpool-ceil": ([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 2], strides=[2, 2], ceil_mode=1)],
                     [], 11),
    "maxpool-dilated": ([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], dilations=[2, 1])], [], 12),
    "averagepool-include-pad": ([helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                                  count_include_pad=1)], [], 11),
    "averagepool-exclude-pad": ([helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                                                  pads=[1, 1, 1, 1])], [], 9),
    "global-average-pool": ([helper.make_node("GlobalAveragePool", ["x"], ["y"])], [], 9),
    "batch-normalization": ([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], epsilon=1e-3)],
                            [init("s", weights(4)), init("b", weights(4, seed=1)), init("m", weights(4, seed=2)),
                             init("v", np.abs(weights(4, seed=3)) + 0.5)], 9),
    "lrn": ([helper.make_node("LRN", ["x"], ["y"], size=3, alpha=1e-3, beta=0.75, bias=2.0)], [], 9),
    "relu-add-mul-sum": ([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Add", ["r", "c"], ["a"]),
                          helper.make_node("Mul", ["a", "c"], ["m"]), helper.make_node("Sum", ["m", "a", "r"], ["y"])],
                         [init("c", weights(6))], 9),
    "softmax-2d-coercion": ([helper.make_node("Softmax", ["x"], ["y"], axis=2)], [], 11),
    "softmax-13": ([helper.make_node("Softmax", ["x"], ["y"], axis=1)], [], 13),
    "flatten-axis-2": ([helper.make_node("Flatten", ["x"], ["y"], axis=2)], [], 9),
    "reshape-with-zero": ([helper.make_node("Reshape", ["x", "s"], ["y"])], [init("s", np.array([0, -1], np.int64))],
                          13),
    "transpose-default": ([helper.make_node("Transpose", ["x"], ["y"])], [], 9),
    "unsqueeze-attribute": ([helper.make_node("Unsqueeze", ["x"], ["y"], axes=[0, 3])], [], 11),
    "unsqueeze-input": ([helper.make_node("Unsqueeze", ["x", "a"], ["y"])], [init("a", np.array([-1], np.int64))], 13),
    "constant-of-shape": ([helper.make_node("ConstantOfShape", ["s"], ["c"],
                                            value=helper.make_tensor("v", F, [1], [0.5])),
                           helper.make_node("Add", ["x", "c"], ["y"])],
                          [init("s", np.array([2, 4, 7, 6], np.int64))], 9),
}


@pytest.mark.parametrize("name", CASES)
def test_rules_agree_with_onnxruntime_1_31_1(name):
    nodes, initializers, opset = CASES[name]
    outputs = [value(o, None) for o in nodes[-1].output]
    agree(model(nodes, [X], outputs, opset, initializers), FEED)


def test_gemm_with_alpha_beta_and_transposes():
    a, b, c = weights(3, 5), weights(4, 5, seed=1), weights(4, seed=2)
    nodes = [helper.make_node("Gemm", ["a", "b", "c"], ["y"], alpha=0.5, beta=2.0, transB=1)]
    proto = model(nodes, [value("a", [3, 5])], [value("y", None)], 11, [init("b", b), init("c", c)])
    agree(proto, {"a": a})
    lines: list[str] = []
    ir.convert_onnx(proto, explain=lines)
    assert any("alpha=0.5, beta=2.0 -> MatMul-1 (transpose_a=False, transpose_b=True)" in line for line in lines)


def test_a_dropout_7_mask_is_ones_of_the_data_type():
    """Where the tools disagree: onnxruntime 1.31.1 gives Dropout-7's inference mask as float zeros, onnx.reference
    1.23.2 as booleans; irgraph gives what the mask means (every element kept) in the type the spec gives it."""
    proto = model([helper.make_node("Dropout", ["x"], ["y", "mask"])], [X], [value("y", None), value("mask", None)], 9)
    lines: list[str] = []
    got = ir.run(ir.convert_onnx(proto, explain=lines), FEED)
    assert got["mask"].dtype == np.float32 and (got["mask"] == 1).all()
    assert any("the mask -> ones of the data's type" in line for line in lines)


def test_a_used_dropout_mask_is_all_true():
    proto = model([helper.make_node("Dropout", ["x", "r"], ["y", "mask"])], [X],
                  [value("y", None), value("mask", None, TensorProto.BOOL)], 12, [init("r", np.float32(0.3))])
    got = ir.run(ir.convert_onnx(proto), FEED)
    assert got["mask"].all() and got["mask"].shape == (2, 4, 7, 6)
    np.testing.assert_array_equal(got["y"], FEED["x"])


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        ([helper.make_node("Dropout", ["x"], ["y"], is_test=0)], "is_test=0 asks for training-mode dropout"),
        ([helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2])], "its Indices output is used"),
        ([helper.make_node("BatchNormalization", ["x", "s", "s", "s", "s"], ["y"], spatial=0)],
         "spatial=0 \\(per-element statistics\\) has no IR op"),
    ],
    ids=["training-dropout", "maxpool-indices", "batchnorm-spatial-0"],
)
def test_what_ir_cannot_hold_is_refused_naming_the_node(nodes, message):
    outputs = [value(o, None) for o in nodes[-1].output]
    with pytest.raises(ConversionError, match=message):
        ir.convert_onnx(model(nodes, [X], outputs, 7 if "is_test" in str(nodes) else 9,
                              [init("s", weights(4))]))


@pytest.mark.parametrize("name", SMALL_NETWORKS)
def test_the_onnx_model_zoo_converts_and_runs_as_onnxruntime_runs_it(name):
    path = onnx_test_data() / "light" / f"light_{name}.onnx"
    converted = ir.convert_onnx(str(path))
    assert [d for d in ir.validate(converted) if d.is_error] == []
    (parameter,) = converted.parameters
    x = np.random.default_rng(0).standard_normal(tuple(d.value for d in parameter.op.shape.dims)).astype(np.float32)
    ours = ir.run(converted, {parameter.name: x})
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    theirs = session.run(None, {session.get_inputs()[0].name: x})
    (output,) = ours.values()
    np.testing.assert_allclose(output, theirs[0], rtol=1e-4, atol=1e-6)
