"""MulticlassNms-8 and -9 against openvino 2026.4.1's CPU plugin (constant folding leaves the op): shared boxes
and MulticlassNms-9's roisnum format, every sort, thresholds, nms_top_k/keep_top_k, background class, nms_eta,
normalized or not; the row bounds of its shape inference and its refusals. Scores are distinct (OpenVINO sorts
scores within 1e-6 as ties, see the module docstring)."""

from __future__ import annotations

import numpy as np
import openvino.opset9 as ov9
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.registry import lookup
from irgraph.ops.sort.multiclass_nms import MulticlassNms, MulticlassNms8
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, cpu_judge, ov_parameter, same_op
from tests.ops.helpers import infer, tt


def draw_op(data, version):
    return version(
        sort_result_type=data.draw(st.sampled_from(["none", "score", "classid"])),
        sort_result_across_batch=data.draw(st.booleans()),
        output_type=data.draw(st.sampled_from([ElementType.I32, ElementType.I64])),
        iou_threshold=data.draw(st.sampled_from([0.0, 0.3, 0.5, 0.7])),
        score_threshold=data.draw(st.sampled_from([0.0, 0.2, 0.5])),
        nms_top_k=data.draw(st.sampled_from([-1, 1, 3])), keep_top_k=data.draw(st.sampled_from([-1, 2, 5])),
        background_class=data.draw(st.sampled_from([-1, 0, 1])), nms_eta=data.draw(st.sampled_from([1.0, 0.5])),
        normalized=data.draw(st.booleans()))


def draw_boxes(data, leading, count):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    corner = rng.uniform(0, 4, (leading, count, 2)).round(1)
    size = rng.uniform(0.5, 3, (leading, count, 2)).round(1)
    return rng, np.concatenate([corner, corner + size], axis=-1).astype(np.float32)


def assert_same_as_cpu(op, inputs):
    """openvino 2026.4.1 folds no MulticlassNms: its CPU plugin is the oracle, through check_op."""
    outcome = check_op(op, inputs, same_op(op), cpu=False,
                       independent=cpu_judge(same_op(op), lambda values, refusal, arrays, types: values))
    assert outcome.judge == "cpu"


@pytest.mark.parametrize("version", [MulticlassNms8, MulticlassNms], ids=lambda c: c.title())
@OP_EXAMPLES
@given(data=st.data())
def test_shared_boxes_match_the_cpu_plugin(version, data):
    batches, classes, count = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 6))
    rng, boxes = draw_boxes(data, batches, count)
    scores = rng.permutation(np.linspace(0.05, 0.95, batches * classes * count)).reshape(
        batches, classes, count).astype(np.float32)
    assert_same_as_cpu(draw_op(data, version), [boxes, scores])


@OP_EXAMPLES
@given(data=st.data())
def test_roisnum_format_matches_the_cpu_plugin(data):
    images, classes = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    counts = np.array(data.draw(st.lists(st.integers(0, 3), min_size=images, max_size=images)), np.int32)
    total = int(counts.sum()) + data.draw(st.integers(0 if counts.sum() else 1, 1))  # boxes past the last run too
    rng, boxes = draw_boxes(data, classes, total)
    scores = rng.permutation(np.linspace(0.05, 0.95, classes * total)).reshape(classes, total).astype(np.float32)
    assert_same_as_cpu(draw_op(data, MulticlassNms), [boxes, scores, counts])


def test_example_outputs():
    """Two classes, shared boxes: class 0 keeps boxes 3 and 0 apart, class 1 box 5 (iou 0.5, openvino 2026.4.1)."""
    boxes = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                       [0, 100, 1, 101]]], np.float32)
    scores = np.array([[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]]], np.float32)
    op = MulticlassNms(iou_threshold=0.5, keep_top_k=3, sort_result_type="classid")
    outputs, indices, counts = op.evaluate([boxes, scores])
    assert indices.ravel().tolist() == [3, 0, 5] and counts.tolist() == [3]
    assert outputs[:, :2].tolist() == [[0, pytest.approx(0.95)], [0, pytest.approx(0.9)], [1, pytest.approx(0.6)]]
    assert outputs[0, 2:].tolist() == [0, 10, 1, 11]  # the box as given


@pytest.mark.parametrize(("boxes", "scores", "attributes", "expected"), [
    ("2,6,4", "2,3,6", {}, "[..36,6] [..36,1] [2]"),
    ("2,6,4", "2,3,6", {"nms_top_k": 2}, "[..12,6] [..12,1] [2]"),
    ("2,6,4", "2,3,6", {"keep_top_k": 4}, "[..8,6] [..8,1] [2]"),
    ("2,6,4", "2,3,6", {"background_class": 1}, "[..36,6] [..36,1] [2]"),  # the background class counts
    ("?,6,4", "?,3,6", {}, "[?,6] [?,1] [?]"),
    ("2,?,4", "2,3,?", {"nms_top_k": 5}, "[?,6] [?,1] [2]"),  # min(unbounded, 5) stays unbounded in OpenVINO
])
def test_shapes_infer_as_openvino(boxes, scores, attributes, expected):
    for version in (MulticlassNms8, MulticlassNms):
        op = version(**attributes)
        inputs = [tt(boxes), tt(scores)]
        check_types(op, inputs, same_op(op))
        assert " ".join(infer(op, inputs, [None, None])) == expected


