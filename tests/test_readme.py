"""The README's Python example runs as written (on a copy of the samples) and its model validates clean."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text("utf-8"), re.S)


def test_the_readme_has_one_python_example():
    assert len(python_blocks()) == 1


def test_the_python_example_runs_as_written(tmp_path, monkeypatch, capsys):
    shutil.copytree(REPO / "samples", tmp_path / "samples")
    monkeypatch.chdir(tmp_path)
    exec(compile(python_blocks()[0], "README.md", "exec"), {})  # noqa: S102 - our own README
    assert (tmp_path / "out.xml").is_file() and (tmp_path / "out.bin").is_file()
    assert (tmp_path / "out.onnx").is_file()
    assert capsys.readouterr().out == "[2. 1.]\n"


@pytest.mark.parametrize("command", re.findall(r"^(python3 -m venv \.venv && .*)$",
                                               (REPO / "README.md").read_text("utf-8"), re.M))
def test_the_setup_commands_use_the_venv_tools(command):
    assert ".venv/bin/" in command
