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


BUILDING = """\
import numpy as np

import irgraph as ir

m = ir.Model("typed")
x = m.parameter("x", [2, 3], np.float32)
y = ir.ops.relu(ir.opset16.mat_mul(x, np.ones((3, 4), np.float32), transpose_b=False))
values, indices = ir.opset16.top_k(y, 2, axis=1, mode="max", sort="value", index_element_type=np.int64)
node: ir.Node = ir.ops.result(values, name="top")
relu_class: type[ir.ops.Op] = ir.ops.Relu
"""


def test_a_user_s_strict_check_accepts_the_builders(tmp_path):
    result = _run_mypy(tmp_path, BUILDING + "reveal_type(ir.ops.mat_mul)\nreveal_type(ir.opset8.max_pool)\n")
    assert result.returncode == 0, result.stdout + result.stderr
    assert ('Revealed type is "def (a: irgraph.graph.ports.OutputPort | numpy._typing._array_like._Buffer'
            in result.stdout), result.stdout
    assert "transpose_a: bool =" in result.stdout and "model: irgraph.graph.model.Model | None =" in (
        result.stdout), result.stdout
    assert "-> tuple[irgraph.graph.ports.OutputPort, ...]" in result.stdout, result.stdout  # MaxPool-8: two outputs


def test_a_user_s_strict_check_catches_a_wrong_builder_call(tmp_path):
    wrong = BUILDING + 'ir.ops.mat_mul(x, x, transpose_a="yes")\nir.opset16.relu(x, alpha=1.0)\nir.ops.rleu(x)\n'
    result = _run_mypy(tmp_path, wrong)
    assert result.returncode == 1, result.stdout
    assert 'Argument "transpose_a" to "mat_mul_1" has incompatible type "str"; expected "bool"' in result.stdout
    assert 'Unexpected keyword argument "alpha" for "relu_1"' in result.stdout
    assert 'Module has no attribute "rleu"' in result.stdout, result.stdout
