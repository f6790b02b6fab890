"""DetectionOutput-1 and -8 against two judges, since openvino 2026.4.1 neither folds nor evaluates the op:

- a scalar port of OpenVINO's reference kernel (``reference/detection_output.hpp``) written here, loop by loop,
  in float32 scalars, which must agree with irgraph on every generated configuration;
- OpenVINO's CPU plugin (through ``check_op``), on the configurations where it follows the reference.

Scores are distinct within a class (OpenVINO's keep_top_k sort is not stable across classes)."""

from __future__ import annotations

import math

import numpy as np
import openvino as ov
import openvino.opset8 as ov8
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.errors import OpError
from irgraph.ops.detection.detection_output import DetectionOutput, DetectionOutput8
from irgraph.ops.op import Tolerance
from tests.ops.differential import (
    OP_EXAMPLES,
    assert_values_close,
    check_op,
    check_types,
    cpu_default,
    cpu_judge,
    ov_cpu,
    port,
    same_op,
)
from tests.ops.helpers import infer, tt

F32 = np.float32
CORNER, CENTER = "caffe.PriorBoxParameter.CORNER", "caffe.PriorBoxParameter.CENTER_SIZE"


# ------------------------------------------------------------------------------ the scalar port
def reference_detection_output(op, inputs):
    """OpenVINO's ``referenceDetectionOutput::run`` for float32, one scalar at a time (exp in f64, rounded)."""
    loc_data, conf_data, prior_data = (np.asarray(x, F32).reshape(-1).tolist() for x in inputs[:3])
    cascade = len(inputs) == 5
    images = inputs[0].shape[0]
    prior_size = 4 if op.normalized else 5
    offset = 0 if op.normalized else 1
    priors = inputs[2].shape[2] // prior_size
    prior_batches = inputs[2].shape[0]
    classes = op.num_classes if hasattr(op, "num_classes") else inputs[1].shape[1] // priors
    loc_classes = 1 if op.share_location else classes
    rows = op.infer_rows(images, priors, classes)
    f = F32

    def loc_predictions(data):
        out = []
        for i in range(images):
            labels = {}
            for p in range(priors):
                for c in range(loc_classes):
                    label = -1 if op.share_location else c
                    start = i * priors * loc_classes * 4 + p * loc_classes * 4 + c * 4
                    labels.setdefault(label, [None] * priors)[p] = [f(v) for v in data[start:start + 4]]
            out.append(labels)
        return out

    arm_loc = loc_predictions(np.asarray(inputs[4], F32).reshape(-1).tolist()) if cascade else None
    loc = loc_predictions(loc_data)
    conf = []
    arm_conf = np.asarray(inputs[3], F32).reshape(-1).tolist() if cascade else None
    for i in range(images):
        scores = {c: [] for c in range(classes)}
        for p in range(priors):
            if cascade and f(arm_conf[i * priors * 2 + p * 2 + 1]) < f(op.objectness_score):
                for c in range(classes):
                    scores[c].append(f(1) if c == op.background_label_id else f(0))
            else:
                for c in range(classes):
                    scores[c].append(f(conf_data[i * priors * classes + p * classes + c]))
        conf.append(scores)
    prior_boxes, prior_vars = [], []
    stride = priors * prior_size if op.variance_encoded_in_target else 2 * priors * prior_size
    for n in range(prior_batches):
        base = n * stride
        prior_boxes.append([[f(prior_data[base + i * prior_size + k + offset]) for k in range(4)]
                            for i in range(priors)])
        if not op.variance_encoded_in_target:
            prior_vars.append([[f(prior_data[base + priors * prior_size + i * 4 + k]) for k in range(4)]
                               for i in range(priors)])

    def decode(prior, var, box):
        px = list(prior)
        if not op.normalized:
            px = [px[0] / f(op.input_width), px[1] / f(op.input_height), px[2] / f(op.input_width),
                  px[3] / f(op.input_height)]
        d = [var[k] * box[k] for k in range(4)] if var is not None else list(box)
        if op.code_type == CORNER:
            out = [px[k] + d[k] for k in range(4)]
        else:
            width, height = px[2] - px[0], px[3] - px[1]
            cx, cy = (px[0] + px[2]) / f(2), (px[1] + px[3]) / f(2)
            x, y = d[0] * width + cx, d[1] * height + cy
            w = f(math.exp(float(d[2]))) * width
            h = f(math.exp(float(d[3]))) * height
            out = [x - w / f(2), y - h / f(2), x + w / f(2), y + h / f(2)]
        if op.clip_before_nms:
            out = [max(f(0), min(f(1), v)) for v in out]
        return out

    decoded = []
    for i in range(images):
        n = 0 if prior_batches == 1 else i
        labels = {}
        for c in range(loc_classes):
            label = -1 if op.share_location else c
            if op.background_label_id > -1 and label == op.background_label_id:
                continue
            boxes = prior_boxes[n]
            if cascade:
                boxes = [decode(boxes[p], prior_vars[n][p] if prior_vars else None, arm_loc[i][label][p])
                         for p in range(priors)]
            labels[label] = [decode(boxes[p], prior_vars[n][p] if prior_vars else None, loc[i][label][p])
                             for p in range(priors)]
        decoded.append(labels)

    def size(b):
        return f(0) if b[2] < b[0] or b[3] < b[1] else (b[2] - b[0]) * (b[3] - b[1])

    def jaccard(b1, b2):
        if b2[0] > b1[2] or b2[2] < b1[0] or b2[1] > b1[3] or b2[3] < b1[1]:
            inter = [f(0)] * 4
        else:
            inter = [max(b1[0], b2[0]), max(b1[1], b2[1]), min(b1[2], b2[2]), min(b1[3], b2[3])]
        width, height = inter[2] - inter[0], inter[3] - inter[1]
        if width > 0 and height > 0:
            area = width * height
            return area / (size(b1) + size(b2) - area)
        return f(0)

    nms_threshold = float(op.nms_threshold)
    result = [[f(0)] * 7 for _ in range(rows)]
    count = 0
    for i in range(images):
        indices: dict[int, list[int]] = {}
        if not op.decrease_label_id:
            for c in range(classes):
                if c == op.background_label_id:
                    continue
                label = -1 if op.share_location else c
                if label not in decoded[i]:
                    continue
                bboxes, scores = decoded[i][label], conf[i][c]
                pairs = [(scores[p], p) for p in range(priors) if scores[p] > f(op.confidence_threshold)]
                pairs.sort(key=lambda pair: (-pair[0], pair[1]))
                if op.top_k > -1:
                    pairs = pairs[:op.top_k]
                kept = indices.setdefault(c, [])
                for _, p in pairs:
                    if all(not (jaccard(bboxes[p], bboxes[k]) > nms_threshold) for k in kept):
                        kept.append(p)
        else:
            pairs = []
            for p in range(priors):
                best, best_class = f(-1), 0
                for c in range(1, classes):
                    if op.background_label_id > -1 and c == op.background_label_id:
                        continue
                    if conf[i][c][p] > best:
                        best, best_class = conf[i][c][p], c
                if best_class > 0 and best >= op.confidence_threshold:
                    pairs.append((best, best_class, p))
            pairs.sort(key=lambda t: (-t[0], t[2]))
            if op.top_k != -1 and len(pairs) > op.top_k:
                pairs = pairs[:op.top_k]
            for _, c, p in pairs:
                kept = indices.setdefault(c, [])
                bboxes = decoded[i][-1 if op.share_location else c]
                if all(not (jaccard(bboxes[p], bboxes[k]) > nms_threshold) for k in kept):
                    kept.append(p)
        total = sum(len(v) for v in indices.values())
        if op.keep_top_k[0] > -1 and total > op.keep_top_k[0]:
            pairs = [(conf[i][c][p], c, p) for c in sorted(indices) for p in indices[c]]
            pairs.sort(key=lambda t: (-t[0], t[2]))  # stable: ties of score and prior stay in class order
            indices = {}
            for _, c, p in pairs[:op.keep_top_k[0]]:
                indices.setdefault(c, []).append(p)
        for c in sorted(indices):
            bboxes = decoded[i].get(-1 if op.share_location else c)
            if bboxes is None:
                continue
            for p in indices[c]:
                box = list(bboxes[p])
                if op.clip_after_nms:
                    box = [max(f(0), min(f(1), v)) for v in box]
                result[count] = [f(i), f(c - 1 if op.decrease_label_id else c), conf[i][c][p], *box]
                count += 1
    if count < rows:
        result[count][0] = f(-1)
    return np.array(result, F32).reshape(1, 1, rows, 7)


