"""Patterns of real exports that irgraph once re-wrote differently (issue 25), now byte for byte.

Each model is built with openvino 2026.4.1's Python API as its converters build them, saved by
``ov.save_model``; irgraph reads it and writes it again, and both files must equal OpenVINO's,
which must read irgraph's file back with the same output shapes:

* Pad-12 whose pads are computed from the input's shape (PyTorch's ``aten::pad`` through Reshape,
  Split, Squeeze, Gather and Concat in a Mamba export; Swin's ``(window - width % window) %
  window`` with FloorMod): the static dims the pads leave alone stay static;
* an empty Const wrapping a zero-byte tensor (``torch.empty`` in an If body) keeps ``size="0"``,
  one OpenVINO allocated keeps ``size="1"``;
* If body Parameters keep the bounds OpenVINO's inference gave them (``..600`` from TopK with
  ``k = min(n, 300)`` in SSDLite and Faster R-CNN, not the scores' ``..6468``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.ops import Const, Parameter

ov = pytest.importorskip("openvino", reason="the test extra installs openvino")
ops = pytest.importorskip("openvino.opset13")
ops11 = pytest.importorskip("openvino.opset11")
ops12 = pytest.importorskip("openvino.opset12")

pytestmark = pytest.mark.oracle
Dimension, PartialShape = ov.Dimension, ov.PartialShape


def _rewrite(model: ov.Model, tmp_path: Path) -> ir.Model:
    """Save ``model`` with OpenVINO, re-write it with irgraph; assert both files are equal and OpenVINO reads it."""
    original = tmp_path / "openvino.xml"
    ov.save_model(model, original, compress_to_fp16=False)
    read = ir.read_model(original)
    rewritten = tmp_path / "irgraph.xml"
    ir.write_model(read, rewritten)
    assert rewritten.read_text("utf-8") == original.read_text("utf-8")
    assert rewritten.with_suffix(".bin").read_bytes() == original.with_suffix(".bin").read_bytes()
    again = ov.Core().read_model(rewritten)
    assert [str(o.get_partial_shape()) for o in again.outputs] == [str(o.get_partial_shape()) for o in model.outputs]
    return read


def _i64(*values: int):
    return ops.constant(np.array(values, np.int64))


def _torch_pad(x, paddings):
    """PyTorch frontend's ``aten::pad``: the flat (last axis first) pairs reshaped, split and reversed."""
    pairs = ops.reshape(paddings, ops.constant(np.array([-1, 2], np.int32)), False)
    split = ops.split(pairs, ops.constant(np.int32(1)), 2)
    count = paddings.get_output_partial_shape(0)[0].get_length() // 2
    reverse = ops.constant(np.arange(count - 1, -1, -1, dtype=np.int32))
    sides = [ops.gather(ops.squeeze(split.output(i), ops.constant(np.int32(1))), reverse, ops.constant(np.int32(0)))
             for i in range(2)]
    rank = x.get_output_partial_shape(0).rank.get_length()
    zeros = _i64(*[0] * (rank - count))
    return ops12.pad(x, ops.concat([zeros, sides[0]], 0), ops.concat([zeros, sides[1]], 0), "constant",
                     ops.constant(np.float32(0)))


@pytest.mark.parametrize("shape", [[-1, 128, -1], [1, 128, Dimension(1, 64)], [2, 128, 7]])
def test_pad_with_pads_computed_from_the_shape_keeps_the_static_dims(shape: list, tmp_path: Path) -> None:
    """Mamba's causal conv state: ``F.pad(h, (kernel - h.shape[-1], 0))`` on [batch, 128, length]."""
    x = ops.parameter(PartialShape(shape), np.float32, name="x")
    length = ops.gather(ops.shape_of(x), ops.constant(np.int64(2)), ops.constant(np.int64(0)))
    left = ops.unsqueeze(ops.subtract(ops.constant(np.int64(4)), length), ops.constant(np.int64(0)))
    pad = _torch_pad(x, ops.concat([left, _i64(0)], 0))
    assert pad.get_output_partial_shape(0)[1] == Dimension(128)
    _rewrite(ov.Model([ops.result(ops.relu(pad))], [x], "mamba_pad"), tmp_path)


