"""Write the OpenVINO golden corpus into tests/data/ov/<case>/ (one line per case on stdout).

    python tests/oracle/generate_goldens.py [--out DIR] [CASE-GLOB ...]

Needs the real openvino wheel (the ``oracle`` extra). Output is deterministic: re-running it
rewrites identical files.
"""

from __future__ import annotations

import argparse
import fnmatch
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # repo root, so `tests.oracle` imports when run as a script

from tests.oracle.ov_models import CASES, write_case  # noqa: E402


def summary(name: str, meta: dict) -> str:
    if meta["expect"] == "error":
        return f"{name:<40} v{meta['ir_version']} error  {meta['ov_error'][:150]}"
    outs = ", ".join("{}:{}{}".format(k, v["type"], v["shape"]) for k, v in meta["outputs"].items())
    flags = "" if meta.get("run", True) else " [cpu cannot run]"
    if meta.get("ov_cpu_deviates"):
        flags += " [cpu deviates: " + ",".join(meta["ov_cpu_deviates"]) + "]"
    return f"{name:<40} v{meta['ir_version']} ok{flags}  -> {outs[:160]}"


def chosen_cases(
    description: str, default_out: Path, cases: Iterable[str], argv: list[str] | None
) -> tuple[Path, list[str]]:
    """``--out DIR`` and the case globs of a generator's command line: the target folder and the cases to
    write. A full run (no globs) removes the folders of cases that no longer exist."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=default_out, help="target directory")
    ap.add_argument("patterns", nargs="*", help="only cases matching these globs")
    args = ap.parse_args(argv)
    cases = list(cases)
    names = [n for n in cases if not args.patterns or any(fnmatch.fnmatch(n, p) for p in args.patterns)]
    if not args.patterns and args.out.is_dir():
        for old in args.out.iterdir():
            if old.is_dir() and old.name not in cases:
                shutil.rmtree(old)
    return args.out, names


def main(argv: list[str] | None = None) -> int:
    out, names = chosen_cases(__doc__, HERE.parent / "data" / "ov", CASES, argv)
    for name in names:
        meta = write_case(name, out / name)
        print(summary(name, meta), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