# ------------------------------------------------------------------------------ generated configurations
def draw_configuration(data):
    version = data.draw(st.sampled_from([DetectionOutput, DetectionOutput8]))
    images, priors, classes = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 6)), data.draw(st.integers(1, 4))
    attributes = {
        "background_label_id": data.draw(st.sampled_from([-1, 0, 1])),
        "top_k": data.draw(st.sampled_from([-1, 0, 2, 4])),
        "variance_encoded_in_target": data.draw(st.booleans()),
        "keep_top_k": (data.draw(st.sampled_from([-1, 0, 1, 3, 10])),),
        "code_type": data.draw(st.sampled_from([CORNER, CENTER])),
        "share_location": data.draw(st.booleans()),
        "nms_threshold": data.draw(st.sampled_from([0.0, 0.3, 0.5, 0.8])),
        "confidence_threshold": data.draw(st.sampled_from([0.0, 0.2, 0.5])),
        "clip_after_nms": data.draw(st.booleans()), "clip_before_nms": data.draw(st.booleans()),
        "decrease_label_id": data.draw(st.booleans()), "normalized": data.draw(st.booleans()),
        "input_height": data.draw(st.sampled_from([1, 30])), "input_width": data.draw(st.sampled_from([1, 40])),
        "objectness_score": data.draw(st.sampled_from([0.0, 0.4])),
    }
    if version is DetectionOutput:
        attributes["num_classes"] = classes
    op = version(**attributes)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    loc_classes = 1 if op.share_location else classes
    loc = rng.normal(0, 0.3, (images, priors * loc_classes * 4)).astype(F32)
    # distinct scores in each image (no ties for OpenVINO's unstable sorts)
    conf = np.stack([rng.permutation(np.linspace(0.01, 0.99, priors * classes)) for _ in range(images)]).astype(F32)
    prior_batches = data.draw(st.sampled_from([1, images]))
    scale = np.array([op.input_width, op.input_height] * 2, F32) if not op.normalized else np.ones(4, F32)
    corner = rng.uniform(0, 0.7, (prior_batches, priors, 2))
    boxes = (np.concatenate([corner, corner + rng.uniform(0.1, 0.5, (prior_batches, priors, 2))], -1) * scale)
    if not op.normalized:
        boxes = np.concatenate([np.zeros((prior_batches, priors, 1)), boxes], -1)
    rows = [boxes.reshape(prior_batches, 1, -1)]
    if not op.variance_encoded_in_target:
        variance = np.zeros_like(rows[0])
        variance[:, :, :priors * 4] = np.tile([0.1, 0.1, 0.2, 0.2], priors) * rng.uniform(0.5, 2)
        rows.append(variance)
    proposals = np.concatenate(rows, axis=1).astype(F32)
    inputs = [loc, conf, proposals]
    if data.draw(st.integers(0, 3)) == 0:
        arm_conf = rng.uniform(0, 1, (images, priors * 2)).astype(F32)
        arm_loc = rng.normal(0, 0.3, loc.shape).astype(F32)
        inputs += [arm_conf, arm_loc]
    return op, inputs


