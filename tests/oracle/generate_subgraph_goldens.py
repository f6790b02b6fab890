"""Write the OpenVINO sub-graph corpus into tests/data/ov-subgraphs/<case>/ (one line per case on stdout).

    python tests/oracle/generate_subgraph_goldens.py [--out DIR] [CASE-GLOB ...]

Needs the real openvino wheel and onnx (the ``oracle`` extra). Output is deterministic: re-running
it rewrites identical files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # repo root, so `tests.oracle` imports when run as a script

from tests.oracle.generate_goldens import chosen_cases  # noqa: E402
from tests.oracle.ov_subgraph_models import CASES, write_case  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    out, names = chosen_cases(__doc__, HERE.parent / "data" / "ov-subgraphs", CASES, argv)
    for name in names:
        meta = write_case(name, out / name)
        outputs = ", ".join(f"{o['type']}{o['shape']}" for o in meta["outputs"])
        print(f"{name:<28} v{meta['ir_version']}  -> {outputs}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
