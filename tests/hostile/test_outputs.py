"""Outputs: ir-convert and ir-run --output leave an existing destination untouched when they fail (nothing
half-written, no temporary file left), an unwritable destination gives one clear error naming it, and a
destination that is a directory, FIFO, socket, device node or a file the same command reads is refused
before anything is computed. Every output gets the mode a plain open() would give it."""

from __future__ import annotations

import errno
import os
import socket
import stat
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import _common as common
from irgraph.cli import ir_convert, ir_run
from irgraph.core.errors import IrIOError
from irgraph.io import atomic
from irgraph.io import weights as weights_module
from tests.helpers import mode_of, record_fsync_and_replace, umask
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


# ------------------------------------------------------------------------------------ hostile destinations
# Every refusal below exits 2 with one `error: PATH: ...` line before any model or input is read or
# anything is written: the `nothing_computed` fixture turns any read or write into an internal error.
@pytest.fixture
def nothing_computed(monkeypatch):
    def forbidden(what):
        def call(*args, **kwargs):
            raise AssertionError(f"{what} was called although the destination was refused")
        return call

    for name in ("read_model", "load_npz", "load_npy"):
        monkeypatch.setattr(common, name, forbidden(f"common.{name}"))
    monkeypatch.setattr(ir, "convert_onnx", forbidden("convert_onnx"))
    monkeypatch.setattr(atomic, "replace_files", forbidden("replace_files"))


def _state(path: Path) -> tuple[object, ...]:
    """What must not change about ``path``: device, inode, type, device number and content (never read from
    a FIFO, socket or device: a regular file's bytes, a directory's names, a link's target)."""
    info = os.lstat(path)
    if stat.S_ISREG(info.st_mode):
        content: object = path.read_bytes()
    elif stat.S_ISDIR(info.st_mode):
        content = sorted(os.listdir(path))
    elif stat.S_ISLNK(info.st_mode):
        content = os.readlink(path)
    else:
        content = None
    return info.st_dev, info.st_ino, stat.S_IFMT(info.st_mode), info.st_rdev, content


def _states(directory: Path) -> dict[str, tuple[object, ...]]:
    return {path.name: _state(path) for path in directory.iterdir()}


def _bind_socket(path: Path, monkeypatch) -> socket.socket:
    monkeypatch.chdir(path.parent)  # a relative bind: AF_UNIX paths are limited to 107 bytes
    server = socket.socket(socket.AF_UNIX)
    server.bind(path.name)
    return server


SPECIAL_KINDS = {"fifo": "a FIFO (named pipe)", "directory": "a directory", "socket": "a socket",
                 "device": "a character device", "link-to-fifo": "a symbolic link to a FIFO (named pipe)"}
DESTINATIONS = {"ir-run": ".npz", "ir-convert-xml": ".xml", "ir-convert-bin": ".xml", "ir-convert-onnx": ".onnx"}


@pytest.mark.parametrize("kind", list(SPECIAL_KINDS))
@pytest.mark.parametrize("tool", list(DESTINATIONS))
def test_a_special_destination_is_refused_before_anything_is_read(tool, kind, write_ir, nothing_computed,
                                                                   monkeypatch, capsys):
    files = write_ir(BASE, BASE_BIN)
    directory = files.directory
    destination = directory / f"out{DESTINATIONS[tool]}"
    special = directory / "out.bin" if tool == "ir-convert-bin" else destination  # the .bin beside DST
    expected = SPECIAL_KINDS[kind]
    server = None
    if kind == "fifo":
        os.mkfifo(special)
    elif kind == "directory":
        special.mkdir()
        (special / "inside").write_bytes(OLD)
    elif kind == "socket":
        server = _bind_socket(special, monkeypatch)
    elif kind == "link-to-fifo":
        os.mkfifo(directory / "pipe")
        special.symlink_to(directory / "pipe")
    elif tool == "ir-run":  # the device node itself; never written to (the check comes first)
        destination = special = Path(os.devnull)
    else:  # ir-convert needs a .xml/.onnx name: a link to the device
        special.symlink_to(os.devnull)
        expected = "a symbolic link to a character device"
    before, before_all, device = _state(special), _states(directory), _state(Path(os.devnull))
    argv = [files.xml, "--output", destination] if tool == "ir-run" else [files.xml, destination]
    try:
        expect_cli_error(ir_run.main if tool == "ir-run" else ir_convert.main, argv, capsys, EXIT_USAGE,
                         f"error: {special}: is {expected}, not a regular file; refusing to replace it")
    finally:
        if server is not None:
            server.close()
    assert _state(special) == before and _states(directory) == before_all
    assert _state(Path(os.devnull)) == device
    assert not [name for name in os.listdir(os.path.dirname(os.devnull)) if name.startswith(".null.")]


def _copy(source: Path, destination: Path) -> Path:
    destination.write_bytes(source.read_bytes())
    return destination