def meaningful_rows(out: np.ndarray) -> np.ndarray:
    """The rows up to the first with image -1, and that row's image: openvino 2026.4.1's CPU plugin leaves the
    rest of its output as it found the memory (irgraph and the reference write zeros)."""
    rows = out.reshape(-1, 7)
    ends = np.flatnonzero(rows[:, 0] == -1)
    if not ends.size:
        return rows.reshape(-1)
    return np.concatenate([rows[:ends[0]].reshape(-1), rows[ends[0], :1]])


def read_plugin_rows(values, refusal, inputs, types):
    """The CPU plugin's rows up to the first with image -1 and that row's image; the reference's zeros after it
    (the plugin leaves that memory as it found it)."""
    if values is None:
        return None
    rows = values[0].reshape(-1, 7).copy()
    ends = np.flatnonzero(rows[:, 0] == -1)
    if ends.size:
        rows[ends[0], 1:] = 0
        rows[ends[0] + 1:] = 0
    return [rows.reshape(values[0].shape)]


def assert_matches_cpu(op, inputs, by_the_port=True):
    """Nothing folds: the scalar port judges (the CPU plugin's rows where the port does not apply), the plugin
    compared too where it runs."""
    priors = inputs[2].shape[2] // op.prior_size
    # openvino 2026.4.1's CPU plugin refuses these, where its reference runs: "cannot use decrease_label_id and
    # background_label_id parameter simultaneously"; "has insufficient output buffer size" (it wants top_k rows
    # per class where shape inference gives priors rows); the scalar port judges them alone
    refused = (op.decrease_label_id and op.background_label_id != 0) or (op.keep_top_k[0] == 0 and op.top_k > priors)
    judge = port(lambda op, arrays, types: [reference_detection_output(op, arrays)]) if by_the_port else cpu_judge(
        same_op(op), read_plugin_rows)
    label = "one prior batch in the cascade, attributes the CPU plugin refuses" if refused and not by_the_port else ""
    outcome = check_op(op, inputs, same_op(op), cpu=False, independent=judge, label=label)
    assert not outcome.refused and outcome.judge in ("port", "cpu", "unjudged-listed")
    if refused:
        assert ov_cpu(same_op(op), inputs, ()) is None
        return
    (ours,) = op.evaluate(inputs)
    (cpu,) = ov_cpu(same_op(op), inputs, ())
    assert_values_close(meaningful_rows(ours), meaningful_rows(cpu), cpu_default(op.tolerance),
                        f"{op!r} vs the CPU plugin on {[x.tolist() for x in inputs]}")


