"""The progress bar (tqdm 4.70.1): drawn on a terminal only (forced here with tty=True, never a real terminal),
after a delay, erased when done; never in a pipe or with --json."""

from __future__ import annotations

import io

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_diff, ir_run
from irgraph.tools import progress as progress_module
from irgraph.tools.progress import Progress


def test_a_stage_is_drawn_by_tqdm_and_erased() -> None:
    """tqdm 4.70 draws the label, the count and a bar on one line, and erases it when the stage ends."""
    stream = io.StringIO()
    bar = Progress(stream, delay=0.0, interval=0.0)
    bar.stage("running m.xml", 4)
    bar.advance()
    bar.step("a node")  # a callback's argument is ignored
    drawn = stream.getvalue()
    assert "running m.xml" in drawn and "2/4" in drawn and "\n" not in drawn
    bar.stage("openvino: compiling and running")  # a stage without a total: the label and a count
    assert "openvino: compiling and running" in stream.getvalue()
    bar.close()
    assert stream.getvalue().endswith("\r")  # erased: nothing stays on the terminal line
    bar.close()  # twice is harmless


def test_nothing_is_drawn_before_the_delay() -> None:
    stream = io.StringIO()
    with Progress(stream, delay=60.0) as bar:
        bar.stage("quick", 2)
        bar.advance(2)
    assert stream.getvalue() == ""


def test_disabled_progress_writes_nothing() -> None:
    stream = io.StringIO()
    bar = Progress.on_terminal(stream)  # a StringIO is not a terminal
    assert not bar.enabled
    bar.stage("x", 3)
    bar.advance(3)
    bar.close()
    assert stream.getvalue() == ""
    assert not Progress.on_terminal(stream, tty=True, quiet=True).enabled  # --json
    assert Progress.on_terminal(stream, tty=True).enabled


def _model(tmp_path):
    m = ir.Model("m")
    x = m.parameter("x", [2, 6])
    parts = m.split(x, axis=1, num_splits=2, name="split")
    m.result(m.concat([parts[1], parts[0]], axis=1, name="join"), name="y")
    path = tmp_path / "m.xml"
    ir.write_model(m, path)
    return path


@pytest.fixture
def no_delay(monkeypatch):
    monkeypatch.setattr(progress_module, "DELAY", 0.0)
    monkeypatch.setattr(progress_module, "INTERVAL", 0.0)


def test_ir_run_shows_the_layers_on_a_terminal_only(tmp_path, capsys, no_delay) -> None:
    xml = _model(tmp_path)
    np.savez(tmp_path / "in.npz", x=np.zeros((2, 6), np.float32))
    argv = [str(xml), "--inputs", str(tmp_path / "in.npz")]
    assert ir_run.main(argv, tty=True) == 0
    err = capsys.readouterr().err
    assert "running m.xml" in err and "2/2" in err and err.endswith("\r")
    assert ir_run.main(argv, tty=False) == 0
    assert capsys.readouterr().err == ""
    assert ir_run.main([*argv, "--json"], tty=True) == 0
    assert capsys.readouterr().err == ""


def test_ir_diff_shows_reading_and_comparing(tmp_path, capsys, no_delay) -> None:
    xml = _model(tmp_path)
    assert ir_diff.main([str(xml), str(xml)], tty=True) == 0
    err = capsys.readouterr().err
    assert "reading m.xml" in err and "comparing layers" in err and err.endswith("\r")
    assert ir_diff.main([str(xml), str(xml)]) == 0  # pytest's captured stderr is not a terminal
    assert capsys.readouterr().err == ""
