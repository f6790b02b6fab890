"""ir-convert's surgery (issue 27 item 8), each result run by openvino 2026.4.1 beside OpenVINO's own transformation
of the original: --reshape against Model.reshape, --fold-constants and --decompress-weights against its
ConstantFolding pass, --compress-to-fp16 against save_model(compress_to_fp16=True), renames against the same model
addressed by the new names. Exact wherever both sides hold the same weights; the f32 CPU plugin is asked for f32
(INFERENCE_PRECISION_HINT), so no comparison depends on bf16 or f16 kernels of the machine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_convert

ov = pytest.importorskip("openvino", reason="the test extra installs openvino")
ops = pytest.importorskip("openvino.opset13")

pytestmark = pytest.mark.oracle

DATA = Path(__file__).resolve().parents[1] / "data" / "compressed"
EXACT_CPU = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_convert.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def small_network() -> Any:
    """data[?,3,8,8] -> Convolution (weights = Const * 0.5) + bias (Const + 1) -> Reshape to [batch, -1] through
    ShapeOf/Gather/Concat -> MatMul -> SoftMax: constant sub-graphs on weights and on the shape."""
    rng = np.random.default_rng(27)
    data = ops.parameter([-1, 3, 8, 8], np.float32, name="data")
    weights = ops.multiply(ops.constant(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), name="w"),
                           ops.constant(np.float32(0.5), name="w_scale"), name="w_scaled")
    conv = ops.convolution(data, weights, [1, 1], [0, 0], [0, 0], [1, 1], name="conv")
    bias = ops.add(ops.constant(rng.standard_normal((1, 4, 1, 1)).astype(np.float32), name="b"),
                   ops.constant(np.float32(1.0), name="one"), name="bias")
    biased = ops.add(conv, bias, name="conv_bias")
    batch = ops.gather(ops.shape_of(biased, name="shape"), ops.constant([0]), ops.constant(0), name="batch")
    target = ops.concat([batch, ops.constant([-1])], 0, name="target")
    flat = ops.reshape(biased, target, False, name="flatten")
    logits = ops.matmul(flat, ops.constant(rng.standard_normal((144, 5)).astype(np.float32), name="fc_w"), False,
                        False, name="fc")
    prob = ops.softmax(logits, 1, name="prob")
    prob.output(0).get_tensor().set_names({"prob"})
    return ov.Model([prob], [data], "small")


def two_inputs() -> Any:
    a = ops.parameter([-1, 4], np.float32, name="a")
    b = ops.parameter([-1, 4], np.float32, name="b")
    total = ops.add(a, b, name="sum")
    total.output(0).get_tensor().set_names({"total"})
    return ov.Model([total], [a, b], "two")


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "small.xml"
    ov.save_model(small_network(), path, compress_to_fp16=False)
    return path


def outputs(model: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    compiled = ov.Core().compile_model(model, "CPU", EXACT_CPU)
    request = compiled.create_infer_request()
    request.infer(feeds)
    return [request.get_output_tensor(i).data.copy() for i in range(len(compiled.outputs))]


def read(path: Path) -> Any:
    return ov.Core().read_model(path)


def feeds_for(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# ------------------------------------------------------------------------------------ --reshape
def test_reshape_unnamed_equals_model_reshape(small: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "static.xml"
    code, printed, err = run(capsys, small, out, "--reshape", "[2,3,8,8]")
    assert code == 0, err
    assert printed.splitlines()[0] == "reshaped data[2,3,8,8]"
    ours, theirs = read(out), read(small)
    theirs.reshape({"data": [2, 3, 8, 8]})
    assert [str(o.get_partial_shape()) for o in ours.outputs] == ["[2,5]"]
    assert [str(o.get_partial_shape()) for o in ours.get_ordered_ops()[3].outputs()] == \
        [str(o.get_partial_shape()) for o in theirs.get_ordered_ops()[3].outputs()]
    x = feeds_for((2, 3, 8, 8))
    (got,), (expected,) = outputs(ours, {"data": x}), outputs(theirs, {"data": x})
    np.testing.assert_array_equal(got, expected)
    assert not ir.validate(ir.read_model(out))


def test_reshape_several_inputs(tmp_path: Path, capsys) -> None:
    source, out = tmp_path / "two.xml", tmp_path / "static.xml"
    ov.save_model(two_inputs(), source)
    code, _, err = run(capsys, source, out, "--reshape", "a[3,4],b[1..3,4]")
    assert code == 0, err
    theirs = read(source)
    theirs.reshape({"a": [3, 4], "b": ov.PartialShape("[1..3,4]")})
    ours = read(out)
    assert [str(i.get_partial_shape()) for i in ours.inputs] == [str(i.get_partial_shape()) for i in theirs.inputs] \
        == ["[3,4]", "[1..3,4]"]
    assert str(ours.output(0).get_partial_shape()) == str(theirs.output(0).get_partial_shape()) == "[3,4]"
    code, _, err = run(capsys, source, tmp_path / "unnamed.xml", "--reshape", "[3,4]")
    assert code == 2 and err == ("error: --reshape [3,4] names no input, which only a model of one input allows; this "
                                 "one has 2 ('a', 'b'): write NAME[3,4]\n")


def test_reshape_refused_names_the_layer(small: Path, tmp_path: Path, capsys) -> None:
    """4 channels where the convolution's weights take 3: OpenVINO's Model.reshape refuses it at the same layer."""
    out = tmp_path / "static.xml"
    code, printed, err = run(capsys, small, out, "--reshape", "data[1,4,8,8]")
    assert code == 1 and not printed and not out.exists()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"error: {small}:") and "'conv' (Convolution): --reshape data[1,4,8,8]: the layer cannot " \
        "take it: Data batch channel count (4) does not match filter input channel count (3)" in err
    with pytest.raises(RuntimeError, match="friendly_name 'conv'"):
        read(small).reshape({"data": [1, 4, 8, 8]})


def test_reshape_refused_where_the_features_no_longer_fit(small: Path, tmp_path: Path, capsys) -> None:
    """9x9 images make 196 features where the MatMul weights take 144: irgraph names the MatMul. openvino 2026.4.1
    refuses it one layer earlier, at the Reshape whose output it still bounds by the 144 it inferred before."""
    code, _, err = run(capsys, small, tmp_path / "static.xml", "--reshape", "data[1,3,9,9]")
    assert code == 1 and "'fc' (MatMul): --reshape data[1,3,9,9]: the layer cannot take it" in err
    with pytest.raises(RuntimeError, match="friendly_name 'flatten'"):
        read(small).reshape({"data": [1, 3, 9, 9]})


@pytest.mark.parametrize(("spec", "message"), [
    ("x[1,3,8,8]", "error: --reshape names 'x', but the model has no such input; inputs: 'data'"),
    ("data[1,3", "error: --reshape expects NAME[d0,d1,...]"),
])
def test_reshape_usage_errors(small: Path, tmp_path: Path, capsys, spec: str, message: str) -> None:
    code, _, err = run(capsys, small, tmp_path / "out.xml", "--reshape", spec)
    assert code == 2 and err.startswith(message)


# ------------------------------------------------------------------------------------ --fold-constants
def constant_folded(path: Path) -> Any:
    from openvino.passes import ConstantFolding, Manager

    model = read(path)
    manager = Manager()
    manager.register_pass(ConstantFolding())
    manager.run_passes(model)
    return model


def test_fold_constants_equals_openvino_constant_folding(small: Path, tmp_path: Path, capsys) -> None:
    """After --reshape the ShapeOf path folds too; every Const made equals OpenVINO's ConstantFolding's of the same
    name bit for bit, and the outputs are OpenVINO's on the folded original."""
    out = tmp_path / "folded.xml"
    code, printed, err = run(capsys, small, out, "--reshape", "[2,3,8,8]", "--fold-constants")
    assert code == 0, err
    assert printed.splitlines()[1] == "folded 5 layers into 3 Consts"
    folded = ir.read_model(out)
    assert sorted(node.type_name for node in folded) == \
        ["Add", "Const", "Const", "Const", "Const", "Convolution", "MatMul", "Parameter", "Reshape", "Result",
         "SoftMax"]
    theirs = read(small)
    theirs.reshape({"data": [2, 3, 8, 8]})
    from openvino.passes import ConstantFolding, Manager

    manager = Manager()
    manager.register_pass(ConstantFolding())
    manager.run_passes(theirs)
    their_constants = {op.get_friendly_name(): op.get_data() for op in theirs.get_ops()
                       if op.get_type_name() == "Constant"}
    for name in ("w_scaled", "bias"):
        (node,) = [n for n in folded if n.name == name]
        assert node.type_name == "Const"
        np.testing.assert_array_equal(node.op.value, their_constants[name])
    # The shape path: irgraph folds Concat(batch, -1) to [2, -1]; openvino 2026.4.1 writes the same target as
    # [-1, 144] (from the bounds it keeps). Both make [2, 144] of the [2, 4, 6, 6] features.
    (target,) = [n for n in folded if n.name == "target"]
    np.testing.assert_array_equal(target.op.value, [2, -1])
    (reshape,) = [op for op in theirs.get_ops() if op.get_type_name() == "Reshape"]
    np.testing.assert_array_equal(reshape.input_value(1).get_node().get_data(), [-1, 144])
    x = feeds_for((2, 3, 8, 8), seed=1)
    (got,), (expected,) = outputs(read(out), {"data": x}), outputs(theirs, {"data": x})
    np.testing.assert_array_equal(got, expected)


