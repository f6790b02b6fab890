"""Outputs: ir-convert and ir-run --output leave an existing destination untouched when they fail (nothing
half-written, no temporary file left), and an unwritable destination gives one clear error naming it."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_convert, ir_run
from irgraph.errors import IrIOError
from irgraph.io import weights as weights_module
from tests.hostile.conftest import (
    EXIT_FAILURE,
    EXIT_USAGE,
    expect_cli_error,
    expect_error,
    run_tool,
    save_npz,
    split_model,
)

BASE, BASE_BIN = split_model()
OLD = b"previous contents - must survive"


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".") or p.name.endswith(".tmp"))


# name -> (edit the model text, inputs to feed or None for random data, exit code, message)
RUN_FAILURES = {
    "truncated-model": (lambda text: text[: len(text) // 2], None, EXIT_FAILURE, "not well-formed XML"),
    "invalid-op": (lambda text: text.replace('shape="2,6"', 'shape="2,7"'), None, EXIT_FAILURE,
                   "must be evenly divisible"),
    "wrong-input-dtype": (lambda text: text, {"x": np.zeros((2, 6), np.float64)}, EXIT_FAILURE,
                          "must have element type f32"),
    "unknown-input-name": (lambda text: text, {"x": np.zeros((2, 6), np.float32), "q": np.zeros(1)}, EXIT_FAILURE,
                           "the model has no input named 'q'"),
    "corrupt-inputs": (lambda text: text, "corrupt", EXIT_USAGE, "cannot read the .npz file"),
}


@pytest.mark.parametrize("case", list(RUN_FAILURES))
def test_a_failed_run_leaves_an_existing_output_untouched(case, write_ir, capsys):
    edit, feeds, code, message = RUN_FAILURES[case]
    files = write_ir(edit(BASE), BASE_BIN)
    output = files.directory / "out.npz"
    output.write_bytes(OLD)
    argv = [files.xml, "--output", output]
    if feeds == "corrupt":
        (files.directory / "in.npz").write_bytes(b"PK\x03\x04 not really a zip")
        argv += ["--inputs", files.directory / "in.npz"]
    elif feeds is not None:
        argv += ["--inputs", save_npz(files.directory / "in.npz", **feeds)]
    expect_cli_error(ir_run.main, argv, capsys, code, message)
    assert output.read_bytes() == OLD
    assert _leftovers(files.directory) == []


def test_a_run_that_fails_while_writing_leaves_the_output_untouched(write_ir, monkeypatch, capsys):
    files = write_ir(BASE, BASE_BIN)
    output = files.directory / "out.npz"
    output.write_bytes(OLD)

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np.lib.format, "write_array", full_disk)
    expect_cli_error(ir_run.main, [files.xml, "--output", output], capsys, EXIT_USAGE,
                     f"{output}: No space left on device")
    assert output.read_bytes() == OLD
    assert _leftovers(files.directory) == []


def _existing_destination(directory: Path, suffix: str) -> list[Path]:
    paths = [directory / f"existing{suffix}"] + ([directory / "existing.bin"] if suffix == ".xml" else [])
    for path in paths:
        path.write_bytes(OLD + path.suffix.encode())
    return paths


# name -> (edit the model text, exit code, message)
CONVERT_FAILURES = {
    "truncated-source": (lambda text: text[: len(text) // 2], EXIT_FAILURE, "not well-formed XML"),
    "source-with-a-doctype": (lambda text: text.replace("<net ", '<!DOCTYPE net [<!ENTITY e "x">]>\n<net ', 1),
                              EXIT_FAILURE, "DOCTYPE"),
    "dangling-edge": (lambda text: text.replace('from-layer="1"', 'from-layer="9"'), EXIT_FAILURE,
                      "there is no layer with id 9"),
    "invalid-op": (lambda text: text.replace('shape="2,6"', 'shape="2,7"'), EXIT_FAILURE,
                   "must be evenly divisible"),
    "no-results": (lambda text: text.replace('type="Result"', 'type="Gone"'), EXIT_FAILURE, "has no Result layers"),
}


@pytest.mark.parametrize("suffix", [".xml", ".onnx"])
@pytest.mark.parametrize("case", list(CONVERT_FAILURES))
def test_a_failed_conversion_leaves_an_existing_destination_untouched(case, suffix, write_ir, capsys):
    edit, code, message = CONVERT_FAILURES[case]
    files = write_ir(edit(BASE), BASE_BIN)
    destination = _existing_destination(files.directory, suffix)
    expect_cli_error(ir_convert.main, [files.xml, destination[0]], capsys, code, message)
    for path in destination:
        assert path.read_bytes() == OLD + path.suffix.encode()
    assert _leftovers(files.directory) == []


def test_a_conversion_that_fails_while_writing_leaves_both_files_untouched(write_ir, monkeypatch, capsys):
    files = write_ir(BASE, BASE_BIN)
    destination = _existing_destination(files.directory, ".xml")

    def full_disk(self, stream):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(weights_module.WeightsWriter, "write_to", full_disk)
    expect_cli_error(ir_convert.main, [files.xml, destination[0]], capsys, EXIT_USAGE,
                     f"{destination[1]}: cannot write the model: No space left on device")
    for path in destination:
        assert path.read_bytes() == OLD + path.suffix.encode()
    assert _leftovers(files.directory) == []


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("missing-directory", "directory {dir}/missing does not exist"),
        ("under-a-regular-file", "directory {dir}/model.xml does not exist"),
        ("a-directory", "is a directory"),
        ("name-too-long", "File name too long"),
    ],
)
@pytest.mark.parametrize("tool", ["ir-run", "ir-convert-ir", "ir-convert-onnx"])
def test_an_unwritable_destination_is_a_clear_usage_error(tool, where, message, write_ir, capsys):
    files = write_ir(BASE, BASE_BIN)
    directory = files.directory
    suffix = {"ir-run": ".npz", "ir-convert-ir": ".xml", "ir-convert-onnx": ".onnx"}[tool]
    destination = {
        "missing-directory": directory / "missing" / f"out{suffix}",
        "under-a-regular-file": directory / "model.xml" / f"out{suffix}",
        "a-directory": directory / f"out{suffix}",
        "name-too-long": directory / ("n" * 300 + suffix),
    }[where]
    if where == "a-directory":
        destination.mkdir()
    if tool == "ir-run":
        outcome = expect_cli_error(ir_run.main, [files.xml, "--output", destination], capsys, EXIT_USAGE,
                                   message.format(dir=directory))
    else:
        outcome = expect_cli_error(ir_convert.main, [files.xml, destination], capsys, EXIT_USAGE,
                                   message.format(dir=directory))
    # Names what was asked for (an IR destination is a pair: the .bin is written first).
    assert outcome.error_lines[0].startswith(f"error: {destination.with_suffix('')}."), outcome.error_lines
    assert _leftovers(directory) == []
    assert not (directory / "missing").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only directories")
@pytest.mark.parametrize("tool", ["ir-run", "ir-convert"])
def test_a_read_only_directory_is_a_clear_usage_error(tool, write_ir, tmp_path, capsys):
    files = write_ir(BASE, BASE_BIN)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        if tool == "ir-run":
            expect_cli_error(ir_run.main, [files.xml, "--output", locked / "out.npz"], capsys, EXIT_USAGE,
                             "Permission denied")
        else:
            expect_cli_error(ir_convert.main, [files.xml, locked / "out.xml"], capsys, EXIT_USAGE,
                             "Permission denied")
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)


def test_a_destination_bin_that_is_a_directory_stops_before_anything_is_written(write_ir, capsys):
    files = write_ir(BASE, BASE_BIN)
    (files.directory / "copy.bin").mkdir()
    expect_cli_error(ir_convert.main, [files.xml, files.directory / "copy.xml"], capsys, EXIT_USAGE,
                     "copy.bin: is a directory, not a regular file; refusing to replace it")
    assert not (files.directory / "copy.xml").exists()
    assert _leftovers(files.directory) == []


def test_write_model_names_the_destination_it_cannot_write(write_ir):
    files = write_ir(BASE, BASE_BIN)
    model = ir.read_model(files.xml)
    destination = files.directory / ("n" * 300 + ".xml")
    expect_error(lambda: ir.write_model(model, destination), IrIOError, "cannot write the model: File name too long",
                 file=destination.with_suffix(".bin"))  # the .bin is written first
    assert _leftovers(files.directory) == []


def test_a_symlinked_destination_is_replaced_not_written_through(write_ir, tmp_path, capsys):
    files = write_ir(BASE, BASE_BIN)
    protected = tmp_path / "protected.npz"
    protected.write_bytes(OLD)
    link = files.directory / "out.npz"
    link.symlink_to(protected)
    assert run_tool(ir_run.main, [files.xml, "--output", link], capsys).code == 0
    assert protected.read_bytes() == OLD and not link.is_symlink()
    with np.load(link) as outputs:
        assert sorted(outputs.files) == ["y0", "y1"]
