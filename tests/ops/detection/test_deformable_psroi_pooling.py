"""DeformablePSROIPooling-1 against a scalar port of OpenVINO's reference kernel (``deformable_psroi_pooling.hpp``)
and its CPU plugin (openvino 2026.4.1 neither folds nor evaluates the op)."""

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
from irgraph.ops.detection.deformable_psroi_pooling import DeformablePSROIPooling as Pooling
from tests.ops.detection.judging import cpu_outputs, judged_by_port
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


def c_round(v):
    return F32(math.floor(abs(float(v)) + 0.5) * (1 if v >= 0 else -1))


def reference_pooling(op, data, rois, offsets):
    """The reference's loops in float32 scalars."""
    f = F32
    _, _, height, width = data.shape
    group, dim = op.group_size, op.output_dim
    out = np.zeros((len(rois), dim, group, group), F32)
    for r, roi in enumerate(rois.astype(F32)):
        batch = int(roi[0])
        if batch < 0:
            continue
        x1 = c_round(roi[1]) * f(op.spatial_scale) - f(0.5)
        y1 = c_round(roi[2]) * f(op.spatial_scale) - f(0.5)
        x2 = (c_round(roi[3]) + f(1)) * f(op.spatial_scale) - f(0.5)
        y2 = (c_round(roi[4]) + f(1)) * f(op.spatial_scale) - f(0.5)
        rw, rh = max(x2 - x1, f(0.1)), max(y2 - y1, f(0.1))
        bw, bh = rw / f(group), rh / f(group)
        c_in = 0
        for c in range(dim):
            for h in range(group):
                for w in range(group):
                    bx, by = x1 + f(w) * bw, y1 + f(h) * bh
                    if offsets is not None:
                        coords = offsets.shape[1] // 2
                        klass = c // (dim // coords)
                        ph, pw = h * op.part_size // group, w * op.part_size // group
                        bx += f(offsets[r, klass * 2, ph, pw] * f(op.trans_std)) * rw
                        by += f(offsets[r, klass * 2 + 1, ph, pw] * f(op.trans_std)) * rh
                    sw, sh = bw / f(op.spatial_bins_x), bh / f(op.spatial_bins_y)
                    total, legit = f(0), 0
                    for sy in range(op.spatial_bins_y):
                        y = by + f(sy) * sh
                        if y < -0.5 or y > height - 0.5:
                            continue
                        for sx in range(op.spatial_bins_x):
                            x = bx + f(sx) * sw
                            if x < -0.5 or x > width - 0.5:
                                continue
                            x = min(max(x, f(0)), f(width - 1))
                            y = min(max(y, f(0)), f(height - 1))
                            left, right, top, bottom = math.floor(x), math.ceil(x), math.floor(y), math.ceil(y)
                            plane = data[batch, c_in]
                            dx, dy = abs(x - f(left)), abs(y - f(top))
                            upper = plane[top, left] + (plane[top, right] - plane[top, left]) * dx
                            lower = plane[bottom, left] + (plane[bottom, right] - plane[bottom, left]) * dx
                            total += upper + (lower - upper) * dy
                            legit += 1
                    if legit:
                        out[r, c, h, w] = total / f(legit)
                    c_in += 1
    return out