def assert_matches_port(op, inputs):
    (ours,) = op.evaluate(inputs)
    expected = reference_detection_output(op, inputs)
    assert_values_close(ours, expected, op.tolerance, f"{op!r} vs the scalar port")


@OP_EXAMPLES
@given(data=st.data())
def test_generated_configurations_match_the_reference_port_and_cpu_plugin(data):
    op, inputs = draw_configuration(data)
    # the reference reads priors[image] past a single prior batch in the cascade (see the test below): the CPU
    # plugin judges those, the scalar port the others
    assert_matches_cpu(op, inputs, by_the_port=not (len(inputs) == 5 and inputs[2].shape[0] != inputs[0].shape[0]))


def test_spec_style_example_exact_rows():
    """Two priors, two classes plus background, centre-size decoding with zero offsets: each class's boxes by
    score (class 1's 0.05 is not above the 0.1 threshold), then the end row."""
    op = DetectionOutput8(background_label_id=0, top_k=-1, keep_top_k=(4,), code_type=CENTER, share_location=True,
                          nms_threshold=0.45, confidence_threshold=0.1, normalized=True)
    loc = np.zeros((1, 8), F32)
    conf = np.array([[0.1, 0.7, 0.2, 0.3, 0.05, 0.65]], F32)
    priors = np.array([[[0.1, 0.1, 0.3, 0.3, 0.2, 0.2, 0.6, 0.6], [0.1, 0.1, 0.2, 0.2] * 2]], F32)
    (out,) = op.evaluate([loc, conf, priors])
    expected = np.array([[0, 1, 0.7, 0.1, 0.1, 0.3, 0.3], [0, 2, 0.65, 0.2, 0.2, 0.6, 0.6],
                         [0, 2, 0.2, 0.1, 0.1, 0.3, 0.3], [-1, 0, 0, 0, 0, 0, 0]], F32)
    np.testing.assert_allclose(out[0, 0], expected, rtol=0, atol=3e-8)
    assert out[0, 0, 1, 1] == 2 and out[0, 0, 3, 0] == -1
    assert_matches_port(op, [loc, conf, priors])
    assert_matches_cpu(op, [loc, conf, priors])


