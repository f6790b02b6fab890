"""Read and write a 20,003-layer IR with irgraph and with OpenVINO, side by side in one run.

    python benchmarks/bench_io.py [--rounds N] [--profile] [--keep DIR]

The IR is written by OpenVINO (``ov.serialize``): Parameter, 6,667 x (axis Const, Split in 2,
Concat reversed), Result; ~9.5 MB of XML, 26,669 edges. Contenders take turns in rounds and the
median per call is reported (``_common.interleaved``). Not a test: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import models  # noqa: E402
from _common import interleaved  # noqa: E402

import irgraph as ir  # noqa: E402


def profile(function, top: int = 14) -> str:  # type: ignore[no-untyped-def]
    profiler = cProfile.Profile()
    profiler.runcall(function)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return "\n".join(line for line in out.getvalue().splitlines() if line.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds per contender (default 7)")
    parser.add_argument("--profile", action="store_true", help="also print cProfile tops of irgraph's read and write")
    parser.add_argument("--keep", type=Path, help="write the IR files into DIR instead of a temporary directory")
    args = parser.parse_args(argv)
    try:
        import openvino as ov
    except ImportError:
        print("OpenVINO is not installed (pip install -e .[test]): it writes the IR and is the reference.")
        return 2

    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        xml = models.write_ir(models.openvino_chain_20k(), folder / "chain.xml")
        core = ov.Core()
        theirs_model = core.read_model(str(xml))
        ours_model = ir.read_model(xml)
        ours_xml, theirs_xml = folder / "irgraph.xml", folder / "openvino.xml"
        ir.write_model(ours_model, ours_xml)
        identical = ours_xml.read_bytes() == xml.read_bytes() and (
            ours_xml.with_suffix(".bin").read_bytes() == xml.with_suffix(".bin").read_bytes()
        )
        times = interleaved(
            {
                "irgraph read_model": lambda: ir.read_model(xml),
                "OpenVINO Core.read_model": lambda: core.read_model(str(xml)),
                "irgraph write_model": lambda: ir.write_model(ours_model, ours_xml),
                "OpenVINO serialize": lambda: ov.serialize(
                    theirs_model, str(theirs_xml), str(theirs_xml.with_suffix(".bin"))
                ),
            },
            args.rounds, 1, warmup=1,
        )
        size = xml.stat().st_size
        print(f"IR: {len(ours_model)} layers, {len(ours_model.edges())} edges, {size / 1e6:.1f} MB of XML "
              f"(OpenVINO {ov.get_version()})")
        print(f"irgraph's rewrite is byte-identical to OpenVINO's file: {identical}")
        print(f"{'':28}{'median':>10}")
        for name, seconds in times.items():
            print(f"{name:28}{seconds * 1000:>8.0f} ms")
        read = times["irgraph read_model"] / times["OpenVINO Core.read_model"]
        write = times["irgraph write_model"] / times["OpenVINO serialize"]
        print(f"ratio read  irgraph/OpenVINO: {read:.2f}x")
        print(f"ratio write irgraph/OpenVINO: {write:.2f}x")
        if args.profile:
            print("\nirgraph read_model, top by own time:\n" + profile(lambda: ir.read_model(xml)))
            print("\nirgraph write_model, top by own time:\n" + profile(lambda: ir.write_model(ours_model, ours_xml)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
