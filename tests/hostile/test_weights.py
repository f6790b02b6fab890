"""Weights: a missing or short .bin, negative or overflowing offsets and sizes, a size that does not match
the shape and element type, unknown element types, broken string tensors, a .bin that is not a file."""

from __future__ import annotations

import os

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_convert, ir_run, ir_validate
from irgraph.core.errors import IrIOError, IrParseError, OpError, WeightsError
from tests.helpers import line_of
from tests.hostile.conftest import EXIT_FAILURE, EXIT_USAGE, expect_cli_error, expect_error, split_model

BASE, BASE_BIN = split_model()
CONST_DATA = '<data element_type="i64" shape="" offset="0" size="8" />'
CONST_LINE = line_of(BASE, '<layer id="1"')
INT64_MAX = 2**63 - 1


def _const(element_type: str = "i64", shape: str = "", offset: object = 0, size: object = 8) -> str:
    return BASE.replace(CONST_DATA, f'<data element_type="{element_type}" shape="{shape}" offset="{offset}" '
                                    f'size="{size}" />')


def _strings(count: int, ends: list[int], text: bytes) -> bytes:
    return np.array([count, *ends], np.int32).tobytes() + text


# (model text, .bin bytes or None for no .bin, error class, message)
CASES = {
    "no-bin-beside-the-xml": (BASE, None, WeightsError,
                              "the model has Const layers but there is no weights file"),
    "empty-bin": (BASE, b"", WeightsError, "Const bytes [0, 8) lie outside the weights file of 0 bytes"),
    "short-bin": (BASE, BASE_BIN[:5], WeightsError, "Const bytes [0, 8) lie outside the weights file of 5 bytes"),
    "offset-past-the-end": (_const(offset=8), BASE_BIN, WeightsError,
                            "Const bytes [8, 16) lie outside the weights file of 8 bytes"),
    "offset-at-int64-max": (_const(offset=INT64_MAX), BASE_BIN, WeightsError,
                            f"Const bytes [{INT64_MAX}, {INT64_MAX + 8}) lie outside the weights file of 8 bytes"),
    "offset-plus-size-overflows-int64": (_const(offset=INT64_MAX - 7, size=INT64_MAX), BASE_BIN, WeightsError,
                                         "lie outside the weights file of 8 bytes"),
    "offset-beyond-int64": (_const(offset=2**64), BASE_BIN, IrParseError,
                            f"Const attribute 'offset' must be at most {INT64_MAX}. Got: '{2**64}'"),
    "size-beyond-int64": (_const(size=2**64 + 8), BASE_BIN, IrParseError,
                          f"Const attribute 'size' must be at most {INT64_MAX}"),
    "negative-offset": (_const(offset=-8), BASE_BIN, IrParseError,
                        "Const attribute 'offset' must be a non-negative integer. Got: '-8'"),
    "negative-size": (_const(size=-8), BASE_BIN, IrParseError,
                      "Const attribute 'size' must be a non-negative integer. Got: '-8'"),
    "size-smaller-than-the-shape-needs": (_const(size=4), BASE_BIN, WeightsError,
                                          "Const i64 [] needs 8 bytes but its size is 4"),
    "size-zero": (_const(size=0), BASE_BIN, WeightsError, "Const i64 [] needs 8 bytes but its size is 0"),
    "shape-larger-than-the-size": (_const(shape="1000000"), BASE_BIN, WeightsError,
                                   "Const i64 [1000000] needs 8000000 bytes but its size is 8"),
    "huge-size-within-budget": (_const(shape="1000000", size=8_000_000), BASE_BIN, WeightsError,
                                "Const bytes [0, 8000000) lie outside the weights file of 8 bytes"),
    "packed-u4-size-too-small": (_const("u4", "3", size=1), BASE_BIN, WeightsError,
                                 "Const u4 [3] needs 2 bytes but its size is 1"),
    "unknown-element-type": (_const("q7"), BASE_BIN, OpError,
                             "attribute 'element_type' must be an IR element type like f32. Got: 'q7'"),
    "dynamic-element-type": (_const("dynamic"), BASE_BIN, OpError,
                             "Const element_type must be a concrete type. Got: dynamic"),
    "string-shorter-than-its-count": (_const("string", "1", size=2), b"\x01\x00", WeightsError,
                                      "string Const needs at least 4 bytes for its string count but size is 2"),
    "string-negative-count": (_const("string", "1", size=12), _strings(-1, [0, 1], b""), WeightsError,
                              "string Const declares -1 strings; the count must be >= 0"),
    "string-count-differs-from-shape": (_const("string", "1", size=12), _strings(2**31 - 1, [0, 1], b""),
                                        WeightsError, "string Const declares 2147483647 strings but shape [1] has 1"),
    "string-offsets-decrease": (_const("string", "2", size=20), _strings(2, [0, 3, 1], b"abcd"), WeightsError,
                                "string Const offsets must not decrease: string 1 starts at 3 but ends at 1"),
    "string-text-past-the-end": (_const("string", "1", size=16), _strings(1, [0, 100], b"abcd"), WeightsError,
                                 "string Const text ends at byte 100 but only 4 bytes follow its 12-byte header"),
    "string-not-utf-8": (_const("string", "1", size=13), _strings(1, [0, 1], b"\xff"), WeightsError,
                         "string Const element 0 is not valid UTF-8"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_inconsistent_weights_are_refused_at_the_const(case, write_ir, capsys):
    text, weights, kind, message = CASES[case]
    files = write_ir(text, weights)
    expect_error(lambda: ir.read_model(files.xml), kind, message, file=files.xml, line=CONST_LINE, layer_id=1)
    output = files.directory / "out.npz"
    expect_cli_error(ir_run.main, [files.xml, "--output", output], capsys, EXIT_FAILURE, message)
    assert not output.exists()
    outcome = expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_FAILURE, message)
    assert f"{files.xml}:{CONST_LINE}: error:" in outcome.out
    expect_cli_error(ir_convert.main, [files.xml, files.directory / "copy.xml"], capsys, EXIT_FAILURE, message)
    assert not (files.directory / "copy.xml").exists()


def test_a_size_larger_than_needed_is_a_warning_that_strict_makes_an_error(write_ir, capsys):
    files = write_ir(_const(size=16), BASE_BIN + bytes(8))
    model = ir.read_model(files.xml)  # OpenVINO reads it too: the extra bytes are ignored
    assert ir.Interpreter(model).run({"x": np.zeros((2, 6), np.float32)})["y0"].shape == (2, 3)
    expect_cli_error(ir_validate.main, [files.xml, "--strict"], capsys, EXIT_FAILURE,
                     "Const size is 16 bytes but i64 [] needs 8")


def test_a_bin_that_is_a_directory_is_an_io_error(write_ir, capsys):
    files = write_ir(BASE, None)
    files.bin.mkdir()
    message = f"cannot open the weights file '{files.bin}': Is a directory"
    expect_error(lambda: ir.read_model(files.xml), IrIOError, message, file=files.xml, line=CONST_LINE, layer_id=1)
    expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_USAGE, message)
    expect_cli_error(ir_validate.main, [files.xml], capsys, EXIT_USAGE, message)


