"""(l) LLM steps: the prefill (32 tokens) and one decode step of a LLaMA-like stateful decoder of realistic width
(hidden 1024, 8 layers, 16 query heads and 8 KV heads, MLP 2816, vocabulary 32000: 160 M weights, 611 MiB as f32),
laid out as optimum-intel's stateful export lays it out (tests/llm_like.py, the generator the tests check against
OpenVINO: RMSNorm, RoPE, grouped-query SDPA, the KV cache as ReadValue -> Gather(beam_idx) -> Concat -> Assign) and
built with OpenVINO's opset builders and ``save_model`` (nothing big is kept in the repository; the files are cached
in a temporary folder), with fp16, int8 (u8 per channel) and int4 (u4 in groups of 128, the embedding and LM head
u8) weights: NNCF's decompression pattern. Random weights: the time of a step does not depend on their values.

Against OpenVINO's CPU plugin with the exact hints (``INFERENCE_PRECISION_HINT=f32``,
``DYNAMIC_QUANTIZATION_GROUP_SIZE=0``, ``KV_CACHE_PRECISION=f32``, latency, one stream), the same thread count on
both sides (``INFERENCE_NUM_THREADS`` and irgraph's ``Interpreter(threads=...)``; one unless
``IRGRAPH_BENCH_THREADS`` says), irgraph with
``decompression="f32"`` (as that plugin computes the chains). Each contender runs in its own fresh worker process
(two thread pools in one process spin against each other); they take turns, one round each (a reset, the prefill,
then a few decode steps, each timed), the order rotating. A worker's peak RSS (VmHWM, the interpreter and Python
included) is read after loading and one prefill and decode, and set against the decompressed weights (f32, 4 bytes
a weight): what an Interpreter holds after folding the decompression chains. irgraph also runs with
``keep_weights_compressed=True`` (the chains run at every step; the weights stay in their stored type). The first
decode step's logits of every contender are compared with OpenVINO's, and the folded decode step is profiled.
"""

from __future__ import annotations

import cProfile
import gc
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from _common import MiB, Row, Section, generator_stamp, have, llm_like, status

HERE = Path(__file__).resolve()
_generator = llm_like()
step_inputs, write_llama = _generator.step_inputs, _generator.write_llama

THREADS = int(os.environ.get("IRGRAPH_BENCH_THREADS", 0)) or 1
"""Threads of each contender (OpenVINO's INFERENCE_NUM_THREADS, irgraph's BLAS): one by default, as issue 28's LLM
figures were taken. With two on this 2-core machine shared with other work, OpenBLAS's threads wait for each other:
one 2816 x 1024 decode product took 0.2 to 32 ms from call to call (0.42 ms steady on one thread), and a decode step
1.2-1.7 s (issue 28 item 3)."""
CACHE = Path(os.environ.get("IRGRAPH_BENCH_CACHE", Path(tempfile.gettempdir()) / "irgraph-bench-llm"))
CONFIG = _generator.LlamaConfig(kv_heads=8)
PREFILL = 32
FORMATS = ("fp16", "int8", "int4")
EXACT_CPU = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0", "KV_CACHE_PRECISION": "f32",
             "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": "1"}
LABEL = "OpenVINO CPU (f32, no dyn. quant., f32 KV cache)"


def model_path(weights: str) -> Path:
    """The IR of ``weights`` format, written on first use."""
    folder = CACHE / f"h{CONFIG.hidden}-l{CONFIG.layers}-kv{CONFIG.kv}-v{CONFIG.vocab}-{generator_stamp()}"
    xml = folder / f"llama-{weights}.xml"
    if not xml.exists():
        folder.mkdir(parents=True, exist_ok=True)
        write_llama(folder, CONFIG, weights, name=f"llama-{weights}")
    return xml


def generation() -> tuple[dict[str, np.ndarray], list[dict[str, np.ndarray]]]:
    """The prefill's inputs (one sequence of 32 tokens) and those of the decode steps after it."""
    rng = np.random.default_rng(0)
    prefill = step_inputs(rng.integers(0, CONFIG.vocab, (1, PREFILL)), past=0)
    decodes = [step_inputs(rng.integers(0, CONFIG.vocab, (1, 1)), past=PREFILL + k) for k in range(16)]
    return prefill, decodes


