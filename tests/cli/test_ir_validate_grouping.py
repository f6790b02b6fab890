"""ir-validate prints a repeated problem once, with how many more and the first eight of their lines."""

from __future__ import annotations

from pathlib import Path

import irgraph as ir
from irgraph.cli import ir_validate


def _dead_layers(tmp_path: Path, count: int) -> Path:
    m = ir.Model("many")
    x = m.parameter("x", [2])
    m.result(x, name="y")
    for i in range(count):
        m.concat([x], axis=0, name=f"dead{i}")
    path = tmp_path / "model.xml"
    ir.write_model(m, path)
    return path


def test_more_than_eight_repeats_show_eight_lines_then_an_ellipsis(tmp_path: Path, capsys) -> None:
    path = _dead_layers(tmp_path, 11)
    assert ir_validate.main([str(path)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("(OpenVINO drops it on read) [and 10 more (lines 25, 38, 51, 64, 77, 90, 103, 116, ...)]")


def test_eight_repeats_or_fewer_show_every_line(tmp_path: Path, capsys) -> None:
    path = _dead_layers(tmp_path, 3)
    assert ir_validate.main([str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("[and 2 more (lines 25, 38)]")