def test_partial_shapes():
    op = DetectionOutput8(keep_top_k=(-1,), top_k=5, nms_threshold=0.5, normalized=True)
    for types in ([tt("?,24"), tt("?,18"), tt("1,2,24")], [tt("..."), tt("2,18"), tt("1,2,24")],
                  [tt("4,24"), tt("4,?"), tt("1,2,?")], [tt("..."), tt("..."), tt("...")]):
        check_types(op, types, same_op(op))
    assert infer(op, [tt("2,24"), tt("2,18"), tt("1,2,24")], [None] * 3) == ["[1,1,30,7]"]


def test_prior_count_from_the_additional_class_predictions_alone():
    """With every other prior dimension unknown, the additional class predictions [?, 8] give 8 / 2 = 4 priors,
    so 2 images x 4 priors x 3 classes = 24 rows, as openvino 2026.4.1 infers (also with an unknown batch there)."""
    op = DetectionOutput(num_classes=3, keep_top_k=(-1,), top_k=-1, nms_threshold=0.5, normalized=True)
    types = [tt("2,?"), tt("2,?"), tt("1,2,?"), tt("?,8"), tt("?,?")]
    assert infer(op, types, [None] * 5) == ["[1,1,24,7]"]
    check_types(op, types, same_op(op))


def test_refusals_name_the_rule():
    with pytest.raises(OpError, match="code_type must be either"):
        DetectionOutput8(keep_top_k=(1,), nms_threshold=0.5, code_type="corner")
    with pytest.raises(OpError, match="Number of classes must be greater than zero"):
        DetectionOutput(num_classes=0, keep_top_k=(1,), nms_threshold=0.5)
    op = DetectionOutput8(keep_top_k=(1,), nms_threshold=0.5, normalized=True)
    for types, message in (([tt("1,24"), tt("1,18"), tt("1,2,25")], "multiply of prior_box_size"),
                           ([tt("1,24"), tt("1,19"), tt("1,2,24")], "multiply of num_prior_boxes"),
                           ([tt("1,24", "i32"), tt("1,18", "i32"), tt("1,2,24")], "floating point"),
                           ([tt("1,24"), tt("1,18"), tt("1,3,24")], "second dimension is mismatched"),
                           ([tt("1,20"), tt("1,18"), tt("1,2,24")], "box logits"),
                           ([tt("2,24"), tt("1,18"), tt("1,2,24")], "batch size"),
                           ([tt("1,24"), tt("1,18", "f16"), tt("1,2,24")],
                            r"Class predictions' data type must be the same as box logits type \(f32\). Got f16")):
        with pytest.raises(OpError, match=message):
            infer(op, types, [None] * 3)
        check_types(op, types, same_op(op))  # OpenVINO refuses them too


def test_cascade_with_one_prior_batch_for_two_images():
    """OpenVINO's reference reads ``priors[image]`` in its cascade decoding (out of its vector for image 1 when
    the priors have one batch); irgraph shares the one batch, as the 3-input decoding does, and the CPU plugin
    (openvino 2026.4.1) gives the same rows."""
    op = DetectionOutput8(keep_top_k=(4,), nms_threshold=0.5, normalized=True, objectness_score=0.3,
                          background_label_id=0)
    rng = np.random.default_rng(5)
    inputs = [rng.normal(0, 0.2, (2, 12)).astype(F32), rng.uniform(0, 1, (2, 9)).astype(F32),
              np.concatenate([np.tile([0.1, 0.1, 0.4, 0.5], 3).reshape(1, 1, 12), np.full((1, 1, 12), 0.1)],
                             1).astype(F32), rng.uniform(0, 1, (2, 6)).astype(F32),
              rng.normal(0, 0.2, (2, 12)).astype(F32)]
    assert_matches_cpu(op, inputs, by_the_port=False)


