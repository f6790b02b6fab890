"""Inputs to ir-run: missing or unknown names, wrong dtype, rank or shape, object arrays (never unpickled),
corrupt .npz / .npy files. Feeds that do not fit the model are InputErrors at the Parameter (exit 1);
input files that cannot be read are refused as I/O problems (exit 2) and never leave an output behind."""

from __future__ import annotations

import io
import os
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.errors import InputError
from tests.helpers import line_of
from tests.hostile.conftest import (
    EXIT_FAILURE,
    EXIT_USAGE,
    edge,
    expect_cli_error,
    expect_error,
    layer,
    net,
    parameter,
    port,
    result,
    run_tool,
    save_npz,
)

X = np.zeros((2, 6), np.float32)
TWO_INPUTS = net(
    [parameter(0, "x", (2, 6)), parameter(1, "y", (2, 6)),
     layer(2, "cat", "Concat", data={"axis": "0"}, inputs=[port(0, (2, 6)), port(1, (2, 6))],
           outputs=[port(2, (4, 6), names="joined")]),
     result(3, "out", (4, 6))],
    [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)],
)
X_LINE = line_of(TWO_INPUTS, '<layer id="0"')


@pytest.fixture
def model_files(write_ir):
    """x, y: f32[2,6] -> Concat(axis 0) -> out."""
    return write_ir(TWO_INPUTS)


# feeds -> (message, located at the x Parameter?)
BAD_FEEDS = {
    "missing-one-input": ({"x": X}, "no data for input(s) 'y'", False),
    "missing-every-input": ({}, "no data for input(s) 'x', 'y'", False),
    "unknown-name": ({"x": X, "y": X, "z": X}, "the model has no input named 'z'; inputs: x, y", False),
    "same-input-twice": ({"x": X, "y": X, "joined": X}, "the model has no input named 'joined'", False),
    "float64-for-f32": ({"x": X.astype(np.float64), "y": X},
                        "input 'x' must have element type f32 (NumPy float32); got float64", True),
    "int32-for-f32": ({"x": X.astype(np.int32), "y": X}, "must have element type f32 (NumPy float32); got int32", True),
    "float16-for-f32": ({"x": X.astype(np.float16), "y": X}, "got float16", True),
    "bool-for-f32": ({"x": X.astype(bool), "y": X}, "got bool", True),
    "big-endian-f32": ({"x": X.astype(">f4"), "y": X}, "got >f4", True),
    "strings-for-f32": ({"x": np.full((2, 6), "a"), "y": X}, "got <U1", True),
    "structured-for-f32": ({"x": np.zeros((2, 6), [("a", "<f4")]), "y": X}, "got [('a', '<f4')]", True),
    "wrong-rank": ({"x": X.reshape(12), "y": X}, "input 'x' has shape [12], which does not fit [2,6]", True),
    "wrong-shape": ({"x": np.zeros((2, 7), np.float32), "y": X}, "input 'x' has shape [2,7], which does not fit [2,6]",
                    True),
    "scalar": ({"x": np.float32(1), "y": X}, "input 'x' has shape [], which does not fit [2,6]", True),
    "empty-array": ({"x": np.zeros((0, 6), np.float32), "y": X}, "has shape [0,6], which does not fit [2,6]", True),
}


@pytest.mark.parametrize("case", list(BAD_FEEDS))
def test_feeds_that_do_not_fit_the_model_are_input_errors(case, model_files, capsys):
    feeds, message, at_x = BAD_FEEDS[case]
    model = ir.read_model(model_files.xml)
    line, layer_id = (X_LINE, 0) if at_x else (None, None)
    expect_error(lambda: ir.Interpreter(model).run(feeds), InputError, message, file=model_files.xml, line=line,
                 layer_id=layer_id)
    if not feeds:
        return  # ir-run fills every input with random data when none is given
    inputs = save_npz(model_files.directory / "inputs.npz", **feeds)
    output = model_files.directory / "out.npz"
    expect_cli_error(ir_run.main, [model_files.xml, "--inputs", inputs, "--output", output], capsys, EXIT_FAILURE,
                     message)
    assert not output.exists()


