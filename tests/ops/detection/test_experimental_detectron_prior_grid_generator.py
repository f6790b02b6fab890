"""ExperimentalDetectronPriorGridGenerator-6 against a scalar port of OpenVINO's reference kernel and its CPU
plugin (openvino 2026.4.1 neither folds nor evaluates the op)."""

from __future__ import annotations

import numpy as np
import openvino as ov
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openvino.utils.node_factory import NodeFactory

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.errors import OpError
from irgraph.ops.detection.experimental_detectron_prior_grid_generator import (
    ExperimentalDetectronPriorGridGenerator,
)
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops, port, same_op
from tests.ops.helpers import infer, tt

F32 = np.float32
Grid = ExperimentalDetectronPriorGridGenerator


def reference_grid(op, priors, features, image):
    """The reference's loops over (h, w, prior) in float32."""
    height, width = features.shape[2], features.shape[3]
    step_w = F32(op.stride_x) if op.stride_x else F32(image.shape[3]) / F32(width)
    step_h = F32(op.stride_y) if op.stride_y else F32(image.shape[2]) / F32(height)
    rows = []
    for h in range(height):
        for w in range(width):
            for p in priors:
                dx, dy = step_w * (F32(w) + F32(0.5)), step_h * (F32(h) + F32(0.5))
                rows.append([p[0] + dx, p[1] + dy, p[2] + dx, p[3] + dy])
    out = np.array(rows, F32).reshape(-1, 4)
    return out if op.flatten else out.reshape(height, width, len(priors), 4)


@OP_EXAMPLES
@given(data=st.data())
def test_generated_configurations_match_the_port_and_cpu_plugin(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    priors = rng.uniform(-20, 20, (data.draw(st.integers(1, 4)), 4)).astype(F32)
    height, width = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5))
    features = np.zeros((1, 2, height, width), F32)
    image = np.zeros((1, 3, data.draw(st.sampled_from([7, 32, 100])), data.draw(st.sampled_from([9, 32, 64]))), F32)
    op = Grid(flatten=data.draw(st.booleans()), h=data.draw(st.sampled_from([0, height])),
              w=data.draw(st.sampled_from([0, width])), stride_x=data.draw(st.sampled_from([0.0, 4.0, 2.5])),
              stride_y=data.draw(st.sampled_from([0.0, 8.0, 1.3])))
    inputs = [priors, features, image]
    # the scalar port judges each; the CPU plugin too
    assert check_op(op, inputs, same_op(op), independent=port(lambda op, arrays, types: [reference_grid(op, *arrays)])
                    ).cpu


def test_exact_rows():
    """Two cells of a 1x2 grid on a 16x32 image (steps 16 and 16): a prior at the origin moves to (8, 8) and (24, 8)."""
    (out,) = Grid().evaluate([np.zeros((1, 4), F32), np.zeros((1, 1, 1, 2), F32), np.zeros((1, 1, 16, 32), F32)])
    assert out.tolist() == [[8, 8, 8, 8], [24, 8, 24, 8]]


def test_partial_shapes_and_refusals():
    for op in (Grid(), Grid(flatten=False)):
        for types in ([tt("3,4"), tt("1,8,?,5"), tt("1,3,?,?")], [tt("..."), tt("..."), tt("...")],
                      [tt("?,4"), tt("1,2,3,4"), tt("...")]):
            check_types(op, types, same_op(op))
    assert infer(Grid(flatten=False), [tt("3,4"), tt("1,8,2,5"), tt("1,3,?,?")], [None] * 3) == ["[2,5,3,4]"]
    for types, message in (([tt("3,5"), tt("1,8,2,5"), tt("1,3,8,8")], "must be equal to 4"),
                           ([tt("3,4"), tt("1,8,2"), tt("1,3,8,8")], "Feature_map rank"),
                           ([tt("3,4"), tt("2,8,2,5"), tt("1,3,8,8")], "must match")):
        with pytest.raises(OpError, match=message):
            infer(Grid(), types, [None] * 3)
        check_types(Grid(), types, same_op(Grid()))  # OpenVINO refuses them too
    with pytest.raises(OpError, match="'h' is 3 but the feature map's grid is 2"):
        Grid(h=3).evaluate([np.zeros((1, 4), F32), np.zeros((1, 1, 2, 2), F32), np.zeros((1, 1, 8, 8), F32)])


def test_ir_run_runs_openvinos_prior_grid_generator_ir(tmp_path, capsys):
    priors = ov_ops.parameter([3, 4], ov.Type.f32, name="priors")
    features = ov_ops.parameter([1, 4, 3, 5], ov.Type.f32, name="features")
    image = ov_ops.parameter([1, 3, 48, 80], ov.Type.f32, name="image")
    node = NodeFactory("opset6").create("ExperimentalDetectronPriorGridGenerator",
                                        [priors.output(0), features.output(0), image.output(0)],
                                        {"flatten": False, "h": 0, "w": 0, "stride_x": 0.0, "stride_y": 0.0})
    result = ov_ops.result(node)
    result.output(0).get_tensor().set_names({"grid"})
    xml = tmp_path / "grid.xml"
    ov.save_model(ov.Model([result], [priors, features, image], "grid"), xml, compress_to_fp16=False)
    rng = np.random.default_rng(1)
    feeds = {"priors": rng.uniform(-8, 8, (3, 4)).astype(F32), "features": np.zeros((1, 4, 3, 5), F32),
             "image": np.zeros((1, 3, 48, 80), F32)}
    np.savez(tmp_path / "in.npz", **feeds)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    compiled = ov.Core().compile_model(xml, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    with np.load(tmp_path / "out.npz") as written:
        np.testing.assert_array_equal(written["grid"], compiled(feeds)[compiled.output(0)])
    assert ir.validate(ir.read_model(xml)) == []


def test_spec_example_shapes():
    """experimental-detectron-prior-grid-generator-6.rst: 3 priors on a 200 x 336 map -> [201600, 4]."""
    types = [tt("3,4"), tt("1,256,200,336"), tt("1,3,800,1344")]
    assert infer(Grid(flatten=True), types, [None] * 3) == ["[201600,4]"]
    check_types(Grid(flatten=True), types, same_op(Grid(flatten=True)))
