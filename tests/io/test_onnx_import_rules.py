"""ONNX -> IR for the models users bring: every rule of irgraph.io.onnx.import_rules on small one-node models
(attributes and their defaults, the patterns where IR has no single op), and the onnx wheel's model zoo
(onnx 1.23.2's light ResNet-50, DenseNet-121, Inception v1/v2, SqueezeNet, ShuffleNet), each converted, run by
irgraph and compared with onnxruntime 1.31.1 on the same inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import irgraph as ir
from irgraph.core.errors import ConversionError
from tests.real_networks import SMALL_NETWORKS, seeded_onnx

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
    "averagepool-dilated": ([helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 3], dilations=[2, 1],
                                              strides=[1, 2])], [], 19),
    "averagepool-dilated-include-pad-ceil": ([helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 2],
                                                               dilations=[1, 2], pads=[1, 1, 1, 0], strides=[2, 2],
                                                               count_include_pad=1, ceil_mode=1)], [], 22),
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
        ([helper.make_node("BatchNormalization", ["x", "s", "s", "s", "s"], ["y"], spatial=0)],
         "spatial=0 \\(per-element statistics\\) has no IR op"),
    ],
    ids=["training-dropout", "batchnorm-spatial-0"],
)
def test_what_ir_cannot_hold_is_refused_naming_the_node(nodes, message):
    outputs = [value(o, None) for o in nodes[-1].output]
    with pytest.raises(ConversionError, match=message):
        ir.convert_onnx(model(nodes, [X], outputs, 7 if "is_test" in str(nodes) else 9,
                              [init("s", weights(4))]))


@pytest.fixture(scope="module")
def light_models(real_networks_folder: Path) -> Path:
    """Where the seeded copies of the onnx wheel's light models are written (tests/real_networks.py says why)."""
    return real_networks_folder


@pytest.mark.parametrize("name", SMALL_NETWORKS)
def test_the_onnx_model_zoo_converts_and_runs_as_onnxruntime_runs_it(light_models, name):
    path = seeded_onnx(name, light_models)
    converted = ir.convert_onnx(str(path))
    assert [d for d in ir.validate(converted) if d.is_error] == []
    (parameter,) = converted.parameters
    x = np.random.default_rng(0).standard_normal(tuple(d.value for d in parameter.op.shape.dims)).astype(np.float32)
    ours = ir.run(converted, {parameter.name: x})
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    theirs = session.run(None, {session.get_inputs()[0].name: x})
    (output,) = ours.values()
    np.testing.assert_allclose(output, theirs[0], rtol=1e-4, atol=1e-6)


