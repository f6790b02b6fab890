"""(g) Real networks: warm inference of the onnx wheel's light models (ResNet-50, DenseNet-121, ...; with seeded
weights, tests/real_networks.py) and of three networks generated from code with random weights
(generated_networks.py: MobileNet-v3-small, ViT-Ti/16, YOLOv8n), converted to IR by OpenVINO with its defaults
(fp16-compressed weights), against OpenVINO's CPU plugin, onnxruntime and ``onnx.reference`` on the ONNX
original, measured side by side in one process; and peak memory, one fresh process per backend and network.

Settings, so that the contenders do the same work on this machine's cores:
- irgraph: ``Interpreter(model).run``; NumPy's BLAS uses its default thread count (the cores);
- OpenVINO CPU: ``INFERENCE_PRECISION_HINT=f32``, ``PERFORMANCE_HINT=LATENCY``, ``NUM_STREAMS=1``,
  ``INFERENCE_NUM_THREADS`` = the core count, one infer request;
- onnxruntime: CPU provider, ``intra_op_num_threads`` = the core count, ``inter_op_num_threads=1``, no spinning
  (its idle workers would otherwise keep a core busy while the next contender runs);
- onnx.reference: ``ReferenceEvaluator`` (single-threaded NumPy apart from BLAS).

Each contender runs in its own worker process (two thread pools in one process, OpenBLAS's and OpenVINO's,
spin against each other on a small machine). A worker imports what it needs and reads the input, records VmRSS,
then loads (reads, compiles), runs once and reports VmHWM minus that baseline; then it times calls when asked,
the contenders taking turns. irgraph's bound from issue 15 is the weights it
keeps (Consts after folding the f16 -> f32 Converts) plus twice the largest set of tensors alive at once
during a run (computed from the inferred shapes and the interpreter's schedule).

A network whose warm ratio against OpenVINO misses its 3x target gets irgraph's profile in the notes (its layer
time by op type over a few warm runs, asked of the irgraph worker after the rounds).

Under load (issue 28): each round also times irgraph and OpenVINO next to a competing CPU-bound process (a
Python loop spinning on one core, resumed with SIGCONT for the loaded half of the round and stopped with
SIGSTOP for the idle half), so that idle and loaded calls alternate under the same machine noise. A
contender's slowdown is the median of its loaded calls over the median of its idle ones; the target is
irgraph's slowdown <= OpenVINO's x 1.5.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from _common import MiB, Row, Section, have, reset_peak, status
from generated_networks import GENERATED_NETWORKS

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.real_networks import SMALL_NETWORKS, convert  # noqa: E402

THREADS = int(os.environ.get("IRGRAPH_BENCH_THREADS", 0)) or os.cpu_count() or 1
"""Threads for OpenVINO and onnxruntime; ``--threads N`` also sets it for NumPy's BLAS in the workers."""
CACHE = Path(os.environ.get("IRGRAPH_BENCH_CACHE", Path(tempfile.gettempdir()) / "irgraph-bench-networks"))
"""Where the converted IR files are kept between runs (converting all nine takes a few seconds)."""
NETWORKS = SMALL_NETWORKS + GENERATED_NETWORKS
"""What (g) runs by default: the zoo's light networks, then the generated ones."""


def network_files(name: str):  # -> tests.real_networks.RealIR or generated_networks.GeneratedIR
    """The IR (``.xml``) and ONNX (``.onnx``) files of a zoo or generated network, converted into the cache."""
    import generated_networks

    return generated_networks.convert(name, CACHE) if name in GENERATED_NETWORKS else convert(name, CACHE)


def network_input(xml: Path) -> np.ndarray:
    """The one f32 input of a network, standard normal with a fixed seed."""
    import irgraph as ir

    (parameter,) = ir.read_model(xml).parameters
    shape = tuple(dim.value for dim in parameter.op.shape.dims)
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


# ------------------------------------------------------------------------------ contenders
def load_irgraph(xml: Path, onnx_path: Path):
    import irgraph as ir
    from irgraph.runtime.interpreter import Interpreter

    model = ir.read_model(xml)
    name = model.parameters[0].name
    interpreter = Interpreter(model)

    def call(x):
        return next(iter(interpreter.run({name: x}).values()))

    call.interpreter = interpreter  # for the profile of a miss (the worker's "profile" request)
    return call