def test_object_arrays_are_refused_without_unpickling(model_files):
    model = ir.read_model(model_files.xml)
    objects = np.empty((2, 6), dtype=object)
    expect_error(lambda: ir.Interpreter(model).run({"x": objects, "y": X}), InputError,
                 "input 'x' must have element type f32 (NumPy float32); got object", file=model_files.xml,
                 line=X_LINE, layer_id=0)


class _Payload:
    """Unpickling this creates the file ``marker``: the test fails if any input file is ever unpickled."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def _pickled_npy(marker: Path) -> bytes:
    array = np.empty((2, 6), dtype=object)
    array[0, 0] = _Payload(marker)
    stream = io.BytesIO()
    np.save(stream, array, allow_pickle=True)
    return stream.getvalue()


def _npz(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _npy(shape: tuple[int, ...], data: bytes, descr: str = "<f4", version: tuple[int, int] = (1, 0)) -> bytes:
    stream = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": shape}
    if version == (1, 0):
        np.lib.format.write_array_header_1_0(stream, header)
    else:
        np.lib.format.write_array_header_2_0(stream, header)
    return stream.getvalue() + data


CODE_HEADER = b"\x93NUMPY\x01\x00\x1c\x00{'descr': __import__('os')}"
"""A header that is Python code, not a literal: it must never be evaluated."""


def _good_npz_bytes() -> bytes:
    stream = io.BytesIO()
    np.savez(stream, x=X, y=X)
    return stream.getvalue()


# name -> (writer(directory, marker) -> path, option: --inputs (npz) or -i (npy), message)
CORRUPT = {
    "pickled-object-array-in-npz": (
        lambda d, m: _npz(d / "in.npz", {"x.npy": _pickled_npy(m), "y.npy": _npy((2, 6), bytes(48))}), "--inputs",
        "array 'x': it holds Python objects (a pickle); only typed arrays are read"),
    "pickled-object-array-npy": (lambda d, m: _write(d / "x.npy", _pickled_npy(m)), "-i",
                                 "cannot read the .npy file: it holds Python objects (a pickle)"),
    "raw-pickle-as-npz": (lambda d, m: _write(d / "in.npz", pickle.dumps(_Payload(m))), "--inputs",
                          "cannot read the .npz file: File is not a zip file"),
    "raw-pickle-as-npy": (lambda d, m: _write(d / "x.npy", pickle.dumps(_Payload(m))), "-i",
                          "cannot read the .npy file: the magic string is not correct"),
    "truncated-npz": (lambda d, m: _write(d / "in.npz", _good_npz_bytes()[:300]), "--inputs",
                      "cannot read the .npz file: File is not a zip file"),
    "empty-npz": (lambda d, m: _write(d / "in.npz", b""), "--inputs", "cannot read the .npz file"),
    "random-bytes-npz": (lambda d, m: _write(d / "in.npz", os.urandom(700)), "--inputs", "cannot read the .npz file"),
    "bad-crc-npz": (lambda d, m: _write(d / "in.npz", _flip(_good_npz_bytes(), 200)), "--inputs",
                    "Bad CRC-32 for file"),
    "member-not-npy": (lambda d, m: _npz(d / "in.npz", {"x.txt": b"hello"}), "--inputs",
                       "member 'x.txt' is not a .npy array"),
    "header-declares-more-data-than-present": (
        lambda d, m: _npz(d / "in.npz", {"x.npy": _npy((2, 6), bytes(10))}), "--inputs",
        "the header declares 48 bytes of data but only 10 follow"),
    "header-without-length": (lambda d, m: _npz(d / "in.npz", {"x.npy": b"\x93NUMPY\x01\x00"}), "--inputs",
                              "array 'x': EOF"),
    "header-with-code": (lambda d, m: _npz(d / "in.npz", {"x.npy": CODE_HEADER}), "--inputs",
                         "cannot read the .npz file: array 'x'"),
    "unknown-npy-version": (lambda d, m: _npz(d / "in.npz", {"x.npy": b"\x93NUMPY\x09\x00" + bytes(60)}), "--inputs",
                            "array 'x'"),
    "truncated-npy": (lambda d, m: _write(d / "x.npy", _npy((2, 6), bytes(47))), "-i",
                      "the header declares 48 bytes of data but only 47 follow"),
    "missing-npz": (lambda d, m: d / "nope.npz", "--inputs", "nope.npz: no such file"),
    "missing-npy": (lambda d, m: d / "nope.npy", "-i", "nope.npy: no such input file"),
    # a folder is a folder of steps (one .npz per step): an empty one holds none
    "directory-as-npz": (lambda d, m: _mkdir(d / "dir.npz"), "--inputs",
                         "dir.npz: the folder of steps holds no .npz file"),
}


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _mkdir(path: Path) -> Path:
    path.mkdir()
    return path


def _flip(data: bytes, position: int) -> bytes:
    return data[:position] + bytes([data[position] ^ 0xFF]) + data[position + 1:]


@pytest.mark.parametrize("case", list(CORRUPT))
def test_unreadable_input_files_are_refused_and_never_unpickled(case, model_files, capsys):
    make, option, message = CORRUPT[case]
    directory = model_files.directory
    marker = directory / "UNPICKLED"
    path = make(directory, marker)
    output = directory / "out.npz"
    output.write_bytes(b"previous results")
    argv = [model_files.xml, "--output", output]
    argv += ["--inputs", path] if option == "--inputs" else ["-i", f"x={path}", "-i", f"y={path}"]
    expect_cli_error(ir_run.main, argv, capsys, EXIT_USAGE, message)
    assert not marker.exists(), "an input file was unpickled"
    assert output.read_bytes() == b"previous results"
    assert not [p for p in directory.iterdir() if p.name.endswith(".tmp")]


def test_input_files_read_fine_with_version_3_headers(model_files, capsys):
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 6), }".ljust(117) + b"\n"
    v3 = b"\x93NUMPY\x03\x00" + len(header).to_bytes(4, "little") + header + bytes(48)
    inputs = _npz(model_files.directory / "in.npz", {"x.npy": v3, "y.npy": v3})
    assert run_tool(ir_run.main, [model_files.xml, "--inputs", inputs], capsys).code == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-i", "x"], "-i expects NAME=FILE.npy (or a .npz file), got 'x'"),
        (["-i", "=x.npy"], "-i expects NAME=FILE.npy (or a .npz file), got '=x.npy'"),
        (["--shape", "x[2,7]"], "--shape x[2,7] does not fit input 'x', which is [2,6]"),
        (["--shape", "z[2,6]"], "--shape names 'z', but the model has no such input; inputs: 'x', 'y'"),
        (["--shape", "x[2,6"], "--shape expects NAME[d0,d1,...]"),
        (["--seed", "abc"], "argument --seed: invalid int value: 'abc'"),
    ],
)
def test_bad_input_options_are_usage_errors(argv, message, model_files, capsys):
    expect_cli_error(ir_run.main, [model_files.xml, *argv], capsys, EXIT_USAGE, message)


def test_an_input_given_twice_is_a_usage_error(model_files, capsys):
    inputs = save_npz(model_files.directory / "in.npz", x=X, y=X)
    np.save(model_files.directory / "x.npy", X)
    expect_cli_error(ir_run.main, [model_files.xml, "--inputs", inputs, "-i", f"x={model_files.directory / 'x.npy'}"],
                     capsys, EXIT_USAGE, "input 'x' is given twice")