I64 = TensorProto.INT64
B = TensorProto.BOOL
V = value("v", [2, 3])
FEED_V = {"v": weights(2, 3, seed=4)}
TENSOR_CASES = {
    **{f"unary-{op}": ([helper.make_node(op, ["v"], ["y"])], [], 17) for op in
       ("Abs", "Neg", "Exp", "Sqrt", "Sigmoid", "Tanh", "Erf", "Floor", "Ceil", "Sin", "Cos")},
    "log": ([helper.make_node("Abs", ["v"], ["a"]), helper.make_node("Log", ["a"], ["y"])], [], 17),
    **{f"binary-{op}": ([helper.make_node(op, ["v", "w"], ["y"])], [init("w", weights(3, seed=5))], 17) for op in
       ("Sub", "Div")},
    **{f"compare-{op}": ([helper.make_node(op, ["v", "w"], ["y"])], [init("w", weights(3, seed=5))], 17, B) for op in
       ("Equal", "Less", "Greater")},
    "pow": ([helper.make_node("Abs", ["v"], ["a"]), helper.make_node("Pow", ["a", "w"], ["y"])],
            [init("w", weights(3, seed=5))], 17),
    "matmul": ([helper.make_node("MatMul", ["v", "w"], ["y"])], [init("w", weights(3, 4, seed=6))], 17),
    "max-min": ([helper.make_node("Max", ["v", "w", "v"], ["m"]), helper.make_node("Min", ["m", "w"], ["y"])],
                [init("w", weights(3, seed=5))], 17),
    "where-and-not": ([helper.make_node("Less", ["v", "w"], ["l"]), helper.make_node("Not", ["l"], ["n"]),
                       helper.make_node("And", ["l", "n"], ["a"]), helper.make_node("Or", ["a", "l"], ["o"]),
                       helper.make_node("Where", ["o", "v", "w"], ["y"])], [init("w", weights(3, seed=5))], 17),
    "cast-shape-gather": ([helper.make_node("Shape", ["v"], ["s"]),
                           helper.make_node("Gather", ["s", "i"], ["g"], axis=0),
                           helper.make_node("Cast", ["g"], ["y"], to=TensorProto.FLOAT)],
                          [init("i", np.array([-1, 0], np.int64))], 17),
    "shape-start": ([helper.make_node("Shape", ["v"], ["y"], start=-1)], [], 17, I64),
    "slice": ([helper.make_node("Slice", ["v", "s", "e", "a", "t"], ["y"])],
              [init("s", np.array([2], np.int64)), init("e", np.array([-4], np.int64)),
               init("a", np.array([1], np.int64)), init("t", np.array([-1], np.int64))], 17),
    "squeeze-unsqueeze": ([helper.make_node("Unsqueeze", ["v", "a"], ["u"]),
                           helper.make_node("Squeeze", ["u", "a"], ["y"])], [init("a", np.array([1], np.int64))], 17),
    "reduce-mean-attribute": ([helper.make_node("ReduceMean", ["v"], ["y"], axes=[1], keepdims=0)], [], 13),
    "reduce-sum-input": ([helper.make_node("ReduceSum", ["v", "a"], ["y"])], [init("a", np.array([0], np.int64))], 13),
    "reduce-max-all": ([helper.make_node("ReduceMax", ["v"], ["y"])], [], 17),
    "expand": ([helper.make_node("Expand", ["v", "s"], ["y"])], [init("s", np.array([4, 1, 3], np.int64))], 17),
    "range-tile": ([helper.make_node("Range", ["a", "b", "c"], ["r"]), helper.make_node("Tile", ["v", "t"], ["y"])],
                   [init("a", np.float32(1)), init("b", np.float32(7)), init("c", np.float32(2)),
                    init("t", np.array([2, 2], np.int64))], 17),
    "layer-normalization": ([helper.make_node("LayerNormalization", ["v", "g", "b"], ["y"], epsilon=1e-5)],
                            [init("g", weights(3, seed=7)), init("b", weights(3, seed=8))], 17),
    "gelu-tanh": ([helper.make_node("Gelu", ["v"], ["y"], approximate="tanh")], [], 20),
    "gelu-erf": ([helper.make_node("Gelu", ["v"], ["y"])], [], 20),
}


@pytest.mark.parametrize("name", TENSOR_CASES)
def test_tensor_rules_agree_with_onnxruntime_1_31_1(name):
    nodes, initializers, opset, *output_type = TENSOR_CASES[name]
    agree(model(nodes, [V], [value("y", None, *output_type)], opset, initializers), FEED_V)


def test_integer_division_truncates_as_onnx_does():
    proto = model([helper.make_node("Div", ["a", "b"], ["y"])], [value("a", [4], I64)], [value("y", None, I64)], 17,
                  [init("b", np.array([2, -2, 3, -3], np.int64))])
    got = ir.run(ir.convert_onnx(proto), {"a": np.array([-7, 7, -7, 5], np.int64)})
    assert got["y"].tolist() == [-3, -3, -2, -1]


@pytest.mark.parametrize(("upper", "k"), [(1, None), (0, None), (1, 2), (0, -1)])
def test_trilu_agrees_with_onnxruntime_1_31_1(upper, k):
    names = ["v"] if k is None else ["v", "k"]
    initializers = [] if k is None else [init("k", np.array(k, np.int64))]
    agree(model([helper.make_node("Trilu", names, ["y"], upper=upper)], [value("v", [2, 3, 4])], [value("y", None)],
                17, initializers), {"v": weights(2, 3, 4, seed=2)})


MODEL_ONNX = Path(__file__).resolve().parents[1] / "data" / "models" / "onnx"


@pytest.mark.parametrize("name", ["bert-tiny", "gpt2-tiny"])
def test_transformer_exports_convert_and_run_as_onnxruntime_runs_them(name):
    """BERT and GPT-2 as torch.onnx exports them (tests/data/models/make_models.py, opset 17, dynamic batch and
    sequence: Gather, LayerNormalization, MatMul, Softmax, Erf, Where, Trilu, Expand, ...), converted by irgraph and
    run at batch 2, sequence 7 and at batch 1, sequence 3."""
    path = MODEL_ONNX / f"{name}.onnx"
    converted = ir.convert_onnx(str(path))
    assert [d for d in ir.validate(converted) if d.is_error] == []
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for batch, length in ((2, 7), (1, 3)):
        rng = np.random.default_rng(batch)
        feeds = {item.name: (rng.integers(0, 100, (batch, length)) if item.name == "input_ids" else
                             np.ones((batch, length), np.int64) if item.name == "attention_mask" else
                             np.zeros((batch, length), np.int64)) for item in session.get_inputs()}
        ours = ir.run(converted, feeds)
        for output, expected in zip(session.get_outputs(), session.run(None, feeds), strict=True):
            np.testing.assert_allclose(ours[output.name], expected, rtol=1e-4, atol=1e-5, err_msg=output.name)