@pytest.mark.parametrize("shape", [[-1, -1, -1, 32], [1, Dimension(1, 100), Dimension(8, 9), 32], [1, 56, 56, 32]])
def test_pad_to_a_multiple_of_the_window_keeps_the_channels(shape: list, tmp_path: Path) -> None:
    """Swin's ``maybe_pad``: (0, 0, 0, (7 - w % 7) % 7, 0, (7 - h % 7) % 7) on [batch, h, w, 32]."""
    x = ops.parameter(PartialShape(shape), np.float32, name="x")
    seven = ops.constant(np.int64(7))

    def to_multiple(axis: int):
        size = ops.gather(ops.shape_of(x), ops.constant(np.int64(axis)), ops.constant(np.int64(0)))
        return ops.unsqueeze(ops.floor_mod(ops.subtract(seven, ops.floor_mod(size, seven)), seven),
                             ops.constant(np.int64(0)))

    pad = _torch_pad(x, ops.concat([_i64(0, 0, 0), to_multiple(2), _i64(0), to_multiple(1)], 0))
    assert pad.get_output_partial_shape(0)[3] == Dimension(32)
    _rewrite(ov.Model([ops.result(ops.relu(pad))], [x], "swin_pad"), tmp_path)


def _if(condition, value, then_result, else_result, then_parameter, else_parameter):
    node = ops.if_op(condition)
    node.set_then_body(ov.Model([then_result], [then_parameter], "then"))
    node.set_else_body(ov.Model([else_result], [else_parameter], "else"))
    node.set_input(value, then_parameter, else_parameter)
    return node.set_output(then_result, else_result)


def test_empty_consts_keep_the_size_openvino_gave_them(tmp_path: Path) -> None:
    """``torch.empty((0,))`` in the branch for no boxes: a Constant on a zero-byte tensor is written with size 0."""
    boxes = ops.parameter(PartialShape([-1, 4]), np.float32, name="boxes")
    condition = ops.parameter([], np.bool_, name="no_boxes")
    then_boxes = ops.parameter(PartialShape([-1, 4]), np.float32, name="then_boxes")
    zero_bytes = ops.constant(ov.Tensor(np.zeros((0, 4), np.float32)))
    then_result = ops.result(ops.concat([then_boxes, zero_bytes], 0))
    else_boxes = ops.parameter(PartialShape([-1, 4]), np.float32, name="else_boxes")
    allocated = ops.constant(np.zeros((0, 4), np.float32))
    else_result = ops.result(ops.concat([else_boxes, allocated], 0))
    out = _if(condition, boxes.output(0), then_result, else_result, then_boxes, else_boxes)
    top = ops.concat([out, ops.constant(ov.Tensor(np.zeros((0, 4), np.float32)))], 0)
    model = ov.Model([ops.result(top)], [boxes, condition], "empty_consts")
    read = _rewrite(model, tmp_path)
    text = (tmp_path / "openvino.xml").read_text("utf-8")
    assert text.count('shape="0, 4" offset="0" size="0"') == 2 and text.count('shape="0, 4" offset="0" size="1"') == 1
    zero_byte = [node.op for node in read if isinstance(node.op, Const) and node.op.zero_byte_blob]
    assert len(zero_byte) == 1  # the top-level one; the body's is inside its If


def test_body_parameters_keep_the_bounds_of_a_top_k_by_a_bounded_k(tmp_path: Path) -> None:
    """SSDLite's post-processing: k = min(#scores, 300) per image, two images' detections concatenated:
    ``2..600``, where irgraph once wrote the scores' ``..6468`` into the If bodies."""
    scores = ops.parameter(PartialShape([Dimension(1, 3234)]), np.float32, name="scores")
    condition = ops.parameter([], np.bool_, name="empty")
    count = ops.gather(ops.shape_of(scores), ops.constant(np.int64(0)), ops.constant(np.int64(0)))
    top = ops11.topk(scores, ops.minimum(count, ops.constant(np.int64(300))), 0, "max", "value")
    both = ops.concat([top.output(0), top.output(0)], 0)
    then_scores = ops.parameter(PartialShape([-1]), np.float32, name="then_scores")
    else_scores = ops.parameter(PartialShape([-1]), np.float32, name="else_scores")
    out = _if(condition, both.output(0), ops.result(ops.relu(then_scores)), ops.result(ops.sigmoid(else_scores)),
              then_scores, else_scores)
    _rewrite(ov.Model([out], [scores, condition], "top_k_if"), tmp_path)
    assert (tmp_path / "irgraph.xml").read_text("utf-8").count('<data shape="2..600" element_type="f32" />') == 2


