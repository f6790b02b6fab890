"""ExperimentalDetectronTopKROIs-6 against a scalar port of OpenVINO's reference kernel and its CPU plugin
(openvino 2026.4.1 neither folds nor evaluates the op). Probabilities are distinct (the reference's std::sort
leaves equal ones unordered)."""

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
from irgraph.ops.sort.experimental_detectron_top_k_rois import ExperimentalDetectronTopKROIs
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops, port, same_op
from tests.ops.helpers import infer, tt

F32 = np.float32


def reference_topk_rois(max_rois, rois, probs):
    """The reference's loop: indices sorted by probability (best first), the first min(max_rois, N) boxes."""
    order = sorted(range(len(probs)), key=lambda i: -float(probs[i]))
    out = np.zeros((max_rois, 4), rois.dtype)
    for row, index in enumerate(order[:max_rois]):
        out[row] = rois[index]
    return out


@OP_EXAMPLES
@given(data=st.data())
def test_generated_configurations_match_the_port_and_cpu_plugin(data):
    count = data.draw(st.integers(1, 12))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    rois = rng.uniform(-5, 50, (count, 4)).astype(F32)
    probs = rng.permutation(np.linspace(-1, 1, count)).astype(F32)
    op = ExperimentalDetectronTopKROIs(max_rois=data.draw(st.integers(0, count)))
    # the scalar port judges each; the CPU plugin too
    outcome = check_op(op, [rois, probs], same_op(op),
                       independent=port(lambda op, arrays, types: [reference_topk_rois(op.max_rois, *arrays)]))
    assert outcome.cpu or op.max_rois == 0


def test_exact_rows_and_fewer_boxes_than_max_rois():
    rois = np.arange(12, dtype=F32).reshape(3, 4)
    op = ExperimentalDetectronTopKROIs(max_rois=2)
    (out,) = op.evaluate([rois, np.array([0.2, 0.9, 0.5], F32)])
    assert out.tolist() == [[4, 5, 6, 7], [8, 9, 10, 11]]
    (out,) = ExperimentalDetectronTopKROIs(max_rois=5).evaluate([rois, np.array([0.2, 0.9, 0.5], F32)])
    assert out.tolist() == [[4, 5, 6, 7], [8, 9, 10, 11], [0, 1, 2, 3], [0] * 4, [0] * 4]


def test_partial_shapes_and_refusals():
    op = ExperimentalDetectronTopKROIs(max_rois=3)
    for types in ([tt("?,4"), tt("?")], [tt("..."), tt("...")], [tt("5,?"), tt("1..8")]):
        check_types(op, types, same_op(op))
    assert infer(op, [tt("?,4"), tt("?")], [None, None]) == ["[3,4]"]
    for types, message in (([tt("5,3"), tt("5")], "should be 4"), ([tt("5,4"), tt("6")], "should be equal"),
                           ([tt("5,4,1"), tt("5")], "expected to be a 2D"), ([tt("5,4"), tt("5,1")], "1D")):
        with pytest.raises(OpError, match=message):
            infer(op, types, [None, None])
        check_types(op, types, same_op(op))  # OpenVINO refuses them too


def test_ir_run_runs_openvinos_topk_rois_ir(tmp_path, capsys):
    rois = ov_ops.parameter([6, 4], ov.Type.f32, name="rois")
    probs = ov_ops.parameter([6], ov.Type.f32, name="probs")
    node = NodeFactory("opset6").create("ExperimentalDetectronTopKROIs", [rois.output(0), probs.output(0)],
                                        {"max_rois": 4})
    result = ov_ops.result(node)
    result.output(0).get_tensor().set_names({"top"})
    xml = tmp_path / "topk_rois.xml"
    ov.save_model(ov.Model([result], [rois, probs], "topk"), xml, compress_to_fp16=False)
    assert '<data max_rois="4" />' in xml.read_text()
    feeds = {"rois": np.arange(24, dtype=F32).reshape(6, 4), "probs": np.array([3, 1, 4, 1.5, 5, 9], F32)}
    np.savez(tmp_path / "in.npz", **feeds)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    compiled = ov.Core().compile_model(xml, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    with np.load(tmp_path / "out.npz") as written:
        np.testing.assert_array_equal(written["top"], compiled(feeds)[compiled.output(0)])
        assert written["top"][:, 0].tolist() == [20, 16, 8, 0]
    assert ir.validate(ir.read_model(xml)) == []


def test_spec_example_shapes():
    """experimental-detectron-top-krois-6.rst: 5000 rois, max_rois 1000 -> [1000, 4]."""
    op = ExperimentalDetectronTopKROIs(max_rois=1000)
    assert infer(op, [tt("5000,4"), tt("5000")], [None, None]) == ["[1000,4]"]
    check_types(op, [tt("5000,4"), tt("5000")], same_op(op))
