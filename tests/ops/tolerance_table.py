"""docs/tolerances.md is generated from the op classes (their ``tolerance``), the one source of truth.

Regenerate with ``PYTHONPATH=src python -m tests.ops.tolerance_table > docs/tolerances.md``;
tests/ops/test_tolerances.py fails when the file and the classes disagree.
"""

from __future__ import annotations

from irgraph.ops import catalogue
from irgraph.ops.registry import load_all, registered_classes
from irgraph.tools.compare import ACCUMULATION, ROUNDING_EPS, ROUNDING_ULP

HEADER = """\
# Tolerances: how far irgraph's values may be from OpenVINO's reference

Generated from the op classes (`Op.tolerance`) by `tests/ops/tolerance_table.py`; do not edit by hand
(`PYTHONPATH=src python -m tests.ops.tolerance_table > docs/tolerances.md`). The differential harness
(`tests/ops/differential.py`) holds every op to its row: OpenVINO 2026.4.1's reference (constant
folding, or the node's evaluate; on inputs carried in a wider type where it has no kernel for theirs),
its CPU plugin where the answer does not depend on the instruction set (never the only judge of f16,
bf16, i8 or u8), or an independent formulation computed in higher precision (`tests/ops/independent.py`).
The op tests end with how many configurations each oracle judged; one no oracle judged fails, unless
`tests/ops/unjudged.txt` lists it with its reason.

- **exact**: bit for bit (NaN matches any NaN; -0.0 and 0.0 differ). Integer and boolean outputs
  are always exact, whatever the row says.
- **N ULP**: within N units in the last place of the output element type.
- **E eps**: or within E machine epsilons of the output type absolutely (results near zero, sums).
- Against the CPU plugin the bound is at least 2 ULP or 1 eps (it flushes subnormals and runs its
  own vectorised math); where the reference judged, a CPU difference is only noted.
- Against a formulation, f16 and bf16 outputs may also be 1 ULP off, and a sum's bound counts f32 eps
  (they compute in f32 and round once).

f16 and bf16 are computed in f32 and rounded once (bf16 with OpenVINO's own rounding); f64 in f64.

| Op | Category | Tolerance | What |
|----|----------|-----------|------|
"""


FOOTER = f"""
## Comparing whole models (`ir-run --compare`, `--compare-with`)

Between two runs of a whole model, differences add up layer after layer, so `ir-run` judges each
compared tensor by what the reference's precision and the ops on its way allow, unless `--atol`
or `--rtol` are given (each replaces its part; `--atol NAME:A` for one tensor):

- **Precision**: OpenVINO's inference precision (`--precision`, f32 by default; its CPU plugin also
  computes f64 as f32 and sums in f32 whatever the hint), else the tensor's own element type
  (onnxruntime, a reference file). eps below is that precision's machine epsilon.
- **The ops on the way**: each op on the longest path from the inputs adds its own row above
  (`E eps` or `E eps x sum|terms|`, at least 4; exact ops that compute, such as Add, 1, since the CPU
  plugin fuses them into multiply-adds); exact ops that only move data add nothing.
- A float tensor may then differ by {ROUNDING_ULP} eps x |ref| (or the largest ULP row on the way)
  plus ({ACCUMULATION} x that sum + {ROUNDING_EPS}) eps x max|ref|, the tensor's largest magnitude: a sum of
  rounded terms loses digits relative to its terms, not to its result.
- Floats that only exact data movement produced, integers, booleans and strings are exact; integers
  and booleans computed from rounded floats (an arg-max's index, a comparison) may differ where a
  tie or a threshold falls the other way: they are counted and noted, not failed.

The report marks a difference that is within these bounds (`within f32 rounding`), also when a
given tolerance is tighter. Measured with `--mark all` against OpenVINO 2026.4.1's CPU plugin on
SqueezeNet, ShuffleNet, ResNet-50, Inception v1/v2, DenseNet-121 and the models of tests/data/models:
at f32 every error is at most 0.54 of its bound (DenseNet-121; atol = rtol = 1e-5 failed 129 of ResNet-50's
178 tensors); at bf16 every tensor but SqueezeNet's softmax, whose 6e9-sized logits bf16 cannot
resolve; at f16 where no value leaves f16's range (SqueezeNet's and ResNet-50's random weights reach
1e9 and 1e17, GPT-2's mask holds f32's lowest: OpenVINO's f16 gives infinities there, a divergence).

**A layer's own error** (`--compare-with`): rounding inherited from earlier layers is not the layer's doing,
so each compared layer is also run, cut out of the model, on the reference's own inputs (the tensors the
reference produced for them, asked of it too) and judged by its *tolerance class*: the bound above for that
layer alone (its own row and those of the weight decompression it reads, at the reference's precision;
integers from floats noted as above), which `ir-run --compare` applies to the cut-out model too. The verdict
blames the first layer whose own error exceeds its class, and calls a mismatch with no such layer rounding
(inherited when the layer's own error is below its accumulated one). `--truth f64` adds the layer evaluated in
float64 on the same inputs: whose rounding is closer to exact (a wrong formula is as wrong in f64).
`--save-repro DIR` writes the layer to blame with those inputs, the reference's outputs and the `ir-run`
command that reproduces the mismatch. Measured against OpenVINO 2026.4.1's CPU plugin at f32 with `--mark all`
on the models of tests/data/models (631 tensors): every layer's own error is at most 0.066 of its class
(GPT-2's MatMul); of the 470 float tensors, `--truth f64` found irgraph closer to exact on 143, OpenVINO on 12
and neither on 315 (equal distances, most of them bit-equal outputs).
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
        entry = catalogue.find(op_class.type_name, f"opset{op_class.introduced}")
        category = entry.category if entry is not None else "?"  # the spec's (If's module is in control_flow)
        what = (op_class.__doc__ or "").strip().splitlines()[0].replace("|", "\\|")
        rows.append(f"| {op_class.title()} | {category} | {op_class.tolerance.describe()} | {what} |")
        if op_class.cpu_plugin_differs:
            cpu_rows.append(f"| {op_class.title()} | {op_class.cpu_plugin_differs.replace('|', chr(92) + '|')} |")
    return HEADER + "\n".join(rows) + "\n" + CPU_HEADER + "\n".join(cpu_rows) + "\n" + FOOTER


if __name__ == "__main__":
    print(render(), end="")
