"""ExperimentalDetectronGenerateProposalsSingleImage-6 against a scalar port of OpenVINO's reference kernel
(``experimental_detectron_proposal_single_image.cpp``) and its CPU plugin (openvino 2026.4.1 neither folds nor
evaluates the op). Scores are distinct and boxes big enough (the reference's partial_sort leaves ties
unordered)."""

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
from irgraph.ops.detection.experimental_detectron_generate_proposals_single_image import (
    ExperimentalDetectronGenerateProposalsSingleImage as Single,
)
from tests.ops.detection.judging import assert_close_to_cpu, judged_by_port
from tests.ops.differential import (
    OP_EXAMPLES,
    assert_values_close,
    check_types,
    cpu_default,
    ov_cpu,
    ov_ops,
    same_op,
)
from tests.ops.helpers import infer, tt

F32 = np.float32


def reference_single_image(op, inputs, overwrite=True):
    """The reference's loops in float32 scalars (exp in f64, rounded); ``overwrite=False`` gives the usual greedy
    NMS (a dropped box stays dropped), which openvino 2026.4.1's CPU plugin runs."""
    info, anchors, deltas, scores = (np.asarray(x, F32) for x in inputs)
    f = F32
    count, height, width = scores.shape
    cap = f(math.log(1000.0 / 16.0))
    one = f(1)
    proposals = []
    for h in range(height):
        for w in range(width):
            for a in range(count):
                x0, y0, x1, y1 = anchors[(h * width + w) * count + a]
                dx, dy, dw, dh = (deltas[a * 4 + k, h, w] for k in range(4))
                ww, hh = x1 - x0 + one, y1 - y0 + one
                cx, cy = x0 + f(0.5) * ww, y0 + f(0.5) * hh
                pcx, pcy = dx * ww + cx, dy * hh + cy
                pw, ph = f(math.exp(float(min(dw, cap)))) * ww, f(math.exp(float(min(dh, cap)))) * hh
                x0, y0 = pcx - f(0.5) * pw, pcy - f(0.5) * ph
                x1, y1 = pcx + f(0.5) * pw - one, pcy + f(0.5) * ph - one
                x0, x1 = max(f(0), min(x0, info[1] - one)), max(f(0), min(x1, info[1] - one))
                y0, y1 = max(f(0), min(y0, info[0] - one)), max(f(0), min(y1, info[0] - one))
                keep = f(1) if f(op.min_size) <= x1 - x0 + one and f(op.min_size) <= y1 - y0 + one else f(0)
                proposals.append((x0, y0, x1, y1, keep * scores[a, h, w]))
    order = sorted(range(len(proposals)), key=lambda i: -proposals[i][4])
    boxes = [proposals[i] for i in order[:min(len(proposals), op.pre_nms_count)]]
    dead = [False] * len(boxes)
    kept = []
    for i in range(len(boxes)):
        if dead[i]:
            continue
        kept.append(i)
        if len(kept) == op.post_nms_count:
            break
        a = boxes[i]
        area_a = (a[2] - a[0]) * (a[3] - a[1])
        for j in range(i + 1, len(boxes)):
            b = boxes[j]
            area = max(f(0), min(a[2], b[2]) - max(a[0], b[0])) * max(f(0), min(a[3], b[3]) - max(a[1], b[1]))
            with np.errstate(all="ignore"):
                iou = area / (area_a + (b[2] - b[0]) * (b[3] - b[1]) - area)
            verdict = bool(f(op.nms_threshold) < iou and a[0] <= b[2] and a[1] <= b[3] and b[0] <= a[2]
                           and b[1] <= a[3])
            dead[j] = verdict if overwrite else dead[j] or verdict
    rois = np.zeros((op.post_nms_count, 4), F32)
    out_scores = np.zeros(op.post_nms_count, F32)
    for row, i in enumerate(kept):
        rois[row] = boxes[i][:4]
        out_scores[row] = boxes[i][4]
    return [rois, out_scores]