@pytest.mark.parametrize(("boxes", "scores", "counts", "expected"), [
    ("3,10,4", "3,10", "2", "[..60,6] [..60,1] [2]"), ("3,10,4", "3,10", "?", "[?,6] [?,1] [?]"),
])
def test_roisnum_shapes_infer_as_openvino(boxes, scores, counts, expected):
    op = MulticlassNms()
    inputs = [tt(boxes), tt(scores), tt(counts, "i32")]
    check_types(op, inputs, same_op(op))
    assert " ".join(infer(op, inputs, [None] * 3)) == expected


@pytest.mark.parametrize(("inputs", "message"), [
    ([tt("2,6,5"), tt("2,3,6")], "The last dimension of the 'boxes' input must be equal to 4"),
    ([tt("2,6,4"), tt("2,3,7")], "'boxes' and 'scores' input shapes must match"),
    ([tt("1,6,4"), tt("2,3,6")], "The first dimension of both 'boxes' and 'scores' must match"),
    ([tt("6,4"), tt("2,3,6")], "Expected a 3D tensor for the 'boxes' input"),
    ([tt("2,6,4", "i32"), tt("2,3,6")], "Expected floating point type as element type for the 'boxes' input"),
    ([tt("3,6,4"), tt("3,6,1"), tt("2", "i32")], "Expected a 2D tensor for the 'scores' input"),
    ([tt("3,6,4"), tt("3,6"), tt("2,1", "i32")], "Expected a 1D tensor for the 'roisnum' input"),
    ([tt("3,6,4"), tt("3,6"), tt("2", "f32")], "Expected integer type as element type for the 'roisnum' input"),
])
def test_refused_as_openvino_refuses(inputs, message):
    op = MulticlassNms()
    assert check_types(op, inputs, same_op(op)).refused
    with pytest.raises(OpError, match=message):
        op.infer(inputs, [None] * len(inputs))


@pytest.mark.parametrize(("attributes", "message", "openvino_message"), [
    ({"nms_top_k": -2}, "The 'nms_top_k' must be great or equal -1", None),
    ({"keep_top_k": -2}, "The 'keep_top_k' must be great or equal -1", None),
    ({"background_class": -2}, "The 'background_class' must be great or equal -1", None),
    ({"nms_eta": 1.5}, r"The 'nms_eta' must be in close range \[0, 1.0\]", None),
    ({"output_type": "u8"}, "Output type must be i32 or i64", None),
    ({"sort_result_type": "area"}, "Attribute 'sort_result_type' must be none, score or classid",
     '"area" is not a member of enum op::util::MulticlassNmsBase::SortResultType'),
])
def test_refused_attributes_as_openvino_refuses(attributes, message, openvino_message):
    """openvino 2026.4.1 refuses each of these with a RuntimeError when it builds the node: its validation's
    message (irgraph's) or, for an enum attribute, its enum parser's."""
    with pytest.raises(RuntimeError, match=openvino_message or message):
        ov9.multiclass_nms(ov_parameter(tt("1,2,4")), ov_parameter(tt("1,1,2")), **attributes)
    ours = {k: ElementType.from_ir_name(v) if k == "output_type" else v for k, v in attributes.items()}
    with pytest.raises(OpError, match=message):
        MulticlassNms(**ours)


def test_defaults_versions_and_eta_zero():
    node = ov9.multiclass_nms(ov_parameter(tt("1,2,4")), ov_parameter(tt("1,1,2")))
    ours = {f.ir_name: getattr(MulticlassNms(), f.name) for f in MulticlassNms().attribute_fields()}
    assert {k: v.ir_name if isinstance(v, ElementType) else v for k, v in ours.items()} == node.get_attributes()
    assert lookup("MulticlassNms", "opset8") is MulticlassNms8
    assert lookup("MulticlassNms", "opset9") is MulticlassNms is lookup("MulticlassNms", "opset16")
    ov9.multiclass_nms(ov_parameter(tt("1,2,4")), ov_parameter(tt("1,1,2")), nms_eta=0.0)  # accepted: so here
    assert MulticlassNms(nms_eta=0.0).nms_eta == 0.0


def test_attribute_order_and_roisnum_past_the_boxes():
    assert list(MulticlassNms().to_attributes()) == [
        "sort_result_type", "output_type", "nms_top_k", "keep_top_k", "sort_result_across_batch", "iou_threshold",
        "score_threshold", "background_class", "nms_eta", "normalized"]
    boxes, scores = np.zeros((1, 3, 4), np.float32), np.zeros((1, 3), np.float32)
    with pytest.raises(OpError, match=r"'roisnum' asks for boxes 2..4 of 3"):
        MulticlassNms().evaluate([boxes, scores, np.array([2, 3], np.int32)])
