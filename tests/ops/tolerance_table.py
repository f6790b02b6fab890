"""docs/tolerances.md is generated from the op classes (their ``tolerance``), the one source of truth.

Regenerate with ``PYTHONPATH=src python -m tests.ops.tolerance_table > docs/tolerances.md``;
tests/ops/test_tolerances.py fails when the file and the classes disagree.
"""

from __future__ import annotations

from irgraph.ops.registry import load_all, registered_classes

HEADER = """\
# Tolerances: how far irgraph's values may be from OpenVINO's reference

Generated from the op classes (`Op.tolerance`) by `tests/ops/tolerance_table.py`; do not edit by hand
(`PYTHONPATH=src python -m tests.ops.tolerance_table > docs/tolerances.md`). The differential harness
(`tests/ops/differential.py`) holds every op to its row: OpenVINO 2026.4.1's reference (constant
folding) and, where that cannot evaluate, its CPU plugin.

- **exact**: bit for bit (NaN matches any NaN; -0.0 and 0.0 differ). Integer and boolean outputs
  are always exact, whatever the row says.
- **N ULP**: within N units in the last place of the output element type.
- **E eps**: or within E machine epsilons of the output type absolutely (results near zero, sums).
- Against the CPU plugin the bound is at least 2 ULP or 1 eps (it flushes subnormals and runs its
  own vectorised math); where the reference folded, a CPU difference is only noted.

f16 and bf16 are computed in f32 and rounded once (bf16 with OpenVINO's own rounding); f64 in f64.

| Op | Category | Tolerance | What |
|----|----------|-----------|------|
"""


CPU_HEADER = """
## Where OpenVINO's CPU plugin differs from its reference

irgraph follows OpenVINO's reference (and the spec) where the plugin computes otherwise, and says what
the plugin does (`Op.cpu_plugin_differs`, measured on the release named).

| Op | OpenVINO's CPU plugin |
|----|-----------------------|
"""


def render() -> str:
    """The whole markdown file."""
    rows, cpu_rows = [], []
    load_all()  # op modules load on first use; the table lists them all
    for op_class in sorted(registered_classes(), key=lambda c: (c.type_name.lower(), c.introduced)):
        category = op_class.__module__.split(".")[-2]
        what = (op_class.__doc__ or "").strip().splitlines()[0].replace("|", "\\|")
        rows.append(f"| {op_class.title()} | {category} | {op_class.tolerance.describe()} | {what} |")
        if op_class.cpu_plugin_differs:
            cpu_rows.append(f"| {op_class.title()} | {op_class.cpu_plugin_differs.replace('|', chr(92) + '|')} |")
    return HEADER + "\n".join(rows) + "\n" + CPU_HEADER + "\n".join(cpu_rows) + "\n"


if __name__ == "__main__":
    print(render(), end="")