def draw_configuration(data):
    op = Single(min_size=data.draw(st.sampled_from([0.0, 1.0])),
                nms_threshold=data.draw(st.sampled_from([0.0, 0.3, 0.7, 1.0])),
                post_nms_count=data.draw(st.sampled_from([1, 3, 10])),
                pre_nms_count=data.draw(st.sampled_from([2, 8, 50])))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    count, height, width = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    corner = rng.uniform(0, 30, (height * width * count, 2))
    anchors = np.concatenate([corner, corner + rng.uniform(2, 12, corner.shape)], -1).astype(F32)
    deltas = rng.normal(0, 0.4, (4 * count, height, width)).astype(F32)
    scores = rng.permutation(np.linspace(0.01, 0.99, count * height * width)).reshape(count, height, width)
    return op, [np.array([40, 32, 1.0], F32), anchors, deltas, scores.astype(F32)]


def assert_matches_port_and_cpu(op, inputs):
    # nothing folds: the scalar port judges, the CPU plugin too (below)
    judged_by_port(op, inputs, reference_single_image)
    ours = op.evaluate(inputs)
    greedy = reference_single_image(op, inputs, overwrite=False)
    if any(not np.array_equal(a, b) for a, b in zip(greedy, reference_single_image(op, inputs), strict=True)):
        ours = greedy  # the reference's overwriting NMS decides here; the CPU plugin runs the usual one
    assert_close_to_cpu(op, inputs, ours)


@OP_EXAMPLES
@given(data=st.data())
def test_generated_configurations_match_the_reference_port_and_cpu_plugin(data):
    op, inputs = draw_configuration(data)
    assert_matches_port_and_cpu(op, inputs)


def test_a_kept_box_overwrites_an_earlier_verdict():
    """Boxes A (best), B, C with zero deltas: C lies inside A (IoU 72 / 81) and is marked dead by A, but the next
    kept box B, apart from C, overwrites that verdict: OpenVINO's reference keeps C, where a usual greedy NMS
    drops it."""
    op = Single(min_size=0.0, nms_threshold=0.5, post_nms_count=4, pre_nms_count=10)
    anchors = np.array([[0, 0, 9, 9], [20, 20, 29, 29], [0, 0, 8, 9]], F32)  # C inside A, apart from B
    inputs = [np.array([100, 100, 1], F32), anchors, np.zeros((4, 1, 3), F32), np.array([[[0.9, 0.8, 0.7]]], F32)]
    rois, scores = op.evaluate(inputs)
    assert scores.tolist() == [np.float32(0.9), np.float32(0.8), np.float32(0.7), 0.0]
    assert rois[:3].tolist() == [[0, 0, 9, 9], [20, 20, 29, 29], [0, 0, 8, 9]]
    for mine, ported in zip((rois, scores), reference_single_image(op, inputs), strict=True):
        np.testing.assert_array_equal(mine, ported)
    (cpu_rois, cpu_scores) = ov_cpu(same_op(op), inputs, ())
    assert cpu_scores.tolist() == [np.float32(0.9), np.float32(0.8), 0, 0]  # openvino 2026.4.1's CPU drops C
    for mine, ported in zip((cpu_rois, cpu_scores), reference_single_image(op, inputs, overwrite=False), strict=True):
        np.testing.assert_array_equal(mine, ported)


def test_partial_shapes_and_refusals():
    op = Single(min_size=0.0, nms_threshold=0.7, post_nms_count=6, pre_nms_count=20)
    for types in ([tt("3"), tt("24,4"), tt("8,3,4"), tt("2,3,4")], [tt("..."), tt("..."), tt("..."), tt("...")],
                  [tt("?"), tt("?,4"), tt("?,?,4"), tt("2,3,?")]):
        check_types(op, types, same_op(op))
    assert infer(op, [tt("3"), tt("24,4"), tt("8,3,4"), tt("2,3,4")], [None] * 4) == ["[6,4]", "[6]"]
    for types, message in (([tt("4"), tt("24,4"), tt("8,3,4"), tt("2,3,4")], "compatible with \\[3\\]"),
                           ([tt("3"), tt("24,5"), tt("8,3,4"), tt("2,3,4")], "compatible with 4"),
                           ([tt("3"), tt("24,4"), tt("8,2,4"), tt("2,3,4")], "Heights"),
                           ([tt("3"), tt("24,4"), tt("8,3,4,1"), tt("2,3,4")], "3D")):
        with pytest.raises(OpError, match=message):
            infer(op, types, [None] * 4)
        check_types(op, types, same_op(op))  # OpenVINO refuses them too
    with pytest.raises(OpError, match="do not match scores"):
        op.evaluate([np.array([9, 9, 1], F32), np.zeros((5, 4), F32), np.zeros((8, 3, 4), F32),
                     np.zeros((2, 3, 4), F32)])