def test_fold_constants_keeps_fp16_decompression(small: Path, tmp_path: Path, capsys) -> None:
    """OpenVINO keeps f16 weights -> Convert (marked decompression) in place; so does --fold-constants, and
    --decompress-weights folds them into f32 Consts holding the same values."""
    half = tmp_path / "half.xml"
    ov.save_model(small_network(), half, compress_to_fp16=True)
    kept, plain = tmp_path / "kept.xml", tmp_path / "plain.xml"
    code, printed, err = run(capsys, half, kept, "--fold-constants")
    assert code == 0, err
    assert "5 weight decompression sub-graphs kept" in printed
    kept_model = ir.read_model(kept)
    assert sum(node.type_name == "Convert" for node in kept_model) == 5
    code, printed, err = run(capsys, half, plain, "--decompress-weights")
    assert code == 0, err
    plain_model = ir.read_model(plain)
    assert not any(node.type_name == "Convert" for node in plain_model)
    source = {node.name: node for node in ir.read_model(half)}

    def stored(name: str) -> np.ndarray:
        return source[f"{name}_compressed"].op.value.astype(np.float32)

    # Each weight chain is one f32 Const named after its last layer (the loop this replaces looked for 'w' and 'b',
    # which no longer exist once folded, and so compared fc_w alone).
    folded = {node.name: node.op.value for node in plain_model if node.type_name == "Const"
              and node.name in ("w_scaled", "bias", "fc_w")}
    assert folded.keys() == {"w_scaled", "bias", "fc_w"}
    np.testing.assert_array_equal(folded["fc_w"], stored("fc_w"), strict=True)
    np.testing.assert_array_equal(folded["w_scaled"], stored("w") * stored("w_scale"), strict=True)
    np.testing.assert_array_equal(folded["bias"], stored("b") + stored("one"), strict=True)
    x = feeds_for((1, 3, 8, 8), seed=2)
    (got,), (expected,) = outputs(read(plain), {"data": x}), outputs(constant_folded(half), {"data": x})
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("names_on", ["compressed Const", "Convert"])
def test_decompress_weights_names_tensors_as_openvino_constant_folding(names_on: str, tmp_path: Path, capsys) -> None:
    """The folded Const carries the tensor names of the layer it replaces, the decompression Convert, as openvino
    2026.4.1's ConstantFolding does: save_model(compress_to_fp16=True) leaves a weight's names on the compressed
    Const, and there both drop them (the weight is read by its layer name, 'w'); names on the Convert stay."""
    data = ops.parameter([1, 4], np.float32, name="data")
    weight = ops.constant((np.arange(16, dtype=np.float32).reshape(4, 4) / 3), name="w")
    weight.output(0).get_tensor().set_names({"w_tensor", "w_alias"})
    ov.save_model(ov.Model([ops.matmul(data, weight, False, False, name="mm")], [data], "named"),
                  tmp_path / "half.xml", compress_to_fp16=True)
    half = tmp_path / "half.xml"
    if names_on == "Convert":  # the names moved from the Const's port to the Convert's output port
        text = half.read_text().replace('precision="FP16" names="w_alias,w_tensor"', 'precision="FP16"')
        convert = text.index('name="w" type="Convert"')
        output = text.index('precision="FP32"', text.index("<output>", convert))
        half.write_text(text[:output] + 'precision="FP32" names="w_alias,w_tensor"' + text[output + 16:])
    assert 'names="w_alias,w_tensor"' in half.read_text()
    theirs = {op.get_friendly_name(): sorted(op.output(0).get_names()) for op in constant_folded(half).get_ops()
              if op.get_type_name() == "Constant"}
    assert theirs == {"w": [] if names_on == "compressed Const" else ["w_alias", "w_tensor"]}
    code, _, err = run(capsys, half, tmp_path / "plain.xml", "--decompress-weights")
    assert code == 0, err
    ours = {node.name: sorted(node.outputs[0].tensor_names) for node in ir.read_model(tmp_path / "plain.xml")
            if node.type_name == "Const"}
    assert ours == theirs


