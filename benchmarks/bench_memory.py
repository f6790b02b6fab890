"""(e) Peak resident memory running a split/concat chain on a 1 GiB input, against inputs plus outputs;
(f) reading an IR with a 1 GiB constant: time and growth of resident memory.

Each measurement runs in its own process (``python bench_memory.py --worker ...``), which records
its resident set after importing and building what it needs, resets the peak (Linux
``/proc/self/clear_refs``), does the work and reports ``VmHWM`` / ``VmRSS`` growth as JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import models
import numpy as np
from _common import GiB, MiB, Row, Section, have, reset_peak, run_worker, status

HERE = Path(__file__).resolve()
SHAPE_E = (1, 256, 1024, 1024)
"""1 GiB of f32."""
QUICK_SHAPE_E = (1, 64, 1024, 1024)
"""256 MiB of f32 for --quick."""
CONST_ELEMENTS = 2**28
"""1 GiB of f32."""


def run_chain(quick: bool = False) -> Section:
    shape = QUICK_SHAPE_E if quick else SHAPE_E
    repeats = 1 if quick else 3
    size = int(np.prod(shape)) * 4
    section = Section()
    label = f"{size / GiB:g} GiB" if size >= GiB else f"{size / MiB:g} MiB"
    stages = " -> ".join(f"{kind}({parts}) axis {axis}" for axis, kind, parts in models.CHAIN_E)
    what = f"{label} input: peak RSS growth, Interpreter.run"
    contenders = ["irgraph", "numpy"] + (["openvino"] if have("openvino") else [])
    results: dict[str, list[dict]] = {who: [] for who in contenders}
    for _ in range(repeats):
        for who in contenders:
            results[who].append(run_worker(HERE, "--worker", f"chain-{who}", ",".join(map(str, shape))))

    def median(who: str, key: str) -> float:
        return statistics.median(result[key] for result in results[who])

    ours = median("irgraph", "growth")
    io_bytes = results["irgraph"][0]["in_bytes"] + results["irgraph"][0]["out_bytes"]
    section.rows.append(Row("e", what, ours, "inputs + outputs", io_bytes, unit="MiB",
                            target=1.1))
    section.rows.append(Row("e", what, ours,
                            "NumPy, stage by stage (np.split + np.concatenate)", median("numpy", "growth"),
                            unit="MiB"))
    if "openvino" in results:
        section.rows.append(Row("e", what, ours,
                                "OpenVINO infer (share_inputs/outputs), compiled beforehand",
                                median("openvino", "growth"), unit="MiB"))
    section.rows.append(Row("e", f"{label} input: time, Interpreter.run", median("irgraph", "seconds"),
                            "NumPy, stage by stage", median("numpy", "seconds")))
    if "openvino" in results:
        section.rows.append(Row("e", f"{label} input: time, Interpreter.run", median("irgraph", "seconds"),
                                "OpenVINO infer (share_inputs/outputs)", median("openvino", "seconds")))
    section.notes.append(
        f"(e) chain: {stages}, each stage joining its parts in reverse. Medians of {repeats} fresh process(es) "
        "per contender; growth is VmHWM after the run minus VmRSS before the input is allocated (the input and "
        "the output are part of it); every output is checked against NumPy after the measurement."
    )
    return section


def run_big_const(quick: bool = False) -> Section:
    repeats = 2 if quick else 5
    section = Section()
    if not have("openvino"):
        section.notes.append("(f) skipped: OpenVINO is not installed (it writes the 1 GiB IR)")
        return section
    with tempfile.TemporaryDirectory() as scratch:
        xml = models.write_ir(models.openvino_big_const(CONST_ELEMENTS), Path(scratch) / "big.xml")
        ours, theirs = [], []
        for _ in range(repeats):
            ours.append(run_worker(HERE, "--worker", "read-irgraph", str(xml)))
            theirs.append(run_worker(HERE, "--worker", "read-openvino", str(xml)))

    def median(results: list[dict], key: str) -> float:
        return statistics.median(result[key] for result in results)

    section.rows.append(Row("f", "RSS growth, irgraph.read_model", median(ours, "growth"),
                            "the 10 MiB budget", 10 * MiB, unit="MiB", target=1.0))
    section.rows.append(Row("f", "RSS growth, irgraph.read_model", median(ours, "growth"),
                            "OpenVINO read_model (mmap on, the default)", median(theirs, "growth"), unit="MiB"))
    section.rows.append(Row("f", "time, irgraph.read_model", median(ours, "seconds"),
                            "OpenVINO read_model", median(theirs, "seconds")))
    section.notes.append(
        f"(f) medians of {repeats} fresh processes each; growth is VmRSS after reading minus before (peak "
        f"growth: irgraph {median(ours, 'peak_growth') / MiB:.1f} MiB, OpenVINO "
        f"{median(theirs, 'peak_growth') / MiB:.1f} MiB)."
    )
    return section


# ------------------------------------------------------------------------------ workers
def _worker(kind: str, argument: str) -> dict:
    if kind.startswith("chain-"):
        shape = tuple(int(v) for v in argument.split(","))
        return _chain(kind.removeprefix("chain-"), shape)
    return _read(kind.removeprefix("read-"), argument)


def _chain(who: str, shape: tuple[int, ...]) -> dict:
    if who == "irgraph":
        import irgraph as ir

        interpreter = ir.Interpreter(models.irgraph_chain_e(shape))

        def compute(x: np.ndarray) -> np.ndarray:
            return interpreter.run({"x": x})["y"]
    elif who == "numpy":
        compute = models.numpy_chain_e
    else:
        import openvino as ov

        request = ov.Core().compile_model(models.openvino_chain_e(shape), "CPU").create_infer_request()

        def compute(x: np.ndarray) -> np.ndarray:
            return request.infer({0: x}, share_inputs=True, share_outputs=True)[0]
    base = status("VmRSS")
    reset_peak()
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    start = time.perf_counter()
    y = compute(x)
    seconds = time.perf_counter() - start
    peak = status("VmHWM")
    result = {"growth": peak - base, "in_bytes": x.nbytes, "out_bytes": y.nbytes, "seconds": seconds}
    check = models.numpy_chain_e(x) if who != "numpy" else y
    if not np.array_equal(y, check):
        raise AssertionError(f"{who}: wrong result")
    return result


def _read(who: str, xml: str) -> dict:
    if who == "irgraph":
        import irgraph as ir
        import irgraph.io.xml.reader  # noqa: F401 - imports are not part of the growth

        def read() -> object:
            return ir.read_model(xml)
    else:
        import openvino as ov

        core = ov.Core()

        def read() -> object:
            return core.read_model(xml)
    base = status("VmRSS")
    reset_peak()
    start = time.perf_counter()
    model = read()
    seconds = time.perf_counter() - start
    after, peak = status("VmRSS"), status("VmHWM")
    del model
    return {"growth": after - base, "peak_growth": peak - base, "seconds": seconds}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "ARGUMENT"))
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_worker(*args.worker)))
        sys.exit(0)
    from run import main

    main(["--only", "ef"])
