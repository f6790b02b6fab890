"""Real networks as OpenVINO 2026.4.1 writes them (converted from the onnx 1.23.2 wheel's light models, with
seeded weights: tests/real_networks.py): irgraph re-writes them byte for byte, validates them without errors,
and its IR v10 copy reads and runs in OpenVINO with the original's outputs; their outputs are not degenerate,
so the comparisons here and in the tests that use these networks can see a channel mixed up."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import irgraph as ir
from tests.real_networks import SMALL_NETWORKS, RealIR, convert, seeded_onnx

pytestmark = pytest.mark.oracle

VARIANTS = [(name, True) for name in SMALL_NETWORKS] + [("squeezenet", False), ("shufflenet", False)]


@pytest.fixture(scope="session")
def networks(real_networks_folder) -> dict[tuple[str, bool], RealIR]:
    return {(name, compressed): convert(name, real_networks_folder, compress_to_fp16=compressed)
            for name, compressed in VARIANTS}


def _id(variant: tuple[str, bool]) -> str:
    return f"{variant[0]}-{'f16' if variant[1] else 'f32'}"


@pytest.mark.parametrize("name", SMALL_NETWORKS)
def test_the_compared_outputs_are_not_degenerate(networks, name):
    """The wheel's own weights are one value per tensor, which made all 1,000 logits equal (ResNet-50: 9.66e18
    each, softmax 0.001 everywhere) and every comparison blind to a layout or channel bug. The seeded ones
    give, with onnxruntime 1.31.1 on the seeded ONNX file: logits of >= 848 distinct values (SqueezeNet's
    are ReLU outputs, some 0), std 0.17 (Inception v1) to 3.0 (ShuffleNet), softmax at most 0.5."""
    import onnx
    import onnxruntime as ort

    proto = onnx.load(str(networks[(name, True)].onnx))
    assert not any(node.op_type == "ConstantOfShape" for node in proto.graph.node)
    softmax = next((node for node in proto.graph.node if node.op_type == "Softmax"), None)
    if softmax is not None:
        proto.graph.output.append(onnx.helper.make_empty_tensor_value_info(softmax.input[0]))
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
    outputs = session.run(None, {session.get_inputs()[0].name: x})
    logits = outputs[-1]
    assert len(np.unique(logits)) > 500 and float(np.std(logits)) > 0.1, (len(np.unique(logits)), np.std(logits))
    if softmax is not None:
        probabilities = outputs[0]
        assert len(np.unique(probabilities)) > 500 and 0.00101 < float(np.max(probabilities)) < 0.9


def test_seeded_weights_are_the_same_on_every_run_and_machine(tmp_path):
    """Drawn by numpy's default_rng from the model's and the tensor's names: He for ResNet-50's first conv
    (std sqrt(2 / 147)), U(0.5, 1.5) for a variance, sqrt(1 / 2048) for its classifier."""
    import onnx
    from onnx import numpy_helper

    proto = onnx.load(str(seeded_onnx("resnet50", tmp_path)))
    weights = {tensor.name: numpy_helper.to_array(tensor) for tensor in proto.graph.initializer}
    first = {name: weights[name].ravel()[:3].tolist()
             for name in ("gpu_0/conv1_w_0", "gpu_0/res2_0_branch2a_bn_riv_0", "gpu_0/pred_w_0")}
    assert first == {
        "gpu_0/conv1_w_0": [-0.10032280534505844, -0.11608869582414627, -0.082920603454113],
        "gpu_0/res2_0_branch2a_bn_riv_0": [1.0996564626693726, 0.8737068176269531, 1.4404624700546265],
        "gpu_0/pred_w_0": [-0.01890702173113823, 0.015258889645338058, -0.012554148212075233],
    }
    assert weights["gpu_0/conv1_w_0"].shape == (64, 3, 7, 7) and weights["gpu_0/conv1_w_0"].dtype == np.float32
    constant = [name for name, value in weights.items() if value.dtype == np.float32 and len(np.unique(value)) == 1]
    assert constant == ["gpu_0/imagenet1k_blobs_queue_f22e83c9-22cd-4a8b-a66d-113af6b832b4_0"]  # unused, shape [1, 1]


@pytest.mark.parametrize("variant", VARIANTS, ids=_id)
def test_rewrites_byte_for_byte(networks, variant, tmp_path):
    network = networks[variant]
    ir.write_model(ir.read_model(network.xml), tmp_path / "copy.xml")
    assert (tmp_path / "copy.xml").read_bytes() == network.xml.read_bytes()
    assert (tmp_path / "copy.bin").read_bytes() == network.bin.read_bytes()


@pytest.mark.parametrize("variant", VARIANTS, ids=_id)
def test_validates_without_errors(networks, variant):
    errors = [d for d in ir.validate_file(networks[variant].xml) if d.is_error]
    assert errors == []


@pytest.mark.parametrize("variant", [("squeezenet", True), ("shufflenet", True)], ids=_id)
def test_the_v10_copy_runs_in_openvino_with_the_originals_outputs(networks, variant, tmp_path):
    """Exact on OpenVINO 2026.4.1's CPU plugin with the f32 hint. Its default on an AVX-512 BF16 machine is
    bf16, where the two files run differently (the v11 file's fp16 weights are marked as compressed, the v10
    copy cannot mark them): with seeded weights ShuffleNet's probabilities then differ by up to 0.0064 (7 %)."""
    import openvino as ov

    network = networks[variant]
    ir.write_model(ir.read_model(network.xml), tmp_path / "v10.xml", version=10)
    core = ov.Core()
    original, copy = (core.compile_model(str(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
                      for path in (network.xml, tmp_path / "v10.xml"))
    shape = tuple(original.inputs[0].shape)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    np.testing.assert_array_equal(copy(x)[0], original(x)[0])


@pytest.mark.parametrize("variant", VARIANTS, ids=_id)
def test_validate_says_each_unchecked_op_type_once_and_strict_passes(networks, variant, capsys):
    from irgraph.cli import ir_validate

    xml = networks[variant].xml
    assert ir_validate.main(["--strict", str(xml)]) == 0
    out = capsys.readouterr().out
    layers = sum(1 for _ in ir.read_model(xml))
    assert len(out.splitlines()) <= 3 < layers, out  # one summary note at most, never a line per layer


@pytest.mark.parametrize("variant", VARIANTS, ids=_id)
def test_info_describes_the_model_with_and_without_its_bin(networks, variant, tmp_path, capsys):
    from irgraph.cli import ir_info

    network = networks[variant]
    assert ir_info.main([str(network.xml)]) == 0
    shutil.copyfile(network.xml, tmp_path / "model.xml")  # no .bin beside it
    assert ir_info.main([str(tmp_path / "model.xml")]) == 0
    assert "inputs" in capsys.readouterr().out


def _run_both(network: RealIR, model: ir.Model, outputs: list[str] | None = None):
    import openvino as ov

    (parameter,) = model.parameters
    shape = tuple(dim.value for dim in parameter.op.shape.dims)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ov_model = ov.Core().read_model(str(network.xml))
    if outputs:
        ov_model.add_outputs([node.output(0) for node in ov_model.get_ordered_ops()
                              if node.get_friendly_name() in outputs])
    compiled = ov.Core().compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return x, parameter.name, compiled, compiled({0: x})


@pytest.mark.parametrize("variant", [(name, True) for name in SMALL_NETWORKS] + [("shufflenet", False)], ids=_id)
def test_runs_like_the_openvino_cpu_plugin(networks, variant):
    """ir-run's engine on OpenVINO's IR (fp16-compressed, and an f32 one: compress_to_fp16=False) equals
    OpenVINO 2026.4.1's CPU plugin (f32 hint)."""
    network = networks[variant]
    model = ir.read_model(network.xml)
    x, input_name, compiled, theirs = _run_both(network, model)
    (ours,) = ir.run(model, {input_name: x}).values()
    expected = theirs[compiled.outputs[0]]
    np.testing.assert_allclose(ours, expected, rtol=1e-4, atol=1e-5 * float(np.max(np.abs(expected))))


def test_squeezenet_logits_are_openvinos_within_summation_order(networks):
    """SqueezeNet's logits (0 to 9.2: ReLU then global average pooling) differ from OpenVINO 2026.4.1's by at
    most 5.2e-7 (measured on AVX-512), under one f32 ULP of the largest (9.5e-7): the summation order. The
    bound, 1e-6 of the largest logit, is ~2 ULP, tighter than the probabilities' test above."""
    from irgraph.tools.extract import extract

    network = networks[("squeezenet", True)]
    model = ir.read_model(network.xml)
    logits = next(node.name for node in model if node.op.type_name == "SoftMax")
    source = model.input_sources(next(node for node in model if node.name == logits))[0]
    producer = model.node(source.node_id).name
    x, input_name, compiled, theirs = _run_both(network, model, [producer])
    (ours,) = ir.run(extract(model, None, [f"{producer}:0"]), {input_name: x}).values()
    expected = theirs[compiled.outputs[-1]]
    np.testing.assert_allclose(ours, expected, rtol=1e-6, atol=1e-6 * float(np.max(np.abs(expected))))


@pytest.mark.parametrize("variant", VARIANTS, ids=_id)
def test_the_fast_path_reads_them_exactly_as_the_lxml_path_does(networks, variant):
    from tests.io.test_fast_reader import read_both

    fast, reference, answered = read_both(networks[variant].xml)
    assert answered  # the fast path takes the files OpenVINO writes, rt_info-rich ones included
    assert fast == reference