@pytest.mark.parametrize("mode", ["int8_asym", "int8_sym", "int4_sym", "int4_asym", "nf4"])
def test_decompress_weights_equals_openvino_constant_folding(mode: str, tmp_path: Path, capsys) -> None:
    """NNCF's int8/int4/nf4 chains become the f32 weights OpenVINO's ConstantFolding computes, bit for bit, and run
    as OpenVINO runs the folded original."""
    out = tmp_path / "plain.xml"
    code, _, err = run(capsys, DATA / f"{mode}.xml", out, "--decompress-weights")
    assert code == 0, err
    plain = ir.read_model(out)
    assert not any(node.type_name in ("Convert", "Subtract", "Multiply") for node in plain)
    closing = [node.name for node in ir.read_model(DATA / f"{mode}.xml") if node.type_name == "Convert"
               and node.op.destination_type is ir.ElementType.F32]
    theirs = constant_folded(DATA / f"{mode}.xml")
    their_constants = {op.get_friendly_name(): op.get_data() for op in theirs.get_ops()
                       if op.get_type_name() == "Constant"}
    ours = {node.name: node for node in plain}
    assert len(closing) == 3
    for name in closing:  # the Const takes the name of the layer it replaces, as in OpenVINO
        assert ours[name].type_name == "Const"
        np.testing.assert_array_equal(ours[name].op.value, their_constants[name])
    ids = {"input_ids": np.array([[1, 5, 9, 13, 0, 31, 2, 7]], dtype=np.int64)}
    np.testing.assert_array_equal(outputs(read(out), ids)[0], outputs(theirs, ids)[0])


