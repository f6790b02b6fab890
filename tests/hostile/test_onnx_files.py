"""Hostile .onnx files: a file over protobuf's 2 GiB limit is refused from its size, before anything is read
(onnx.load read 2.6 GB and reported "MemoryError"), and external data must be a regular file inside the
model's folder (no '..', no absolute path, no symlink leading out), hold exactly what its tensor's type and
shape need, and stay within the element budget: all checked before a byte of it is read."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_convert
from irgraph.core.errors import ConversionError, IrIOError, ResourceLimitError
from irgraph.io.onnx.importer import MAX_ONNX_BYTES
from tests.hostile.conftest import EXIT_FAILURE, EXIT_USAGE, expect_cli_error, expect_error

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

W = np.arange(12, dtype=np.float32).reshape(2, 6)


def _model_with_external_weights(directory: Path, **external: str) -> Path:
    """x f32[2,6], w f32[2,6] (an initializer in w.data) -> Concat(axis 0) -> y; ``external`` overrides its keys."""
    weights = helper.make_tensor("w", TensorProto.FLOAT, W.shape, W.tobytes(), raw=True)
    (directory / "w.data").write_bytes(W.tobytes())
    weights.ClearField("raw_data")
    weights.data_location = TensorProto.EXTERNAL
    for key, value in {"location": "w.data", "offset": "0", "length": str(W.nbytes), **external}.items():
        entry = weights.external_data.add()
        entry.key, entry.value = key, value
    graph = helper.make_graph(
        [helper.make_node("Concat", ["x", "w"], ["y"], axis=0)], "external",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 6])], initializer=[weights],
    )
    path = directory / "model.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


def test_external_data_inside_the_folder_is_read(tmp_path, capsys):
    path = _model_with_external_weights(tmp_path)
    model = ir.convert_onnx(path)
    np.testing.assert_array_equal(ir.run(model, {"x": W})["y"], np.concatenate([W, W]))
    assert ir_convert.main([os.fspath(path), os.fspath(tmp_path / "out.xml")]) == 0


def test_an_onnx_file_over_2_gib_is_refused_from_its_size(tmp_path, capsys):
    path = tmp_path / "big.onnx"
    with open(path, "wb") as file:
        file.truncate(2_600_000_000)  # sparse: no disk space used
    message = f"the file is 2600000000 bytes; an ONNX file holds at most {MAX_ONNX_BYTES} (protobuf's limit)"
    expect_error(lambda: ir.convert_onnx(path), ResourceLimitError, message, file=path)
    expect_cli_error(ir_convert.main, [path, tmp_path / "out.xml"], capsys, EXIT_FAILURE, message)


def _outside(directory: Path) -> str:
    """A file outside the model's folder, reached through a symlink inside it."""
    secret = directory.parent / "secret.data"
    secret.write_bytes(W.tobytes())
    (directory / "link.data").symlink_to(secret)
    return "link.data"


def _fifo(directory: Path) -> str:
    os.mkfifo(directory / "pipe.data")
    return "pipe.data"


def _environ(directory: Path) -> str:
    (directory / "environ.data").symlink_to("/proc/self/environ")
    return "environ.data"


# case -> (make the external location in the folder, other keys, error class, message, exit code)
EXTERNAL = {
    "dot-dot": (lambda d: "../w.data", {}, ConversionError,
                "tensor 'w' keeps its data in '../w.data'; external data must be a relative path inside the model's "
                "folder (no '..', not absolute)", EXIT_FAILURE),
    "absolute": (lambda d: "/proc/self/environ", {}, ConversionError,
                 "keeps its data in '/proc/self/environ'; external data must be a relative path", EXIT_FAILURE),
    "symlink-out": (_outside, {}, ConversionError,
                    "tensor 'w' keeps its data in 'link.data', which leads outside the model's folder", EXIT_FAILURE),
    "symlink-to-procfs": (_environ, {}, ConversionError, "which leads outside the model's folder", EXIT_FAILURE),
    "fifo": (_fifo, {}, IrIOError,
             "cannot read the external data of tensor 'w' from 'pipe.data': not a regular file (it is a FIFO)",
             EXIT_USAGE),
    "length-differs-from-shape": (lambda d: "w.data", {"length": "1000000000"}, ConversionError,
                                  "tensor 'w': its external data is 1000000000 bytes but its type and shape need 48",
                                  EXIT_FAILURE),
    "past-the-end": (lambda d: "w.data", {"offset": "8"}, ConversionError,
                     "tensor 'w': its external data [8, 56) lies outside 'w.data' of 48 bytes", EXIT_FAILURE),
    "offset-not-digits": (lambda d: "w.data", {"offset": "-8"}, ConversionError,
                          "external data offset must be a non-negative integer. Got: '-8'", EXIT_FAILURE),
}


@pytest.mark.parametrize("case", list(EXTERNAL))
def test_external_data_is_checked_before_it_is_read(case, tmp_path, capsys):
    directory = tmp_path / "model"
    directory.mkdir()
    make, keys, kind, message, code = EXTERNAL[case]
    path = _model_with_external_weights(directory, location=make(directory), **keys)
    expect_error(lambda: ir.convert_onnx(path), kind, message, file=path)
    expect_cli_error(ir_convert.main, [path, tmp_path / "out.xml"], capsys, code, message)
    assert not (tmp_path / "out.xml").exists()


def test_an_external_tensor_above_the_element_budget_is_refused_before_it_is_read(tmp_path, capsys):
    path = _model_with_external_weights(tmp_path)
    proto = onnx.load(path, load_external_data=False)
    proto.graph.initializer[0].ClearField("dims")
    proto.graph.initializer[0].dims.extend([100_000, 100_000, 100_000])
    onnx.save(proto, path)
    message = f"tensor 'w' has {10**15} elements, above the limit of {2**31}"
    expect_error(lambda: ir.convert_onnx(path), ResourceLimitError, message, file=path)
    expect_cli_error(ir_convert.main, [path, tmp_path / "out.xml"], capsys, EXIT_FAILURE, message)
    expect_error(lambda: ir.convert_onnx(_model_with_external_weights(tmp_path), element_limit=11), ResourceLimitError,
                 "tensor 'w' has 12 elements, above the limit of 11")
    expect_cli_error(ir_convert.main, [path, tmp_path / "out.xml", "--max-elements", "11"], capsys, EXIT_FAILURE,
                     "above the limit of 11")
