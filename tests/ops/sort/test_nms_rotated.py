"""NMSRotated-13 against openvino 2026.4.1's CPU plugin (it neither folds nor evaluates the op): rotated boxes
of both angle directions, thresholds, the per-class limit, sorted or not; the rotated IoU against areas worked
out by hand; shape inference and refusals. Scores are distinct (no tie order to argue about)."""

from __future__ import annotations

import math

import numpy as np
import openvino as ov
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.sort.nms_rotated import NMSRotated, rotated_iou
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, cpu_judge, ov_ops, same_op
from tests.ops.helpers import infer, tt
from tests.ops.sort.test_non_max_suppression import counted_rows

F32 = np.float32


@OP_EXAMPLES
@given(data=st.data())
def test_generated_configurations_match_the_cpu_plugin(data):
    batches, classes, count = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 7))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    boxes = np.concatenate([rng.uniform(0, 8, (batches, count, 2)), rng.uniform(0.5, 5, (batches, count, 2)),
                            rng.uniform(-math.pi, math.pi, (batches, count, 1))], -1).astype(F32)
    scores = rng.permutation(np.linspace(0.05, 0.95, batches * classes * count)).reshape(
        batches, classes, count).astype(F32)
    # i32 indices: the harness runs the CPU plugin on the types it computes in their own width
    op = NMSRotated(sort_result_descending=data.draw(st.booleans()), clockwise=data.draw(st.booleans()),
                    output_type=ElementType.I32)
    inputs = [boxes, scores, np.array(data.draw(st.integers(0, 5)), np.int32),
              np.array(data.draw(st.sampled_from([0.1, 0.3, 0.5, 0.7])), F32),
              np.array(data.draw(st.sampled_from([0.0, 0.2, 0.5])), F32)]
    outcome = check_op(op, inputs, same_op(op), constant=(2,), cpu=False,
                       independent=cpu_judge(same_op(op), counted_rows, constant=(2,)))
    assert outcome.judge == "cpu"


def test_rotated_iou_against_areas_by_hand():
    square = np.array([0, 0, 2, 2, 0], F32)
    others = np.array([[0, 0, 2, 2, 0], [1, 0, 2, 2, 0], [0, 0, 2, 2, math.pi / 4], [0, 0, 2, 2, math.pi / 2],
                       [5, 5, 1, 1, 0], [0, 0, 0, 2, 0], [0, 0, 4, 1, math.pi / 2]], F32)
    octagon = 8 * (math.sqrt(2) - 1)  # a 2x2 square and itself turned by 45 degrees
    expected = [1.0, 2 / 6, octagon / (8 - octagon), 1.0, 0.0, 0.0, 2 / (4 + 4 - 2)]
    np.testing.assert_allclose(rotated_iou(square, others), expected, rtol=1e-6, atol=1e-7)


def test_rotated_iou_treats_a_cross_product_of_1e_14_as_parallel():
    """detectron2's box_iou_rotated (which OpenVINO ports) skips an edge pair whose cross product is <= 1e-14 in
    magnitude. The 4-long bottom edge of the first box at y = 0 and the 2.5e-15-long sides of the thin box give
    exactly 4 * 2.5e-15 = 1e-14: no crossing is taken, only the thin box's two upper corners lie in the first box,
    so the intersection has no area and the IoU is 0 (geometrically 2.5e-15 / 4)."""
    wide = np.array([0, 0.5, 4, 1, 0])
    thin = np.array([[0, 0, 2, 2.5e-15, 0]])
    assert rotated_iou(wide, thin).tolist() == [0.0]


def test_spec_style_example():
    """Two boxes of one class overlapping by IoU 1/3 and a far one: with iou_threshold 0.3 the second is
    suppressed; sorted by score."""
    boxes = np.array([[[0, 0, 2, 2, 0], [1, 0, 2, 2, 0], [7, 7, 2, 1, 0.5]]], F32)
    scores = np.array([[[0.9, 0.8, 0.5]]], F32)
    inputs = [boxes, scores, np.array(10, np.int32), np.array(0.3, F32), np.array(0.0, F32)]
    indices, selected, valid = NMSRotated(output_type=ElementType.I32).evaluate(inputs)
    assert indices.tolist() == [[0, 0, 0], [0, 0, 2]] and valid.tolist() == [2]
    assert selected.tolist() == [[0, 0, np.float32(0.9)], [0, 0, np.float32(0.5)]]
    op = NMSRotated(output_type=ElementType.I32)
    assert check_op(op, inputs, same_op(op), constant=(2,)).cpu


