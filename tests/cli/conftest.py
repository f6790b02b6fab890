"""Fixtures for the command-line tests: small hand-written IR files written to tmp_path."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli.helpers import split_xml


@dataclass
class IrFiles:
    xml: Path
    bin: Path


@pytest.fixture
def write_ir(tmp_path: Path) -> Callable[..., IrFiles]:
    """Write ``model.xml`` (+ ``model.bin``) into a fresh directory under tmp_path."""
    counter = [0]

    def write(xml: str, weights: bytes = b"", name: str = "model") -> IrFiles:
        counter[0] += 1
        directory = tmp_path / f"ir{counter[0]}"
        directory.mkdir()
        files = IrFiles(directory / f"{name}.xml", directory / f"{name}.bin")
        files.xml.write_text(xml)
        files.bin.write_bytes(weights)
        return files

    return write


@pytest.fixture
def split_model(write_ir: Callable[..., IrFiles]) -> IrFiles:
    """x f32[2,6] -> Split(axis 1, 2) -> y0, y1."""
    return write_ir(*split_xml())
