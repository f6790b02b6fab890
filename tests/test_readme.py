"""The README's Python example runs as written (on a copy of the samples) and its model validates clean."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text("utf-8"), re.S)


def test_the_readme_has_one_python_example():
    assert len(python_blocks()) == 1


def test_the_python_example_runs_as_written_and_leaves_no_file(tmp_path, monkeypatch, capsys):
    shutil.copytree(REPO / "samples", tmp_path / "samples")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.chdir(tmp_path)
    exec(compile(python_blocks()[0], "README.md", "exec"), {})  # noqa: S102 - our own README
    assert capsys.readouterr().out == "[2. 1.]\n"
    # It wrote out.xml, out.bin and out.onnx (read back by the example itself) where they are removed after.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["samples", "scratch"] and not any(scratch.iterdir())


@pytest.mark.parametrize("command", re.findall(r"^(python3 -m venv \.venv && .*)$",
                                               (REPO / "README.md").read_text("utf-8"), re.M))
def test_the_setup_commands_use_the_venv_tools(command):
    assert ".venv/bin/" in command