def test_ir_run_runs_openvinos_detection_output_ir(tmp_path, capsys):
    loc = ov8.parameter([1, 16], ov.Type.f32, name="loc")
    conf = ov8.parameter([1, 12], ov.Type.f32, name="conf")
    prior_values = np.concatenate([np.array([0.1, 0.1, 0.3, 0.4, 0.2, 0.2, 0.5, 0.6, 0.5, 0.5, 0.9, 0.9,
                                             0.0, 0.1, 0.2, 0.2], F32).reshape(1, 1, 16),
                                   np.full((1, 1, 16), 0.1, F32)], 1)
    node = ov8.detection_output(loc, conf, ov8.constant(prior_values),
                                {"keep_top_k": [5], "nms_threshold": 0.5, "normalized": True,
                                 "code_type": CENTER, "confidence_threshold": 0.05, "clip_after_nms": True})
    result = ov8.result(node)
    result.output(0).get_tensor().set_names({"detections"})
    xml = tmp_path / "detection_output.xml"
    ov.save_model(ov.Model([result], [loc, conf], "ssd_head"), xml, compress_to_fp16=False)
    assert 'code_type="caffe.PriorBoxParameter.CENTER_SIZE"' in xml.read_text()
    rng = np.random.default_rng(7)
    feeds = {"loc": rng.normal(0, 0.3, (1, 16)).astype(F32), "conf": rng.uniform(0, 1, (1, 12)).astype(F32)}
    np.savez(tmp_path / "in.npz", **feeds)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    compiled = ov.Core().compile_model(xml, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    expected = compiled(feeds)[compiled.output(0)]
    with np.load(tmp_path / "out.npz") as written:
        assert_values_close(meaningful_rows(written["detections"]), meaningful_rows(expected), Tolerance(ulp=4, eps=4),
                            "ir-run vs the CPU plugin")
    assert ir.validate(ir.read_model(xml)) == []


def test_spec_example_shapes():
    """detection-output-1.rst / -8.rst: 1344 priors, 2 classes, keep_top_k 200 -> [1, 1, 200, 7]."""
    types = [tt("1,5376"), tt("1,2688"), tt("1,2,5376")]
    for op in (DetectionOutput(num_classes=2, keep_top_k=(200,), nms_threshold=0.45, normalized=True),
               DetectionOutput8(keep_top_k=(200,), nms_threshold=0.45, normalized=True)):
        assert infer(op, types, [None] * 3) == ["[1,1,200,7]"]
        check_types(op, types, same_op(op))


@pytest.mark.parametrize("decrease_label_id", [False, True])
def test_many_overlapping_priors_match_the_port_and_cpu_plugin(decrease_label_id):
    """80 crowded priors, 4 classes: long NMS chains (irgraph drops the candidates a kept box overlaps all at
    once; the reference compares candidate by candidate) give the same detections."""
    rng = np.random.default_rng(11)
    priors, classes = 80, 4
    op = DetectionOutput8(keep_top_k=(50,), top_k=-1, nms_threshold=0.3, confidence_threshold=0.05,
                          normalized=True, code_type=CENTER, decrease_label_id=decrease_label_id)
    centre = rng.uniform(0.3, 0.7, (priors, 2))
    size = rng.uniform(0.1, 0.4, (priors, 2))
    boxes = np.concatenate([centre - size / 2, centre + size / 2], -1).reshape(-1)
    proposals = np.stack([boxes, np.tile([0.1, 0.1, 0.2, 0.2], priors)])[None].astype(F32)
    scores = rng.permutation(np.linspace(0.01, 0.99, priors * classes)).reshape(1, -1).astype(F32)
    inputs = [rng.normal(0, 0.3, (1, priors * 4)).astype(F32), scores, proposals]
    assert_matches_port(op, inputs)
    assert_matches_cpu(op, inputs)
