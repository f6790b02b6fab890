"""(r) Reading real networks: ``irgraph.read_model`` against OpenVINO ``Core.read_model`` on the IR files
OpenVINO 2026.4.1 writes for the onnx wheel's light models (SqueezeNet, ShuffleNet, ResNet-50, Inception v1/v2,
DenseNet-121), converted with OpenVINO's defaults (``convert_model`` + ``save_model``, fp16-compressed weights
behind ``decompression`` Converts, conversion parameters in the model's rt_info).

Both sides read the same files in one process with a warm file cache, taking turns as in ``_common.interleaved``;
the ratio of each file is the median of per-round ratios, and the target applies to the median and the worst of
them. Each call's CPU time is measured too and reported beside it (a shared machine stretches wall time). The
IR files are converted once into a cache folder (``IRGRAPH_BENCH_CACHE``, else the temp folder).

What each side does while reading (so the comparison is like for like):
- OpenVINO parses the XML (pugixml), maps the .bin, builds every node and validates it, which runs its shape
  inference on every node, and keeps the rt_info.
- irgraph parses the XML (its fast path for OpenVINO's own layout, lxml otherwise), maps the .bin and decodes
  every Const into a NumPy view of the mapping, builds and checks every op's attributes, keeps every layer's
  declared port types, names, rt_info and line, and checks the structure (ids, ports, one producer per input).
  It infers types later, on first need (``infer_shapes``, validation, running): that is not part of this row.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

from _common import Row, Section, have, interleaved_with_cpu
from bench_read_write import _profile

import irgraph as ir

REPO = Path(__file__).resolve().parents[1]
PROFILED_READS = 10


def networks() -> list:
    """The small real networks as OpenVINO writes them (converted on first use, then cached)."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    import openvino as ov
    from tests.real_networks import SMALL_NETWORKS, convert

    cache = Path(os.environ.get("IRGRAPH_BENCH_CACHE") or Path(tempfile.gettempdir()) / "irgraph-bench-cache")
    folder = cache / f"real-networks-openvino-{ov.get_version().split('-')[0]}"
    return [convert(name, folder) for name in SMALL_NETWORKS]


def run(quick: bool = False) -> Section:
    rounds, per_round = (5, 3) if quick else (15, 3)
    section = Section()
    if not have("openvino") or not have("onnx"):
        section.notes.append("(r) skipped: OpenVINO and onnx are needed to make the real-network IR files")
        return section
    import openvino as ov

    core = ov.Core()
    ratios: list[float] = []
    cpu_ratios: list[float] = []
    inferring: list[Row] = []
    profiles = []
    for network in networks():
        xml = str(network.xml)
        layers = network.xml.read_bytes().count(b"<layer ")
        times, cpu = interleaved_with_cpu(
            {
                "irgraph": lambda path=xml: ir.read_model(path),
                "openvino": lambda path=xml: core.read_model(path),
                "inferring": lambda path=xml: _read_and_infer(path),
            },
            rounds, per_round, warmup=2,
        )
        ratio, cpu_ratio = times.ratio("irgraph", "openvino"), cpu.ratio("irgraph", "openvino")
        ratios.append(ratio)
        cpu_ratios.append(cpu_ratio)
        section.rows.append(Row(
            "r", f"irgraph.read_model, {network.name} ({layers} layers, f16 weights)", times["irgraph"],
            "OpenVINO Core.read_model", times["openvino"], paired=ratio,
            note=f"CPU time {cpu['irgraph'] * 1e3:.2f} vs {cpu['openvino'] * 1e3:.2f} ms ({cpu_ratio:.2f}x)",
        ))
        inferring.append(Row(
            "r", f"irgraph.read_model + infer_shapes, {network.name}", times["inferring"],
            "OpenVINO Core.read_model (it infers every node's types while reading)", times["openvino"],
            paired=times.ratio("inferring", "openvino"),
        ))
        profiles.append(f"{network.name}, {PROFILED_READS} reads: "
                        + _profile(lambda path=xml: [ir.read_model(path) for _ in range(PROFILED_READS)], top=6))
    section.rows += inferring  # for context: the reading OpenVINO does includes type inference
    median, worst = statistics.median(ratios), max(ratios)
    section.rows.append(Row("r", f"median ratio over the {len(ratios)} networks", round(median, 2), "1.0x", 1.0,
                            unit="x", target=1.0, paired=median))
    section.rows.append(Row("r", f"worst ratio over the {len(ratios)} networks", round(worst, 2), "1.0x", 1.0,
                            unit="x", target=1.0, paired=worst))
    section.notes.append(
        f"(r) {rounds} rounds of {per_round} reads per side and network; irgraph infers no types while reading "
        "(OpenVINO does): see bench_real_read.py for what each side does. CPU time (this process's, per read; "
        "less sensitive to other processes on a shared machine than wall time): median ratio "
        f"{statistics.median(cpu_ratios):.2f}x, worst {max(cpu_ratios):.2f}x; per network: "
        + ", ".join(f"{row.what.split(', ')[1].split(' ')[0]} {row.note}" for row in section.rows[:len(cpu_ratios)])
    )
    section.notes.append("(r) profiles of irgraph.read_model (cProfile, one read each):\n" + "\n".join(profiles))
    return section


def _read_and_infer(path: str) -> ir.Model:
    model = ir.read_model(path)
    ir.infer_shapes(model)
    return model


if __name__ == "__main__":
    from run import main

    main(["--only", "r"])
