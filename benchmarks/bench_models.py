"""(m) The model corpus of issue 16 (tests/data/models: BERT-, GPT-2-, T5- and Whisper-like transformers, an LSTM,
an ONNX GRU, a YOLO-like detector, a stateful GPT-2 step): warm runs of irgraph's Interpreter against OpenVINO's
CPU plugin (f32 hint, latency, one stream) on the inputs tests/test_models.py makes, taking turns in one process
as in ``_common.interleaved``. The corpus was converted from PyTorch (and one torch.onnx export, not kept), so
there is no ONNX original to run onnx.reference or onnxruntime on; the rows say so.
"""

from __future__ import annotations

import sys
from pathlib import Path

from _common import Row, Section, have, interleaved

import irgraph as ir

REPO = Path(__file__).resolve().parents[1]


def run(quick: bool = False) -> Section:
    rounds, per_round = (3, 2) if quick else (9, 3)
    section = Section()
    if not have("openvino"):
        section.notes.append("(m) skipped: OpenVINO is the comparison")
        return section
    import openvino as ov

    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.test_models import MODELS, NAMES, inputs_of

    core = ov.Core()
    for name in NAMES:
        xml = MODELS / name / "model.xml"
        feeds = inputs_of(name)
        interpreter = ir.Interpreter(ir.read_model(xml))
        request = core.compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT":
                                                       "LATENCY", "NUM_STREAMS": "1"}).create_infer_request()
        times = interleaved({"irgraph": lambda runner=interpreter, data=feeds: runner.run(data),
                             "openvino": lambda runner=request, data=feeds: runner.infer(data)}, rounds, per_round)
        section.rows.append(Row("m", f"{name}: warm run", times["irgraph"], "OpenVINO CPU warm", times["openvino"],
                                paired=times.ratio("irgraph", "openvino")))
    section.notes.append("(m) these models are tiny (a few thousand weights per layer): a run is mostly irgraph's "
                         "per-layer Python work (~10-40 us a layer), so the ratios are shown for context, not against "
                         "issue 15's network target; a stateful model's runs each append to its KV cache (both sides "
                         "alike); no ONNX original exists for these models, so onnx.reference has no row")
    return section
