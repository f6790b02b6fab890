"""(c) Reading and (d) writing a 20,003-layer IR, against OpenVINO ``read_model`` and ``serialize``.

The file is written by OpenVINO: Parameter, 6,667 x (axis Const, Split in 2, Concat reversed),
Result (9.6 MB of XML, 26,669 edges). Both sides write to files on the same disk.
"""

from __future__ import annotations

import cProfile
import pstats
import tempfile
from collections import defaultdict
from pathlib import Path

import models
from _common import Row, Section, have, interleaved

import irgraph as ir


def run(quick: bool = False, parts: str = "cd") -> Section:
    rounds = 3 if quick else 7
    section = Section()
    if not have("openvino"):
        section.notes.append("(c)/(d) skipped: OpenVINO is not installed (it writes the 20,003-layer IR)")
        return section
    import openvino as ov

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        xml = models.write_ir(models.openvino_chain_20k(), folder / "chain.xml")
        core = ov.Core()
        ov_model = core.read_model(str(xml))
        if "c" in parts:
            times = interleaved(
                {"irgraph": lambda: ir.read_model(xml), "openvino": lambda: core.read_model(str(xml))},
                rounds, 1, warmup=1,
            )
            section.rows.append(Row("c", "irgraph.read_model", times["irgraph"],
                                    "OpenVINO Core.read_model", times["openvino"], target=1.0))
            if times["irgraph"] > times["openvino"]:
                section.notes.append("(c) profile of irgraph.read_model (cProfile):\n"
                                     + _profile(lambda: ir.read_model(xml)))
            # Converted models name nearly every tensor and keep each weight at its own offset,
            # so few layers repeat byte for byte: the same read on two such files, for context.
            for label, build in (("names on every port", models.openvino_named_chain_20k),
                                 ("4,000 distinct weights, names", models.openvino_weights_chain_20k)):
                other = models.write_ir(build(), folder / f"{build.__name__}.xml")
                times = interleaved(
                    {"irgraph": lambda path=other: ir.read_model(path),
                     "openvino": lambda path=other: core.read_model(str(path))},
                    rounds, 1, warmup=1,
                )
                section.rows.append(Row("c", f"irgraph.read_model, {label}", times["irgraph"],
                                        "OpenVINO Core.read_model", times["openvino"]))
        if "d" in parts:
            model = ir.read_model(xml)
            ours, theirs = folder / "ours.xml", folder / "theirs.xml"
            # A model's types are inferred once (OpenVINO does it while reading) and writes reuse them
            # while the model is unchanged; the second row pays for a full inference on every write.
            times = interleaved(
                {
                    "irgraph": lambda: ir.write_model(model, ours),
                    "inferring": lambda: (ir.infer_shapes(model), ir.write_model(model, ours)),
                    "openvino": lambda: ov.serialize(ov_model, str(theirs), str(theirs.with_suffix(".bin"))),
                },
                rounds, 1, warmup=1,
            )
            section.rows.append(Row("d", "irgraph.write_model", times["irgraph"],
                                    "OpenVINO serialize (same model, read from the file)", times["openvino"],
                                    target=1.0))
            section.rows.append(Row("d", "irgraph.infer_shapes + write_model (a write after an edit)",
                                    times["inferring"], "OpenVINO serialize", times["openvino"]))
            if times["irgraph"] > times["openvino"]:
                section.notes.append("(d) profile of irgraph.write_model (cProfile):\n"
                                     + _profile(lambda: ir.write_model(model, ours)))
    return section


def _profile(function, top: int = 10) -> str:
    """Own time by source file (the share of the whole call), then the top functions by own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    function()
    profiler.disable()
    stats = pstats.Stats(profiler)
    entries = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in entries.values()) or 1.0
    by_file: dict[str, float] = defaultdict(float)
    for (filename, _, _), entry in entries.items():
        by_file[_short(filename)] += entry[2]
    shares = sorted(by_file.items(), key=lambda item: -item[1])
    lines = [f"own time {total * 1e3:.0f} ms under cProfile; by file: "
             + ", ".join(f"{name} {seconds / total:.0%}" for name, seconds in shares[:8])]
    lines.append(f"{'calls':>8} {'own ms':>8} {'cum ms':>8}  function")
    ranked = sorted(entries.items(), key=lambda item: -item[1][2])[:top]
    for (filename, line, name), (_, calls, own, cumulative, _) in ranked:
        lines.append(f"{calls:>8} {own * 1e3:>8.1f} {cumulative * 1e3:>8.1f}  {_short(filename)}:{line}({name})")
    return "\n".join(lines)


def _short(filename: str) -> str:
    """``irgraph/io/xml/layers.py``, ``networkx/...``, or ``builtins`` for C functions."""
    if filename == "~":
        return "builtins"
    path = Path(filename)
    for anchor in ("site-packages", "src"):
        if anchor in path.parts:
            return "/".join(path.parts[path.parts.index(anchor) + 1 :])
    return path.name


if __name__ == "__main__":
    from run import main

    main(["--only", "cd"])