def _recurrent_case(kind: str, direction: str, with_optional: bool, seed: int, **attributes):
    directions, hidden, size, steps, batch = (2 if direction == "bidirectional" else 1), 5, 4, 6, 3
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[kind]
    scale = np.float32(1 / np.sqrt(hidden))
    initializers = [init("W", weights(directions, gates * hidden, size, seed=seed) * scale),
                    init("R", weights(directions, gates * hidden, hidden, seed=seed + 1) * scale),
                    init("B", weights(directions, 2 * gates * hidden, seed=seed + 2) * scale)]
    names = ["x", "W", "R", "B"]
    feeds = {"x": weights(steps, batch, size, seed=seed + 3)}
    inputs = [value("x", [steps, batch, size])]
    if with_optional:
        names += ["lengths", "h0"] + (["c0"] if kind == "LSTM" else [])
        initializers.append(init("lengths", np.array([6, 2, 4], np.int32)))
        inputs += [value("h0", [directions, batch, hidden])] + ([value("c0", [directions, batch, hidden])]
                                                                if kind == "LSTM" else [])
        feeds |= {"h0": weights(directions, batch, hidden, seed=seed + 4)}
        if kind == "LSTM":
            feeds["c0"] = weights(directions, batch, hidden, seed=seed + 5)
    outputs = ["Y", "Y_h"] + (["Y_c"] if kind == "LSTM" else [])
    node = helper.make_node(kind, names, outputs, hidden_size=hidden, direction=direction, **attributes)
    return model([node], inputs, [value(name, None) for name in outputs], 14, initializers), feeds


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("with_optional", [False, True], ids=["defaults", "lengths-and-states"])
def test_recurrent_ops_agree_with_onnxruntime_1_31_1(kind, direction, with_optional):
    proto, feeds = _recurrent_case(kind, direction, with_optional, seed=len(kind) + len(direction))
    agree(proto, feeds, rtol=1e-5, atol=1e-5)


def test_gru_linear_before_reset_agrees_with_onnxruntime_1_31_1():
    proto, feeds = _recurrent_case("GRU", "forward", True, seed=3, linear_before_reset=1)
    agree(proto, feeds, rtol=1e-5, atol=1e-5)


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["squeezenet", "densenet121", "bert-tiny", "gpt2-tiny"])
def test_irgraphs_ir_runs_in_openvino_as_openvinos_own_conversion(light_models, tmp_path, name):
    """ONNX -> IR by irgraph, written and read by OpenVINO 2026.4.1, computes what OpenVINO's own convert_model
    of the same ONNX file computes (CPU plugin, f32 hint): the two IRs differ in layer names and patterns only."""
    import openvino as ov

    path = MODEL_ONNX / f"{name}.onnx" if name.endswith("tiny") else seeded_onnx(name, light_models)
    ir.write_model(ir.convert_onnx(str(path)), tmp_path / "model.xml")
    core, config = ov.Core(), {"INFERENCE_PRECISION_HINT": "f32"}
    ours = core.compile_model(core.read_model(str(tmp_path / "model.xml")), "CPU", config)
    theirs = core.compile_model(ov.convert_model(str(path)), "CPU", config)
    rng = np.random.default_rng(0)
    feeds = {}
    for port in theirs.inputs:
        shape = [dim.get_length() if dim.is_static else (2 if index == 0 else 5)
                 for index, dim in enumerate(port.get_partial_shape())]
        name_ = port.get_any_name()
        feeds[name_] = (rng.integers(0, 100, shape) if name_ == "input_ids" else np.ones(shape, np.int64)
                        if name_ == "attention_mask" else np.zeros(shape, np.int64)
                        if port.get_element_type() == ov.Type.i64 else rng.standard_normal(shape).astype(np.float32))
    expected, got = theirs(feeds), ours(feeds)
    for output in theirs.outputs:
        name_ = output.get_any_name()
        mine = next(o for o in ours.outputs if name_ in o.get_names())
        np.testing.assert_allclose(got[mine], expected[output], rtol=1e-4, atol=1e-5, err_msg=name_)
