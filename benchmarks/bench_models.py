"""(m) The model corpus of issue 16 (tests/data/models: BERT-, GPT-2-, T5- and Whisper-like transformers, an LSTM,
an ONNX GRU, a YOLO-like detector, a stateful GPT-2 step): warm runs of irgraph's Interpreter against OpenVINO's
CPU plugin (f32 hint, latency, one stream) on the inputs tests/test_models.py makes, taking turns in one process
as in ``_common.interleaved``. The corpus was converted from PyTorch (and one torch.onnx export, not kept), so
there is no ONNX original to run onnx.reference or onnxruntime on; the rows say so.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import sys
from collections.abc import Callable
from pathlib import Path

from _common import Row, Section, have, interleaved_with_cpu

import irgraph as ir

REPO = Path(__file__).resolve().parents[1]
THREADS = 2
"""BLAS threads of irgraph and inference threads of OpenVINO alike."""
TINY_TRANSFORMERS = {"bert-tiny": 3.0, "gpt2-tiny": 3.0, "t5-tiny": 3.0, "whisper-tiny-encoder": 3.0}
"""Issue 28 item 1: each at most this many times OpenVINO's warm run."""
PROFILED = 12
"""cProfile entries (by own time) shown for a model that misses its target."""


def run(quick: bool = False) -> Section:
    rounds, per_round = (3, 2) if quick else (15, 5)
    section = Section()
    if not have("openvino"):
        section.notes.append("(m) skipped: OpenVINO is the comparison")
        return section
    import openvino as ov

    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.test_models import MODELS, NAMES, inputs_of

    core = ov.Core()
    best: list[str] = []
    cpu_ratios: list[str] = []
    for name in NAMES:
        xml = MODELS / name / "model.xml"
        feeds = inputs_of(name)
        interpreter = ir.Interpreter(ir.read_model(xml), threads=THREADS)
        request = core.compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT":
                                                       "LATENCY", "NUM_STREAMS": "1",
                                                       "INFERENCE_NUM_THREADS": THREADS}).create_infer_request()
        times, cpu = interleaved_with_cpu({"irgraph": lambda runner=interpreter, data=feeds: runner.run(data),
                                           "openvino": lambda runner=request, data=feeds: runner.infer(data)},
                                          rounds, per_round)
        row = Row("m", f"{name}: warm run", times["irgraph"], f"OpenVINO CPU warm ({THREADS} threads)",
                  times["openvino"], target=TINY_TRANSFORMERS.get(name), paired=times.ratio("irgraph", "openvino"))
        section.rows.append(row)
        best.append(f"{name} {min(times.rounds['irgraph']) / min(times.rounds['openvino']):.2f}x")
        cpu_ratios.append(f"{name} {min(cpu.rounds['irgraph']) / min(cpu.rounds['openvino']):.2f}x")
        if row.met == "NOT met":
            section.notes.append(f"(m) {name}: {row.ratio:.2f}x; cProfile of 20 warm runs, by own time:\n"
                                 + _profile(lambda runner=interpreter, data=feeds: runner.run(data)))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    section.notes.append(f"(m) {rounds} rounds of {per_round} calls per contender, {THREADS} threads each; load "
                         f"average {load:.1f} at the end. On a busy machine the medians say more about the load "
                         "(OpenVINO's threads wait for each other) than about the work; the best round of each, "
                         f"irgraph / OpenVINO: {', '.join(best)}")
    section.notes.append("(m) CPU time per call (the process's, OpenVINO's worker threads included: a load that "
                         "deschedules a contender adds none; threads that spin while waiting do), irgraph / "
                         f"OpenVINO, best round of each: {', '.join(cpu_ratios)}")
    section.notes.append("(m) these models are tiny (a few thousand weights per layer): a run is mostly per-layer "
                         "work, which issue 28 item 1 targets on the four tiny transformers (<= 3x); the other rows "
                         "are shown for context; a stateful model's runs each append to its KV cache (both sides "
                         "alike); no ONNX original exists for these models, so onnx.reference has no row")
    return section


def _profile(call: Callable[[], object]) -> str:
    """The top ``PROFILED`` entries of cProfile over 20 calls of ``call``, by own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(20):
        call()
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(PROFILED)
    lines = [line for line in text.getvalue().splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
    return "\n".join(line.replace(str(REPO) + "/", "") for line in lines[start:])


if __name__ == "__main__":
    from run import main

    main(["--only", "m"])
