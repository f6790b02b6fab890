"""irgraph.io.atomic: the one way every output is written (checked destination, temporary file, fsync,
rename, directory fsync), and what is the same file as a file read."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

import irgraph as ir
from irgraph.core.errors import IrIOError
from irgraph.io import atomic
from irgraph.io.onnx import exporter as onnx_export
from tests.helpers import mode_of, record_fsync_and_replace, umask


def _files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "m.onnx"
    target.write_bytes(b"old")

    def fail(file) -> None:
        file.write(b"partial")
        raise RuntimeError("export failed")

    with pytest.raises(RuntimeError, match="export failed"):
        atomic.replace_files([(str(target), fail)])
    assert target.read_bytes() == b"old" and _files(tmp_path) == ["m.onnx"]
    atomic.replace_files([(str(target), lambda file: file.write(b"new"))])
    assert target.read_bytes() == b"new" and _files(tmp_path) == ["m.onnx"]


def test_an_os_error_names_the_destination_not_the_temporary_file(tmp_path):
    target = tmp_path / "out.npz"

    def full(file) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError) as info:
        atomic.replace_files([(str(target), full)])
    assert (info.value.filename, info.value.strerror) == (str(target), "No space left on device")
    assert _files(tmp_path) == []


def test_files_are_fsynced_then_renamed_in_order_then_the_directory_is_fsynced(tmp_path, monkeypatch):
    calls = record_fsync_and_replace(monkeypatch)
    first, second = tmp_path / "m.bin", tmp_path / "m.xml"
    atomic.replace_files([(str(first), lambda f: f.write(b"b")), (str(second), lambda f: f.write(b"x"))])
    assert [call[0] for call in calls] == ["fsync", "fsync", "replace", "replace", "fsync"]
    (_, bin_temporary, _), (_, xml_temporary, _), *_ = calls
    assert Path(bin_temporary).parent == tmp_path and Path(bin_temporary).name.startswith(".m.bin.")
    assert calls[2:] == [("replace", bin_temporary, str(first)), ("replace", xml_temporary, str(second)),
                         ("fsync", str(tmp_path), "")]
    assert first.read_bytes() == b"b" and second.read_bytes() == b"x" and _files(tmp_path) == ["m.bin", "m.xml"]


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_gets_what_open_would_give_it(mask, expected, tmp_path):
    with umask(mask):
        atomic.replace_files([(str(tmp_path / "new.onnx"), lambda f: f.write(b"x"))])
        with open(tmp_path / "plain", "wb"):
            pass
    assert mode_of(tmp_path / "new.onnx") == expected == mode_of(tmp_path / "plain")


def test_a_replaced_file_keeps_its_permissions_but_never_setuid(tmp_path):
    kept, stripped = tmp_path / "kept.npz", tmp_path / "stripped.npz"
    kept.write_bytes(b"old")
    kept.chmod(0o640)
    stripped.write_bytes(b"old")
    stripped.chmod(0o4755)
    with umask(0o077):
        atomic.replace_files([(str(kept), lambda f: f.write(b"new")), (str(stripped), lambda f: f.write(b"new"))])
    assert (mode_of(kept), mode_of(stripped)) == (0o640, 0o755)


def _make_socket(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX)
    cwd = os.getcwd()
    os.chdir(path.parent)  # a relative bind: AF_UNIX paths are limited to 107 bytes
    try:
        server.bind(path.name)
    finally:
        os.chdir(cwd)
    return server


@pytest.mark.parametrize("kind", ["directory", "fifo", "socket", "link-to-fifo", "device"])
def test_special_destinations_are_refused_before_anything_is_written(kind, tmp_path):
    path = tmp_path / "out.onnx"
    server = None
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        server = _make_socket(path)
    elif kind == "link-to-fifo":
        os.mkfifo(tmp_path / "pipe")
        path.symlink_to(tmp_path / "pipe")
    else:
        path = Path(os.devnull)
    before = os.lstat(path)
    expected = {"directory": "a directory", "fifo": "a FIFO (named pipe)", "socket": "a socket",
                "link-to-fifo": "a symbolic link to a FIFO (named pipe)", "device": "a character device"}[kind]
    written = []
    try:
        with pytest.raises(IrIOError) as info:
            atomic.replace_files([(str(path), written.append)])
    finally:
        if server is not None:
            server.close()
    assert str(info.value) == f"{path}: is {expected}, not a regular file; refusing to replace it"
    after = os.lstat(path)
    assert (after.st_ino, stat.S_IFMT(after.st_mode)) == (before.st_ino, stat.S_IFMT(before.st_mode))
    assert written == []
    assert not [name for name in os.listdir(path.parent) if name.startswith(f".{path.name}.")]


def test_a_link_to_a_regular_file_is_replaced_and_its_target_untouched(tmp_path):
    (tmp_path / "target").write_bytes(b"keep")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    atomic.check_destination(tmp_path / "link")
    atomic.replace_files([(str(tmp_path / "link"), lambda f: f.write(b"new"))])
    assert (tmp_path / "target").read_bytes() == b"keep"
    assert not (tmp_path / "link").is_symlink() and (tmp_path / "link").read_bytes() == b"new"


def test_same_file_sees_other_paths_hard_links_and_reads_through_links(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    data = tmp_path / "a.npy"
    data.write_bytes(b"data")
    os.link(data, tmp_path / "hard.npy")
    (tmp_path / "to-a.npy").symlink_to(data)
    (tmp_path / "dir-link").symlink_to(tmp_path)
    monkeypatch.chdir(tmp_path / "sub")
    assert atomic.same_file("../a.npy", data)
    assert atomic.same_file(tmp_path / "sub" / ".." / "a.npy", "./../a.npy")
    assert atomic.same_file(tmp_path / "dir-link" / "a.npy", data)
    assert atomic.same_file(tmp_path / "hard.npy", data)
    assert atomic.same_file(data, tmp_path / "to-a.npy")  # the input is read through a link to the destination
    assert atomic.same_file(tmp_path / "new.npy", tmp_path / "dir-link" / "new.npy")  # neither exists yet
    # A destination that is itself a link is replaced, never written through: not the file it names.
    assert not atomic.same_file(tmp_path / "to-a.npy", data)
    assert not atomic.same_file(tmp_path / "b.npy", data)


def test_export_onnx_refuses_a_fifo_before_exporting(tmp_path, monkeypatch):
    pytest.importorskip("onnx")
    m = ir.Model("m")
    m.result(m.parameter("x", [2]), name="y")
    os.mkfifo(tmp_path / "m.onnx")
    monkeypatch.setattr(onnx_export, "infer_shapes", lambda model: pytest.fail("exported anyway"))
    with pytest.raises(IrIOError, match="m.onnx: is a FIFO"):
        ir.export_onnx(m, tmp_path / "m.onnx")
    assert stat.S_ISFIFO(os.lstat(tmp_path / "m.onnx").st_mode) and _files(tmp_path) == ["m.onnx"]