def test_ir_run_runs_openvinos_single_image_proposals_ir(tmp_path, capsys):
    rng = np.random.default_rng(8)
    corner = rng.uniform(0, 20, (18, 2))
    anchors = np.concatenate([corner, corner + rng.uniform(3, 10, corner.shape)], -1).astype(F32)
    deltas = ov_ops.parameter([8, 3, 3], ov.Type.f32, name="deltas")
    scores = ov_ops.parameter([2, 3, 3], ov.Type.f32, name="scores")
    node = NodeFactory("opset6").create("ExperimentalDetectronGenerateProposalsSingleImage", [
        ov_ops.constant(np.array([32, 32, 1], F32)).output(0), ov_ops.constant(anchors).output(0),
        deltas.output(0), scores.output(0)], {"min_size": 0.0, "nms_threshold": 0.7, "post_nms_count": 6,
                                              "pre_nms_count": 12})
    results = [ov_ops.result(node.output(i)) for i in range(2)]
    for result, name in zip(results, ("rois", "scores"), strict=True):
        result.output(0).get_tensor().set_names({name})
    xml = tmp_path / "single_image.xml"
    ov.save_model(ov.Model(results, [deltas, scores], "rpn"), xml, compress_to_fp16=False)
    feeds = {"deltas": rng.normal(0, 0.3, (8, 3, 3)).astype(F32),
             "scores": rng.permutation(np.linspace(0.05, 0.95, 18)).reshape(2, 3, 3).astype(F32)}
    np.savez(tmp_path / "in.npz", **feeds)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    compiled = ov.Core().compile_model(xml, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    expected = compiled(feeds)
    with np.load(tmp_path / "out.npz") as written:
        for index, name in enumerate(("rois", "scores")):
            assert_values_close(written[name], expected[compiled.output(index)], cpu_default(Single.tolerance),
                                f"ir-run's {name} vs the CPU plugin")
    assert ir.validate(ir.read_model(xml)) == []


def test_spec_example_shapes():
    """experimental-detectron-generate-proposals-single-image-6.rst: 201600 anchors, post_nms_count 1000."""
    op = Single(min_size=0.0, nms_threshold=0.7, post_nms_count=1000, pre_nms_count=1000)
    types = [tt("3"), tt("201600,4"), tt("12,200,336"), tt("3,200,336")]
    assert infer(op, types, [None] * 4) == ["[1000,4]", "[1000]"]
    check_types(op, types, same_op(op))


def test_boxes_that_only_touch_count_as_overlapping():
    """OpenVINO's reference judges a pair only when the boxes overlap with their edges included (``<=`` on each
    side): with nms_threshold -1 any IoU, even 0, drops a box. B touches A along y = 2, so A drops it; C, 1 below
    A, is apart from A and is kept. (The CPU plugin judges every pair by IoU alone and drops C as well.)"""
    op = Single(min_size=0.0, nms_threshold=-1.0, post_nms_count=4, pre_nms_count=10)
    anchors = np.array([[0, 0, 2, 2], [0, 2, 2, 4], [0, 3, 2, 5]], F32)
    inputs = [np.array([100, 100, 1], F32), anchors, np.zeros((4, 1, 3), F32), np.array([[[0.9, 0.8, 0.7]]], F32)]
    rois, scores = op.evaluate(inputs)
    assert scores.tolist() == [np.float32(0.9), np.float32(0.7), 0.0, 0.0]
    assert rois[:2].tolist() == [[0, 0, 2, 2], [0, 3, 2, 5]]
    for mine, ported in zip((rois, scores), reference_single_image(op, inputs), strict=True):
        np.testing.assert_array_equal(mine, ported)
    _, cpu_scores = ov_cpu(same_op(op), inputs, ())
    assert cpu_scores.tolist() == [np.float32(0.9), 0, 0, 0]  # openvino 2026.4.1's CPU plugin: no edge test, C dropped