# ------------------------------------------------------------------------------------ --compress-to-fp16
def edge_network() -> Any:
    """Consts OpenVINO 2026.4.1 compresses and keeps, away from its thresholds (so on any CPU): ordinary weights and
    an exact scalar compress; 1e6 (beyond f16) and 60010 (an error of 10 after rounding) keep f32."""
    rng = np.random.default_rng(3)
    data = ops.parameter([1, 4], np.float32, name="data")
    value = data
    for name, constant in {
        "weights": rng.standard_normal(4).astype(np.float32),
        "half": np.float32(0.5),
        "huge": np.full(4, 1e6, np.float32),
        "coarse": np.array([60010, 1, 1, 1], np.float32),
        "clamped": np.array([7e4, 1, 2, 3], np.float32),
    }.items():
        value = ops.add(value, ops.constant(constant, name=name), name=f"add_{name}")
    return ov.Model([value], [data], "edges")


@pytest.mark.parametrize("network", [small_network, edge_network])
def test_compress_to_fp16_equals_save_model(network: Any, tmp_path: Path, capsys) -> None:
    source, ours, theirs = tmp_path / "f32.xml", tmp_path / "ours.xml", tmp_path / "theirs.xml"
    built = network()  # one build: the automatic names are the same in both files
    ov.save_model(built, source, compress_to_fp16=False)
    ov.save_model(built, theirs, compress_to_fp16=True)
    code, printed, err = run(capsys, source, ours, "--compress-to-fp16")
    assert code == 0, err
    assert printed.startswith("compressed ")

    def layers(path: Path) -> dict[str, tuple[str, str, bytes, tuple[str, ...]]]:
        model = ir.read_model(path)
        return {node.name: (node.type_name, str(getattr(node.op, "element_type", "")),
                            node.op.value.tobytes() if node.type_name == "Const" else b"",
                            tuple(entry.attributes[0][1] for entry in node.rt_info)) for node in model}

    assert layers(ours) == layers(theirs)
    x = feeds_for((1, 3, 8, 8) if network is small_network else (1, 4), seed=4)
    (got,), (expected,) = outputs(read(ours), {"data": x}), outputs(read(theirs), {"data": x})
    np.testing.assert_array_equal(got, expected)
    (original,) = outputs(read(source), {"data": x})
    np.testing.assert_allclose(got, original, rtol=1e-2, atol=1e-2)  # fp16-rounded weights


