"""Shared benchmark machinery: result rows, interleaved timing, subprocess timing and memory probes.

Every comparison is measured side by side in the same run: contenders take turns in rounds (the
order rotates each round) so that machine noise lands on all of them alike, and the reported
figure is the median over every timed call.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

MiB = 1024 * 1024
GiB = 1024 * MiB
PYTHON = sys.executable
BIN = Path(sys.executable).parent
"""The directory of this interpreter's console scripts (ir-run lives here in a venv)."""
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Row:
    """One comparison: irgraph's figure against one other figure, with the target on their ratio."""

    bench: str
    what: str
    irgraph: float | None
    against: str
    other: float | None
    unit: str = "ms"
    target: float | None = None
    """Largest acceptable irgraph/other ratio; None for a comparison shown for context."""
    note: str = ""
    paired: float | None = None
    """The ratio measured as the median of per-round ratios (else irgraph / other)."""

    @property
    def ratio(self) -> float | None:
        if self.paired is not None:
            return self.paired
        if self.irgraph is None or not self.other:
            return None
        return self.irgraph / self.other

    @property
    def met(self) -> str:
        if self.target is None:
            return ""
        if self.ratio is None:
            return "n/a"
        return "met" if self.ratio <= self.target else "NOT met"


@dataclass
class Section:
    """What one benchmark returns: its rows and any profile lines explaining them."""

    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def have(module: str) -> bool:
    """True when ``module`` can be imported (optional peers: openvino, onnxruntime, onnx)."""
    return importlib.util.find_spec(module) is not None


class Timings(dict):
    """Median seconds per call of each contender, plus paired per-round ratios."""

    def __init__(self, rounds: dict[str, list[float]]) -> None:
        super().__init__({name: statistics.median(values) for name, values in rounds.items()})
        self.rounds = rounds

    def ratio(self, first: str, second: str) -> float:
        """The median over rounds of first/second: noise that lasts a round hits both sides of it."""
        pairs = zip(self.rounds[first], self.rounds[second], strict=True)
        return statistics.median(a / b for a, b in pairs)


def interleaved(
    contenders: dict[str, Callable[[], object]], rounds: int, per_round: int, warmup: int = 3
) -> Timings:
    """Time each contender in rotating rounds of ``per_round`` calls (GC paused between calls).

    Each round yields one median per contender; the result holds the median of those (seconds
    per call) and, through ``ratio``, paired per-round ratios.
    """
    (wall,) = _rotating_rounds(contenders, rounds, per_round, warmup, _wall_time, clocks=1)
    return Timings(wall)


def interleaved_with_cpu(
    contenders: dict[str, Callable[[], object]], rounds: int, per_round: int, warmup: int = 3
) -> tuple[Timings, Timings]:
    """``interleaved``, also timing each call's CPU time (``time.process_time``): (wall, CPU)."""
    wall, cpu = _rotating_rounds(contenders, rounds, per_round, warmup, _wall_and_cpu_time, clocks=2)
    return Timings(wall), Timings(cpu)


def _wall_time(function: Callable[[], object]) -> tuple[float]:
    start = time.perf_counter()
    kept = function()
    elapsed = time.perf_counter() - start
    del kept  # freeing the result is not part of the call
    return (elapsed,)


def _wall_and_cpu_time(function: Callable[[], object]) -> tuple[float, float]:
    start, start_cpu = time.perf_counter(), time.process_time()
    kept = function()
    cpu = time.process_time() - start_cpu
    wall = time.perf_counter() - start
    del kept
    return wall, cpu


def _rotating_rounds(
    contenders: dict[str, Callable[[], object]],
    rounds: int,
    per_round: int,
    warmup: int,
    measure: Callable[[Callable[[], object]], tuple[float, ...]],
    clocks: int,
) -> list[dict[str, list[float]]]:
    """For each of the ``clocks`` readings ``measure`` returns, each contender's per-round medians. The
    contenders take turns in an order that rotates every round, so slow drift of the machine hits all."""
    for function in contenders.values():
        for _ in range(warmup):
            function()
    names = list(contenders)
    medians: list[dict[str, list[float]]] = [{name: [] for name in names} for _ in range(clocks)]
    collecting = gc.isenabled()
    gc.disable()
    try:
        for round_index in range(rounds):
            shift = round_index % len(names)
            for name in names[shift:] + names[:shift]:
                samples = [measure(contenders[name]) for _ in range(per_round)]
                for clock, readings in zip(medians, zip(*samples, strict=True), strict=True):
                    clock[name].append(statistics.median(readings))
            gc.collect()
    finally:
        if collecting:
            gc.enable()
    return medians