# name -> (set up files in the model's directory and return (argv after the model, path named, role, file read))
def _run_case(name: str, files) -> tuple[list[str | Path], str, str, str]:
    d = files.directory
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    inputs = save_npz(d / "in.npz", x=x)
    np.save(d / "a.npy", x)
    if name == "model-xml":
        return ["--output", files.xml], str(files.xml), "the model file", str(files.xml)
    if name == "model-bin":
        return ["--output", files.bin], str(files.bin), "the weights file", str(files.bin)
    if name == "explicit-weights-other-path":
        weights = _copy(files.bin, d / "w.bin")
        (d / "sub").mkdir()
        other = f"{d}/sub/../w.bin"
        return ["--weights", weights, "--output", other], other, "the weights file", str(weights)
    if name == "inputs-npz":
        return ["--inputs", inputs, "--output", inputs], str(inputs), "the input file", str(inputs)
    if name == "npz-given-with-i":
        return ["-i", inputs, "--output", inputs], str(inputs), "the input file", str(inputs)
    if name == "npy":
        return ["-i", f"x={d / 'a.npy'}", "--output", d / "a.npy"], str(d / "a.npy"), "the input file", str(d / "a.npy")
    if name == "reference":
        reference = save_npz(d / "ref.npz", y0=x[:, :3], y1=x[:, 3:])
        return ["--compare", reference, "--output", reference], str(reference), "the reference file", str(reference)
    if name == "hard-link":
        os.link(inputs, d / "out.npz")
        return ["--inputs", inputs, "--output", d / "out.npz"], str(d / "out.npz"), "the input file", str(inputs)
    if name == "input-read-through-a-link":
        (d / "link.npy").symlink_to(d / "a.npy")
        return (["-i", f"x={d / 'link.npy'}", "--output", d / "a.npy"], str(d / "a.npy"), "the input file",
                str(d / "link.npy"))
    assert name == "symlinked-directory"
    (d / "alias").symlink_to(d)
    return ["--output", d / "alias" / "model.bin"], str(d / "alias" / "model.bin"), "the weights file", str(files.bin)


RUN_SAME_FILE = ["model-xml", "model-bin", "explicit-weights-other-path", "inputs-npz", "npz-given-with-i", "npy",
                 "reference", "hard-link", "input-read-through-a-link", "symlinked-directory"]


@pytest.mark.parametrize("case", RUN_SAME_FILE)
def test_ir_run_never_overwrites_a_file_it_reads(case, write_ir, nothing_computed, capsys):
    files = write_ir(BASE, BASE_BIN)
    extra, named, role, read = _run_case(case, files)
    before = _states(files.directory)
    expect_cli_error(ir_run.main, [files.xml, *extra], capsys, EXIT_USAGE,
                     f"error: {named}: is {role} {read}, which this command reads; refusing to overwrite it")
    assert _states(files.directory) == before  # bytes and inodes of every file; no temporary file


def test_ir_run_refuses_the_model_named_by_another_relative_path(write_ir, nothing_computed, monkeypatch, capsys):
    files = write_ir(BASE, BASE_BIN)
    monkeypatch.chdir(files.directory)
    before = _states(files.directory)
    expect_cli_error(ir_run.main, ["model.xml", "--output", f"../{files.directory.name}/./model.xml"], capsys,
                     EXIT_USAGE, f"../{files.directory.name}/./model.xml: is the model file model.xml, which this "
                     "command reads; refusing to overwrite it")
    assert _states(files.directory) == before


# name -> (DST relative to the model's directory, extra argv, the path refused, role, file read)
def _convert_case(name: str, files) -> tuple[Path | str, list[str | Path], str, str, str]:
    d = files.directory
    if name == "same-xml":
        return files.xml, [], str(files.xml), "the source model", str(files.xml)
    if name == "same-xml-other-path":
        (d / "sub").mkdir()
        return f"{d}/sub/../model.xml", [], f"{d}/sub/../model.xml", "the source model", str(files.xml)
    if name == "bin-hard-link":
        os.link(files.bin, d / "copy.bin")
        return d / "copy.xml", [], str(d / "copy.bin"), "the source weights", str(files.bin)
    if name == "bin-is-the-given-weights":
        weights = _copy(files.bin, d / "w.bin")
        return d / "w.xml", ["--weights", weights], str(weights), "the source weights", str(weights)
    assert name == "xml-hard-link"
    os.link(files.xml, d / "copy.xml")
    return d / "copy.xml", [], str(d / "copy.xml"), "the source model", str(files.xml)


@pytest.mark.parametrize("case", ["same-xml", "same-xml-other-path", "bin-hard-link", "bin-is-the-given-weights",
                                  "xml-hard-link"])
def test_ir_convert_never_overwrites_its_source(case, write_ir, nothing_computed, capsys):
    files = write_ir(BASE, BASE_BIN)
    destination, extra, named, role, read = _convert_case(case, files)
    before = _states(files.directory)
    expect_cli_error(ir_convert.main, [files.xml, destination, *extra], capsys, EXIT_USAGE,
                     f"error: {named}: is {role} {read}, which this command reads; refusing to overwrite it")
    assert _states(files.directory) == before


