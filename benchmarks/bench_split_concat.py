"""(a) Warm run: split a 1x64x256x256 f32 tensor into 8 and concat them in reverse.

irgraph's warm ``Interpreter.run`` against one NumPy copy of the output into preallocated memory,
against OpenVINO's warm inference with shared input and output memory, and against onnxruntime.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import models
import numpy as np
from _common import Row, Section, have, interleaved

import irgraph as ir

WHAT = "split 1x64x256x256 f32 in 8, concat reversed (warm)"


def run(quick: bool = False) -> Section:
    rounds, per_round = (6, 10) if quick else (20, 20)
    x = models.input_a()
    expected = models.expected_a(x)
    out = np.empty_like(x)
    model = models.irgraph_a()
    reusing = ir.Interpreter(model, reuse_outputs=True)
    fresh = ir.Interpreter(model)
    feeds = {"x": x}
    contenders = {
        "copy": lambda: np.copyto(out, x),
        "irgraph reuse": lambda: reusing.run(feeds),
        "irgraph": lambda: fresh.run(feeds),
        "irgraph.run": lambda: ir.run(model, feeds),
        "numpy split+concatenate": lambda: np.concatenate(np.split(x, models.PARTS_A, axis=1)[::-1], axis=1),
    }
    checks = {name: contenders[name]() for name in ("irgraph reuse", "irgraph", "irgraph.run")}
    for name, outputs in checks.items():
        assert np.array_equal(outputs["y"], expected), name

    section = Section()
    with tempfile.TemporaryDirectory() as scratch:
        if have("openvino"):
            import openvino as ov

            core = ov.Core()
            compiled = core.compile_model(models.openvino_a(), "CPU", {"PERFORMANCE_HINT": "LATENCY"})
            request = compiled.create_infer_request()
            assert np.array_equal(request.infer({0: x}, share_inputs=True, share_outputs=True)[0], expected)
            contenders["openvino shared"] = lambda: request.infer({0: x}, share_inputs=True, share_outputs=True)
            contenders["openvino default"] = lambda: request.infer({0: x})
        if have("onnxruntime") and have("onnx"):
            import onnxruntime as ort

            session = ort.InferenceSession(
                str(models.onnx_a(Path(scratch) / "a.onnx")), providers=["CPUExecutionProvider"]
            )
            assert np.array_equal(session.run(None, feeds)[0], expected)
            binding = session.io_binding()
            binding.bind_cpu_input("x", x)
            ort_out = np.empty_like(x)
            binding.bind_output("y", "cpu", 0, np.float32, list(ort_out.shape), ort_out.ctypes.data)
            session.run_with_iobinding(binding)
            assert np.array_equal(ort_out, expected)
            contenders["onnxruntime bound"] = lambda: session.run_with_iobinding(binding)
            contenders["onnxruntime run"] = lambda: session.run(None, feeds)
        times = interleaved(contenders, rounds, per_round)

    best = times["irgraph reuse"]
    what_reuse = f"{WHAT}: Interpreter(reuse_outputs=True).run"
    section.rows.append(Row("a", what_reuse, best, "NumPy copyto of the output into preallocated memory",
                            times["copy"], target=1.1))
    if "openvino shared" in times:
        section.rows.append(Row("a", what_reuse, best, "OpenVINO warm infer, share_inputs+share_outputs (LATENCY)",
                                times["openvino shared"], target=1.0))
        section.rows.append(Row("a", what_reuse, best, "OpenVINO warm infer, default (copies in and out)",
                                times["openvino default"]))
    if "onnxruntime bound" in times:
        section.rows.append(Row("a", what_reuse, best, "onnxruntime warm, IOBinding into preallocated output",
                                times["onnxruntime bound"]))
        section.rows.append(Row("a", what_reuse, best, "onnxruntime warm session.run (new output)",
                                times["onnxruntime run"]))
    default = f"{WHAT}: Interpreter.run (new output array each run)"
    section.rows.append(Row("a", default, times["irgraph"], "NumPy copyto of the output into preallocated memory",
                            times["copy"]))
    if "openvino shared" in times:
        section.rows.append(Row("a", default, times["irgraph"], "OpenVINO warm infer, share_inputs+share_outputs",
                                times["openvino shared"]))
    section.rows.append(Row("a", default, times["irgraph"], "NumPy np.split + np.concatenate",
                            times["numpy split+concatenate"]))
    section.rows.append(Row("a", f"{WHAT}: irgraph.run(model, feeds), one-shot (checks the model every call)",
                            times["irgraph.run"], "NumPy copyto of the output into preallocated memory",
                            times["copy"]))
    section.notes.append(
        "(a) per-call medians over "
        f"{rounds} x {per_round} calls each, contenders interleaved; irgraph.run builds an Interpreter "
        "(shape inference and scheduling) on every call, so warm use keeps one Interpreter."
    )
    return section


if __name__ == "__main__":
    from run import main

    main(["--only", "a"])
