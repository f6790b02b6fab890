"""Special files behind every input, and a huge sparse .bin.

Every file irgraph reads (model .xml, .bin, .npy, .npz, .onnx) may be a FIFO, a socket, a device or a
symlink to a procfs file: those are refused as "not a regular file" without blocking, and a procfs file
(which reports size 0 yet has content, e.g. the process environment) reads as the empty file it claims to
be, so none of its content reaches a message or an output file. A valid model whose .bin is a 100 GiB
sparse file (made here, never stored) reads, validates, runs and converts under a 4 GiB address-space
limit: only the ranges the Consts use are mapped or read.
"""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_convert, ir_run
from irgraph.io import weights as weights_module
from irgraph.io.weights import WeightsFile
from tests.hostile.conftest import EXIT_USAGE, expect_cli_error, save_npz, split_model

REPO = Path(__file__).resolve().parents[2]
SECRET = "irgraph-secret-7f3c9a1e"
BASE, BASE_BIN = split_model()
ROLES = ("model", "weights", "npy", "npz", "onnx")


def _special(kind: str, path: Path) -> Path:
    """Make ``path`` a FIFO, a (bound) unix socket, or a symlink to /dev/zero."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(os.fspath(path))  # the path stays a socket after the socket object is gone
        server.close()
    else:
        path.symlink_to("/dev/zero")
    return path


def _argv(role: str, directory: Path, target: Path) -> tuple[object, list[object]]:
    """(tool, argv) that reads ``target`` in ``role``; every other file is a good one."""
    (directory / "model.xml").write_text(BASE)
    (directory / "model.bin").write_bytes(BASE_BIN)
    model, output = directory / "model.xml", directory / "out.npz"
    if role == "model":
        return ir_run.main, [target, "--output", output]
    if role == "weights":
        return ir_run.main, [model, "--weights", target, "--output", output]
    if role == "npy":
        return ir_run.main, [model, "-i", f"x={target}", "--output", output]
    if role == "npz":
        return ir_run.main, [model, "--inputs", target, "--output", output]
    return ir_convert.main, [target, directory / "converted.xml"]


@pytest.mark.parametrize("kind", ["fifo", "socket", "dev-zero"])
@pytest.mark.parametrize("role", ROLES)
def test_fifos_sockets_and_devices_are_refused_without_blocking(role, kind, tmp_path, capsys):
    suffix = {"model": ".xml", "weights": ".bin", "npy": ".npy", "npz": ".npz", "onnx": ".onnx"}[role]
    target = _special(kind, tmp_path / f"special{suffix}")
    tool, argv = _argv(role, tmp_path, target)
    # A FIFO opened for reading blocks until a writer comes (forever), /dev/zero reads without end:
    # either would hang this test rather than fail it.
    expect_cli_error(tool, argv, capsys, EXIT_USAGE, "not a regular file")
    assert not (tmp_path / "out.npz").exists()
    assert not (tmp_path / "converted.xml").exists()


def test_the_library_names_the_kind_of_special_file(tmp_path):
    model = tmp_path / "model.xml"
    model.write_text(BASE)
    fifo = _special("fifo", tmp_path / "pipe.bin")
    with pytest.raises(ir.IrIOError, match=r"cannot open the weights file '.*pipe.bin': not a regular file \(it is "
                                           r"a FIFO\)"):
        ir.read_model(model, fifo)
    with pytest.raises(ir.IrIOError, match=r"is not a regular file \(it is a character device\)"):
        ir.read_model(_special("dev-zero", tmp_path / "zero.xml"))
    sock = _special("socket", tmp_path / "sock.onnx")
    with pytest.raises(ir.IrIOError, match=r"cannot read the ONNX model: not a regular file \(it is a socket\)"):
        ir.convert_onnx(sock)


# role -> (exit code, message): a procfs file reads as the empty file its size (0) says it is
ENVIRON = {
    "model": (1, "the file is empty; an IR .xml file starts with <net>"),
    "weights": (1, "Const bytes [0, 8) lie outside the weights file of 0 bytes"),
    "npy": (2, "cannot read the .npy file: EOF: reading magic string, expected 8 bytes got 0"),
    "npz": (2, "cannot read the .npz file: File is not a zip file"),
    "onnx": (1, "the ONNX graph has no outputs"),
}


@pytest.mark.parametrize("role", ROLES)
def test_a_symlink_to_proc_self_environ_leaks_nothing(role, tmp_path):
    suffix = {"model": ".xml", "weights": ".bin", "npy": ".npy", "npz": ".npz", "onnx": ".onnx"}[role]
    target = tmp_path / f"environ{suffix}"
    target.symlink_to("/proc/self/environ")
    tool, argv = _argv(role, tmp_path, target)
    code, message = ENVIRON[role]
    # Before the fix, a .bin like this became the Const's bytes: the environment went into the converted
    # .bin, ir-run --output and error messages ("Axis 8375943538688607571": b"SECRET=t").
    argv = [os.fspath(a) for a in argv]
    done = subprocess.run([sys.executable, "-m", tool.__module__, *argv], capture_output=True, text=True,
                          env={**os.environ, "IRGRAPH_TEST_SECRET": SECRET}, cwd=REPO, timeout=120, check=False)
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and message in errors[0], done.stderr
    for text in (done.stdout, done.stderr, *(p.read_bytes().decode("latin-1") for p in tmp_path.iterdir()
                                             if p.is_file() and not p.is_symlink())):
        assert SECRET not in text
        assert "IRGRAPH_TEST_SECRET" not in text


def test_a_weights_file_never_reads_past_its_reported_size(tmp_path):
    environ = tmp_path / "environ.bin"
    environ.symlink_to("/proc/self/environ")
    for use_mmap in (True, False):
        with WeightsFile(environ, use_mmap=use_mmap) as weights:
            assert weights.size == 0
            with pytest.raises(ir.WeightsError, match=r"Const bytes \[0, 1\) lie outside the weights file of 0 bytes"):
                weights.view(0, 1)


# ------------------------------------------------------------------------------------ huge sparse .bin
HUGE_BIN = 100 << 30  # 100 GiB, sparse: no disk space used
ADDRESS_SPACE = 4 << 30

_SPARSE_SCRIPT = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
    from irgraph.cli import ir_convert, ir_run, ir_validate
    model, out, directory = sys.argv[2], sys.argv[3], sys.argv[4]
    codes = [
        ir_run.main([model, "--inputs", sys.argv[5], "--output", out]),
        ir_validate.main([model]),
        ir_convert.main([model, directory + "/copy.xml"]),
        ir_convert.main([model, directory + "/copy.onnx"]),
    ]
    print("codes", codes)
""")


