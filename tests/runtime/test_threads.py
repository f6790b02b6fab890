"""Interpreter(threads=N) and ir-run --threads N: NumPy's BLAS runs with N threads during a run, and its own
count is back after it (threadpoolctl 3.8.0 sets OpenBLAS's). Without N a run takes the free cores, at most the
library's count."""

from __future__ import annotations

import io

import numpy as np
import pytest
from threadpoolctl import threadpool_info

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.ops.matrix.mat_mul import MatMul
from irgraph.runtime import _threads
from tests.cli.helpers import SAMPLES


def _blas_threads() -> list[int]:
    return [library["num_threads"] for library in threadpool_info() if library["user_api"] == "blas"]


def _matmul_model() -> ir.Model:
    model = ir.Model("product")
    a = model.parameter("a", [4, 4])
    b = model.parameter("b", [4, 4])
    model.result(ir.OutputPort(model.add_node(MatMul(), "product", [a, b]).id, 0), name="y")
    return model


FEEDS = {"a": np.eye(4, dtype=np.float32), "b": np.arange(16, dtype=np.float32).reshape(4, 4)}
needs_blas = pytest.mark.skipif(not _blas_threads(), reason="NumPy's BLAS is not one threadpoolctl knows")


def _recording(monkeypatch) -> list[list[int]]:
    """The BLAS libraries' thread counts seen by each MatMul evaluation."""
    seen: list[list[int]] = []
    evaluate = MatMul.evaluate

    def recording(self, inputs):
        seen.append(_blas_threads())
        return evaluate(self, inputs)

    monkeypatch.setattr(MatMul, "evaluate", recording)
    monkeypatch.setattr(MatMul, "bound_evaluate", lambda self, *types: None)  # the plan calls evaluate itself
    return seen


@needs_blas
def test_a_run_uses_the_thread_count_asked_for_and_restores_the_library_s(monkeypatch):
    before = _blas_threads()
    seen = _recording(monkeypatch)
    monkeypatch.setattr(_threads, "recent_free_cores", lambda: 1000)  # an idle machine larger than the library's count
    interpreter = ir.Interpreter(_matmul_model(), threads=1)
    assert interpreter.run(FEEDS)["y"].tolist() == FEEDS["b"].tolist()
    ir.Interpreter(_matmul_model()).run(FEEDS)
    assert seen == [[1] * len(before), before]
    assert _blas_threads() == before


@needs_blas
def test_without_a_count_a_run_takes_the_free_cores(monkeypatch):
    before = _blas_threads()
    seen = _recording(monkeypatch)
    monkeypatch.setattr(_threads, "recent_free_cores", lambda: 1)  # the other cores busy
    ir.Interpreter(_matmul_model()).run(FEEDS)
    assert seen == [[1] * len(before)]
    assert _blas_threads() == before


@needs_blas
def test_a_run_inside_another_keeps_the_count_the_outer_one_chose(monkeypatch):
    before = _blas_threads()
    asked: list[str] = []
    monkeypatch.setattr(_threads, "recent_free_cores", lambda: asked.append("asked") or 1)
    with _threads.BlasThreads(1).limit():
        with _threads.BlasThreads(None).limit():  # a body's run: the machine is not asked again
            assert _blas_threads() == [1] * len(before)
        assert _blas_threads() == [1] * len(before)
    assert asked == []
    assert _blas_threads() == before


def test_a_run_without_matrix_products_leaves_blas_alone(monkeypatch):
    """Only a step whose op says ``calls_blas`` uses BLAS: a run of element-wise layers neither looks the library
    up (threadpoolctl, ~3 ms of a cold start) nor asks the machine for its free cores."""
    def untouched() -> list:
        raise AssertionError("BLAS looked up")

    monkeypatch.setattr(_threads, "blas_libraries", untouched)
    monkeypatch.setattr(_threads, "recent_free_cores", untouched)
    model = ir.Model("relu")
    x = model.parameter("x", [2])
    model.result(ir.OutputPort(model.add_node(ir.ops.Relu(), "relu", [x]).id, 0), name="y")
    assert ir.Interpreter(model, threads=1).run({"x": np.array([-1, 2], np.float32)})["y"].tolist() == [0, 2]
    assert MatMul.traits.calls_blas and not ir.ops.Relu.traits.calls_blas


def test_free_cores_leave_out_the_other_running_tasks(monkeypatch, tmp_path):
    loadavg = tmp_path / "loadavg"
    monkeypatch.setattr(_threads, "LOADAVG", str(loadavg))
    monkeypatch.setattr(_threads, "usable_cores", lambda: 4)
    monkeypatch.setattr(_threads, "_own_running_threads", lambda: 2)  # this process: itself and a BLAS worker
    for running, free in [(2, 4), (3, 3), (5, 1), (9, 1)]:
        loadavg.write_text(f"8.02 8.46 8.45 {running}/154 2730\n")
        assert _threads.free_cores() == free
    loadavg.write_text("garbage\n")
    assert _threads.free_cores() == 4
    monkeypatch.setattr(_threads, "LOADAVG", str(tmp_path / "absent"))
    assert _threads.free_cores() == 4


def test_this_process_counts_itself_running():
    assert _threads._own_running_threads() >= 1  # the thread reading its own state is running
    assert 1 <= _threads.free_cores() <= _threads.usable_cores()


def test_the_running_threads_are_the_tasks_in_state_r(monkeypatch):
    """The state follows the last ')' of "pid (comm) S": a comm holding ") R" is not read as the state, and a task
    that ended between the listing and the read is skipped."""
    stats = {"10": b"10 (python) R 1 10", "11": b"11 (blas (x) R) S 10 10", "12": b"12 (worker) R 10 10"}

    def read_stat(path, mode):
        task = path.split("/")[-2]
        if task not in stats:
            raise FileNotFoundError(path)
        return io.BytesIO(stats[task])

    monkeypatch.setattr(_threads.os, "listdir", lambda path: [*stats, "13"])
    monkeypatch.setattr(_threads, "open", read_stat, raising=False)
    assert _threads._own_running_threads() == 2


def test_threads_must_be_positive():
    with pytest.raises(ValueError, match="threads must be at least 1, got 0"):
        ir.Interpreter(_matmul_model(), threads=0)


def test_ir_run_threads(capsys):
    sample = SAMPLES / "dml-split-axis2"
    assert ir_run.main([str(sample / "model.xml"), "--inputs", str(sample / "inputs.npz"), "--threads", "1"]) == 0
    capsys.readouterr()
    assert ir_run.main([str(sample / "model.xml"), "--threads", "0"]) == 2  # a usage error
    assert "error: argument --threads: expected an integer >= 1, got 0" in capsys.readouterr().err


def test_the_free_cores_are_counted_again_only_after_a_while(monkeypatch):
    counts = iter([1, 2])
    monkeypatch.setattr(_threads, "free_cores", lambda: next(counts))
    monkeypatch.setattr(_threads, "_sampled", (-1.0, 0))
    assert [_threads.recent_free_cores(), _threads.recent_free_cores()] == [1, 1]  # the second within 0.1 s
    monkeypatch.setattr(_threads, "SAMPLE_SECONDS", -1.0)
    assert _threads.recent_free_cores() == 2
