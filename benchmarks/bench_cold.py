"""(b) Cold, end to end: the ``ir-run`` process against a process doing OpenVINO read, compile and one
inference on the same files (the (a) model, written by OpenVINO, and the same input .npz).

The profile splits ir-run's wall time into interpreter start-up, imports (by package) and the
work itself, which is what decides whether the target can be met.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import models
import numpy as np
from _common import BIN, PYTHON, Row, Section, have, process_stats

OPENVINO_COLD = """\
import sys
import numpy as np
import openvino as ov
xml, npz = sys.argv[1:3]
core = ov.Core()
compiled = core.compile_model(core.read_model(xml), "CPU")
with np.load(npz, allow_pickle=False) as inputs:
    outputs = compiled.create_infer_request().infer({0: inputs["x"]})
print(outputs[0].shape)
"""

ONNXRUNTIME_COLD = """\
import sys
import numpy as np
import onnxruntime as ort
path, npz = sys.argv[1:3]
session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
with np.load(npz, allow_pickle=False) as inputs:
    outputs = session.run(None, {"x": inputs["x"]})
print(outputs[0].shape)
"""

PHASES = """\
import time
start = time.perf_counter()
import numpy
numpy_done = time.perf_counter()
import irgraph.cli.ir_run as ir_run
imports_done = time.perf_counter()
import sys
code = ir_run.main(sys.argv[1:])
end = time.perf_counter()
assert code == 0, code
print(numpy_done - start, imports_done - numpy_done, end - imports_done, file=sys.stderr)
"""


def _ir_run() -> str:
    script = BIN / "ir-run"
    if not script.exists():
        raise FileNotFoundError(f"{script} not found: install irgraph (pip install -e .) in this interpreter's venv")
    return str(script)


def run(quick: bool = False) -> Section:
    repeats = 3 if quick else 15  # fresh processes per command: start-up is short, and its spread wide
    section = Section()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        np.savez(folder / "in.npz", x=models.input_a())
        if not have("openvino"):
            section.notes.append("(b) skipped: OpenVINO is not installed (the IR files are written with it)")
            return section
        xml = models.write_ir(models.openvino_a(), folder / "model.xml")
        npz = str(folder / "in.npz")
        # This sandbox sets PYTHONDONTWRITEBYTECODE, so an editable install would compile irgraph's
        # sources in every process; cache bytecode in the scratch folder as a normal install would.
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        commands = {
            "ir-run": [_ir_run(), str(xml), "--inputs", npz],
            "openvino": [PYTHON, "-c", OPENVINO_COLD, str(xml), npz],
            "python": [PYTHON, "-c", "pass"],
            "python+numpy": [PYTHON, "-c", "import numpy"],
            "imports": [PYTHON, "-c", "import irgraph.cli.ir_run"],
            "import irgraph": [PYTHON, "-c", "import irgraph"],
            "ir-run --help": [_ir_run(), "--help"],
        }
        if have("onnxruntime") and have("onnx"):
            commands["onnxruntime"] = [PYTHON, "-c", ONNXRUNTIME_COLD, str(models.onnx_a(folder / "a.onnx")), npz]
        stats = process_stats(commands, repeats, env)
        times = {name: figures.wall_median for name, figures in stats.items()}
        phases = _phases([str(xml), "--inputs", npz], repeats, env)
        importtime = _importtime(env)

    section.rows.append(Row("b", "ir-run MODEL.xml --inputs in.npz", times["ir-run"],
                            "python: OpenVINO Core + read_model + compile_model + one infer", times["openvino"],
                            target=0.2))
    if "onnxruntime" in times:
        section.rows.append(Row("b", "ir-run MODEL.xml --inputs in.npz", times["ir-run"],
                                "python: onnxruntime InferenceSession + one run", times["onnxruntime"]))
    floor = times["python+numpy"]
    section.rows.append(Row("b", "floor: python -c 'import numpy'", floor,
                            "python: OpenVINO cold (as above)", times["openvino"]))
    section.rows.append(Row("b", "python -c 'import irgraph.cli.ir_run'",
                            times["imports"], "python: OpenVINO cold (as above)", times["openvino"]))
    # Issue 15's start-up targets: against the floor of any NumPy tool.
    section.rows.append(Row("b", "python -c 'import irgraph'", times["import irgraph"],
                            "floor: python -c 'import numpy'", floor, target=1.2))
    section.rows.append(Row("b", "ir-run --help", times["ir-run --help"], "floor: python -c 'import numpy'", floor))
    section.rows.append(Row("b", "ir-run MODEL.xml --inputs in.npz", times["ir-run"], "floor: python -c 'import numpy'",
                            floor, target=1.2))
    run, floor_stats = stats["ir-run"], stats["python+numpy"]
    figures = "; ".join(
        f"{label} {getattr(run, key) * 1e3:.1f} / {getattr(floor_stats, key) * 1e3:.1f} ms = "
        f"{getattr(run, key) / getattr(floor_stats, key):.2f}x"
        for label, key in (("wall median", "wall_median"), ("wall minimum", "wall_min"),
                           ("CPU median", "cpu_median"), ("CPU minimum", "cpu_min")))
    section.notes.append(f"(b) ir-run MODEL.xml --inputs in.npz against `python -c 'import numpy'`, {repeats} "
                         f"processes each in turns (load average {_load_average()}): {figures}")
    wall, numpy_s, rest_s, work_s = phases
    section.notes.append(
        f"(b) profile of ir-run (median wall ms over {repeats} processes): ir-run {times['ir-run'] * 1e3:.0f}; "
        f"the same main() in a process timing itself: wall {wall * 1e3:.0f} = interpreter start-up and exit "
        f"{(wall - numpy_s - rest_s - work_s) * 1e3:.0f} + import numpy {numpy_s * 1e3:.0f} + import the rest of "
        f"ir-run's modules {rest_s * 1e3:.0f} + main() (read XML + .bin, check, run, print the table) "
        f"{work_s * 1e3:.0f}. OpenVINO's process: {times['openvino'] * 1e3:.0f}; 0.2x of it is "
        f"{times['openvino'] * 0.2e3:.0f} ms, less than Python plus NumPy alone ({floor * 1e3:.0f})."
    )
    section.notes.append("(b) `python -X importtime -c 'import irgraph.cli.ir_run'`, self time by top-level "
                         "package (ms): " + ", ".join(f"{name} {ms:.0f}" for name, ms in importtime))
    return section


def _load_average() -> str:
    try:
        with open("/proc/loadavg") as loadavg:
            return " ".join(loadavg.read().split()[:3])
    except OSError:
        return "unknown"


def _phases(args: list[str], repeats: int, env: dict[str, str]) -> tuple[float, ...]:
    """ir-run's main() in a process that times its own phases: (wall, numpy, other imports, main)."""
    samples = []
    for _ in range(repeats + 1):
        start = time.perf_counter()
        done = subprocess.run([PYTHON, "-c", PHASES, *args], capture_output=True, text=True, check=True, env=env)
        wall = time.perf_counter() - start
        samples.append((wall, *(float(v) for v in done.stderr.split()[-3:])))
    return tuple(statistics.median(column) for column in zip(*samples[1:], strict=True))


def _importtime(env: dict[str, str]) -> list[tuple[str, float]]:
    """Self import time per top-level package (the median of 3 processes), largest first."""
    totals: dict[str, list[float]] = defaultdict(list)
    for _ in range(3):
        done = subprocess.run([PYTHON, "-X", "importtime", "-c", "import irgraph.cli.ir_run"],
                              capture_output=True, text=True, check=True, env=env)
        per_package: dict[str, float] = defaultdict(float)
        for line in done.stderr.splitlines():
            match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
            if match:
                per_package[match.group(2).split(".")[0]] += int(match.group(1)) / 1e3
        for name, ms in per_package.items():
            totals[name].append(ms)
    medians = {name: statistics.median(values) for name, values in totals.items()}
    big = sorted(((name, ms) for name, ms in medians.items() if ms >= 3), key=lambda item: -item[1])
    rest = sum(ms for ms in medians.values() if ms < 3)
    return [*big, ("others", rest)]


if __name__ == "__main__":
    from run import main

    main(["--only", "b"])
