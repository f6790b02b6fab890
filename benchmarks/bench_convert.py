"""(x) Converting the largest model of the real-network set both ways (issue 18): DenseNet-121, the onnx wheel's
``light_densenet121.onnx`` (1,100 IR layers) with seeded weights (tests/real_networks.py: its weights become
initializers, as in the models users bring, instead of 836 ConstantOfShape layers to fold).

- ONNX -> IR: ``irgraph.convert_onnx`` against OpenVINO's ``convert_model`` on the same ONNX file, both in
  memory (no file written), taking turns as in ``_common.interleaved``.
- IR -> ONNX: ``irgraph.export_onnx`` of the IR OpenVINO writes for it (fp16 weights, kept as they are) into
  an in-memory ModelProto; OpenVINO has no IR -> ONNX converter, so the row shows irgraph's time for context.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _common import Row, Section, have, interleaved

import irgraph as ir

REPO = Path(__file__).resolve().parents[1]
NETWORK = "densenet121"


def run(quick: bool = False) -> Section:
    rounds, per_round = (3, 1) if quick else (7, 2)
    section = Section()
    if not have("openvino") or not have("onnx"):
        section.notes.append("(x) skipped: OpenVINO and onnx are needed")
        return section
    import openvino as ov

    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.real_networks import convert

    with tempfile.TemporaryDirectory() as folder:
        network = convert(NETWORK, Path(folder))
        path = str(network.onnx)
        times = interleaved({"irgraph": lambda: ir.convert_onnx(path), "openvino": lambda: ov.convert_model(path)},
                            rounds, per_round, warmup=1)
        model = ir.read_model(network.xml)
        export = interleaved({"irgraph": lambda: ir.export_onnx(model)}, rounds, per_round, warmup=1)
    section.rows.append(Row("x", f"ONNX -> IR, {NETWORK} (in memory)", times["irgraph"],
                            "OpenVINO convert_model", times["openvino"], paired=times.ratio("irgraph",
                                                                                                   "openvino")))
    section.rows.append(Row("x", f"IR -> ONNX, {NETWORK} (in memory)", export["irgraph"],
                            "(OpenVINO has no IR -> ONNX)", None))
    return section