PROFILE_RUNS = 5
"""Warm runs a miss's profile adds up (irgraph.tools.profiling.Profile: every layer timed, the shares by op type)."""


def profile_shares(run, x: np.ndarray) -> list[tuple[str, int, float, float]]:
    """(op type, layers, seconds per run, share of the layers' time) of irgraph's runs, the most time first."""
    from irgraph.tools.profiling import Profile

    profile = Profile.of(run.interpreter)
    with profile.attached(run.interpreter):
        for _ in range(PROFILE_RUNS):
            run(x)
    return [(kind.type, kind.layers, kind.seconds / PROFILE_RUNS, kind.share) for kind in profile.by_type()]


def load_openvino(xml: Path, onnx_path: Path):
    import openvino as ov

    config = {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": "1",
              "INFERENCE_NUM_THREADS": str(THREADS)}
    compiled = ov.Core().compile_model(str(xml), "CPU", config)
    request = compiled.create_infer_request()
    return lambda x: request.infer({0: x})[compiled.outputs[0]]


def onnx_input_name(onnx_path: Path) -> str:
    """The network's data input: old ONNX files list every initializer among the graph inputs too."""
    import onnx

    graph = onnx.load(str(onnx_path), load_external_data=False).graph
    initialized = {tensor.name for tensor in graph.initializer}
    return next(value.name for value in graph.input if value.name not in initialized)


def load_onnxruntime(xml: Path, onnx_path: Path):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = THREADS
    options.inter_op_num_threads = 1
    # Its workers spin after a run by default, which takes a core from whoever runs next in the rounds.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
    name = onnx_input_name(onnx_path)
    return lambda x: session.run(None, {name: x})[0]


def load_reference(xml: Path, onnx_path: Path):
    import onnx
    from onnx.reference import ReferenceEvaluator

    model = onnx.load(str(onnx_path))
    evaluator = ReferenceEvaluator(model)
    name = onnx_input_name(onnx_path)
    return lambda x: evaluator.run(None, {name: x})[0]


LOADERS = {"irgraph": load_irgraph, "openvino": load_openvino, "onnxruntime": load_onnxruntime,
           "onnx.reference": load_reference}
NEEDS = {"irgraph": "irgraph", "openvino": "openvino", "onnxruntime": "onnxruntime", "onnx.reference": "onnx"}
LABELS = {"openvino": "OpenVINO CPU warm (f32 hint, latency, 1 stream)", "onnxruntime": "onnxruntime warm (ONNX)",
          "onnx.reference": "onnx.reference ReferenceEvaluator (ONNX)"}
TARGETS = {"openvino": 3.0, "onnx.reference": 0.05}
LOADED = ("irgraph", "openvino")
"""The contenders timed next to the spinning process too."""
LOAD_TARGET = 1.5
"""irgraph's slowdown under the competing process over OpenVINO's."""


def irgraph_bound(xml: Path) -> dict[str, int]:
    """Bytes of the weights an Interpreter keeps and of the largest set of tensors alive at once in a run."""
    import irgraph as ir
    from irgraph.graph.ports import OutputPort
    from irgraph.runtime.interpreter import Interpreter

    model = ir.read_model(xml)
    interpreter = Interpreter(model)
    weights = sum(value.nbytes for value in interpreter._template if isinstance(value, np.ndarray))

    def nbytes(key: tuple[int, int]) -> int:
        tensor = model.output_type(OutputPort(*key))
        return math.prod(tensor.shape.to_tuple()) * tensor.element_type.numpy_dtype.itemsize

    slot_keys = {}
    for step in interpreter._plan:
        for index, slot in enumerate(step.outputs):
            slot_keys[slot] = (step.node.id, index)
    live = sum(nbytes((parameter.id, 0)) for parameter in model.parameters)
    largest = live
    for step in interpreter._plan:
        live += sum(nbytes(slot_keys[slot]) for slot in step.outputs)
        largest = max(largest, live)
        live -= sum(nbytes(key) for key in step.frees)
    return {"weights": weights, "activations": largest}


