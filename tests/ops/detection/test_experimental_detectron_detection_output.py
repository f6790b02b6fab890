"""ExperimentalDetectronDetectionOutput-6 against a scalar port of OpenVINO's reference kernel
(``experimental_detectron_detection_output.cpp``) and its CPU plugin (openvino 2026.4.1 neither folds nor
evaluates the op). Scores are distinct (the reference's final partial_sort leaves equal pairs unordered)."""

from __future__ import annotations

import math

import numpy as np
import openvino as ov
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openvino.utils.node_factory import NodeFactory

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.errors import OpError
from irgraph.ops.detection.experimental_detectron_detection_output import (
    ExperimentalDetectronDetectionOutput as EDOutput,
)
from tests.ops.detection.judging import assert_close_to_cpu, judged_by_port
from tests.ops.differential import (
    OP_EXAMPLES,
    assert_values_close,
    check_types,
    cpu_default,
    ov_ops,
    same_op,
)
from tests.ops.helpers import infer, tt

F32 = np.float32


def reference_ed_detection_output(op, inputs):
    """The reference's loops in float32 scalars (exp in f64, rounded)."""
    rois, deltas, scores = (np.asarray(x, F32) for x in inputs[:3])
    f, one, half = F32, F32(1), F32(0.5)
    count, classes = op.max_detections_per_image, op.num_classes
    boxes = np.zeros((classes, count, 4), F32)
    areas = np.zeros((classes, count), F32)
    refined = np.zeros((classes, count), F32)
    w = [f(v) for v in op.deltas_weights]
    for r in range(count):
        x0, y0, x1, y1 = rois[r]
        if x1 - x0 <= 0 or y1 - y0 <= 0:
            continue
        ww, hh = x1 - x0 + one, y1 - y0 + one
        cx, cy = x0 + half * ww, y0 + half * hh
        for c in range(1, classes):
            dx, dy, dw, dh = (deltas[r, c * 4 + k] / w[k] for k in range(4))
            px, py = dx * ww + cx, dy * hh + cy
            pw = f(math.exp(float(min(dw, f(op.max_delta_log_wh))))) * ww
            ph = f(math.exp(float(min(dh, f(op.max_delta_log_wh))))) * hh
            box = [max(f(0), px - half * pw), max(f(0), py - half * ph), max(f(0), px + half * pw - one),
                   max(f(0), py + half * ph - one)]
            boxes[c, r] = box
            areas[c, r] = (box[2] - box[0] + one) * (box[3] - box[1] + one)
            refined[c, r] = scores[r, c]

    def overlap(c, i, j):
        a, b = boxes[c, i], boxes[c, j]
        if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
            return f(0)
        iw = min(a[2], b[2]) - max(a[0], b[0]) + one
        ih = min(a[3], b[3]) - max(a[1], b[1]) + one
        if iw <= 0 or ih <= 0:
            return f(0)
        return iw * ih / (areas[c, i] + areas[c, j] - iw * ih)

    detections = []
    for c in range(1, classes):
        candidates = sorted((i for i in range(count) if refined[c, i] > f(op.score_threshold)),
                            key=lambda i: (-refined[c, i], i))
        kept = []
        for i in candidates:
            if all(not (overlap(c, i, k) > f(op.nms_threshold)) for k in kept):
                kept.append(i)
        if op.post_nms_count != -1:
            kept = kept[:op.post_nms_count]
        detections += [(refined[c, i], c, i) for i in kept]
    if len(detections) > count:
        detections = sorted(detections, key=lambda t: (-t[0], t[2]))[:count]
    out_boxes, out_classes, out_scores = np.zeros((count, 4), F32), np.zeros(count, np.int32), np.zeros(count, F32)
    for row, (score, c, i) in enumerate(detections):
        out_boxes[row], out_classes[row], out_scores[row] = boxes[c, i], c, score
    return [out_boxes, out_classes, out_scores]


