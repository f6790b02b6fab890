"""(l) LLM steps: the prefill of 32 tokens and one decode step of a LLaMA-like export of realistic width (hidden
1024, 8 decoder layers, 16 heads, 8 KV heads, FFN 2816, vocabulary 8192; exports.llm) with fp16, int8 (u8 per
channel) and int4 (u4 in groups of 64) weights, against OpenVINO's CPU plugin with the hints that make it
compute as irgraph does (INFERENCE_PRECISION_HINT=f32, DYNAMIC_QUANTIZATION_GROUP_SIZE=0, KV_CACHE_PRECISION=f32),
one thread each, each side in its own process (for its peak RSS), the two taking turns.

irgraph folds the decompression sub-graphs once per Interpreter (the f32 weights stay in memory): the peak RSS
is compared with the size of those decompressed weights.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import exports
import numpy as np
from _common import Row, Section, have, run_worker

TOKENS = 32
SHAPE = {"hidden": 1024, "heads": 16, "kv_heads": 8, "ffn": 2816, "vocab": 8192}
LAYERS = 8
VARIANTS = {"fp16": 16, "int8": 8, "int4": 4}
OPENVINO_HINTS = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0",
                  "KV_CACHE_PRECISION": "f32", "INFERENCE_NUM_THREADS": "1"}


def _feeds(start: int, count: int) -> dict[str, np.ndarray]:
    positions = np.arange(start, start + count, dtype=np.int64).reshape(1, count)
    return {"input_ids": (positions * 7919) % SHAPE["vocab"], "attention_mask": np.ones((1, start + count), np.int64),
            "position_ids": positions, "beam_idx": np.zeros(1, np.int32)}


def _peak_rss() -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def worker(side: str, xml: str, repeats: int) -> dict:
    """One side's prefill and decode times (median over ``repeats`` generations), its logits and peak RSS."""
    if side == "irgraph":
        import irgraph as ir

        start = time.perf_counter()
        interpreter = ir.Interpreter(ir.read_model(xml), threads=1)
        loaded = time.perf_counter() - start

        def run(feeds: dict) -> np.ndarray:
            return interpreter.run(feeds)["logits"]

        reset = interpreter.reset_state
        weights = sum(node.op.value.size * 4 for node in interpreter.model if getattr(node.op, "value", None)
                      is not None and node.op.value.size >= 1024)
    else:
        import openvino as ov

        start = time.perf_counter()
        request = ov.Core().compile_model(xml, "CPU", OPENVINO_HINTS).create_infer_request()
        loaded = time.perf_counter() - start

        def run(feeds: dict) -> np.ndarray:
            return next(iter(request.infer(feeds).values())).copy()

        reset = request.reset_state
        weights = 0
    prefill, decode = [], []
    for _ in range(repeats):
        reset()
        started = time.perf_counter()
        first = run(_feeds(0, TOKENS))
        prefill.append(time.perf_counter() - started)
        started = time.perf_counter()
        second = run(_feeds(TOKENS, 1))
        decode.append(time.perf_counter() - started)
    return {"load": loaded, "prefill": statistics.median(prefill), "decode": statistics.median(decode),
            "peak_rss": _peak_rss(), "weights_f32": weights,
            "logits": [float(first[0, -1, :8].sum()), float(second[0, -1, :8].sum())]}


def _exports(folder: Path) -> dict[str, Path]:
    made = {}
    for name, bits in VARIANTS.items():
        xml = folder / f"llm-{name}.xml"
        if not xml.exists():
            exports.llm(xml, LAYERS, bits=bits, **SHAPE)
        made[name] = xml
    return made


def run(quick: bool = False) -> Section:
    section = Section()
    if not have("openvino"):
        section.notes.append("(l) skipped: OpenVINO writes the LLM exports")
        return section
    import openvino as ov

    cache = Path(os.environ.get("IRGRAPH_BENCH_CACHE") or Path(tempfile.gettempdir()) / "irgraph-bench-cache")
    folder = cache / f"llm-openvino-{ov.get_version().split('-')[0]}"
    folder.mkdir(parents=True, exist_ok=True)
    turns, repeats = (1, 2) if quick else (2, 3)
    for name, xml in _exports(folder).items():
        results: dict[str, list[dict]] = {"irgraph": [], "openvino": []}
        for turn in range(turns):
            for side in (("irgraph", "openvino") if turn % 2 == 0 else ("openvino", "irgraph")):
                results[side].append(run_worker(Path(__file__), "--worker", side, str(xml), str(repeats)))
        ours, theirs = results["irgraph"], results["openvino"]
        for step in ("prefill", "decode"):
            mine = statistics.median(r[step] for r in ours)
            other = statistics.median(r[step] for r in theirs)
            what = f"{TOKENS}-token prefill" if step == "prefill" else "one decode step"
            section.rows.append(Row("l", f"LLM {name} (hidden 1024, 8 layers): {what}", mine,
                                    "OpenVINO CPU, f32 hints, 1 thread", other,
                                    target=3.0 if step == "decode" else None))
        rss, weights = max(r["peak_rss"] for r in ours), ours[0]["weights_f32"]
        section.rows.append(Row("l", f"LLM {name}: irgraph peak RSS", rss, "decompressed f32 weights", weights,
                                unit="MiB", target=1.5))
        section.notes.append(
            f"(l) {name}: OpenVINO peak RSS {max(r['peak_rss'] for r in theirs) / 2**20:.0f} MiB; load (read + "
            f"Interpreter / compile_model) irgraph {ours[0]['load']:.2f} s, OpenVINO {theirs[0]['load']:.2f} s; "
            f"last-token logit sums irgraph {ours[0]['logits']}, OpenVINO {theirs[0]['logits']}")
    section.notes.append(f"(l) load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return section


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        print(json.dumps(worker(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
    else:
        from run import main

        main(["--only", "l"])