def draw_configuration(data):
    group, dim = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    op = Pooling(output_dim=dim, spatial_scale=data.draw(st.sampled_from([1.0, 0.5, 0.0625])), group_size=group,
                 spatial_bins_x=data.draw(st.integers(1, 3)), spatial_bins_y=data.draw(st.integers(1, 3)),
                 trans_std=data.draw(st.sampled_from([0.1, 1.0])), part_size=data.draw(st.integers(1, 3)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    batches = data.draw(st.integers(1, 2))
    height, width = data.draw(st.integers(2, 8)), data.draw(st.integers(2, 8))
    features = rng.normal(0, 1, (batches, dim * group * group, height, width)).astype(F32)
    count = data.draw(st.integers(1, 3))
    extent = 1 / op.spatial_scale
    corner = rng.uniform(-1, width * extent * 0.7, (count, 2))
    rois = np.concatenate([rng.integers(-1 if data.draw(st.booleans()) else 0, batches, (count, 1)), corner,
                           corner + rng.uniform(0, width * extent * 0.6, (count, 2))], -1).astype(F32)
    inputs = [features, rois]
    if data.draw(st.booleans()):
        classes = data.draw(st.sampled_from([c for c in (1, dim) if dim % c == 0]))
        inputs.append(rng.normal(0, 1, (count, 2 * classes, op.part_size, op.part_size)).astype(F32))
    return op, inputs


def assert_matches_port_and_cpu(op, inputs):
    # nothing folds: the scalar port judges, the CPU plugin too (below)
    judged_by_port(op, inputs, lambda op, arrays: [reference_pooling(op, arrays[0], arrays[1],
                                                                     arrays[2] if len(arrays) == 3 else None)])
    (ours,) = op.evaluate(inputs)
    magnitude = op.term_magnitudes(inputs)[0]
    cpu = cpu_outputs(op, inputs)
    negative = np.flatnonzero(inputs[1][:, 0] < 0)
    end = int(negative[0]) if negative.size else len(inputs[1])
    # openvino 2026.4.1's CPU plugin stops at the first roi of batch -1 (zeros after it); the reference skips it
    assert not cpu[0][end:].any()
    assert_values_close(ours[:end], cpu[0][:end], cpu_default(op.tolerance), f"{op!r} vs the CPU plugin on "
                        f"{[x.tolist() for x in inputs]}", magnitude[:end])


@OP_EXAMPLES
@given(data=st.data())
def test_generated_configurations_match_the_reference_port_and_cpu_plugin(data):
    op, inputs = draw_configuration(data)
    assert_matches_port_and_cpu(op, inputs)


def test_exact_values_on_a_ramp():
    """A 4x4 ramp (x + 10 y), one bin, roi (0, 0, 2, 2) at scale 1: corners -0.5 and 2.5, 2x2 sub-bins at -0.5
    and 1.0 (clamped to 0 and 1): mean of (0, 1, 10, 11) = 5.5. A zero offset changes nothing; a roi of batch -1
    stays 0."""
    op = Pooling(output_dim=1, spatial_scale=1.0, spatial_bins_x=2, spatial_bins_y=2)
    ramp = (np.arange(4)[None, :] + 10 * np.arange(4)[:, None]).astype(F32).reshape(1, 1, 4, 4)
    rois = np.array([[0, 0, 0, 2, 2], [-1, 0, 0, 2, 2]], F32)
    (out,) = op.evaluate([ramp, rois])
    assert out.reshape(-1).tolist() == [5.5, 0.0]
    (moved,) = op.evaluate([ramp, rois, np.zeros((2, 2, 1, 1), F32)])
    assert moved.reshape(-1).tolist() == [5.5, 0.0]
    assert_matches_port_and_cpu(op, [ramp, rois])


def test_partial_shapes_and_refusals():
    op = Pooling(output_dim=2, spatial_scale=0.5, group_size=3)
    for types in ([tt("1,18,8,8"), tt("4,5")], [tt("..."), tt("...")], [tt("?,18,?,?"), tt("?,5"), tt("?,4,3,3")]):
        check_types(op, types, same_op(op))
    assert infer(op, [tt("1,18,8,8"), tt("4,5")], [None, None]) == ["[4,2,3,3]"]
    for types, message in (([tt("1,18,8"), tt("4,5")], "First input rank"), ([tt("1,18,8,8"), tt("4")], "Second"),
                           ([tt("1,18,8,8"), tt("4,5"), tt("4,2")], "Third")):
        with pytest.raises(OpError, match=message):
            infer(op, types, [None] * len(types))
        check_types(op, types, same_op(op))  # OpenVINO refuses them too
    with pytest.raises(OpError, match="output_dim x group_size"):
        op.evaluate([np.zeros((1, 9, 4, 4), F32), np.zeros((1, 5), F32)])


def test_ir_run_runs_openvinos_deformable_psroi_pooling_ir(tmp_path, capsys):
    data = ov_ops.parameter([1, 8, 6, 6], ov.Type.f32, name="data")
    rois = ov_ops.parameter([2, 5], ov.Type.f32, name="rois")
    offsets = ov_ops.parameter([2, 4, 2, 2], ov.Type.f32, name="offsets")
    attributes = {"output_dim": 2, "spatial_scale": 0.5, "group_size": 2, "mode": "bilinear_deformable",
                  "spatial_bins_x": 2, "spatial_bins_y": 2, "trans_std": 0.1, "part_size": 2}
    node = NodeFactory("opset1").create("DeformablePSROIPooling", [data.output(0), rois.output(0),
                                                                   offsets.output(0)], attributes)
    result = ov_ops.result(node)
    result.output(0).get_tensor().set_names({"pooled"})
    xml = tmp_path / "deformable_psroi.xml"
    ov.save_model(ov.Model([result], [data, rois, offsets], "rfcn"), xml, compress_to_fp16=False)
    rng = np.random.default_rng(4)
    feeds = {"data": rng.normal(0, 1, (1, 8, 6, 6)).astype(F32),
             "rois": np.array([[0, 1, 2, 9, 10], [0, 0, 0, 4, 3]], F32),
             "offsets": rng.normal(0, 1, (2, 4, 2, 2)).astype(F32)}
    np.savez(tmp_path / "in.npz", **feeds)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    compiled = ov.Core().compile_model(xml, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    op = Pooling(**{k: v for k, v in attributes.items()})
    magnitude = op.term_magnitudes([feeds["data"], feeds["rois"], feeds["offsets"]])[0]
    with np.load(tmp_path / "out.npz") as written:
        assert_values_close(written["pooled"], compiled(feeds)[compiled.output(0)], cpu_default(Pooling.tolerance),
                            "ir-run vs the CPU plugin", magnitude)
    assert ir.validate(ir.read_model(xml)) == []


def test_spec_example_shapes():
    """deformable-psroi-pooling-1.rst: 882 channels = 98 x 3 x 3, 300 rois -> [300, 98, 3, 3]."""
    op = Pooling(output_dim=98, spatial_scale=0.0625, group_size=3, spatial_bins_x=4, spatial_bins_y=4,
                 trans_std=0.1, part_size=3)
    for types in ([tt("1,882,38,63"), tt("300,5")], [tt("1,882,38,63"), tt("300,5"), tt("300,2,3,3")]):
        assert infer(op, types, [None] * len(types)) == ["[300,98,3,3]"]
        check_types(op, types, same_op(op))
