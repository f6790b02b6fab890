"""GenerateProposals-9 against two judges, since openvino 2026.4.1 neither folds nor evaluates the op (its outputs'
sizes depend on the values): a scalar port of OpenVINO's reference kernel (``reference/generate_proposal.cpp``)
written here, which must agree with irgraph on every generated configuration, and OpenVINO's CPU plugin. Scores
are distinct (OpenVINO's partial_sort leaves equal scores unordered)."""

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
from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.detection.generate_proposals import GenerateProposals
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


def reference_generate_proposals(op, inputs):
    """OpenVINO's ``generate_proposals`` for float32, one scalar at a time (exp in f64, rounded)."""
    info, anchors, deltas, scores = (np.asarray(x, F32) for x in inputs)
    f = F32
    images, count, height, width = scores.shape
    offset = f(0.0 if op.normalized else 1.0)
    cap = f(math.log(1000.0 / 16.0))
    rois, out_scores, counts = [], [], []
    for n in range(images):
        img_h, img_w = info[n, 0], info[n, 1]
        scale_h = info[n, 2]
        scale_w = info[n, 3] if info.shape[1] == 4 else scale_h
        min_h, min_w = f(op.min_size) * scale_h, f(op.min_size) * scale_w
        proposals = []
        for h in range(height):
            for w in range(width):
                for a in range(count):
                    x0, y0, x1, y1 = anchors[h, w, a]
                    dx, dy, dw, dh = (deltas[n, a * 4 + k, h, w] for k in range(4))
                    ww, hh = x1 - x0 + offset, y1 - y0 + offset
                    cx, cy = x0 + f(0.5) * ww, y0 + f(0.5) * hh
                    pcx, pcy = dx * ww + cx, dy * hh + cy
                    pw = f(math.exp(float(min(dw, cap)))) * ww
                    ph = f(math.exp(float(min(dh, cap)))) * hh
                    x0, y0 = pcx - f(0.5) * pw, pcy - f(0.5) * ph
                    x1, y1 = pcx + f(0.5) * pw - offset, pcy + f(0.5) * ph - offset
                    x0 = max(f(0), min(x0, img_w - offset))
                    y0 = max(f(0), min(y0, img_h - offset))
                    x1 = max(f(0), min(x1, img_w - offset))
                    y1 = max(f(0), min(y1, img_h - offset))
                    keep = (min_w <= x1 - x0 + offset) and (min_h <= y1 - y0 + offset)
                    proposals.append((x0, y0, x1, y1, scores[n, a, h, w], keep))
        order = sorted(range(len(proposals)), key=lambda i: -proposals[i][4])  # stable, as irgraph breaks ties
        boxes = [proposals[i] for i in order[:min(len(proposals), op.pre_nms_count)]]
        dead = [not b[5] for b in boxes]
        kept = []
        for i in range(len(boxes)):
            if dead[i]:
                continue
            kept.append(i)
            if len(kept) == op.post_nms_count:
                break
            a = boxes[i]
            area_a = ((a[2] - a[0]) + offset) * ((a[3] - a[1]) + offset)
            for j in range(i + 1, len(boxes)):
                b = boxes[j]
                iw = min(a[2], b[2]) - max(a[0], b[0]) + offset
                ih = min(a[3], b[3]) - max(a[1], b[1]) + offset
                area = max(f(0), iw) * max(f(0), ih)
                area_b = ((b[2] - b[0]) + offset) * ((b[3] - b[1]) + offset)
                with np.errstate(all="ignore"):
                    iou = area / (area_a + area_b - area)
                if f(op.nms_threshold) < iou and a[0] <= b[2] and a[1] <= b[3] and b[0] <= a[2] and b[1] <= a[3]:
                    dead[j] = True
        rois += [list(boxes[i][:4]) for i in kept]
        out_scores += [boxes[i][4] for i in kept]
        counts.append(len(kept))
    return [np.array(rois, F32).reshape(-1, 4), np.array(out_scores, F32),
            np.array(counts, op.roi_num_type.numpy_dtype)]


def draw_configuration(data):
    op = GenerateProposals(min_size=data.draw(st.sampled_from([0.0, 1.0, 4.0])),
                           nms_threshold=data.draw(st.sampled_from([0.0, 0.3, 0.7, 1.0])),
                           post_nms_count=data.draw(st.sampled_from([1, 3, 10])),
                           pre_nms_count=data.draw(st.sampled_from([2, 8, 50])),
                           normalized=data.draw(st.booleans()),
                           roi_num_type=data.draw(st.sampled_from([ElementType.I32, ElementType.I64])))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    images, count = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3))
    height, width = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    corner = rng.uniform(0, 30, (height, width, count, 2))
    anchors = np.concatenate([corner, corner + rng.uniform(1, 12, corner.shape)], -1).astype(F32)
    deltas = rng.normal(0, 0.4, (images, 4 * count, height, width)).astype(F32)
    scores = np.stack([rng.permutation(np.linspace(0.01, 0.99, count * height * width))
                       for _ in range(images)]).reshape(images, count, height, width).astype(F32)
    columns = data.draw(st.sampled_from([3, 4]))
    info = np.array([[40, 32, 1.0, 0.5][:columns]] * images, F32)
    info[:, 2] = data.draw(st.sampled_from([1.0, 2.0]))
    return op, [info, anchors, deltas, scores]


