"""MatrixNms-8 against openvino 2026.4.1's CPU plugin (constant folding leaves the op): linear and gaussian
decay, thresholds, top-k, background class, sorts, normalized or not; shapes and refusals. Scores are distinct
(no tie order to argue about)."""

from __future__ import annotations

import numpy as np
import openvino.opset8 as ov8
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.registry import lookup
from irgraph.ops.sort.matrix_nms import MatrixNms
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, cpu_judge, ov_cpu, ov_parameter, same_op
from tests.ops.helpers import infer, tt


def read_matrix_nms(values, refusal, inputs, types):
    """The CPU plugin's outputs; its refusal when it keeps no box as that answer: no rows, zero counts."""
    if values is None and refusal and "Total number of boxes is less or equal than 0" in refusal:
        batches = inputs[0].shape[0]
        return [np.zeros((0, 6), np.float32), np.zeros((0, 1), types[1].element_type.numpy_dtype),
                np.zeros(batches, types[2].element_type.numpy_dtype)]
    return values


@OP_EXAMPLES
@given(data=st.data())
def test_matrix_nms_matches_the_cpu_plugin(data):
    batches, classes, count = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 6))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    grid = data.draw(st.sampled_from([1, 10]))  # on a 1.0 grid boxes often touch edge to edge
    corner = rng.uniform(0, 4, (batches, count, 2)).round(0 if grid == 1 else 1)
    size = rng.uniform(0.5, 3, (batches, count, 2)).round(0 if grid == 1 else 1)
    boxes = np.concatenate([corner, corner + size], axis=-1).astype(np.float32)
    if data.draw(st.booleans()):
        boxes = boxes[..., [2, 1, 0, 3]]  # reversed corners: no area, as the reference reads them
    scores = rng.permutation(np.linspace(0.05, 0.95, batches * classes * count)).reshape(
        batches, classes, count).astype(np.float32)
    op = MatrixNms(
        sort_result_type=data.draw(st.sampled_from(["none", "score", "classid"])),
        sort_result_across_batch=data.draw(st.booleans()),
        output_type=data.draw(st.sampled_from([ElementType.I32, ElementType.I64])),
        score_threshold=data.draw(st.sampled_from([0.0, 0.2, 0.5])), nms_top_k=data.draw(st.sampled_from([-1, 1, 3])),
        keep_top_k=data.draw(st.sampled_from([-1, 2, 5])), background_class=data.draw(st.sampled_from([-1, 0, 1])),
        decay_function=data.draw(st.sampled_from(["linear", "gaussian"])),
        gaussian_sigma=data.draw(st.sampled_from([2.0, 0.5])),
        post_threshold=data.draw(st.sampled_from([0.0, 0.1, 0.3])),
        normalized=data.draw(st.booleans()))
    inputs = [boxes, scores]
    outcome = check_op(op, inputs, same_op(op), cpu=False, independent=cpu_judge(same_op(op), read_matrix_nms))
    assert outcome.judge == "cpu"


def test_linear_decay_example():
    """Three overlapping boxes of one class: box 1 decays by (1 - 0.6) / 1 to 0.32, box 2 by its iou 1/3 with box 0
    to about 0.467 (its iou 0.6 with box 1 is box 1's own max: no decay), so box 2 comes before box 1 (openvino
    2026.4.1's CPU plugin gives the same values)."""
    boxes = np.array([[[0, 0, 2, 2], [0, 0.5, 2, 2.5], [0, 1, 2, 3]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.7]]], np.float32)
    op = MatrixNms(output_type=ElementType.I32)
    outputs, indices, counts = op.evaluate([boxes, scores])
    assert indices.ravel().tolist() == [0, 2, 1] and counts.tolist() == [3]
    expected = [o.tolist() for o in ov_cpu(same_op(op), [boxes, scores], ())]
    assert [outputs.tolist(), indices.tolist(), counts.tolist()] == expected
    assert outputs[2, 1] == np.float32(0.8) * (np.float32(1) - np.float32(1.5) / np.float32(2.5))


