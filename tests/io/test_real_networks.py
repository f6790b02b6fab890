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