def _sparse_model(directory: Path) -> Path:
    model = directory / "model.xml"
    model.write_text(BASE)
    with open(directory / "model.bin", "wb") as weights:
        weights.write(BASE_BIN)
        weights.truncate(HUGE_BIN)
    return model


def test_a_100_gib_sparse_bin_reads_validates_runs_and_converts_under_an_address_space_limit(tmp_path):
    model = _sparse_model(tmp_path)
    if os.stat(model.with_suffix(".bin")).st_blocks * 512 > 1 << 20:
        pytest.skip("this file system does not make sparse files")
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    inputs = save_npz(tmp_path / "inputs.npz", x=x)
    # Mapping the whole 100 GiB file needs 100 GiB of address space: under ulimit -v that was
    # "cannot open the weights file 'model.bin': Cannot allocate memory".
    done = subprocess.run(
        [sys.executable, "-c", _SPARSE_SCRIPT, str(ADDRESS_SPACE), model, tmp_path / "out.npz", tmp_path, inputs],
        capture_output=True, text=True, cwd=REPO, timeout=300, check=False,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},  # thread arenas take address space
    )
    assert "codes [0, 0, 0, 0]" in done.stdout, done.stdout + done.stderr
    with np.load(tmp_path / "out.npz") as outputs:
        np.testing.assert_array_equal(outputs["y0"], x[:, :3])
        np.testing.assert_array_equal(outputs["y1"], x[:, 3:])
    assert (tmp_path / "copy.bin").read_bytes() == BASE_BIN  # only the bytes the Const uses
    assert os.path.getsize(tmp_path / "copy.onnx") < 4096


def test_weights_the_whole_file_of_which_cannot_be_mapped_are_mapped_range_by_range(tmp_path, monkeypatch):
    model = _sparse_model(tmp_path)
    real_mmap = weights_module.mmap.mmap

    def no_address_space(descriptor, length, *args, offset=0, **kwargs):
        if length > 1 << 30:
            raise OSError(errno.ENOMEM, "Cannot allocate memory")
        return real_mmap(descriptor, length, *args, offset=offset, **kwargs)

    monkeypatch.setattr(weights_module.mmap, "mmap", no_address_space)
    assert ir.read_model(model).node(1).op.value.item() == 1
    weights = WeightsFile(model.with_suffix(".bin"))
    offset = (5 << 30) + 123  # not page-aligned
    large = weights.view(offset, 2 << 20)
    assert isinstance(large.obj, real_mmap) and len(large.obj) == (2 << 20) + 123 and not any(large[:4096])
    assert weights.view(offset, 2 << 20) is large  # one map per range
    assert bytes(weights.view(0, 8)) == BASE_BIN  # small ranges are read
    weights.close()
    with WeightsFile(model.with_suffix(".bin"), use_mmap=False) as unmapped:
        assert unmapped.size == HUGE_BIN
        assert bytes(unmapped.view(HUGE_BIN - 4, 4)) == bytes(4)