def test_nothing_kept_gives_empty_outputs():
    """openvino 2026.4.1's CPU plugin fails ("Total number of boxes is less or equal than 0", read as this answer
    by read_matrix_nms); irgraph returns empty outputs with zero counts."""
    boxes, scores = np.zeros((2, 3, 4), np.float32), np.full((2, 1, 3), 0.1, np.float32)
    outputs, indices, counts = MatrixNms(score_threshold=0.5).evaluate([boxes, scores])
    assert outputs.shape == (0, 6) and indices.shape == (0, 1) and counts.tolist() == [0, 0]


@pytest.mark.parametrize(("boxes", "scores", "attributes", "expected"), [
    ("2,6,4", "2,3,6", {}, "[..36,6] [..36,1] [2]"),
    ("2,6,4", "2,3,6", {"nms_top_k": 2}, "[..12,6] [..12,1] [2]"),
    ("2,6,4", "2,3,6", {"keep_top_k": 4}, "[..8,6] [..8,1] [2]"),
    ("2,6,4", "2,3,6", {"background_class": 1}, "[..36,6] [..36,1] [2]"),
    ("?,6,4", "?,3,6", {}, "[?,6] [?,1] [?]"),
    ("2,6,4", "...", {}, "[?,6] [?,1] [2]"),
])
def test_shapes_infer_as_openvino(boxes, scores, attributes, expected):
    op = MatrixNms(**attributes)
    inputs = [tt(boxes), tt(scores)]
    check_types(op, inputs, same_op(op))
    assert " ".join(infer(op, inputs, [None, None])) == expected


@pytest.mark.parametrize(("inputs", "message"), [
    ([tt("2,6,5"), tt("2,3,6")], "The last dimension of the 'boxes' input must be equal to 4"),
    ([tt("2,6,4"), tt("2,3,7")], "'boxes' and 'scores' input shapes must match"),
    ([tt("6,4"), tt("2,3,6")], "Expected a 3D tensor for the 'boxes' input"),
])
def test_refused_as_openvino_refuses(inputs, message):
    op = MatrixNms()
    assert check_types(op, inputs, same_op(op)).refused
    with pytest.raises(OpError, match=message):
        op.infer(inputs, [None, None])


@pytest.mark.parametrize(("attributes", "message", "openvino_message"), [
    ({"nms_top_k": -2}, "The 'nms_top_k' must be great or equal -1", None),
    ({"keep_top_k": -2}, "The 'keep_top_k' must be great or equal -1", None),
    ({"background_class": -2}, "The 'background_class' must be great or equal -1", None),
    ({"decay_function": "cosine"}, "Attribute 'decay_function' must be linear or gaussian",
     '"cosine" is not a member of enum op::v8::MatrixNms::DecayFunction'),
    ({"output_type": "u8"}, "Output type must be i32 or i64", None),
])
def test_refused_attributes_as_openvino_refuses(attributes, message, openvino_message):
    """openvino 2026.4.1 refuses each of these with a RuntimeError when it builds the node: its validation's
    message (irgraph's) or, for an enum attribute, its enum parser's."""
    with pytest.raises(RuntimeError, match=openvino_message or message):
        ov8.matrix_nms(ov_parameter(tt("1,2,4")), ov_parameter(tt("1,1,2")), **attributes)
    ours = {k: ElementType.from_ir_name(v) if k == "output_type" else v for k, v in attributes.items()}
    with pytest.raises(OpError, match=message):
        MatrixNms(**ours)


def test_attribute_order_defaults_and_versions():
    node = ov8.matrix_nms(ov_parameter(tt("1,2,4")), ov_parameter(tt("1,1,2")))
    ours = {f.ir_name: getattr(MatrixNms(), f.name) for f in MatrixNms().attribute_fields()}
    assert {k: v.ir_name if isinstance(v, ElementType) else v for k, v in ours.items()} == node.get_attributes()
    assert lookup("MatrixNms", "opset8") is MatrixNms is lookup("MatrixNms", "opset16")
    assert list(MatrixNms().to_attributes()) == [
        "sort_result_type", "output_type", "nms_top_k", "keep_top_k", "sort_result_across_batch", "score_threshold",
        "background_class", "decay_function", "gaussian_sigma", "post_threshold", "normalized"]
