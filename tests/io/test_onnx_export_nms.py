"""NonMaxSuppression-1/3/4/5/9 as ONNX NonMaxSuppression and the pattern around it: on generated configurations
(overlapping boxes in both encodings, tied and distinct scores, limits, thresholds present and absent, sorted
and unsorted results) onnxruntime 1.31.1 gives irgraph's selected indices, selected scores and counts exactly.
Bounded examples (``OP_EXAMPLES``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irgraph as ir
from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError
from irgraph.ops.sort.matrix_nms import MatrixNms
from irgraph.ops.sort.multiclass_nms import MulticlassNms, MulticlassNms8
from irgraph.ops.sort.non_max_suppression import (
    NonMaxSuppression,
    NonMaxSuppression1,
    NonMaxSuppression3,
    NonMaxSuppression4,
    NonMaxSuppression5,
)
from tests.io.test_onnx_export_rules import Case, check_case, one_op_model
from tests.ops.differential import OP_EXAMPLES

pytestmark = pytest.mark.oracle

VERSIONS = [NonMaxSuppression1, NonMaxSuppression3, NonMaxSuppression4, NonMaxSuppression5, NonMaxSuppression]


def boxes_and_scores(rng: np.random.Generator, batches: int, classes: int, count: int, ties: bool,
                     spread: float = 4.0):
    """Boxes clustered so that many overlap (corners in any order), scores in (0, 1) or on a coarse grid (ties)."""
    centres = rng.uniform(0, spread, (batches, count, 2))
    sizes = rng.uniform(0.5, 2, (batches, count, 2))
    corners = np.concatenate([centres - sizes / 2, centres + sizes / 2], axis=-1)
    flip = rng.integers(0, 2, (batches, count, 1)).astype(bool)
    corners = np.where(flip, corners[..., [2, 3, 0, 1]], corners)  # OpenVINO orders each box's corners
    scores = rng.uniform(0, 1, (batches, classes, count))
    if ties:
        scores = np.round(scores * 4) / 4
    return corners.astype(np.float32), scores.astype(np.float32), np.concatenate([centres, sizes], -1).astype(
        np.float32)


@pytest.mark.parametrize("op_class", VERSIONS, ids=lambda c: c.title())
@OP_EXAMPLES
@given(data=st.data())
def test_non_max_suppression_runs_in_onnxruntime_as_in_irgraph(op_class, data):
    draw = data.draw
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    batches, classes, count = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 8))
    corners, scores, centred = boxes_and_scores(rng, batches, classes, count, draw(st.booleans()))
    attributes = {"box_encoding": draw(st.sampled_from(["corner", "center"])),
                  "sort_result_descending": draw(st.booleans())}
    if op_class not in (NonMaxSuppression1,):
        attributes["output_type"] = draw(st.sampled_from([ElementType.I32, ElementType.I64]))
    boxes = centred if attributes["box_encoding"] == "center" else corners
    inputs = [boxes, scores, np.asarray(draw(st.integers(0, count + 1)), np.int64),
              np.asarray(draw(st.sampled_from([0.0, 0.3, 0.5, 0.7])), np.float32)]
    if draw(st.booleans()):
        inputs.append(np.asarray(draw(st.sampled_from([0.0, 0.25, 0.5])), np.float32))
    computed_threshold = op_class is NonMaxSuppression and draw(st.booleans())
    constant = (2, 4) if computed_threshold else tuple(range(2, len(inputs)))
    check_case(Case(op_class(**attributes), inputs, constant=constant, opsets=(draw(st.sampled_from([13, 18])),)))


def test_soft_nms_and_computed_inclusive_thresholds_are_refused():
    rng = np.random.default_rng(0)
    corners, scores, _ = boxes_and_scores(rng, 1, 1, 4, False)
    soft = Case(NonMaxSuppression(), [corners, scores, np.asarray(2, np.int64), np.asarray(0.5, np.float32),
                                      np.asarray(0.0, np.float32), np.asarray(0.5, np.float32)],
                constant=(2, 3, 4, 5))
    with pytest.raises(ConversionError, match=r"layer \d+ 'op': soft-NMS \(soft_nms_sigma not a constant 0\) has no "
                                              r"ONNX form"):
        ir.export_onnx(one_op_model(soft)[0])
    computed = Case(NonMaxSuppression5(), [corners, scores, np.asarray(2, np.int64), np.asarray(0.5, np.float32)],
                    constant=(2,))
    with pytest.raises(ConversionError, match=r"its iou_threshold is computed: IoU >= threshold"):
        ir.export_onnx(one_op_model(computed)[0])


@pytest.mark.parametrize("op_class", [MulticlassNms8, MulticlassNms], ids=lambda c: c.title())
@OP_EXAMPLES
@given(data=st.data())
def test_multiclass_nms_runs_in_onnxruntime_as_in_irgraph(op_class, data):
    """Ordered corners (as detectors decode them), scores away from score_threshold (module docstring of the rule:
    OpenVINO treats a score equal to it apart), every sort, cut and background setting."""
    draw = data.draw
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    batches, classes, count = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 8))
    corners, scores, _ = boxes_and_scores(rng, batches, classes, count, draw(st.booleans()))
    corners = np.concatenate([np.minimum(corners[..., :2], corners[..., 2:]),
                              np.maximum(corners[..., :2], corners[..., 2:])], axis=-1)
    score_threshold = draw(st.sampled_from([0.0, 0.3, 0.6]))
    scores = np.where(scores == np.float32(score_threshold), scores + np.float32(0.01), scores)
    op = op_class(sort_result_type=draw(st.sampled_from(["none", "score", "classid"])),
                  output_type=draw(st.sampled_from([ElementType.I32, ElementType.I64])),
                  nms_top_k=draw(st.sampled_from([-1, 0, 1, 3])), keep_top_k=draw(st.sampled_from([-1, 1, 4])),
                  sort_result_across_batch=draw(st.booleans()),
                  iou_threshold=draw(st.sampled_from([0.0, 0.3, 0.5, 1.0])), score_threshold=score_threshold,
                  background_class=draw(st.sampled_from([-1, 0, 1])))
    check_case(Case(op, [corners, scores], opsets=(draw(st.sampled_from([13, 18])),)))


def test_multiclass_nms_forms_onnx_has_none_for_are_refused():
    rng = np.random.default_rng(0)
    corners, scores, _ = boxes_and_scores(rng, 1, 2, 4, False)
    for op, reason in ((MulticlassNms(normalized=False), "normalized=false adds 1 to each side"),
                       (MulticlassNms8(nms_eta=0.5), "nms_eta 0.5 lowers the threshold")):
        with pytest.raises(ConversionError, match=reason):
            ir.export_onnx(one_op_model(Case(op, [corners, scores]))[0])


@OP_EXAMPLES
@given(data=st.data())
def test_matrix_nms_runs_in_onnxruntime_as_in_irgraph(data):
    """Both decays, normalized or not, corners in any order, every cut, sort and background setting."""
    draw = data.draw
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    batches, classes, count = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(2, 8))
    corners, scores, _ = boxes_and_scores(rng, batches, classes, count, draw(st.booleans()), spread=1.0)
    op = MatrixNms(sort_result_type=draw(st.sampled_from(["none", "score", "classid"])),
                   output_type=draw(st.sampled_from([ElementType.I32, ElementType.I64])),
                   nms_top_k=draw(st.sampled_from([-1, 0, 2, 5])), keep_top_k=draw(st.sampled_from([-1, 1, 4])),
                   sort_result_across_batch=draw(st.booleans()),
                   score_threshold=draw(st.sampled_from([0.0, 0.3])), background_class=draw(st.sampled_from([-1, 0])),
                   decay_function=draw(st.sampled_from(["linear", "gaussian"])),
                   gaussian_sigma=draw(st.sampled_from([0.5, 2.0])), post_threshold=draw(st.sampled_from([0.0, 0.2])),
                   normalized=draw(st.booleans()))
    check_case(Case(op, [corners, scores], opsets=(draw(st.sampled_from([13, 18])),)))
