"""Real networks as OpenVINO 2026.4.1 writes them (converted from the onnx 1.23.2 wheel's light models):
irgraph re-writes them byte for byte, validates them without errors, and its IR v10 copy reads and
runs in OpenVINO with the original's outputs."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import irgraph as ir
from tests.real_networks import SMALL_NETWORKS, RealIR, convert

pytestmark = pytest.mark.oracle

VARIANTS = [(name, True) for name in SMALL_NETWORKS] + [("squeezenet", False), ("shufflenet", False)]


@pytest.fixture(scope="session")
def networks(tmp_path_factory) -> dict[tuple[str, bool], RealIR]:
    directory = tmp_path_factory.mktemp("real-networks")
    return {(name, compressed): convert(name, directory, compress_to_fp16=compressed) for name, compressed in VARIANTS}


def _id(variant: tuple[str, bool]) -> str:
    return f"{variant[0]}-{'f16' if variant[1] else 'f32'}"


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
    import openvino as ov

    network = networks[variant]
    ir.write_model(ir.read_model(network.xml), tmp_path / "v10.xml", version=10)
    core = ov.Core()
    original, copy = (core.compile_model(str(path), "CPU") for path in (network.xml, tmp_path / "v10.xml"))
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


RUNNABLE = [name for name in SMALL_NETWORKS if name != "squeezenet"]


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


@pytest.mark.parametrize("variant", [(name, True) for name in RUNNABLE] + [("shufflenet", False)], ids=_id)
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
    """SqueezeNet's logits here are ~6.8e9 (its weights are generated constants), where one f32 ULP is 512:
    the two summation orders differ by ~8 ULP (6e-7), which its SoftMax turns into zeros for some classes
    (exp(-4096)), so the logits are compared, not the probabilities."""
    from irgraph.tools.extract import extract

    network = networks[("squeezenet", True)]
    model = ir.read_model(network.xml)
    logits = next(node.name for node in model if node.op.type_name == "SoftMax")
    source = model.input_sources(next(node for node in model if node.name == logits))[0]
    producer = model.node(source.node_id).name
    x, input_name, compiled, theirs = _run_both(network, model, [producer])
    (ours,) = ir.run(extract(model, None, [f"{producer}:0"]), {input_name: x}).values()
    expected = theirs[compiled.outputs[-1]]
    np.testing.assert_allclose(ours, expected, rtol=1e-6)


@pytest.mark.parametrize("variant", VARIANTS, ids=_id)
def test_the_fast_path_reads_them_exactly_as_the_lxml_path_does(networks, variant):
    from tests.io.test_fast_reader import read_both

    fast, reference, answered = read_both(networks[variant].xml)
    assert answered  # the fast path takes the files OpenVINO writes, rt_info-rich ones included
    assert fast == reference
