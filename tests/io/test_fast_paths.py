"""The XML reader with its fast paths (irgraph.io.xml._fast: the regex reader, the slot constructors) and
without them (``_fast.ENABLED = False``, what ``IRGRAPH_NO_FAST=1`` sets) read every IR file of the test data
and of the shared conformance cases alike: the same graph, attributes, rt_info, tensor names, locations and
weight bytes, the same findings, or the same error message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import irgraph as ir
from irgraph.io.xml import _fast
from irgraph.io.xml._fast import reader as fast_reader
from irgraph.io.xml.layers import LayerReader
from irgraph.io.xml.reader import read_ir
from tests.io.test_fast_reader import describe

REPO = Path(__file__).resolve().parents[2]
CONFORMANCE = Path("/work/shared/conformance")
FILES = sorted((REPO / "tests" / "data").rglob("*.xml")) + (
    sorted(CONFORMANCE.rglob("*.xml")) if CONFORMANCE.is_dir() else [])


def _id(path: Path) -> str:
    return str(path.relative_to(REPO if path.is_relative_to(REPO) else CONFORMANCE.parent))


def _outcome(path: Path, weights_optional: bool = False) -> tuple[object, ...]:
    """What reading ``path`` gives: the model and findings, or the error, comparable with ==."""
    try:
        result = read_ir(path, weights_optional=weights_optional)
    except ir.IrError as err:
        return type(err).__name__, str(err)
    return describe(result.model), [str(finding) for finding in result.findings]


@pytest.fixture
def fast_answers(monkeypatch) -> list[bool]:
    """Whether the regex reader answered, per read (it returns None to leave a file to the plain path)."""
    answers: list[bool] = []
    original = fast_reader.read_fast

    def spy(reader):
        result = original(reader)
        answers.append(result is not None)
        return result

    monkeypatch.setattr(fast_reader, "read_fast", spy)
    return answers


def test_there_are_files_to_compare():
    assert len(FILES) > 100
    assert any(path.name == "model.xml" and "models" in path.parts for path in FILES)


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_every_ir_file_reads_the_same_with_and_without_the_fast_paths(path, monkeypatch, fast_answers):
    monkeypatch.setattr(_fast, "ENABLED", True)
    fast = _outcome(path)
    monkeypatch.setattr(_fast, "ENABLED", False)
    plain = _outcome(path)
    assert fast == plain
    assert len(fast_answers) <= 1  # asked once with the switch on (unless the file could not be loaded), never off


@pytest.mark.parametrize("path", [path for path in FILES if "models" in path.parts], ids=_id)
def test_models_read_without_their_weights_the_same_with_and_without_the_fast_paths(path, monkeypatch, tmp_path):
    """``weights_optional`` with no .bin: every Const without a value, counted alike (one finding)."""
    copy = tmp_path / "model.xml"
    copy.write_bytes(path.read_bytes())
    monkeypatch.setattr(_fast, "ENABLED", True)
    fast = _outcome(copy, weights_optional=True)
    monkeypatch.setattr(_fast, "ENABLED", False)
    plain = _outcome(copy, weights_optional=True)
    assert fast == plain
    assert any("Const layers have no data" in finding for finding in fast[1])


def test_the_fast_reader_answers_for_the_model_corpus(monkeypatch, fast_answers):
    """Not vacuous: OpenVINO-written networks are read by the regex reader when the switch is on."""
    models = sorted((REPO / "tests" / "data" / "models").glob("*/model.xml"))
    assert len(models) >= 8
    monkeypatch.setattr(_fast, "ENABLED", True)
    for path in models:
        _outcome(path)
    assert fast_answers.count(True) >= len(models) - 1  # gpt2-tiny-stateful and the others: all but bodies


def test_the_switch_off_leaves_only_the_plain_path(monkeypatch, fast_answers):
    made: list[type] = []
    original = LayerReader.__init__

    def spy(self, *args, **kwargs):
        made.append(type(self))
        original(self, *args, **kwargs)

    monkeypatch.setattr(LayerReader, "__init__", spy)
    monkeypatch.setattr(_fast, "ENABLED", False)
    _outcome(REPO / "tests" / "data" / "models" / "t5-tiny" / "model.xml")
    _outcome(REPO / "tests" / "data" / "ov-subgraphs" / "nested-if-loop-ti" / "model.xml")
    assert fast_answers == []
    assert made and set(made) == {LayerReader}


def test_the_environment_variable_turns_the_switch_off():
    code = "from irgraph.io.xml import _fast; from irgraph.runtime import _fast as r; print(_fast.ENABLED, r.ENABLED)"
    for value, expected in (("1", "False False"), ("0", "True True"), ("", "True True")):
        env = {**os.environ, "IRGRAPH_NO_FAST": value, "PYTHONPATH": str(REPO / "src")}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert done.stdout.split() == expected.split(), value