def test_compress_to_fp16_leaves_compressed_weights(tmp_path: Path, capsys) -> None:
    """A model holding compressed weights is "optimized" for OpenVINO: save_model compresses none of its f32 Consts,
    nor does --compress-to-fp16."""
    out = tmp_path / "out.xml"
    code, printed, err = run(capsys, DATA / "int8_sym.xml", out, "--compress-to-fp16")
    assert code == 0, err
    assert printed.startswith("compressed nothing to f16: the model's weights are compressed already")
    theirs = tmp_path / "theirs.xml"
    ov.save_model(read(DATA / "int8_sym.xml"), theirs, compress_to_fp16=True)
    count = sum(node.type_name == "Const" for node in ir.read_model(theirs))
    assert sum(node.type_name == "Const" for node in ir.read_model(out)) == count


def compressed_beside_f32(stored: str) -> Any:
    """data[1,4] -> MatMul by a weight Const(STORED) -> Convert f16 -> Multiply(scale f16) -> Convert f32 (NNCF's
    chain) -> Add an f32 bias."""
    data = ops.parameter([1, 4], np.float32, name="data")
    levels = np.array([[0, 1, 2, 6], [1, 2, 3, 4], [6, 4, 2, 0], [3, 0, 1, 2]], np.float32)  # exact in all three
    codes = ops.constant(levels, getattr(ov.Type, stored), name="codes")
    scaled = ops.multiply(ops.convert(codes, ov.Type.f16, name="codes_f16"),
                          ops.constant(np.full((4, 1), 0.5, np.float16), name="scale"), name="scaled")
    weight = ops.convert(scaled, ov.Type.f32, name="weight")
    product = ops.matmul(data, weight, False, True, name="mm")
    bias = ops.constant(np.array([0.25, -1.5, 3.0, 0.125], np.float32), name="bias")
    return ov.Model([ops.add(product, bias, name="add")], [data], "beside")