def draw_configuration(data):
    classes = data.draw(st.integers(1, 4))
    op = EDOutput(score_threshold=data.draw(st.sampled_from([0.0, 0.05, 0.5])),
                  nms_threshold=data.draw(st.sampled_from([0.0, 0.3, 0.5, 1.0])),
                  max_delta_log_wh=data.draw(st.sampled_from([0.2, 2.0, 4.135])), num_classes=classes,
                  post_nms_count=data.draw(st.sampled_from([-1, 1, 3, 20])),
                  max_detections_per_image=data.draw(st.integers(1, 8)),
                  class_agnostic_box_regression=data.draw(st.booleans()),
                  deltas_weights=data.draw(st.sampled_from([(10.0, 10.0, 5.0, 5.0), (1.0, 1.0, 1.0, 1.0)])))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    count = op.max_detections_per_image  # the reference reads that many rois
    corner = rng.uniform(0, 40, (count, 2))
    rois = np.concatenate([corner, corner + rng.uniform(-2, 15, (count, 2))], -1).astype(F32)
    deltas = rng.normal(0, 1.0, (count, classes * 4)).astype(F32)
    scores = rng.permutation(np.linspace(0.01, 0.99, count * classes)).reshape(count, classes).astype(F32)
    return op, [rois, deltas, scores, np.array([[64, 64, 1]], F32)]


def assert_matches_port_and_cpu(op, inputs):
    # nothing folds: the scalar port judges, the CPU plugin too (below)
    judged_by_port(op, inputs, reference_ed_detection_output)
    ours = op.evaluate(inputs)
    assert_close_to_cpu(op, inputs, ours)


@OP_EXAMPLES
@given(data=st.data())
def test_generated_configurations_match_the_reference_port_and_cpu_plugin(data):
    op, inputs = draw_configuration(data)
    assert_matches_port_and_cpu(op, inputs)


def test_exact_rows_in_class_order():
    """Two rois, classes 1 and 2, zero deltas (boxes come back as given): four detections fit in 4 rows and stay
    in class order, not score order."""
    op = EDOutput(score_threshold=0.05, nms_threshold=0.5, max_delta_log_wh=2.0, num_classes=3, post_nms_count=10,
                  max_detections_per_image=4, deltas_weights=(10.0, 10.0, 5.0, 5.0))
    rois = np.array([[0, 0, 9, 9], [20, 20, 29, 29], [0, 0, 0, 5], [1, 1, 2, 2]], F32)  # roi 2 has no width
    scores = np.array([[0, 0.3, 0.6], [0, 0.9, 0.2], [0, 0.99, 0.99], [0, 0.01, 0.02]], F32)
    inputs = [rois, np.zeros((4, 12), F32), scores, np.array([[64, 64, 1]], F32)]
    boxes, classes, out_scores = op.evaluate(inputs)
    assert classes.tolist() == [1, 1, 2, 2]
    assert out_scores.tolist() == [np.float32(0.9), np.float32(0.3), np.float32(0.6), np.float32(0.2)]
    assert boxes.tolist() == [[20, 20, 29, 29], [0, 0, 9, 9], [0, 0, 9, 9], [20, 20, 29, 29]]
    assert_matches_port_and_cpu(op, inputs)


