"""(b) Cold, end to end: the ``ir-run`` process against a process doing OpenVINO read, compile and one
inference on the same files (the (a) model, written by OpenVINO, and the same input .npz).

Issue 28 item 5 (cold ``ir-run`` of the README's sample within 1.2x ``python -c "import numpy"``) is judged on
the sample, by wall and CPU time, medians and minima. The profile splits the sample's run into interpreter
start-up, imports and the work itself, and ``-X importtime`` says which modules ir-run adds to NumPy's.
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
from _common import BIN, PYTHON, ProcessStats, Row, Section, have, process_stats

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


SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "dml-split-axis2"
"""The README's sample (a Split and a Concat on a 1x1x6x2 f32 input): issue 28 item 5's cold start."""
SAMPLE_RUN = """\
import contextlib, io, sys
from irgraph.cli.ir_run import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
assert code == 0, code
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
            "ir-run sample": [_ir_run(), str(SAMPLE / "model.xml"), "--inputs", str(SAMPLE / "inputs.npz")],
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
        phases = _phases([str(SAMPLE / "model.xml"), "--inputs", str(SAMPLE / "inputs.npz")], repeats, env)
        importtime = _importtime(env, [str(SAMPLE / "model.xml"), "--inputs", str(SAMPLE / "inputs.npz")],
                                 3 if quick else 10)

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
                            floor))
    section.rows.append(Row("b", "ir-run of the README's sample (+ its .npz)", times["ir-run sample"],
                            "floor: python -c 'import numpy'", floor, target=1.2))
    for name, what in (("ir-run sample", "ir-run of the README's sample"),
                       ("ir-run", "ir-run MODEL.xml --inputs in.npz (16 MiB)")):
        section.notes.append(f"(b) {what} against `python -c 'import numpy'`, {repeats} processes each in turns "
                             f"(load average {_load_average()}): {_against(stats[name], stats['python+numpy'])}")
    wall, numpy_s, rest_s, work_s = phases
    section.notes.append(
        f"(b) profile of ir-run on the README's sample (median wall ms over {repeats} processes): ir-run "
        f"{times['ir-run sample'] * 1e3:.0f}; "
        f"the same main() in a process timing itself: wall {wall * 1e3:.0f} = interpreter start-up and exit "
        f"{(wall - numpy_s - rest_s - work_s) * 1e3:.0f} + import numpy {numpy_s * 1e3:.0f} + import the rest of "
        f"ir-run's modules {rest_s * 1e3:.0f} + main() (read XML + .bin, check, run, print the table) "
        f"{work_s * 1e3:.0f}. OpenVINO's process: {times['openvino'] * 1e3:.0f}; 0.2x of it is "
        f"{times['openvino'] * 0.2e3:.0f} ms, less than Python plus NumPy alone ({floor * 1e3:.0f})."
    )
    section.notes.append(importtime)
    return section


def _against(run: ProcessStats, floor: ProcessStats) -> str:
    return "; ".join(
        f"{label} {getattr(run, key) * 1e3:.1f} / {getattr(floor, key) * 1e3:.1f} ms = "
        f"{getattr(run, key) / getattr(floor, key):.2f}x"
        for label, key in (("wall median", "wall_median"), ("wall minimum", "wall_min"),
                           ("CPU median", "cpu_median"), ("CPU minimum", "cpu_min")))


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


def _importtime(env: dict[str, str], sample_args: list[str], repeats: int) -> str:
    """``-X importtime`` of ir-run's main() on the sample against ``import numpy``: each module's self time is
    its minimum over ``repeats`` processes (the steadiest figure under load), summed over NumPy's own import set
    and over what ir-run adds, by top-level package."""
    floor = _import_minima([PYTHON, "-X", "importtime", "-c", "import numpy"], env, repeats)
    run = _import_minima([PYTHON, "-X", "importtime", "-c", SAMPLE_RUN, *sample_args], env, repeats)
    added = {name: ms for name, ms in run.items() if name not in floor}
    by_package: dict[str, float] = defaultdict(float)
    for name, ms in added.items():
        by_package[name.split(".")[0]] += ms
    biggest = sorted(by_package.items(), key=lambda item: -item[1])
    shown = ", ".join(f"{name} {ms:.1f}" for name, ms in biggest[:8])
    return (f"(b) `python -X importtime`, the minimum self time of each module over {repeats} processes: `import "
            f"numpy` {sum(floor.values()):.1f} ms; ir-run's main() on the README's sample adds "
            f"{sum(added.values()):.1f} ms over {len(added)} modules ({shown}, others "
            f"{sum(ms for _, ms in biggest[8:]):.1f})")


def _import_minima(command: list[str], env: dict[str, str], repeats: int) -> dict[str, float]:
    minima: dict[str, float] = {}
    for _ in range(repeats):
        done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
        for line in done.stderr.splitlines():
            match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
            if match:
                name, ms = match.group(2), int(match.group(1)) / 1e3
                minima[name] = min(minima.get(name, ms), ms)
    return minima


if __name__ == "__main__":
    from run import main

    main(["--only", "b"])
