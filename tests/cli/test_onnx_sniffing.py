"""Telling an ONNX file by its first bytes (protobuf field 1, ir_version, a one-byte varint 1..127) when its name
does not end in .onnx."""

from __future__ import annotations

from pathlib import Path

import pytest

from irgraph.cli._common import looks_like_onnx


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"\x08\x01\x12\x00", True),  # ir_version 1
        (b"\x08\x7f", True),  # ir_version 127, the largest one-byte varint
        (b"\x08\x00", False),  # ir_version 0 is no ONNX version
        (b"\x08\x80\x01", False),  # a two-byte varint: no ONNX file has ir_version >= 128
        (b"\x10\x07", False),  # field 2 first
        (b"\x08", False),  # too short
        (b"\xef\xbb\xbf  <?xml version='1.0'?>", False),  # XML after a BOM and spaces
    ],
)
def test_onnx_is_told_by_its_first_bytes(head: bytes, expected: bool, tmp_path: Path) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(head)
    assert looks_like_onnx(str(path)) is expected


def test_the_onnx_suffix_is_enough_unless_the_text_is_xml(tmp_path: Path) -> None:
    named = tmp_path / "model.ONNX"
    named.write_bytes(b"\x00\x00")
    assert looks_like_onnx(str(named)) is True
    named.write_bytes(b"<net/>")
    assert looks_like_onnx(str(named)) is False
    assert looks_like_onnx(str(tmp_path / "missing.onnx")) is False