# ------------------------------------------------------------------------------ the contenders (one process each)
class IrgraphRunner:
    def __init__(self, xml: Path, keep_compressed: bool) -> None:
        import irgraph as ir

        self.interpreter = ir.Interpreter(ir.read_model(xml), decompression="f32", threads=THREADS,
                                          keep_weights_compressed=keep_compressed)

    def reset(self) -> None:
        self.interpreter.reset_state()

    def step(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        return self.interpreter.run(feeds)["logits"]

    def held(self) -> int:
        """Bytes of the weights (and other constants) the Interpreter keeps."""
        return sum(value.nbytes for value in self.interpreter._template if isinstance(value, np.ndarray))


class OpenvinoRunner:
    def __init__(self, xml: Path, keep_compressed: bool) -> None:
        import openvino as ov

        compiled = ov.Core().compile_model(str(xml), "CPU", {**EXACT_CPU, "INFERENCE_NUM_THREADS": str(THREADS)})
        self.request = compiled.create_infer_request()
        self.output = compiled.outputs[0]

    def reset(self) -> None:
        self.request.reset_state()

    def step(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        return self.request.infer(feeds)[self.output]

    def held(self) -> int:
        return 0


RUNNERS = {"irgraph": (IrgraphRunner, False), "irgraph-kept": (IrgraphRunner, True),
           "openvino": (OpenvinoRunner, False)}


def worker(backend: str, weights: str) -> None:
    """Serve one contender on stdin/stdout, one JSON line each: first its memory report (after loading, one prefill
    and the decode steps of a generation, each timed: the first generation's one-off costs); then ``time D``
    times a reset, the prefill and D decode steps; ``profile`` profiles three decode steps; an empty line ends
    it."""
    xml = model_path(weights)
    prefill, decodes = generation()
    factory, keep_compressed = RUNNERS[backend]
    if backend.startswith("irgraph"):
        import irgraph  # noqa: F401  # the imports belong to the baseline, not to the model
    else:
        import openvino  # noqa: F401
    baseline = status("VmRSS")
    start, start_cpu = time.perf_counter(), time.process_time()
    runner = factory(xml, keep_compressed)
    loaded, loaded_cpu = time.perf_counter(), time.process_time()
    runner.step(prefill)
    # A whole generation before the peak is read: the decode plan irgraph builds on the fourth step (and anything
    # else a later step allocates) counts too. Weights kept compressed take seconds a step: one is enough there.
    first: list[float] = []
    for index, feeds in enumerate(decodes[: 1 if keep_compressed else len(decodes)]):
        begun = time.perf_counter()
        logits = np.asarray(runner.step(feeds))
        first.append(time.perf_counter() - begun)
        if index == 0:
            np.save(xml.with_name(f"{backend}-{weights}-logits.npy"), logits)
    print(json.dumps({"peak": status("VmHWM"), "baseline": baseline, "load": loaded - start,
                      "load_cpu": loaded_cpu - start_cpu, "held": runner.held(), "first": first}),
          flush=True)
    gc.disable()
    for line in sys.stdin:
        command = line.split()
        if not command:
            break
        if command[0] == "time":
            runner.reset()
            begun, used = time.perf_counter(), time.process_time()
            runner.step(prefill)
            prefill_time, prefill_cpu = time.perf_counter() - begun, time.process_time() - used
            samples, cpu = [], []
            for feeds in decodes[: int(command[1])]:
                begun, used = time.perf_counter(), time.process_time()
                runner.step(feeds)
                samples.append(time.perf_counter() - begun)
                cpu.append(time.process_time() - used)
            gc.collect()
            print(json.dumps({"prefill": prefill_time, "decode": samples, "prefill_cpu": prefill_cpu,
                              "decode_cpu": cpu}), flush=True)
        elif command[0] == "profile":
            print(json.dumps(profile(runner, prefill, decodes)), flush=True)


def profile(runner: IrgraphRunner, prefill: dict, decodes: list[dict]) -> dict:
    """cProfile's top entries over three decode steps, and the time per op type (the interpreter's step clock)."""
    runner.reset()
    runner.step(prefill)
    profiler = cProfile.Profile()
    profiler.enable()
    for feeds in decodes[:3]:
        runner.step(feeds)
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(12)
    lines = [line for line in text.getvalue().splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls"))
    by_type: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    runner.interpreter.on_step_time = lambda node, seconds: (by_type.__setitem__(node.type_name,
                                                                                 by_type[node.type_name] + seconds),
                                                             counts.__setitem__(node.type_name,
                                                                                counts[node.type_name] + 1))
    runner.reset()
    runner.step(prefill)
    by_type.clear()
    counts.clear()
    begun = time.perf_counter()
    for feeds in decodes[:3]:
        runner.step(feeds)
    total = (time.perf_counter() - begun) / 3
    runner.interpreter.on_step_time = None
    return {"cprofile": [lines[start - 1].strip(), *lines[start:start + 13]],
            "by_type": {name: [seconds / 3, counts[name] // 3] for name, seconds in by_type.items()},
            "step": total}


class Worker:
    """A contender's worker process (see :func:`worker`)."""

    def __init__(self, backend: str, weights: str) -> None:
        self.process = subprocess.Popen([sys.executable, str(HERE), "--worker", backend, weights],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.report = self.ask(None)

    def ask(self, command: str | None) -> dict:
        assert self.process.stdin is not None and self.process.stdout is not None
        if command is not None:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"worker {self.process.args} ended with {self.process.wait()}")
        return json.loads(line)

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.write("\n")
            self.process.stdin.flush()
        self.process.wait(timeout=60)


# ------------------------------------------------------------------------------ the benchmark
def run(quick: bool = False) -> Section:
    section = Section()
    if not have("openvino"):
        section.notes.append("(l) skipped: the model is built with OpenVINO, which is also the comparison")
        return section
    rounds, decodes = (2, 3) if quick else (5, 5)
    weights_f32 = 4 * CONFIG.weight_count()
    load = os.getloadavg()
    for weights in FORMATS:
        model_path(weights)  # written once, outside the workers' clocks
        backends = ["irgraph", "openvino"] + (["irgraph-kept"] if weights != "int8" else [])
        workers = {}
        try:
            for backend in backends:  # one at a time: their peaks are measured alone
                workers[backend] = Worker(backend, weights)
            prefill: dict[str, list[float]] = {name: [] for name in backends}
            decode: dict[str, list[float]] = {name: [] for name in backends}
            cpu: dict[str, list[float]] = {name: [] for name in backends}
            for round_index in range(rounds):
                shift = round_index % len(backends)
                for name in backends[shift:] + backends[:shift]:
                    # the compressed-weights decode step takes seconds: one a round is enough to place it
                    answer = workers[name].ask(f"time {1 if name == 'irgraph-kept' else decodes}")
                    prefill[name].append(answer["prefill"])
                    decode[name].append(statistics.median(answer["decode"]))
                    cpu[name].append(min(answer["decode_cpu"]))
            found = workers["irgraph"].ask("profile") if weights in ("fp16", "int4") else None
            kept_profile = workers["irgraph-kept"].ask("profile") if weights == "int4" else None
        finally:
            for process in workers.values():
                process.close()
        _rows(section, weights, prefill, decode, {name: w.report for name, w in workers.items()}, weights_f32)
        fastest = {name: min(values) for name, values in cpu.items()}
        section.notes.append(f"(l) {weights}: CPU time of the cheapest decode step (one thread each, so it is "
                             f"mostly what a quiet machine would take): " + ", ".join(
                                 f"{name} {seconds * 1e3:.1f} ms" for name, seconds in fastest.items())
                             + f"; irgraph / OpenVINO {fastest['irgraph'] / fastest['openvino']:.2f}x")
        logits = {name: np.load(model_path(weights).with_name(f"{name}-{weights}-logits.npy")) for name in backends}
        worst = max(float(np.abs(logits[name] - logits["openvino"]).max()) for name in backends if name != "openvino")
        section.notes.append(f"(l) {weights}: the first decode step's logits, irgraph against OpenVINO: largest "
                             f"difference {worst:.2e} (largest logit {float(np.abs(logits['openvino']).max()):.2f})")
        if found is not None:
            section.notes.append(_profile_note(weights, "folded weights", found))
        if kept_profile is not None:
            section.notes.append(_profile_note(weights, "weights kept compressed", kept_profile))
    section.notes.append(f"(l) {THREADS} threads each; load average before the run {load[0]:.1f} / {load[1]:.1f} / "
                         f"{load[2]:.1f} on {os.cpu_count()} cores (other work shares them: every ratio is paired "
                         f"per round, yet a busy machine widens them); {CONFIG.weight_count() / 1e6:.0f} M weights, "
                         f"{weights_f32 / MiB:.0f} MiB as f32")
    return section


def _rows(section: Section, weights: str, prefill: dict[str, list[float]], decode: dict[str, list[float]],
          reports: dict[str, dict], weights_f32: int) -> None:
    def paired(values: dict[str, list[float]], name: str) -> float:
        """The median of per-round ratios: a busy spell lasting a round hits both sides of it."""
        return statistics.median(a / b for a, b in zip(values[name], values["openvino"], strict=True))

    for name in reports:
        if name == "openvino":
            continue
        label = "irgraph" if name == "irgraph" else "irgraph, weights kept compressed"
        section.rows.append(Row("l", f"LLaMA-like {weights} ({label}): prefill {PREFILL} tokens",
                                statistics.median(prefill[name]), LABEL, statistics.median(prefill["openvino"]),
                                paired=paired(prefill, name)))
        section.rows.append(Row("l", f"LLaMA-like {weights} ({label}): decode step", statistics.median(decode[name]),
                                LABEL, statistics.median(decode["openvino"]), paired=paired(decode, name),
                                target=3.0 if name == "irgraph" else None))
    for name, report in reports.items():
        if name == "openvino":
            continue
        label = "irgraph" if name == "irgraph" else "irgraph, weights kept compressed"
        # one load per worker: read_model + Interpreter (the chains folded) against OpenVINO's compile_model
        section.rows.append(Row("l", f"LLaMA-like {weights} ({label}): load, read + build (CPU time)",
                                report["load_cpu"], "OpenVINO CPU compile_model (CPU time)",
                                reports["openvino"]["load_cpu"]))
    for name, report in reports.items():
        label = {"irgraph": "irgraph", "irgraph-kept": "irgraph, weights kept compressed",
                 "openvino": "OpenVINO CPU"}[name]
        section.rows.append(Row("l", f"LLaMA-like {weights} ({label}): peak RSS (load, prefill, a generation)",
                                report["peak"], "decompressed weights (f32)", weights_f32, unit="MiB",
                                target=1.5 if name.startswith("irgraph") else None))
    first = {name: report["first"] for name, report in reports.items() if len(report["first"]) > 1}
    section.notes.append(f"(l) {weights}: the first generation's {len(first['irgraph'])} decode steps (wall), "
                         "slowest / median, one-off costs included (irgraph builds its decode plan on the fourth): "
                         + ", ".join(
                             f"{name} {max(steps) * 1e3:.0f} / {statistics.median(steps) * 1e3:.0f} ms"
                             for name, steps in first.items()))
    held = reports["irgraph"]["held"]
    kept = reports.get("irgraph-kept", {}).get("held")
    section.notes.append(
        f"(l) {weights}: irgraph holds {held / MiB:.0f} MiB of constants after folding (every weight as f32)"
        + (f", {kept / MiB:.0f} MiB with the weights kept compressed" if kept is not None else "")
        + f"; peak RSS includes the worker's {reports['irgraph']['baseline'] / MiB:.0f} MiB of Python and NumPy; "
        f"load (wall): irgraph {reports['irgraph']['load']:.2f} s, OpenVINO {reports['openvino']['load']:.2f} s")


def _profile_note(weights: str, how: str, found: dict) -> str:
    ranked = sorted(found["by_type"].items(), key=lambda item: -item[1][0])
    share = ", ".join(f"{name} {seconds * 1e3:.1f} ms ({100 * seconds / found['step']:.0f} %, {count} layers)"
                      for name, (seconds, count) in ranked[:8])
    return (f"(l) {weights}, {how}: one decode step {found['step'] * 1e3:.1f} ms; by op type: {share}\n"
            + "\n".join(found["cprofile"]))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2], sys.argv[3])
    else:
        sys.path.insert(0, str(HERE.parent))
        from run import main

        sys.exit(main(["--only", "l", *sys.argv[1:]]))
