"""Write the OpenVINO sub-graph corpus into tests/data/ov-subgraphs/<case>/ (one line per case on stdout).

    python tests/oracle/generate_subgraph_goldens.py [--out DIR] [CASE-GLOB ...]

Needs the real openvino wheel and onnx (the ``oracle`` extra). Output is deterministic: re-running
it rewrites identical files.
"""

from __future__ import annotations

import argparse
import fnmatch
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # repo root, so `tests.oracle` imports when run as a script

from tests.oracle.ov_subgraph_models import CASES, write_case  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=HERE.parent / "data" / "ov-subgraphs", help="target directory")
    ap.add_argument("patterns", nargs="*", help="only cases matching these globs")
    args = ap.parse_args(argv)
    names = [n for n in CASES if not args.patterns or any(fnmatch.fnmatch(n, p) for p in args.patterns)]
    if not args.patterns and args.out.is_dir():  # full run: drop cases that no longer exist
        for old in args.out.iterdir():
            if old.is_dir() and old.name not in CASES:
                shutil.rmtree(old)
    for name in names:
        meta = write_case(name, args.out / name)
        outputs = ", ".join(f"{o['type']}{o['shape']}" for o in meta["outputs"])
        print(f"{name:<28} v{meta['ir_version']}  -> {outputs}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