@pytest.mark.parametrize(("stored", "bias_compressed"), [("f4e2m1", True), ("u4", False), ("i8", False)])
def test_compress_to_fp16_beside_compressed_weights_as_save_model(stored: str, bias_compressed: bool,
                                                                  tmp_path: Path, capsys) -> None:
    """openvino 2026.4.1's save_model(compress_to_fp16=True) takes a u4 or i8 weight chain for an optimized model and
    keeps the f32 bias, but does not recognise f4e2m1 codes (its DetectCompressedWeights lists no f4e2m1) and
    compresses the bias beside them: --compress-to-fp16 writes the same layers."""
    source, ours, theirs = tmp_path / "f32.xml", tmp_path / "ours.xml", tmp_path / "theirs.xml"
    built = compressed_beside_f32(stored)
    ov.save_model(built, source, compress_to_fp16=False)
    ov.save_model(built, theirs, compress_to_fp16=True)
    code, printed, err = run(capsys, source, ours, "--compress-to-fp16")
    assert code == 0, err
    assert printed.startswith("compressed 1 " if bias_compressed else "compressed nothing to f16: the model's weights")

    def layers(path: Path) -> dict[str, tuple[str, str, bytes]]:
        return {node.name: (node.type_name, str(getattr(node.op, "element_type", "")),
                            node.op.value.tobytes() if node.type_name == "Const" else b"")
                for node in ir.read_model(path)}

    assert layers(ours) == layers(theirs)
    assert ("bias_compressed" in layers(theirs)) is bias_compressed


def test_compress_to_fp16_leaves_a_quantized_model(tmp_path: Path, capsys) -> None:
    """A FakeQuantize makes the model "optimized" for openvino 2026.4.1: save_model(compress_to_fp16=True) keeps its
    f32 Consts (the bias and the FakeQuantize's ranges), and so does --compress-to-fp16."""
    data = ops.parameter([1, 4], np.float32, name="data")
    limits = [ops.constant(np.float32(value), name=name) for name, value in
              (("in_low", -2.0), ("in_high", 2.0), ("out_low", -2.0), ("out_high", 2.0))]
    quantized = ops.fake_quantize(data, *limits, 256, name="fq")
    bias = ops.constant(np.array([0.25, -1.5, 3.0, 0.125], np.float32), name="bias")
    built = ov.Model([ops.add(quantized, bias, name="add")], [data], "quantized")
    source, ours, theirs = tmp_path / "f32.xml", tmp_path / "ours.xml", tmp_path / "theirs.xml"
    ov.save_model(built, source, compress_to_fp16=False)
    ov.save_model(built, theirs, compress_to_fp16=True)
    code, printed, err = run(capsys, source, ours, "--compress-to-fp16")
    assert code == 0, err
    assert printed.startswith("compressed nothing to f16: the model is quantized (FakeQuantize layer 'fq')")
    types = {node.name: str(node.op.element_type) for node in ir.read_model(theirs) if node.type_name == "Const"}
    assert set(types.values()) == {"f32"}
    assert {node.name: str(node.op.element_type) for node in ir.read_model(ours) if node.type_name == "Const"} == types