def time_processes(
    commands: dict[str, Sequence[str]], repeats: int, env: dict[str, str] | None = None
) -> dict[str, float]:
    """Median wall seconds of each command line, run in turns; every run must exit 0."""
    return {name: stats.wall_median for name, stats in process_stats(commands, repeats, env).items()}


@dataclass
class ProcessStats:
    """Seconds of one command line over fresh processes: wall and CPU (user + system, the process and its
    children), median and minimum. On a loaded machine the minimum and the CPU time are the steadier figures:
    a median mostly measures how often the process waited for a core."""

    wall_median: float
    wall_min: float
    cpu_median: float
    cpu_min: float


def process_stats(
    commands: dict[str, Sequence[str]], repeats: int, env: dict[str, str] | None = None
) -> dict[str, ProcessStats]:
    """Each command line run ``repeats`` times in turns (after one round that only warms the file cache); every
    run must exit 0."""
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    names = list(commands)
    for round_index in range(repeats + 1):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            process = subprocess.Popen(list(commands[name]), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                       env=env)
            with process.stderr as errors:  # type: ignore[union-attr]  # stderr=PIPE: a stream
                stderr = errors.read()
            _, status, usage = os.wait4(process.pid, 0)
            elapsed = time.perf_counter() - start
            process.returncode = os.waitstatus_to_exitcode(status)
            if process.returncode != 0:
                raise RuntimeError(f"{name} failed ({process.returncode}): {stderr.decode().strip()[-2000:]}")
            if round_index:
                wall[name].append(elapsed)
                cpu[name].append(usage.ru_utime + usage.ru_stime)
    return {name: ProcessStats(statistics.median(wall[name]), min(wall[name]), statistics.median(cpu[name]),
                               min(cpu[name])) for name in names}


def run_worker(script: Path, *args: str, timeout: float = 600) -> dict:
    """Run ``python script args`` and return the JSON object it prints last on stdout."""
    done = subprocess.run([PYTHON, str(script), *args], capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{script.name} {' '.join(args)} failed: {done.stderr.strip()[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------ memory probes
def status(field_name: str) -> int:
    """A ``/proc/self/status`` figure (VmRSS, VmHWM, ...) in bytes."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field_name + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field_name)


def reset_peak() -> None:
    """Reset VmHWM to the current RSS (Linux: write 5 to /proc/self/clear_refs)."""
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")


def machine() -> str:
    """One line naming the machine and the versions measured."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            names = [line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")]
        cpu = f"{names[0]} x{len(names)}" if names else cpu
    except OSError:
        pass
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / GiB
    except (ValueError, OSError):
        memory = 0.0
    versions = [f"Python {platform.python_version()}"]
    for module in ("numpy", "openvino", "onnxruntime"):
        if have(module):
            versions.append(f"{module} {_version(module)}")
    return f"{cpu}, {memory:.0f} GiB RAM, {platform.system()}; " + ", ".join(versions)


def _version(module: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(module)
    except metadata.PackageNotFoundError:
        return "?"


def fmt(value: float | None, unit: str) -> str:
    """A figure in its unit: ms (from seconds) or MiB (from bytes)."""
    if value is None:
        return "n/a"
    if unit == "ms":
        milliseconds = value * 1e3
        return f"{milliseconds:.3f} ms" if milliseconds < 10 else f"{milliseconds:.1f} ms"
    if unit == "MiB":
        return f"{value / MiB:.1f} MiB"
    return f"{value:g} {unit}"


def llm_like():  # -> the module tests/llm_like.py
    """tests/llm_like.py, the one LLaMA-like generator (checked against OpenVINO by the tests), loaded by its path:
    the benchmarks run as scripts with no package above them, and ``import tests.llm_like`` would take whichever
    top-level ``tests`` package comes first on the path (some wheels install one)."""
    name = "irgraph_benchmarks_llm_like"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "llm_like.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # registered first: dataclasses look their module up while the file runs
        spec.loader.exec_module(module)
    return sys.modules[name]


def generator_stamp() -> str:
    """8 hex digits of tests/llm_like.py and benchmarks/exports.py: cached generated models are written again when
    either generator changes."""
    import hashlib

    digest = hashlib.sha256()
    for path in (ROOT / "tests" / "llm_like.py", ROOT / "benchmarks" / "exports.py"):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:8]
