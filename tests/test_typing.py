"""A user's ``mypy --strict`` (mypy 2.4.1, the test extra's pin) accepts the README's Python example.

irgraph loads its entry points lazily (a module ``__getattr__``); without the ``TYPE_CHECKING`` imports
and a literal ``__all__`` in ``irgraph/__init__.py`` mypy sees ``ir.read_model`` as ``object`` and the
example fails a strict check. irgraph's own modules are checked by ``.ci/run`` (``[tool.mypy]``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata

import pytest

from tests.test_readme import REPO, python_blocks

MYPY_VERSION = "2.4.1"


def _run_mypy(tmp_path, source: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "example.py").write_text(source, "utf-8")
    # MYPYPATH puts this checkout's sources first, as an installed irgraph would be; follow-imports=silent
    # reports only the user's file, as mypy does for an installed package.
    env = {**os.environ, "MYPYPATH": str(REPO / "src")}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental",
         "--config-file=/dev/null", "example.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module", autouse=True)
def _pinned_mypy():
    if metadata.version("mypy") != MYPY_VERSION:
        pytest.skip(f"mypy {metadata.version('mypy')} installed; these expectations are mypy {MYPY_VERSION}'s")


def test_the_readme_example_passes_mypy_strict(tmp_path):
    result = _run_mypy(tmp_path, python_blocks()[0])
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_lazy_entry_points_have_their_real_signatures(tmp_path):
    result = _run_mypy(tmp_path, "import irgraph as ir\n\nreveal_type(ir.read_model)\nreveal_type(ir.diff_models)\n")
    assert 'Revealed type is "def (path: str | os.PathLike[str]' in result.stdout, result.stdout
    assert "-> irgraph.graph.model.Model" in result.stdout, result.stdout
    assert "-> irgraph.tools.diff.ModelDiff" in result.stdout, result.stdout


def test_every_lazy_name_is_exported():
    import irgraph

    assert set(irgraph._LAZY) | set(irgraph._CORE) <= set(irgraph.__all__)
