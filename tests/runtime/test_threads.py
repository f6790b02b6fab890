"""Interpreter(threads=N) and ir-run --threads N: NumPy's BLAS runs with N threads during a run, and its own
count is back after it (threadpoolctl 3.8.0 sets OpenBLAS's)."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.ops.matrix.mat_mul import MatMul
from tests.cli.helpers import SAMPLES


def _blas_threads() -> list[int]:
    return [library["num_threads"] for library in threadpool_info() if library["user_api"] == "blas"]


def _matmul_model() -> ir.Model:
    model = ir.Model("product")
    a = model.parameter("a", [4, 4])
    b = model.parameter("b", [4, 4])
    model.result(ir.OutputPort(model.add_node(MatMul(), "product", [a, b]).id, 0), name="y")
    return model


@pytest.mark.skipif(not _blas_threads(), reason="NumPy's BLAS is not one threadpoolctl knows")
def test_a_run_uses_the_thread_count_asked_for_and_restores_the_library_s(monkeypatch):
    before = _blas_threads()
    seen: list[list[int]] = []
    evaluate = MatMul.evaluate

    def recording(self, inputs):
        seen.append(_blas_threads())
        return evaluate(self, inputs)

    monkeypatch.setattr(MatMul, "evaluate", recording)
    monkeypatch.setattr(MatMul, "bound_evaluate", lambda self, *types: None)  # the plan calls evaluate itself
    feeds = {"a": np.eye(4, dtype=np.float32), "b": np.arange(16, dtype=np.float32).reshape(4, 4)}
    interpreter = ir.Interpreter(_matmul_model(), threads=1)
    assert interpreter.run(feeds)["y"].tolist() == feeds["b"].tolist()
    ir.Interpreter(_matmul_model()).run(feeds)
    assert seen == [[1] * len(before), before]
    assert _blas_threads() == before


def test_threads_must_be_positive():
    with pytest.raises(ValueError, match="threads must be at least 1, got 0"):
        ir.Interpreter(_matmul_model(), threads=0)


def test_ir_run_threads(capsys):
    sample = SAMPLES / "dml-split-axis2"
    assert ir_run.main([str(sample / "model.xml"), "--inputs", str(sample / "inputs.npz"), "--threads", "1"]) == 0
    capsys.readouterr()
    assert ir_run.main([str(sample / "model.xml"), "--threads", "0"]) == 2  # a usage error
    assert "error: argument --threads: expected an integer >= 1, got 0" in capsys.readouterr().err
