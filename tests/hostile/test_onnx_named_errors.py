"""ONNX files whose faults surfaced as internal errors of the libraries underneath ("embedded null byte",
"negative count", "No schema registered for 'Relu' version '-5'", NumPy's 64-dimension limit): each is now one line
naming the file and what is wrong, and nothing is written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_convert, ir_run
from irgraph.core.errors import ConversionError, EvaluationError
from tests.hostile.conftest import EXIT_FAILURE, expect_cli_error, expect_error

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402 - after the skip


def _add_model(weights: TensorProto, opset: int = 17) -> onnx.ModelProto:
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [weights])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _external(location: str, dims: list[int]) -> TensorProto:
    weights = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=dims, data_location=TensorProto.EXTERNAL)
    for key, value in (("location", location), ("offset", "0"), ("length", "8")):
        weights.external_data.add(key=key, value=value)
    return weights


def _relu(opset: int, rank: int = 1) -> onnx.ModelProto:
    shape = [2] if rank == 1 else [1] * rank
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


CASES = {
    "nul-in-external-location": (
        lambda: _add_model(_external("w\x00.bin", [2])),
        "tensor 'w' keeps its data in 'w\\x00.bin', which holds a NUL byte; no file has such a name"),
    "negative-external-dims": (
        lambda: _add_model(_external("w.bin", [-2])), "tensor 'w' has the shape [-2]; dims must be >= 0"),
    "negative-dims-whose-product-fits": (
        lambda: _add_model(_external("w.bin", [-1, -2])), "tensor 'w' has the shape [-1, -2]; dims must be >= 0"),
    "negative-initializer-dims": (
        lambda: _add_model(TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[-2],
                                       raw_data=np.zeros(2, np.float32).tobytes())),
        "initializer 'w' has the shape [-2]; dims must be >= 0"),
    "negative-opset": (lambda: _relu(-5), "the model imports ai.onnx opset -5; opset versions start at 1"),
    "opset-zero": (lambda: _relu(0), "the model imports ai.onnx opset 0; opset versions start at 1"),
}


def _save(directory: Path, model: onnx.ModelProto) -> Path:
    path = directory / "model.onnx"
    path.write_bytes(model.SerializeToString())
    (directory / "w.bin").write_bytes(np.zeros(2, np.float32).tobytes())
    return path


@pytest.mark.parametrize("case", list(CASES))
def test_a_faulty_onnx_file_is_one_named_error(case, tmp_path, capsys):
    make, message = CASES[case]
    source = _save(tmp_path, make())
    expect_error(lambda: ir.convert_onnx(source), ConversionError, message, file=source)
    outcome = expect_cli_error(ir_convert.main, [source, tmp_path / "out.xml"], capsys, EXIT_FAILURE, message)
    assert outcome.error_lines == [f"error: {source}: {message}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.onnx", "w.bin"]


def test_a_parameter_of_rank_70_converts_and_is_refused_by_the_run_at_its_layer(tmp_path, capsys):
    """OpenVINO has no rank limit; NumPy holds at most 64 dimensions, so running it is refused, not crashed."""
    source = _save(tmp_path, _relu(17, rank=70))
    xml = tmp_path / "model.xml"
    assert ir_convert.main([str(source), str(xml)]) == 0
    message = "output 0 has rank 70; NumPy, which irgraph runs models with, holds at most 64 dimensions"
    expect_error(lambda: ir.Interpreter(ir.read_model(xml)), EvaluationError, message, file=xml, line=4)
    outcome = expect_cli_error(ir_run.main, [xml, "--output", tmp_path / "out.npz"], capsys, EXIT_FAILURE, message)
    assert outcome.error_lines == [f"error: {xml}:4: layer 0 'x' (Parameter): {message}"]
    assert not (tmp_path / "out.npz").exists()