# ------------------------------------------------------------------------------------ --rename-input/-output
def test_renames_address_the_model_in_openvino(small: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "renamed.xml"
    code, printed, err = run(capsys, small, out, "--rename-input", "data=pixels", "--rename-output", "prob=scores")
    assert code == 0, err
    assert printed.splitlines()[:2] == ["renamed input 'data' to 'pixels'", "renamed output 'prob' to 'scores'"]
    ours = read(out)
    assert ours.input("pixels").get_names() == {"pixels"} and ours.output("scores").get_names() == {"scores"}
    with pytest.raises(RuntimeError):
        ours.input("data")
    x = feeds_for((1, 3, 8, 8), seed=5)
    (got,), (expected,) = outputs(ours, {"pixels": x}), outputs(read(small), {"data": x})
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--rename-input", "data", "error: --rename-input expects OLD=NEW"),
    ("--rename-input", "nope=x", "error: --rename-input nope=x: the model has no input 'nope'; inputs: 'data'"),
    ("--rename-output", "prob=data", "error: --rename-output prob=data: 'data' already names layer 'data'"),
    # an internal layer's name too: --mark, ir-extract and ir-diff address layers by name
    ("--rename-input", "data=conv", "error: --rename-input data=conv: 'conv' already names layer 'conv'"),
    ("--rename-output", "prob=w_scaled", "error: --rename-output prob=w_scaled: 'w_scaled' already names layer"),
    ("--rename-output", "nope=x", "error: --rename-output nope=x: the model has no output 'nope'; outputs: 'prob'"),
])
def test_rename_errors(small: Path, tmp_path: Path, capsys, flag: str, value: str, message: str) -> None:
    out = tmp_path / "out.xml"
    code, _, err = run(capsys, small, out, flag, value)
    assert code == 2 and err.startswith(message) and not out.exists()


# ------------------------------------------------------------------------------------ real networks
MODELS = Path(__file__).resolve().parents[1] / "data" / "models"
NETWORKS = ("bert-tiny", "gpt2-tiny", "t5-tiny", "whisper-tiny-encoder", "lstm")


def _network_feeds(name: str) -> tuple[dict[str, np.ndarray], dict[str, list[int]]]:
    specs = json.loads((MODELS / name / "inputs.json").read_text())
    rng = np.random.default_rng(8)
    feeds = {key: (rng.integers(spec.get("low", 0), spec.get("high", 10), spec["shape"]) if "int" in spec["dtype"]
                   else rng.standard_normal(spec["shape"])).astype(spec["dtype"]) for key, spec in specs.items()}
    return feeds, {key: spec["shape"] for key, spec in specs.items()}


@pytest.mark.parametrize("name", NETWORKS)
@pytest.mark.parametrize("surgery", ["reshape+fold+decompress", "compress"])
def test_real_networks_run_as_openvino_transforms_them(name: str, surgery: str, tmp_path: Path, capsys) -> None:
    """The networks of tests/data/models (fp16-compressed by OpenVINO, with shape sub-graphs): made static, folded and
    decompressed, they run as OpenVINO runs the original after Model.reshape and ConstantFolding; re-compressed, they
    hold the layers save_model(compress_to_fp16=True) writes. Exact, on openvino 2026.4.1's f32 CPU plugin."""
    source, out = MODELS / name / "model.xml", tmp_path / "out.xml"
    feeds, shapes = _network_feeds(name)
    theirs = read(source)
    if surgery == "compress":
        flags = ["--compress-to-fp16"]
        ov.save_model(theirs, tmp_path / "theirs.xml", compress_to_fp16=True)
        theirs = read(tmp_path / "theirs.xml")
    else:
        spec = ",".join(f"{key}[{','.join(map(str, shape))}]" for key, shape in shapes.items())
        flags = ["--reshape", spec, "--fold-constants", "--decompress-weights"]
        theirs.reshape(shapes)
        from openvino.passes import ConstantFolding, Manager

        manager = Manager()
        manager.register_pass(ConstantFolding())
        manager.run_passes(theirs)
    code, _, err = run(capsys, source, out, *flags)
    assert code == 0, err
    ours = read(out)
    if surgery == "compress":
        def consts(model: Any) -> list[tuple[str, str]]:
            return sorted((op.get_friendly_name(), str(op.get_element_type())) for op in model.get_ops()
                          if op.get_type_name() == "Constant")

        assert consts(ours) == consts(theirs)
    else:
        assert not any(op.get_type_name() == "ShapeOf" for op in ours.get_ops())
        assert [str(i.get_partial_shape()) for i in ours.inputs] == [str(i.get_partial_shape()) for i in theirs.inputs]
    got, expected = outputs(ours, feeds), outputs(theirs, feeds)
    assert len(got) == len(expected) > 0
    for ours_value, their_value in zip(got, expected, strict=True):
        np.testing.assert_array_equal(ours_value, their_value)