def test_body_parameters_keep_bounds_irgraph_does_not_infer(tmp_path: Path) -> None:
    """openvino 2026.4.1 bounds a Power of shape values by its corners (``1..100``), irgraph does not (``?``,
    a power is not monotonic in general): the declared interval lies within irgraph's, so it is OpenVINO's
    tighter inference and is kept."""
    x = ops.parameter(PartialShape([Dimension(1, 100)]), np.float32, name="x")
    condition = ops.parameter([], np.bool_, name="c")
    value = ops.broadcast(ops.constant(np.float32(1)), ops.power(ops.shape_of(x), _i64(1)))
    then_value = ops.parameter(PartialShape([-1]), np.float32, name="then_value")
    else_value = ops.parameter(PartialShape([-1]), np.float32, name="else_value")
    out = _if(condition, value.output(0), ops.result(ops.relu(then_value)), ops.result(ops.sigmoid(else_value)),
              then_value, else_value)
    read = _rewrite(ov.Model([out], [x, condition], "power_if"), tmp_path)
    (broadcast,) = [node for node in read if node.type_name == "Broadcast"]
    assert str(broadcast.outputs[0].type.shape) == "[?]"  # irgraph's own inference
    written = (tmp_path / "irgraph.xml").read_text("utf-8")
    assert written.count('<data shape="1..100" element_type="f32" />') == 3  # x and both body Parameters


def test_body_parameters_take_a_changed_outer_type(tmp_path: Path) -> None:
    """A declared interval outside what the outer input now gives is replaced, as OpenVINO replaces it."""
    x = ops.parameter(PartialShape([Dimension(1, 600)]), np.float32, name="x")
    condition = ops.parameter([], np.bool_, name="c")
    then_value = ops.parameter(PartialShape([-1]), np.float32, name="then_value")
    else_value = ops.parameter(PartialShape([-1]), np.float32, name="else_value")
    out = _if(condition, x.output(0), ops.result(ops.relu(then_value)), ops.result(ops.sigmoid(else_value)),
              then_value, else_value)
    ov.save_model(ov.Model([out], [x, condition], "m"), tmp_path / "m.xml")
    model = ir.read_model(tmp_path / "m.xml")
    node = model.parameters[0]
    node.op = Parameter(shape=ir.Shape.parse("2..500"), element_type=node.op.element_type)
    ir.write_model(model, tmp_path / "irgraph.xml")
    ov.save_model(ov.Core().read_model(tmp_path / "irgraph.xml"), tmp_path / "openvino.xml", compress_to_fp16=False)
    assert (tmp_path / "irgraph.xml").read_text("utf-8").count('<data shape="2..500" element_type="f32" />') == 3
    assert (tmp_path / "irgraph.xml").read_bytes() == (tmp_path / "openvino.xml").read_bytes()


def test_a_zero_byte_const_in_a_file_without_bodies_keeps_its_size(tmp_path: Path) -> None:
    """The same through the fast reader (files without bodies): both sizes, deduplicated as OpenVINO does."""
    x = ops.parameter(PartialShape([-1, 4]), np.float32, name="x")
    parts = [x, ops.constant(ov.Tensor(np.zeros((0, 4), np.float32))), ops.constant(np.zeros((0, 4), np.float32)),
             ops.constant(ov.Tensor(np.zeros((0, 4), np.float32))), ops.constant(np.ones((1, 4), np.float32))]
    _rewrite(ov.Model([ops.result(ops.concat(parts, 0))], [x], "zero_bytes"), tmp_path)
    text = (tmp_path / "openvino.xml").read_text("utf-8")
    assert text.count('size="0"') == 2 and text.count('size="1"') == 1


def test_the_body_a_constant_condition_skips_keeps_its_declared_types(tmp_path: Path) -> None:
    """openvino 2026.4.1 validates only the body If(true) takes: after a reshape the other keeps [2,4]."""
    x = ops.parameter(PartialShape([2, 4]), np.float32, name="x")
    then_value = ops.parameter(PartialShape([2, 4]), np.float32, name="then_value")
    else_value = ops.parameter(PartialShape([2, 4]), np.float32, name="else_value")
    out = _if(ops.constant(True).output(0), x.output(0), ops.result(ops.concat([then_value, then_value], 1)),
              ops.result(ops.split(else_value, ops.constant(np.int64(1)), 2).output(0)), then_value, else_value)
    ov.save_model(ov.Model([out], [x], "if_true"), tmp_path / "built.xml")
    reshaped = ov.Core().read_model(tmp_path / "built.xml")
    reshaped.reshape({"x": PartialShape([-1, 4])})
    _rewrite(reshaped, tmp_path)
    text = (tmp_path / "irgraph.xml").read_text("utf-8")
    assert text.count('<data shape="?,4" element_type="f32" />') == 2 and text.count('<data shape="2,4"') == 1
