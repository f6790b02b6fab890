"""Run irgraph's benchmarks and print one table of ratios, measured side by side in this run.

    python benchmarks/run.py                     # everything (about 2 minutes)
    python benchmarks/run.py --quick             # fewer repeats, a 256 MiB chain for (e)
    python benchmarks/run.py --only ab           # some of them
    python benchmarks/run.py --results benchmarks/RESULTS.md   # also write the Markdown table

(a) warm split/concat run, (b) cold ir-run process, (c) reading and (d) writing a 20,003-layer IR,
(e) peak memory of a split/concat chain on a 1 GiB input, (f) reading an IR with a 1 GiB Const,
(g) real networks (ResNet-50, DenseNet-121, ...) against OpenVINO CPU, onnxruntime and onnx.reference,
(s) the fixed cost of one plan step (1,000 element-wise layers against the bare NumPy calls and OpenVINO),
(r) reading real networks against OpenVINO read_model, (m) the model corpus against OpenVINO CPU,
(x) converting DenseNet-121 both ways, (l) LLM prefill and decode steps (weights folded and kept compressed),
profiled.
OpenVINO and onnxruntime rows appear when they are installed ((b)-(d) and (f) need OpenVINO to
write their IR files). No figure here is asserted by the test suite.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, Section, fmt, machine  # noqa: E402

BENCHES: dict[str, tuple[str, str, str]] = {
    "a": ("bench_split_concat", "run", "warm runs: split a 1x64x256x256 f32 tensor (16 MiB) into 8 and concat "
          "them in reverse"),
    "b": ("bench_cold", "run", "cold, end to end: one process reads, checks and runs the (a) IR (written by "
          "OpenVINO) once on in.npz"),
    "c": ("bench_read_write", "run_read", "read a 20,003-layer IR written by OpenVINO: Parameter, 6,667 x (axis "
          "Const, Split in 2, Concat reversed), Result"),
    "r": ("bench_real_read", "run", "read real networks (the onnx wheel's light models as OpenVINO writes them, "
          "fp16 weights) against OpenVINO Core.read_model"),
    "d": ("bench_read_write", "run_write", "write that 20,003-layer model"),
    "e": ("bench_memory", "run_chain", "a 4-stage split/concat chain (Split/VariadicSplit on 3 axes) on a 1 GiB "
          "f32 input, in fresh processes"),
    "f": ("bench_memory", "run_big_const", "read an IR holding a 1 GiB Const, in fresh processes"),
    "s": ("bench_step", "run", "the fixed cost of one plan step: 1,000 element-wise layers on a 1x16 f32 tensor "
          "against the same NumPy calls and OpenVINO CPU"),
    "m": ("bench_models", "run", "the model corpus of issue 16 (transformers, LSTM, GRU, YOLO-like, stateful GPT-2): "
          "warm runs against OpenVINO CPU"),
    "l": ("bench_llm", "run", "LLM steps: 32-token prefill and one decode step of tests/llm_like.py's LLaMA-like "
          "stateful decoder (hidden 1024, 8 layers, 8 KV heads, vocabulary 32000; fp16/int8/int4) against OpenVINO "
          "CPU with the exact hints, one thread each; irgraph folded and with keep_weights_compressed; peak RSS, "
          "logits agreement, a decode profile"),
    "x": ("bench_convert", "run", "convert DenseNet-121 ONNX -> IR against OpenVINO convert_model, and IR -> ONNX"),
    "g": ("bench_networks", "run", "real networks (the onnx wheel's light models and generated MobileNet-v3-small, "
          "ViT-Ti/16 and YOLOv8n, converted by OpenVINO with fp16 "
          "weights): warm inference and peak memory against OpenVINO CPU, onnxruntime and onnx.reference"),
}
COLUMNS = ("", "what", "irgraph", "compared with", "value", "ratio", "target", "")


def _bench(key: str) -> Callable[[bool], Section]:
    module_name, function_name, _ = BENCHES[key]
    module = __import__(module_name)
    if module_name == "bench_read_write":
        return lambda quick: module.run(quick, parts=key)
    return getattr(module, function_name)


def cells(row: Row) -> tuple[str, ...]:
    ratio = "n/a" if row.ratio is None else f"{row.ratio:.2f}x"
    target = "" if row.target is None else f"<= {row.target:g}x"
    return (row.bench, row.what, fmt(row.irgraph, row.unit), row.against, fmt(row.other, row.unit), ratio, target,
            row.met)


def text_table(rows: list[Row]) -> str:
    lines = [COLUMNS, *(cells(row) for row in rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(COLUMNS))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
                     for line in lines)


def markdown_table(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells(row)) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and a 256 MiB chain for (e)")
    parser.add_argument("--only", default="".join(BENCHES), help="which benchmarks, e.g. 'ace' (default: all)")
    parser.add_argument("--results", metavar="FILE.md", help="also write the table and notes as Markdown")
    args = parser.parse_args(argv)
    unknown = set(args.only) - set(BENCHES)
    if unknown:
        parser.error(f"unknown benchmark(s) {''.join(sorted(unknown))}; choose from {''.join(BENCHES)}")

    started = time.perf_counter()
    header = machine()
    print(header, flush=True)
    rows: list[Row] = []
    notes: list[str] = []
    for key in BENCHES:
        if key not in args.only:
            continue
        print(f"({key}) {BENCHES[key][2]} ...", file=sys.stderr, flush=True)
        begun = time.perf_counter()
        try:
            section = _bench(key)(args.quick)
        except Exception as err:  # one broken benchmark must not hide the others
            section = Section(notes=[f"({key}) failed: {type(err).__name__}: {err}"])
            print(section.notes[0], file=sys.stderr)
        rows += section.rows
        notes += section.notes
        print(f"({key}) done in {time.perf_counter() - begun:.0f} s", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    legend = [f"({key}) {BENCHES[key][2]}" for key in BENCHES if key in args.only]
    print()
    print("\n".join(legend))
    print()
    print(text_table(rows))
    if notes:
        print()
        print("\n".join(notes))
    missing = [row for row in rows if row.met in ("NOT met", "n/a")]
    met = sum(1 for row in rows if row.met == "met")
    print(f"\n{met} of {met + len(missing)} targets met; {elapsed:.0f} s in all", flush=True)

    if args.results:
        command = "python benchmarks/run.py" + (" --quick" if args.quick else "") + (
            f" --only {args.only}" if args.only != "".join(BENCHES) else "")
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        text = [
            "# Benchmark results",
            "",
            f"Latest run of `{command}` ({stamp}, {elapsed:.0f} s) on {header}.",
            "Ratios are irgraph / the compared figure, measured side by side in the same run (medians); "
            "the targets come from issues 7 and 15. Lower is better.",
            "",
            *(f"- {line}" for line in legend),
            "",
            markdown_table(rows),
            "",
            f"{met} of {met + len(missing)} targets met.",
        ]
        if notes:
            text += ["", "## Notes and profiles", ""]
            for note in notes:
                first, *rest = note.split("\n")
                text.append(f"- {first}")
                if rest:
                    text += ["", "  ```", *("  " + line for line in rest), "  ```"]
        Path(args.results).write_text("\n".join(text) + "\n")
        print(f"wrote {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
