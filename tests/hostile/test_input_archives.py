""".npz and .npy inputs to ir-run that try to exhaust time or memory, or to smuggle a second array in.

An .npz with two members of one name is refused (zipfile lets the last one win). Member names are checked
against the model's inputs before any member is read, and the member count is bounded before zipfile lists
them. A compressed member's .npy header is read from its stream and checked against the Parameter and the
element budget before its data is inflated, and never more than the declared bytes are inflated (deflate,
bzip2, lzma). A .npy header length of gigabytes is refused before the header is read.
"""

from __future__ import annotations

import io
import struct
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest

from irgraph.cli import ir_run
from irgraph.io.data import npz
from tests.hostile.conftest import EXIT_FAILURE, EXIT_USAGE, expect_cli_error, run_tool, split_model

X = np.arange(12, dtype=np.float32).reshape(2, 6)
METHODS = {"deflate": zipfile.ZIP_DEFLATED, "bzip2": zipfile.ZIP_BZIP2, "lzma": zipfile.ZIP_LZMA}


@pytest.fixture
def model(write_ir):
    """x f32[2,6] -> Split -> y0, y1."""
    return write_ir(*split_model())


def _npy(shape: tuple[int, ...], data: bytes = b"", descr: str = "<f4") -> bytes:
    stream = io.BytesIO()
    np.lib.format.write_array_header_1_0(stream, {"descr": descr, "fortran_order": False, "shape": shape})
    return stream.getvalue() + data


def _compress(data: bytes, method: int) -> bytes:
    compressor = zipfile._get_compressor(method)  # zipfile's own, so the member is what zipfile writes
    return compressor.compress(data) + compressor.flush() if compressor is not None else data


def _zip(members: list[tuple[str, bytes, int, int, int]], declared_count: int | None = None) -> bytes:
    """A zip archive of (name, stored payload, method, declared size, declared CRC): sizes can lie."""
    body, directory = bytearray(), bytearray()
    for name, payload, method, size, crc in members:
        encoded = name.encode()
        offset = len(body)
        body += struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, 0, method, 0, 0, crc, len(payload), size, len(encoded), 0)
        body += encoded + payload
        directory += struct.pack("<4s6H3I5H2I", b"PK\x01\x02", 20, 20, 0, method, 0, 0, crc, len(payload), size,
                                 len(encoded), 0, 0, 0, 0, 0, offset) + encoded
    count = len(members) if declared_count is None else declared_count
    zip64 = b""
    if count > 0xFFFF:  # the count goes in a zip64 end record, as zipfile writes it
        start = len(body) + len(directory)
        zip64 = struct.pack("<4sQ2H2I4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, len(directory), len(body))
        zip64 += struct.pack("<4sIQI", b"PK\x06\x07", 0, start, 1)
        count = 0xFFFF
    end = struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, count, count, len(directory), len(body), 0)
    return bytes(body + directory + zip64 + end)


def _member(name: str, content: bytes, method: int, declared: bytes | None = None) -> tuple[str, bytes, int, int, int]:
    """A member holding ``content`` (compressed with ``method``) whose size and CRC are those of ``declared``."""
    declared = content if declared is None else declared
    return name, _compress(content, method), method, len(declared), zlib.crc32(declared)


def _peak(call) -> tuple[object, int]:
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_two_members_of_one_name_are_refused(model, tmp_path, capsys):
    path = tmp_path / "in.npz"
    path.write_bytes(_zip([_member("x.npy", _npy((2, 6), X.tobytes()), zipfile.ZIP_STORED),
                           _member("x.npy", _npy((2, 6), (X + 1).tobytes()), zipfile.ZIP_STORED)]))
    expect_cli_error(ir_run.main, [model.xml, "--inputs", path], capsys, EXIT_USAGE,
                     "cannot read the .npz file: two members are named 'x.npy'")
    np.savez(tmp_path / "good.npz", x=X)
    expect_cli_error(ir_run.main, [model.xml, "--inputs", tmp_path / "good.npz", "--compare", path], capsys,
                     EXIT_USAGE, "two members are named 'x.npy'")


@pytest.mark.parametrize("method", list(METHODS))
def test_a_compressed_member_is_checked_against_its_parameter_before_it_is_inflated(method, model, tmp_path, capsys):
    # The header declares 550,000,000 f32 (2.2 GB, within the default budget of 2**31 elements) and the
    # member's sizes agree; the stream holds only the start of the data. zipfile inflated it all
    # ("Unable to allocate 2.05 GiB").
    header = _npy((550_000_000,))
    declared = len(header) + 2_200_000_000
    path = tmp_path / "in.npz"
    path.write_bytes(_zip([("x.npy", _compress(header + bytes(1 << 16), METHODS[method]), METHODS[method], declared,
                            0)]))
    _, peak = _peak(lambda: expect_cli_error(ir_run.main, [model.xml, "--inputs", path], capsys, EXIT_FAILURE,
                                                   "input 'x' has shape [550000000], which does not fit [2,6]"))
    assert peak < 16 << 20, peak  # the data is 2.2 GB (or 24 MiB); lzma's dictionary takes 8 MiB