def assert_matches_port_and_cpu(op, inputs):
    # nothing folds: the scalar port judges, the CPU plugin too (below)
    judged_by_port(op, inputs, reference_generate_proposals)
    ours = op.evaluate(inputs)
    assert_close_to_cpu(op, inputs, ours)


@OP_EXAMPLES
@given(data=st.data())
def test_generated_configurations_match_the_reference_port_and_cpu_plugin(data):
    op, inputs = draw_configuration(data)
    assert_matches_port_and_cpu(op, inputs)


def test_two_anchors_exact_values():
    """Two anchors on one cell, zero deltas, normalized: the boxes come back as given (in score order), the
    second suppressed by an IoU of 0.5 above the 0.4 threshold."""
    op = GenerateProposals(min_size=0.0, nms_threshold=0.4, post_nms_count=4, pre_nms_count=10)
    anchors = np.array([[[[0, 0, 4, 4], [0, 0, 4, 2]]]], F32)
    inputs = [np.array([[10, 10, 1]], F32), anchors, np.zeros((1, 8, 1, 1), F32),
              np.array([0.3, 0.8], F32).reshape(1, 2, 1, 1)]
    rois, scores, counts = op.evaluate(inputs)
    assert rois.tolist() == [[0, 0, 4, 2]] and scores.tolist() == [np.float32(0.8)] and counts.tolist() == [1]
    op_low = GenerateProposals(min_size=0.0, nms_threshold=0.6, post_nms_count=4, pre_nms_count=10)
    rois, _, counts = op_low.evaluate(inputs)
    assert rois.tolist() == [[0, 0, 4, 2], [0, 0, 4, 4]] and counts.tolist() == [2]
    assert_matches_port_and_cpu(op, inputs)
    assert_matches_port_and_cpu(op_low, inputs)


def test_partial_shapes_and_refusals():
    op = GenerateProposals(min_size=1.0, nms_threshold=0.5, post_nms_count=5, pre_nms_count=10)
    for types in ([tt("2,3"), tt("3,4,2,4"), tt("2,8,3,4"), tt("2,2,3,4")],
                  [tt("?,4"), tt("..."), tt("?,8,?,?"), tt("1..3,2,3,4")],
                  [tt("..."), tt("..."), tt("..."), tt("...")]):
        check_types(op, types, same_op(op))
    assert infer(op, [tt("2,3"), tt("3,4,2,4"), tt("2,8,3,4"), tt("2,2,3,4")], [None] * 4) == [
        "[..10,4]", "[..10]", "[2]"]
    for types, message in (([tt("2,5"), tt("3,4,2,4"), tt("2,8,3,4"), tt("2,2,3,4")], "compatible with \\[3\\]"),
                           ([tt("2,3"), tt("3,4,2,4"), tt("2,6,3,4"), tt("2,2,3,4")], "Anchor number"),
                           ([tt("2,3"), tt("3,5,2,4"), tt("2,8,3,4"), tt("2,2,3,4")], "Width for inputs"),
                           ([tt("2,3"), tt("3,4,2,4"), tt("2,8,3"), tt("2,2,3,4")], "expected to be a 4D")):
        with pytest.raises(OpError, match=message):
            infer(op, types, [None] * 4)
        check_types(op, types, same_op(op))  # OpenVINO refuses them too
    with pytest.raises(OpError, match="post_nms_count must be larger than 0"):
        GenerateProposals(min_size=1.0, nms_threshold=0.5, post_nms_count=0, pre_nms_count=10)
    with pytest.raises(OpError, match="nms_eta must be 1.0"):
        GenerateProposals(min_size=1.0, nms_threshold=0.5, post_nms_count=1, pre_nms_count=1, nms_eta=0.5)