def test_partial_shapes_and_refusals():
    op = EDOutput(score_threshold=0.05, nms_threshold=0.5, max_delta_log_wh=2.0, num_classes=3, post_nms_count=10,
                  max_detections_per_image=5, deltas_weights=(10.0, 10.0, 5.0, 5.0))
    for types in ([tt("7,4"), tt("7,12"), tt("7,3"), tt("1,3")], [tt("..."), tt("..."), tt("..."), tt("...")],
                  [tt("?,4"), tt("?,?"), tt("1..9,3"), tt("?,3")]):
        check_types(op, types, same_op(op))
    assert infer(op, [tt("7,4"), tt("7,12"), tt("7,3"), tt("1,3")], [None] * 4) == ["[5,4]", "[5]", "[5]"]
    for types, message in (([tt("7,5"), tt("7,12"), tt("7,3"), tt("1,3")], "'input_rois'"),
                           ([tt("7,4"), tt("7,8"), tt("7,3"), tt("1,3")], "'input_deltas'"),
                           ([tt("7,4"), tt("7,12"), tt("7,2"), tt("1,3")], "'input_scores'"),
                           ([tt("7,4"), tt("7,12"), tt("7,3"), tt("2,3")], "image info"),
                           ([tt("7,4"), tt("6,12"), tt("7,3"), tt("1,3")], "first dimension")):
        with pytest.raises(OpError, match=message):
            infer(op, types, [None] * 4)
        check_types(op, types, same_op(op))  # OpenVINO refuses them too
    with pytest.raises(OpError, match="3 rois but max_detections_per_image is 5"):
        op.evaluate([np.zeros((3, 4), F32), np.zeros((3, 12), F32), np.zeros((3, 3), F32), np.ones((1, 3), F32)])


def test_ir_run_runs_openvinos_ed_detection_output_ir(tmp_path, capsys):
    rois = ov_ops.parameter([6, 4], ov.Type.f32, name="rois")
    deltas = ov_ops.parameter([6, 12], ov.Type.f32, name="deltas")
    scores = ov_ops.parameter([6, 3], ov.Type.f32, name="scores")
    node = NodeFactory("opset6").create("ExperimentalDetectronDetectionOutput", [
        rois.output(0), deltas.output(0), scores.output(0), ov_ops.constant(np.array([[64, 64, 1]], F32)).output(0)],
        {"score_threshold": 0.05, "nms_threshold": 0.5, "max_delta_log_wh": 4.135, "num_classes": 3,
         "post_nms_count": 10, "max_detections_per_image": 6, "class_agnostic_box_regression": False,
         "deltas_weights": [10.0, 10.0, 5.0, 5.0]})
    results = [ov_ops.result(node.output(i)) for i in range(3)]
    for result, name in zip(results, ("boxes", "classes", "scores"), strict=True):
        result.output(0).get_tensor().set_names({name})
    xml = tmp_path / "ed_detection_output.xml"
    ov.save_model(ov.Model(results, [rois, deltas, scores], "box_head"), xml, compress_to_fp16=False)
    rng = np.random.default_rng(6)
    corner = rng.uniform(0, 40, (6, 2))
    feeds = {"rois": np.concatenate([corner, corner + rng.uniform(3, 15, (6, 2))], -1).astype(F32),
             "deltas": rng.normal(0, 1, (6, 12)).astype(F32),
             "scores": rng.permutation(np.linspace(0.01, 0.99, 18)).reshape(6, 3).astype(F32)}
    np.savez(tmp_path / "in.npz", **feeds)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    compiled = ov.Core().compile_model(xml, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    expected = compiled(feeds)
    with np.load(tmp_path / "out.npz") as written:
        for index, name in enumerate(("boxes", "classes", "scores")):
            assert_values_close(written[name], expected[compiled.output(index)], cpu_default(EDOutput.tolerance),
                                f"ir-run's {name} vs the CPU plugin")
    assert ir.validate(ir.read_model(xml)) == []


def test_spec_example_shapes():
    """experimental-detectron-detection-output-6.rst: 1000 rois, 81 classes, 100 detections."""
    op = EDOutput(score_threshold=0.05, nms_threshold=0.5, max_delta_log_wh=4.135166645050049, num_classes=81,
                  post_nms_count=2000, max_detections_per_image=100, deltas_weights=(10.0, 10.0, 5.0, 5.0))
    types = [tt("1000,4"), tt("1000,324"), tt("1000,81"), tt("1,3")]
    assert infer(op, types, [None] * 4) == ["[100,4]", "[100]", "[100]"]
    check_types(op, types, same_op(op))