@pytest.mark.parametrize("method", list(METHODS))
def test_a_member_never_inflates_past_its_declared_size(method, model, tmp_path, capsys):
    # Sizes and CRC say "a [2,6] f32 array"; the stream inflates to 24 MiB more.
    good = _npy((2, 6), X.tobytes())
    path = tmp_path / "in.npz"
    path.write_bytes(_zip([_member("x.npy", good + bytes(24 << 20), METHODS[method], declared=good)]))
    _, peak = _peak(lambda: expect_cli_error(ir_run.main, [model.xml, "--inputs", path], capsys, EXIT_USAGE,
                                             "member 'x.npy' holds more data than its size says"))
    assert peak < 16 << 20, peak  # the data is 2.2 GB (or 24 MiB); lzma's dictionary takes 8 MiB


@pytest.mark.parametrize("method", ["stored", *METHODS])
def test_compressed_members_that_agree_with_their_sizes_read_fine(method, model, tmp_path, capsys):
    code = METHODS.get(method, zipfile.ZIP_STORED)
    path = tmp_path / "in.npz"
    with zipfile.ZipFile(path, "w", code) as archive:
        archive.writestr("x.npy", _npy((2, 6), X.tobytes()))
    out = tmp_path / "out.npz"
    assert run_tool(ir_run.main, [model.xml, "--inputs", path, "--output", out], capsys).code == 0
    with np.load(out) as outputs:
        np.testing.assert_array_equal(outputs["y0"], X[:, :3])


def test_a_member_whose_crc_is_wrong_is_refused(model, tmp_path, capsys):
    good = _npy((2, 6), X.tobytes())
    path = tmp_path / "in.npz"
    path.write_bytes(_zip([("x.npy", _compress(good, zipfile.ZIP_DEFLATED), zipfile.ZIP_DEFLATED, len(good),
                            zlib.crc32(good) ^ 1)]))
    expect_cli_error(ir_run.main, [model.xml, "--inputs", path], capsys, EXIT_USAGE, "Bad CRC-32 for file 'x.npy'")


@pytest.mark.parametrize("where", ["npy", "npz-bzip2"])
def test_a_header_length_of_gigabytes_is_refused_before_the_header_is_read(where, model, tmp_path, capsys):
    # Version 2 headers have a 4-byte length; NumPy reads all of it before checking max_header_size.
    start = b"\x93NUMPY\x02\x00" + (0xFFFF_FFF0).to_bytes(4, "little")
    message = "the .npy header declares 4294967280 bytes; at most 10000 are read"
    if where == "npy":
        path = tmp_path / "x.npy"
        path.write_bytes(start + b" " * 4096)
        argv = [model.xml, "-i", f"x={path}"]
    else:
        path = tmp_path / "in.npz"
        path.write_bytes(_zip([("x.npy", _compress(start + b" " * (1 << 20), zipfile.ZIP_BZIP2), zipfile.ZIP_BZIP2,
                                len(start) + 0xFFFF_FFF0, 0)]))
        argv = [model.xml, "--inputs", path]
    _, peak = _peak(lambda: expect_cli_error(ir_run.main, argv, capsys, EXIT_USAGE, message))
    assert peak < 16 << 20, peak  # a header of 4 GiB was read (bzip2: inflated) whole


def test_unknown_names_are_refused_before_any_member_is_read(model, tmp_path, capsys):
    path = tmp_path / "in.npz"
    # x is corrupt (a bad CRC): reading it first would report that instead.
    good = _npy((2, 6), X.tobytes())
    path.write_bytes(_zip([("x.npy", good, zipfile.ZIP_STORED, len(good), 0), _member("z.npy", good, 0)]))
    expect_cli_error(ir_run.main, [model.xml, "--inputs", path], capsys, EXIT_FAILURE,
                     "the model has no input named 'z'; inputs: x")


@pytest.mark.parametrize("lie", [False, True])
def test_an_npz_of_150000_members_is_refused_before_they_are_listed(lie, model, tmp_path, capsys):
    count = 150_000
    path = tmp_path / "in.npz"
    # lie: the end record claims one member, so the member records are counted instead
    path.write_bytes(_zip([(f"a{i}.npy", b"", zipfile.ZIP_STORED, 0, 0) for i in range(count)],
                          declared_count=1 if lie else None))
    message = f"it has about {count} members" if lie else f"it has {count} members"
    _, peak = _peak(lambda: expect_cli_error(ir_run.main, [model.xml, "--inputs", path], capsys, EXIT_USAGE,
                                             f"{message}; irgraph reads at most {npz.MAX_NPZ_MEMBERS}"))
    assert peak < 32 << 20, peak  # the member records are read once (9 MB), never listed one by one
