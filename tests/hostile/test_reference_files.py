"""Every file ir-run hands to another runtime is checked as irgraph's own readers check theirs: a reference model's
.bin (or an ONNX model's external data) that is a FIFO hung OpenVINO's read_model (openvino 2026.4.1; killed at
25 s) where irgraph's reader refuses one at once. Each case runs in its own process, bounded by a timeout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.hostile.conftest import EXIT_USAGE, good_inputs, split_model

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 60  # seconds; a FIFO handed on would block for ever


def _ir_run(argv: list[str | Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", "import sys; from irgraph.cli import ir_run; "
                           "sys.exit(ir_run.main(sys.argv[1:]))", *map(str, argv)],
                          cwd=cwd, env=env, text=True, capture_output=True, timeout=TIMEOUT)


def _error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


@pytest.fixture
def model(write_ir) -> Path:
    xml, weights = split_model()
    files = write_ir(xml, weights)
    good_inputs(files.directory)
    return files.xml


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_a_reference_model_whose_bin_is_not_a_regular_file_is_refused(kind, model, capsys):
    pytest.importorskip("openvino")
    directory = model.parent
    shutil.copy(model, directory / "ref.xml")
    special = directory / "ref.bin"
    if kind == "fifo":
        os.mkfifo(special)
    elif kind == "device":
        special.symlink_to("/dev/zero")
    else:
        special.mkdir()
    done = _ir_run([model, "--inputs", "inputs.npz", "--compare-with", "openvino", "--reference-model", "ref.xml"],
                   directory)
    assert done.returncode == EXIT_USAGE, done.stderr
    (line,) = _error_lines(done.stderr)
    kinds = {"fifo": "not a regular file (it is a FIFO)", "device": "not a regular file (it is a character device)",
             "directory": "Is a directory"}
    assert line == f"error: ref.bin: cannot give the weights to the reference runtime: {kinds[kind]}"
    assert "Traceback" not in done.stderr


def test_the_reference_model_with_a_regular_bin_compares(model):
    pytest.importorskip("openvino")
    directory = model.parent
    shutil.copy(model, directory / "ref.xml")
    shutil.copy(model.with_suffix(".bin"), directory / "ref.bin")
    done = _ir_run([model, "--inputs", "inputs.npz", "--compare-with", "openvino", "--reference-model", "ref.xml"],
                   directory)
    assert done.returncode == 0, done.stderr


def test_onnx_external_data_that_is_a_fifo_is_refused(tmp_path):
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper

    weights = helper.make_tensor("w", TensorProto.FLOAT, [2], [0.0, 0.0])
    weights.data_location = TensorProto.EXTERNAL
    del weights.float_data[:]
    for key, value in (("location", "w.bin"), ("offset", "0"), ("length", "8")):
        weights.external_data.add(key=key, value=value)
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [weights])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "model.onnx")
    (tmp_path / "w.bin").write_bytes(np.zeros(2, np.float32).tobytes())
    subprocess.run([sys.executable, "-c", "import sys, irgraph as ir; ir.write_model(ir.convert_onnx(sys.argv[1]), "
                    "sys.argv[2])", "model.onnx", "model.xml"], cwd=tmp_path, check=True, timeout=TIMEOUT,
                   env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    np.savez(tmp_path / "inputs.npz", x=np.float32([1, 2]))
    (tmp_path / "w.bin").unlink()
    os.mkfifo(tmp_path / "w.bin")
    done = _ir_run(["model.xml", "--inputs", "inputs.npz", "--compare-with", "onnxruntime", "--onnx", "model.onnx"],
                   tmp_path)
    assert done.returncode == EXIT_USAGE, done.stderr
    (line,) = _error_lines(done.stderr)
    assert line == ("error: model.onnx: cannot read the external data of tensor 'w' from 'w.bin': not a regular file "
                    "(it is a FIFO)")
