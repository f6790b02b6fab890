"""irgraph.runtime._fast.heap: after a first run, malloc is told once to keep freed memory for the next run
(glibc's mallopt: M_MMAP_THRESHOLD 32 MiB, M_TRIM_THRESHOLD 256 MiB); never with the fast paths off, off Linux,
or without a C library that has mallopt. Outputs do not depend on it."""

from __future__ import annotations

import ctypes
import os
import platform
import subprocess
import sys

import numpy as np
import pytest

import irgraph as ir
from irgraph.ops.activation.relu import Relu
from irgraph.runtime import _fast
from irgraph.runtime._fast import heap


class _Libc:
    def __init__(self, calls: list[tuple[int, int]]) -> None:
        self.calls = calls

        def mallopt(parameter: int, value: int) -> int:
            calls.append((parameter, value))
            return 1

        self.mallopt = mallopt


def _recording(monkeypatch, platform: str = "linux", fast: bool = True) -> list[tuple[int, int]]:
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(heap, "_settled", False)
    monkeypatch.setattr(heap.sys, "platform", platform)
    monkeypatch.setattr(ctypes, "CDLL", lambda name: _Libc(calls))
    monkeypatch.setattr(_fast, "ENABLED", fast)
    return calls


def _model() -> ir.Model:
    model = ir.Model("m")
    x = model.parameter("x", [2, 3])
    model.result(ir.OutputPort(model.add_node(Relu(), "relu", [x]).id, 0), name="y")
    return model


def test_the_first_run_sets_both_thresholds_once(monkeypatch):
    calls = _recording(monkeypatch)
    interpreter = ir.Interpreter(_model())
    feeds = {"x": np.arange(6, dtype=np.float32).reshape(2, 3)}
    assert calls == []  # building asks nothing: reading and folding keep glibc's defaults
    first = interpreter.run(feeds)
    assert first["y"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert calls == [(heap.M_MMAP_THRESHOLD, 32 << 20), (heap.M_TRIM_THRESHOLD, 256 << 20)]
    assert (heap.M_MMAP_THRESHOLD, heap.M_TRIM_THRESHOLD) == (-3, -1)  # glibc's malloc.h
    second = interpreter.run(feeds)
    ir.Interpreter(_model()).run(feeds)
    assert len(calls) == 2  # once per process
    np.testing.assert_array_equal(first["y"], second["y"])


def test_nothing_is_asked_with_the_fast_paths_off(monkeypatch):
    calls = _recording(monkeypatch, fast=False)
    heap.keep_freed_memory()
    assert calls == [] and heap._settled is False  # a later Interpreter with the switch on still may


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_nothing_is_asked_off_linux(monkeypatch, platform):
    calls = _recording(monkeypatch, platform=platform)
    heap.keep_freed_memory()
    heap.keep_freed_memory()
    assert calls == [] and heap._settled is True


@pytest.mark.parametrize("error", [OSError("no C library"), AttributeError("mallopt")])
def test_a_c_library_without_mallopt_is_left_alone(monkeypatch, error):
    _recording(monkeypatch)

    def refuse(name):
        raise error

    monkeypatch.setattr(ctypes, "CDLL", refuse)
    heap.keep_freed_memory()  # no exception
    assert heap._settled is True


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the thresholds are glibc's")
def test_freed_memory_stays_resident_after_the_setting_in_a_fresh_process():
    """glibc 2.36: a 16 MiB array is mapped and its pages are returned when it is freed (RSS drops by ~16 MiB);
    after keep_freed_memory it comes from the heap, whose freed top is kept (RSS stays)."""
    script = (
        "import numpy as np\n"
        "from irgraph.runtime._fast import heap\n"
        "def rss():\n"
        "    return int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0]) // 1024\n"
        "def drop():\n"
        "    array = np.ones(4 << 20, np.float32)\n"
        "    before = rss()\n"
        "    del array\n"
        "    return before - rss()\n"
        "default = drop()\n"
        "heap.keep_freed_memory()\n"
        "drop()\n"  # the first one after the setting grows the heap
        "print(default, drop())\n"
    )
    environment = {key: value for key, value in os.environ.items() if key != "IRGRAPH_NO_FAST"}  # the switch on
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False,
                          env=environment)
    assert done.returncode == 0, done.stderr
    default, kept = map(int, done.stdout.split())
    assert default >= 15 and kept <= 1  # MiB given back on free: with glibc's defaults, then with the setting


def test_a_fresh_process_sets_the_thresholds_after_its_first_run():
    # Not through the tests' reset of ``_settled``: a process starts unsettled by itself.
    script = (
        "import ctypes, numpy as np, irgraph as ir\n"
        "from irgraph.ops.activation.relu import Relu\n"
        "calls = []\n"
        "class Libc:\n"
        "    def mallopt(self, parameter, value):\n"
        "        calls.append((parameter, value)); return 1\n"
        "ctypes.CDLL = lambda name: Libc()\n"
        "model = ir.Model('m')\n"
        "x = model.parameter('x', [2])\n"
        "model.result(ir.OutputPort(model.add_node(Relu(), 'relu', [x]).id, 0), name='y')\n"
        "ir.Interpreter(model).run({'x': np.zeros(2, np.float32)})\n"
        "print(calls)\n")
    environment = {key: value for key, value in os.environ.items() if key != "IRGRAPH_NO_FAST"}
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment,
                           check=True).stdout.strip()
    expected = [(heap.M_MMAP_THRESHOLD, heap.HEAP_ARRAYS), (heap.M_TRIM_THRESHOLD, heap.KEPT_FREE)]
    assert found == (str(expected) if sys.platform.startswith("linux") else "[]")