def test_partial_shapes_and_refusals():
    op = NMSRotated()
    limit = np.array(3, np.int64)
    for types in ([tt("2,6,5"), tt("2,3,6"), tt("", "i64"), tt(""), tt("")],
                  [tt("?,?,5"), tt("?,3,?"), tt("", "i64"), tt("1"), tt("")]):
        check_types(op, types, same_op(op), [None, None, limit, None, None])
    assert infer(op, [tt("2,6,5"), tt("2,3,6"), tt("", "i64"), tt(""), tt("")],
                 [None, None, limit, None, None]) == ["[..18,3]", "[..18,3]", "[1]"]
    for types, message in (([tt("2,6,4"), tt("2,3,6"), tt("", "i64"), tt(""), tt("")], "equal to 5"),
                           ([tt("2,6,5"), tt("2,3,7"), tt("", "i64"), tt(""), tt("")], "must match"),
                           ([tt("2,6,5"), tt("2,3,6"), tt("", "i64"), tt("2"), tt("")], "0D or 1D")):
        with pytest.raises(OpError, match=message):
            infer(op, types, [None, None, limit, None, None])
        check_types(op, types, same_op(op), [None, None, limit, None, None])  # OpenVINO refuses them too


def test_ir_run_runs_openvinos_nms_rotated_ir(tmp_path, capsys):
    boxes = ov_ops.parameter([1, 5, 5], ov.Type.f32, name="boxes")
    scores = ov_ops.parameter([1, 2, 5], ov.Type.f32, name="scores")
    from openvino.utils.node_factory import NodeFactory
    node = NodeFactory("opset13").create("NMSRotated", [
        boxes.output(0), scores.output(0), ov_ops.constant(np.array(3, np.int64)).output(0),
        ov_ops.constant(np.array(0.4, F32)).output(0), ov_ops.constant(np.array(0.1, F32)).output(0)],
        {"sort_result_descending": True, "output_type": "i32", "clockwise": False})
    results = [ov_ops.result(node.output(i)) for i in range(3)]
    for result, name in zip(results, ("indices", "selected", "valid"), strict=True):
        result.output(0).get_tensor().set_names({name})
    xml = tmp_path / "nms_rotated.xml"
    ov.save_model(ov.Model(results, [boxes, scores], "nms"), xml, compress_to_fp16=False)
    rng = np.random.default_rng(2)
    feeds = {"boxes": np.concatenate([rng.uniform(0, 5, (1, 5, 2)), rng.uniform(1, 4, (1, 5, 2)),
                                      rng.uniform(-1, 1, (1, 5, 1))], -1).astype(F32),
             "scores": rng.permutation(np.linspace(0.05, 0.95, 10)).reshape(1, 2, 5).astype(F32)}
    np.savez(tmp_path / "in.npz", **feeds)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    compiled = ov.Core().compile_model(xml, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    expected = compiled(feeds)
    with np.load(tmp_path / "out.npz") as written:
        for index, name in enumerate(("indices", "selected", "valid")):
            np.testing.assert_array_equal(written[name], expected[compiled.output(index)])
    assert ir.validate(ir.read_model(xml)) == []


def test_spec_example_shapes():
    """nms-rotated-13.rst: boxes [3, 100, 5], scores [3, 5, 100], at most 10 per class -> [..150, 3]."""
    op = NMSRotated()
    types = [tt("3,100,5"), tt("3,5,100"), tt("", "i64"), tt(""), tt("")]
    values = [None, None, np.array(10, np.int64), None, None]
    assert infer(op, types, values) == ["[..150,3]", "[..150,3]", "[1]"]
    check_types(op, types, same_op(op), values)