def test_ir_run_replaces_a_symlink_to_the_model_not_the_model(write_ir, capsys):
    files = write_ir(BASE, BASE_BIN)
    link = files.directory / "out.npz"
    link.symlink_to(files.xml)
    model_before = _state(files.xml), _state(files.bin)
    assert run_tool(ir_run.main, [files.xml, "--output", link], capsys).code == 0
    assert (_state(files.xml), _state(files.bin)) == model_before
    assert not link.is_symlink()
    with np.load(link) as outputs:
        assert sorted(outputs.files) == ["y0", "y1"]


@pytest.mark.parametrize("links", [("bin",), ("xml", "bin")])
def test_ir_convert_replaces_symlinks_to_its_source_not_the_source(links, write_ir, capsys):
    files = write_ir(BASE, BASE_BIN)
    source_before = _state(files.xml), _state(files.bin)
    for suffix in links:
        (files.directory / f"copy.{suffix}").symlink_to(files.directory / f"model.{suffix}")
    outcome = run_tool(ir_convert.main, [files.xml, files.directory / "copy.xml"], capsys)
    assert outcome.code == 0, outcome.err
    assert (_state(files.xml), _state(files.bin)) == source_before
    for suffix in ("xml", "bin"):
        assert not (files.directory / f"copy.{suffix}").is_symlink()
    assert (files.directory / "copy.bin").read_bytes() == BASE_BIN
    assert ir.read_model(files.directory / "copy.xml").results[0].name == "r0"


# ------------------------------------------------------------------------------------ modes and syncs
@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o077, 0o600)])
@pytest.mark.parametrize("tool", ["ir-run", "ir-convert-xml", "ir-convert-onnx"])
def test_every_output_gets_the_umask_mode_like_a_plain_open(tool, mask, expected, write_ir, capsys):
    files = write_ir(BASE, BASE_BIN)
    d = files.directory
    with umask(mask):
        if tool == "ir-run":
            code = run_tool(ir_run.main, [files.xml, "--output", d / "out.npz"], capsys).code
            written = [d / "out.npz"]
        else:
            suffix = DESTINATIONS[tool]
            code = run_tool(ir_convert.main, [files.xml, d / f"out{suffix}"], capsys).code
            written = [d / "out.xml", d / "out.bin"] if suffix == ".xml" else [d / "out.onnx"]
    assert code == 0
    assert [mode_of(path) for path in written] == [expected] * len(written)


@pytest.mark.parametrize("tool", ["ir-run", "ir-convert-onnx"])
def test_a_replaced_output_keeps_its_mode_as_the_model_writer_does(tool, write_ir, capsys):
    files = write_ir(BASE, BASE_BIN)
    destination = files.directory / ("out.npz" if tool == "ir-run" else "out.onnx")
    destination.write_bytes(OLD)
    destination.chmod(0o640)
    argv = [files.xml, "--output", destination] if tool == "ir-run" else [files.xml, destination]
    with umask(0o077):
        assert run_tool(ir_run.main if tool == "ir-run" else ir_convert.main, argv, capsys).code == 0
    assert destination.read_bytes() != OLD and mode_of(destination) == 0o640


def test_ir_run_fsyncs_the_output_before_the_rename_and_the_directory_after(write_ir, monkeypatch, capsys):
    files = write_ir(BASE, BASE_BIN)
    calls = record_fsync_and_replace(monkeypatch)
    assert run_tool(ir_run.main, [files.xml, "--output", files.directory / "out.npz"], capsys).code == 0
    temporary = calls[0][1]
    assert calls == [("fsync", temporary, ""), ("replace", temporary, str(files.directory / "out.npz")),
                     ("fsync", str(files.directory), "")]


def _onnx_with_external_data(directory: Path, location: str) -> Path:
    """x f32[2,6] + w (an initializer kept in ``location`` beside the model) -> y."""
    onnx = pytest.importorskip("onnx")
    helper = onnx.helper
    weights = onnx.numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(2, 6), "w")
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "ext",
                              [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 6])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 6])], [weights])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = directory / "model.onnx"
    onnx.save_model(model, path, save_as_external_data=True, location=location, size_threshold=0)
    return path


def test_ir_convert_never_overwrites_the_external_data_of_an_onnx_source(tmp_path, nothing_computed, capsys):
    source = _onnx_with_external_data(tmp_path, "out.bin")
    before = _states(tmp_path)
    expect_cli_error(ir_convert.main, [source, tmp_path / "out.xml"], capsys, EXIT_USAGE,
                     f"error: {tmp_path}/out.bin: is external data of the source model {tmp_path}/out.bin, which this "
                     "command reads; refusing to overwrite it")
    assert _states(tmp_path) == before


def test_external_data_files_lists_each_file_once_without_loading_it(tmp_path):
    from irgraph.io.onnx.importer import external_data_files

    source = _onnx_with_external_data(tmp_path, "w.data")
    assert external_data_files(source) == [str(tmp_path / "w.data")]
    (tmp_path / "w.data").unlink()  # never opened: only the protobuf is read
    assert external_data_files(source) == [str(tmp_path / "w.data")]
