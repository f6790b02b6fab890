"""The networks bench (g) generates from code (benchmarks/generated_networks.py: MobileNet-v3-small, ViT-Ti/16,
YOLOv8n with random weights, converted by OpenVINO 2026.4.1 with its defaults) run in irgraph as in OpenVINO's
CPU plugin (f32 hint), within the tolerance of the zoo networks' test (tests/io/test_real_networks.py), and
bit-identically with and without the runtime's fast paths."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.runtime import _fast
from irgraph.runtime.interpreter import Interpreter

pytestmark = pytest.mark.oracle

GENERATOR = Path(__file__).resolve().parents[2] / "benchmarks" / "generated_networks.py"


def _generator():
    """benchmarks/generated_networks.py, loaded by its path (benchmarks/ is no package)."""
    name = "irgraph_benchmarks_generated_networks"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, GENERATOR)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # registered first: dataclasses look their module up while the file runs
        spec.loader.exec_module(module)
    return sys.modules[name]


NAMES = ("mobilenet_v3_small", "vit_tiny", "yolov8n")


@pytest.fixture(scope="module")
def networks(tmp_path_factory) -> dict[str, Path]:
    pytest.importorskip("openvino")
    generator = _generator()
    assert generator.GENERATED_NETWORKS == NAMES
    directory = tmp_path_factory.mktemp("generated-networks")
    return {name: generator.convert(name, directory).xml for name in NAMES}


def _input(model: ir.Model) -> tuple[str, np.ndarray]:
    (parameter,) = model.parameters
    shape = tuple(dim.value for dim in parameter.op.shape.dims)
    return parameter.name, np.random.default_rng(0).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("name", NAMES)
def test_runs_like_the_openvino_cpu_plugin(networks, name, monkeypatch):
    import openvino as ov

    model = ir.read_model(networks[name])
    input_name, x = _input(model)
    compiled = ov.Core().compile_model(str(networks[name]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    expected = compiled({0: x})[compiled.outputs[0]]
    runs = []
    for fast in (True, False):
        monkeypatch.setattr(_fast, "ENABLED", fast)
        # One BLAS thread for both: the count otherwise follows the machine's load, and OpenBLAS 0.3.31's products
        # on 1 and 2 threads differ in the last bit (YOLOv8n: 67,923 of 705,600 outputs), which is not the fast
        # paths' doing
        (ours,) = Interpreter(model, threads=1).run({input_name: x}).values()
        runs.append(ours)
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_allclose(runs[0], expected, rtol=1e-4, atol=1e-5 * float(np.max(np.abs(expected))))


def test_the_networks_have_the_layers_of_their_originals(networks):
    """What OpenVINO made of the ONNX files: the layer types each architecture is measured for."""
    types = {name: {node.op.type_name for node in ir.read_model(xml)} for name, xml in networks.items()}
    assert {"HSwish", "HardSigmoid", "GroupConvolution", "ReduceMean", "Multiply"} <= types["mobilenet_v3_small"]
    assert {"MVN", "ScaledDotProductAttention", "Gelu", "MatMul", "Concat"} <= types["vit_tiny"]
    assert {"Swish", "MaxPool", "Interpolate", "Concat", "VariadicSplit", "SoftMax", "Sigmoid"} <= types["yolov8n"]