def test_ir_run_runs_openvinos_generate_proposals_ir(tmp_path, capsys):
    rng = np.random.default_rng(4)
    corner = rng.uniform(0, 20, (3, 3, 2, 2))
    anchors = np.concatenate([corner, corner + rng.uniform(2, 10, corner.shape)], -1).astype(F32)
    deltas = ov_ops.parameter([1, 8, 3, 3], ov.Type.f32, name="deltas")
    scores = ov_ops.parameter([1, 2, 3, 3], ov.Type.f32, name="scores")
    node = NodeFactory("opset9").create("GenerateProposals", [
        ov_ops.constant(np.array([[32, 32, 1]], F32)).output(0), ov_ops.constant(anchors).output(0),
        deltas.output(0), scores.output(0)], {"min_size": 1.0, "nms_threshold": 0.5, "post_nms_count": 6,
                                              "pre_nms_count": 12, "normalized": False, "roi_num_type": "i32"})
    results = [ov_ops.result(node.output(i)) for i in range(3)]
    for result, name in zip(results, ("rois", "scores", "counts"), strict=True):
        result.output(0).get_tensor().set_names({name})
    xml = tmp_path / "generate_proposals.xml"
    ov.save_model(ov.Model(results, [deltas, scores], "rpn"), xml, compress_to_fp16=False)
    assert 'roi_num_type="i32"' in xml.read_text()
    feeds = {"deltas": rng.normal(0, 0.3, (1, 8, 3, 3)).astype(F32),
             "scores": rng.permutation(np.linspace(0.05, 0.95, 18)).reshape(1, 2, 3, 3).astype(F32)}
    np.savez(tmp_path / "in.npz", **feeds)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    compiled = ov.Core().compile_model(xml, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    expected = compiled(feeds)
    with np.load(tmp_path / "out.npz") as written:
        for index, name in enumerate(("rois", "scores", "counts")):
            assert_values_close(written[name], expected[compiled.output(index)],
                                cpu_default(GenerateProposals.tolerance), f"ir-run's {name} vs the CPU plugin")
    assert ir.validate(ir.read_model(xml)) == []


def test_spec_example_shapes():
    """generate-proposals-9.rst: 8 images, anchors [50, 84, 3, 4], post_nms_count 1000 -> [..8000, 4]."""
    op = GenerateProposals(min_size=0.0, nms_threshold=0.7, post_nms_count=1000, pre_nms_count=1000)
    types = [tt("8,3"), tt("50,84,3,4"), tt("8,12,50,84"), tt("8,3,50,84")]
    assert infer(op, types, [None] * 4) == ["[..8000,4]", "[..8000]", "[8]"]
    check_types(op, types, same_op(op))


def test_clipping_to_the_image_and_nms_of_boxes_that_touch():
    """Hand-worked, normalized=False (offset 1), zero deltas: the 0.9 box [4, 0, 12, 4] is clipped to the image's
    width 8 minus 1 (x1 = 7); the 0.5 box [0, 0, 4, 4] touches it at x = 4, which with the offset is an overlap of
    1 x 5 = 5 pixels, IoU 5 / (20 + 25 - 5) = 0.125 > 0.1, so it dies."""
    op = GenerateProposals(min_size=0.0, nms_threshold=0.1, post_nms_count=4, pre_nms_count=10, normalized=False)
    anchors = np.array([[[[4, 0, 12, 4], [0, 0, 4, 4]]]], F32)
    inputs = [np.array([[10, 8, 1]], F32), anchors, np.zeros((1, 8, 1, 1), F32),
              np.array([0.9, 0.5], F32).reshape(1, 2, 1, 1)]
    rois, scores, counts = op.evaluate(inputs)
    assert rois.tolist() == [[4, 0, 7, 4]] and scores.tolist() == [np.float32(0.9)] and counts.tolist() == [1]
    assert_matches_port_and_cpu(op, inputs)


def test_a_box_exactly_min_size_high_is_kept():
    """Hand-worked, normalized: min_size 2 at scale 1 keeps [0, 0, 4, 2] (height exactly 2) and drops
    [5, 5, 6, 9] (width 1)."""
    op = GenerateProposals(min_size=2.0, nms_threshold=0.5, post_nms_count=4, pre_nms_count=10)
    anchors = np.array([[[[0, 0, 4, 2], [5, 5, 6, 9]]]], F32)
    inputs = [np.array([[10, 10, 1]], F32), anchors, np.zeros((1, 8, 1, 1), F32),
              np.array([0.8, 0.6], F32).reshape(1, 2, 1, 1)]
    rois, scores, counts = op.evaluate(inputs)
    assert rois.tolist() == [[0, 0, 4, 2]] and scores.tolist() == [np.float32(0.8)] and counts.tolist() == [1]
    assert_matches_port_and_cpu(op, inputs)


def test_pre_nms_count_must_be_positive():
    """openvino 2026.4.1 refuses it with the same words (``m_attrs.pre_nms_count > 0`` in generate_proposals.cpp)."""
    with pytest.raises(OpError, match="Attribute pre_nms_count must be larger than 0. Got: 0"):
        GenerateProposals(min_size=1.0, nms_threshold=0.5, post_nms_count=1, pre_nms_count=0)


def test_a_box_starting_past_the_image_is_clipped_at_both_corners():
    """Hand-worked, normalized=False: [7.5, 1, 12, 3] in an image 8 wide has both x clipped to 8 - 1 = 7."""
    op = GenerateProposals(min_size=0.0, nms_threshold=0.5, post_nms_count=4, pre_nms_count=10, normalized=False)
    inputs = [np.array([[10, 8, 1]], F32), np.array([[[[7.5, 1, 12, 3]]]], F32), np.zeros((1, 4, 1, 1), F32),
              np.array([0.7], F32).reshape(1, 1, 1, 1)]
    rois, _, counts = op.evaluate(inputs)
    assert rois.tolist() == [[7, 1, 7, 3]] and counts.tolist() == [1]
    assert_matches_port_and_cpu(op, inputs)