@pytest.mark.parametrize("kind", ["missing", "directory", "device", "fifo"])
def test_an_explicit_weights_path_that_is_not_a_file_is_an_io_error(kind, write_ir, tmp_path, capsys):
    files = write_ir(BASE, BASE_BIN)
    weights = {"missing": tmp_path / "nope.bin", "directory": tmp_path, "device": "/dev/zero",
               "fifo": tmp_path / "pipe.bin"}[kind]
    if kind == "fifo":
        os.mkfifo(weights)
    reason = {"missing": "No such file or directory", "directory": "Is a directory", "device": "not a regular file",
              "fifo": "not a regular file"}[kind]
    # /dev/zero was once read until memory ran out, and a FIFO blocked forever in open()
    expect_error(lambda: ir.read_model(files.xml, weights), IrIOError,
                 f"cannot open the weights file '{weights}': {reason}", file=files.xml)
    cli_message = "no such weights file" if kind == "missing" else "not a regular file"
    expect_cli_error(ir_run.main, [files.xml, "--weights", weights], capsys, EXIT_USAGE, cli_message)
    expect_cli_error(ir_validate.main, [files.xml, "--weights", weights], capsys, EXIT_USAGE, cli_message)
    expect_cli_error(ir_convert.main, [files.xml, tmp_path / "copy.xml", "--weights", weights], capsys, EXIT_USAGE,
                     cli_message)


def test_weights_are_never_written_through_the_map(write_ir):
    files = write_ir(BASE, BASE_BIN)
    model = ir.read_model(files.xml)
    value = model.node(1).op.value
    assert not value.flags.writeable
    with pytest.raises(ValueError):
        value[...] = 3
    assert files.bin.read_bytes() == BASE_BIN