def iterated() -> Any:
    """A TensorIterator whose body adds c1 * c2 (a constant sub-graph inside the body) to each row of x."""
    row = ops.parameter([1, 4], np.float32, name="row")
    scaled = ops.multiply(ops.constant(np.array([[1.5, 2, 3, 4]], np.float32), name="c1"),
                          ops.constant(np.float32(0.25), name="c2"), name="c12")
    body = ov.Model([ops.result(ops.add(row, scaled, name="sum"))], [row], "body")
    x = ops.parameter([3, 4], np.float32, name="x")
    loop = ops.tensor_iterator()
    loop.set_body(body)
    loop.set_sliced_input(row, x.output(0), 0, 1, 1, -1, 0)
    rows = loop.get_concatenated_slices(body.get_results()[0].output(0), 0, 1, 1, -1, 0)
    return ov.Model([ops.result(rows)], [x], "iterated")


def test_surgery_reaches_into_bodies(tmp_path: Path, capsys) -> None:
    """Folding and compression work inside sub-graph bodies, as OpenVINO's ConstantFolding and save_model do."""
    built = iterated()
    source, theirs_half = tmp_path / "ti.xml", tmp_path / "theirs.xml"
    ov.save_model(built, source, compress_to_fp16=False)
    ov.save_model(built, theirs_half, compress_to_fp16=True)
    x = feeds_for((3, 4), seed=6)
    folded, half = tmp_path / "folded.xml", tmp_path / "half.xml"
    code, printed, err = run(capsys, source, folded, "--fold-constants")
    assert code == 0 and printed.startswith("folded 1 layers into 1 Consts\n"), err
    (body,) = next(node for node in ir.read_model(folded) if node.bodies).bodies
    assert sorted(node.type_name for node in body.model) == ["Add", "Const", "Parameter", "Result"]
    np.testing.assert_array_equal(outputs(read(folded), {"x": x})[0], outputs(constant_folded(source), {"x": x})[0])
    assert run(capsys, source, half, "--compress-to-fp16")[0] == 0

    def body_layers(path: Path) -> list[tuple[str, str, str]]:
        (body,) = next(node for node in ir.read_model(path) if node.bodies).bodies
        return sorted((node.name, node.type_name, str(getattr(node.op, "element_type", ""))) for node in body.model)

    assert body_layers(half) == body_layers(theirs_half)
    np.testing.assert_array_equal(outputs(read(half), {"x": x})[0], outputs(read(theirs_half), {"x": x})[0])


def test_stateful_network_keeps_its_variables(tmp_path: Path, capsys) -> None:
    """The stateful GPT-2 made static and folded keeps every ReadValue/Assign (nothing of a variable is folded) and
    runs three steps of a generate loop exactly as OpenVINO runs the original after Model.reshape."""
    source, out = MODELS / "gpt2-tiny-stateful" / "model.xml", tmp_path / "static.xml"
    code, printed, err = run(capsys, source, out, "--reshape", "input_ids[1,2]", "--fold-constants")
    assert code == 0, err
    variables = sorted(node.type_name for node in ir.read_model(source) if node.type_name in ("ReadValue", "Assign"))
    assert sorted(node.type_name for node in ir.read_model(out) if node.type_name in ("ReadValue", "Assign")) == \
        variables and variables
    theirs = read(source)
    theirs.reshape({"input_ids": [1, 2]})
    core = ov.Core()
    ours, reference = (core.compile_model(model, "CPU", EXACT_CPU).create_infer_request()
                       for model in (read(out), theirs))
    for step in range(3):  # the same request each step: the variables carry the KV cache over
        ids = {"input_ids": np.array([[3 + step, 5]], np.int64)}
        ours.infer(ids)
        reference.infer(ids)
        np.testing.assert_array_equal(ours.get_output_tensor(0).data, reference.get_output_tensor(0).data)