# ------------------------------------------------------------------------------ the workers (one process each)
def worker(backend: str, name: str) -> None:
    """Serve one contender: report the peak memory of loading and a first run, then time calls on request.

    Protocol on stdin/stdout, one JSON line each: the worker first prints its memory report; then each
    line ``N`` it reads makes it time N calls and print their durations, a line ``profile`` (irgraph) makes it
    print :func:`profile_shares`; an empty line ends it.
    """
    network = network_files(name)
    x = network_input(network.xml)
    __import__(NEEDS[backend])
    baseline = status("VmRSS")
    reset_peak()
    start = time.perf_counter()
    run = LOADERS[backend](network.xml, network.onnx)
    loaded = time.perf_counter()
    first = np.asarray(run(x))
    done = time.perf_counter()
    report = {"peak": status("VmHWM") - baseline, "load": loaded - start, "first": done - loaded}
    if backend == "irgraph":
        report.update(irgraph_bound(network.xml))
    np.save(CACHE / f"{name}-{backend}.npy", first)
    print(json.dumps(report), flush=True)
    gc.disable()
    for line in sys.stdin:
        if not line.strip():
            break
        if line.strip() == "profile":
            print(json.dumps(profile_shares(run, x)), flush=True)
            continue
        samples = []
        for _ in range(int(line)):
            begun = time.perf_counter()
            kept = run(x)
            samples.append(time.perf_counter() - begun)
            del kept
        gc.collect()
        print(json.dumps(samples), flush=True)


class Worker:
    """A contender's worker process (see :func:`worker`)."""

    def __init__(self, backend: str, name: str) -> None:
        self.process = subprocess.Popen([sys.executable, str(HERE), "--worker", backend, name], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self.report = self._answer()

    def _answer(self):
        line = self.process.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise RuntimeError(f"worker {self.process.args} ended with {self.process.wait()}")
        return json.loads(line)

    def time(self, calls: int) -> list[float]:
        self.process.stdin.write(f"{calls}\n")  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]
        return self._answer()

    def profile(self) -> list[tuple[str, int, float, float]]:
        """irgraph's worker: :func:`profile_shares`."""
        self.process.stdin.write("profile\n")  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]
        return self._answer()

    def close(self) -> None:
        self.process.communicate("\n", timeout=60)


