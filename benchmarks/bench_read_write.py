"""(c) Reading and (d) writing a 20,003-layer IR, against OpenVINO ``read_model`` and ``serialize``.

The file is written by OpenVINO: Parameter, 6,667 x (axis Const, Split in 2, Concat reversed),
Result (9.6 MB of XML, 26,669 edges). Both sides write to files on the same disk.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import tempfile
from pathlib import Path

import models
from _common import Row, Section, have, interleaved

import irgraph as ir


def available(name: str) -> bool:
    try:
        getattr(ir, name)
    except (AttributeError, ImportError):
        return False
    return True


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
            if available("read_model"):
                times = interleaved(
                    {"irgraph": lambda: ir.read_model(xml), "openvino": lambda: core.read_model(str(xml))},
                    rounds, 1, warmup=1,
                )
                section.rows.append(Row("c", "irgraph.read_model", times["irgraph"],
                                        "OpenVINO Core.read_model", times["openvino"], target=1.0))
                if times["irgraph"] > times["openvino"]:
                    section.notes.append("(c) profile of irgraph.read_model (cProfile, top by own time):\n"
                                         + _profile(lambda: ir.read_model(xml)))
            else:
                section.rows.append(Row("c", "irgraph.read_model (not available yet)", None,
                                        "OpenVINO Core.read_model", None, target=1.0))
        if "d" in parts:
            if available("write_model") and available("read_model"):
                model = ir.read_model(xml)
                ours, theirs = folder / "ours.xml", folder / "theirs.xml"
                times = interleaved(
                    {
                        "irgraph": lambda: ir.write_model(model, ours),
                        "openvino": lambda: ov.serialize(ov_model, str(theirs), str(theirs.with_suffix(".bin"))),
                    },
                    rounds, 1, warmup=1,
                )
                section.rows.append(Row("d", "irgraph.write_model", times["irgraph"],
                                        "OpenVINO serialize (same model, read from the file)", times["openvino"],
                                        target=1.0))
                if times["irgraph"] > times["openvino"]:
                    section.notes.append("(d) profile of irgraph.write_model (cProfile, top by own time):\n"
                                         + _profile(lambda: ir.write_model(model, ours)))
            else:
                section.rows.append(Row("d", "irgraph.write_model (not available yet)", None,
                                        "OpenVINO serialize", None, target=1.0))
    return section


def _profile(function, top: int = 12) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    function()
    profiler.disable()
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(top)
    lines = [line for line in text.getvalue().splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
    header = next((line.strip() for line in lines if "function calls" in line), "")
    return "\n".join(["    " + header, *("    " + line for line in lines[start:start + top + 1])])


if __name__ == "__main__":
    from run import main

    main(["--only", "cd"])