class Spinner:
    """A competing CPU-bound process (a Python loop on one core), stopped until :meth:`on`."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        self.off()

    def on(self) -> None:
        self.process.send_signal(signal.SIGCONT)
        time.sleep(0.2)  # the scheduler has it on a core before the timed calls begin

    def off(self) -> None:
        self.process.send_signal(signal.SIGSTOP)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


# ------------------------------------------------------------------------------ the benchmark
def run(quick: bool = False, networks: tuple[str, ...] = NETWORKS, load: bool = True,
        only: tuple[str, ...] = ()) -> Section:
    section = Section()
    backends = [b for b in LOADERS if have(NEEDS[b]) and (not only or b in only or b in ("irgraph", "openvino"))]
    if "openvino" not in backends:
        section.notes.append("(g) skipped: OpenVINO is not installed (it converts the ONNX models to IR)")
        return section
    rounds, per_round = (3, 3) if quick else (7, 5)
    load_before = os.getloadavg()[0]
    CACHE.mkdir(parents=True, exist_ok=True)
    summary, load_summary, profiles = [], [], []
    spinner = Spinner() if load else None
    for name in networks:
        network_files(name)
        workers = {}
        loaded_of: dict[str, list[float]] = {backend: [] for backend in LOADED}
        idle_of: dict[str, list[float]] = {backend: [] for backend in LOADED}
        try:
            for backend in backends:
                workers[backend] = Worker(backend, name)
            rounds_of = {backend: [] for backend in backends}
            for backend, worker_process in workers.items():
                worker_process.time(1 if backend == "onnx.reference" else 2)  # warm-up
            for index in range(rounds):
                order = backends[index % len(backends):] + backends[: index % len(backends)]
                for backend in order:
                    if backend == "onnx.reference" and index >= (1 if quick else 3):
                        continue  # seconds per call: a few are enough
                    time.sleep(0.2)  # the previous contender's idle threads stop spinning
                    calls = 1 if backend == "onnx.reference" else per_round
                    rounds_of[backend].append(statistics.median(workers[backend].time(calls)))
                if spinner is None:
                    continue
                pair = LOADED if index % 2 == 0 else LOADED[::-1]
                for backend in pair:  # idle, right before the loaded calls
                    time.sleep(0.2)
                    idle_of[backend].extend(workers[backend].time(per_round))
                spinner.on()
                try:
                    for backend in pair:
                        loaded_of[backend].extend(workers[backend].time(per_round))
                finally:
                    spinner.off()
            ratio = statistics.median(a / b for a, b in zip(rounds_of["irgraph"], rounds_of["openvino"], strict=False))
            if ratio > TARGETS["openvino"]:  # a miss: where irgraph's time goes
                shares = workers["irgraph"].profile()
                profiles.append(f"{name} ({ratio:.2f}x): " + ", ".join(
                    f"{kind} {share:.0%} ({layers} layers, {seconds * 1e3:.2f} ms)"
                    for kind, layers, seconds, share in shares if share >= 0.01))
        finally:
            for worker_process in workers.values():
                worker_process.close()
            if spinner is not None and (name == networks[-1] or sys.exc_info()[0] is not None):
                spinner.close()
        medians = {backend: statistics.median(values) for backend, values in rounds_of.items()}
        for backend in backends:
            if backend == "irgraph":
                continue
            pairs = list(zip(rounds_of["irgraph"], rounds_of[backend], strict=False))
            paired = statistics.median(a / b for a, b in pairs)
            section.rows.append(Row("g", f"{name}: Interpreter.run, warm", medians["irgraph"], LABELS[backend],
                                    medians[backend], target=TARGETS.get(backend), paired=paired))
        if spinner is not None:
            slowdown = {backend: statistics.median(loaded_of[backend]) / statistics.median(idle_of[backend])
                        for backend in LOADED}
            section.rows.append(Row("g", f"{name}: slowdown next to a process spinning on one core",
                                    round(slowdown["irgraph"], 2), "OpenVINO's slowdown",
                                    round(slowdown["openvino"], 2), unit="x", target=LOAD_TARGET))
            load_summary.append(f"{name} irgraph {statistics.median(idle_of['irgraph']) * 1e3:.1f} -> "
                                f"{statistics.median(loaded_of['irgraph']) * 1e3:.1f} ms, OpenVINO "
                                f"{statistics.median(idle_of['openvino']) * 1e3:.1f} -> "
                                f"{statistics.median(loaded_of['openvino']) * 1e3:.1f} ms")
        memory = {backend: worker_process.report for backend, worker_process in workers.items()}
        ours = memory["irgraph"]
        bound = ours["weights"] + 2 * ours["activations"]
        section.rows.append(Row("g", f"{name}: peak RSS growth, read + Interpreter + one run", ours["peak"],
                                "weights kept + 2x the largest live activations", bound, unit="MiB", target=1.0))
        for backend in backends:
            if backend != "irgraph":
                section.rows.append(Row("g", f"{name}: peak RSS growth, read + Interpreter + one run", ours["peak"],
                                        f"{backend}: load + one run", memory[backend]["peak"], unit="MiB"))
        reference = np.load(CACHE / f"{name}-openvino.npy")
        error = float(np.max(np.abs(np.load(CACHE / f"{name}-irgraph.npy") - reference)) / np.max(np.abs(reference)))
        summary.append(f"{name} {medians['irgraph'] * 1e3:.0f}/{medians['openvino'] * 1e3:.1f} ms (max |irgraph - "
                       f"OpenVINO| / max |OpenVINO| {error:.1e}; weights {ours['weights'] / MiB:.1f} MiB, largest "
                       f"live activations {ours['activations'] / MiB:.1f} MiB)")
    section.notes.append(
        f"(g) one worker process per contender and network, taking turns (order rotating) for {rounds} rounds of "
        f"{per_round} calls (onnx.reference: 1 call in each of the first {1 if quick else 3} rounds), 0.2 s apart so "
        f"that idle thread pools stop spinning; figures are medians of round medians, ratios medians of per-round "
        f"ratios. {THREADS} threads for OpenVINO and onnxruntime, NumPy's BLAS "
        f"{os.environ.get('OPENBLAS_NUM_THREADS', 'at its default')}. The zoo networks run with seeded random "
        f"weights (tests/real_networks.py: the wheel's are one value per tensor, which made every output equal), so "
        f"the max-diff below compares 1,000 different numbers. irgraph / OpenVINO "
        f"warm: " + "; ".join(summary))
    if profiles:
        section.notes.append(
            f"(g) profiles of the misses (irgraph / OpenVINO above {TARGETS['openvino']:g}x): irgraph's layer time by "
            f"op type over {PROFILE_RUNS} warm runs (irgraph.tools.profiling.Profile; types under 1 % left out): "
            + "; ".join(profiles))
    if load_summary:
        section.notes.append(
            f"(g) under load: in each round irgraph and OpenVINO (order alternating) run "
            f"{per_round} calls idle, then {per_round} calls while a second process spins on one core; slowdown = "
            f"median loaded call / median idle call, target irgraph's <= OpenVINO's x {LOAD_TARGET:g}. Idle -> loaded: "
            + "; ".join(load_summary))
    section.notes.append(
        f"(g) load average {load_before:.1f} at the start and {os.getloadavg()[0]:.1f} at the end on "
        f"{os.cpu_count()} cores: "
        "above the core count, OpenBLAS's threads wait for each other at every product and irgraph's times grow "
        "several-fold (OPENBLAS_NUM_THREADS=1 is then faster); OpenVINO's grow less.")
    return section


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", nargs=2, metavar=("BACKEND", "NETWORK"), help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--results", metavar="FILE.md", help="also write the table into FILE.md (its (g) section)")
    parser.add_argument("--threads", type=int, help="threads for every contender, NumPy's BLAS included (default: "
                        "the cores for OpenVINO and onnxruntime, NumPy's default for its BLAS)")
    parser.add_argument("--no-load", action="store_true", help="skip the runs next to a competing process")
    parser.add_argument("--only", default="", help="contenders besides irgraph and OpenVINO, comma-separated "
                        "(e.g. 'onnxruntime'; default: every one installed)")
    parser.add_argument("networks", nargs="*", default=list(NETWORKS))
    args = parser.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return 0
    from _common import machine
    from run import markdown_table, text_table

    if args.threads:
        global THREADS
        THREADS = args.threads
        # The workers read these at start-up: OpenVINO and onnxruntime through THREADS, BLAS through its own.
        os.environ["IRGRAPH_BENCH_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
        os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = str(args.threads)

    started = time.perf_counter()
    section = run(args.quick, tuple(args.networks), load=not args.no_load,
                  only=tuple(name for name in args.only.split(",") if name))
    print(text_table(section.rows))
    print("\n".join(section.notes))
    if args.results:
        command = "python benchmarks/bench_networks.py" + (" --quick" if args.quick else "") + (
            f" --threads {args.threads}" if args.threads else "") + (" --no-load" if args.no_load else "") + (
            f" --only {args.only}" if args.only else "") + (
            "" if tuple(args.networks) == NETWORKS else " " + " ".join(args.networks))
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        block = [
            START,
            f"## (g) Real networks{f' ({args.threads} thread(s) each)' if args.threads else ''}",
            "",
            f"Latest run of `{command} --results benchmarks/RESULTS.md` ({stamp}, "
            f"{time.perf_counter() - started:.0f} s) on {machine()}. The same table is part of `python "
            "benchmarks/run.py --only g`. Targets from issue 15: warm run <= 3x OpenVINO CPU and <= 0.05x "
            "onnx.reference, peak RSS <= the weights kept + 2x the largest set of live activations; from issue 28: "
            "slowdown next to a competing process <= OpenVINO's x 1.5.",
            "",
            markdown_table(section.rows),
            "",
            *(f"- {note}" for note in section.notes),
            END,
        ]
        path = Path(args.results)
        text = path.read_text() if path.exists() else ""
        if START in text and END in text:
            text = text[: text.index(START)] + "\n".join(block) + text[text.index(END) + len(END):]
        else:
            text = text.rstrip("\n") + "\n\n" + "\n".join(block) + "\n"
        path.write_text(text)
        print(f"wrote {path}")
    return 0


START, END = "<!-- networks: written by bench_networks.py -->", "<!-- networks: end -->"


if __name__ == "__main__":
    sys.exit(main())
