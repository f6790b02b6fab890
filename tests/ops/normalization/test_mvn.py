"""MVN-1 and MVN-6: named cases, OpenVINO (reference for MVN-6 f32, CPU plugin) through the harness, refusals."""

from __future__ import annotations

import numpy as np
import openvino.opset2 as ov2
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.normalization.mvn import MVN, MVN6
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, ov_ops
from tests.ops.helpers import infer, tt

EPSILONS = {ElementType.F32: [1e-9, 1e-3, 0.5], ElementType.F16: [1e-3, 0.5]}
"""1e-9 is 0 in f16 (the reference casts eps to the element type): a single-element reduction is then 0 / 0, and
openvino 2026.4.1's CPU plugin gives NaN or 0 for it depending on the shape."""


def test_mvn_6_eps_modes():
    data = np.array([1, 3], np.float32).reshape(1, 2)
    inside = MVN6(normalize_variance=True, eps=3.0, eps_mode="inside_sqrt").evaluate([data, np.array([1])])[0]
    outside = MVN6(normalize_variance=True, eps=1.0, eps_mode="OUTSIDE_SQRT").evaluate([data, np.array([-1])])[0]
    assert inside.ravel().tolist() == [-0.5, 0.5] and outside.ravel().tolist() == [-0.5, 0.5]


def test_mvn_1_axes_follow_across_channels():
    data = np.arange(8, dtype=np.float32).reshape(1, 2, 4)
    per_channel = MVN(eps=0.0, across_channels=False, normalize_variance=False).evaluate([data])[0]
    across = MVN(eps=0.0, across_channels=True, normalize_variance=False).evaluate([data])[0]
    assert per_channel.ravel().tolist() == [-1.5, -0.5, 0.5, 1.5] * 2
    assert across.ravel().tolist() == [-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5]


@OP_EXAMPLES
@given(st.data())
def test_mvn_6_matches_openvino(data):
    shape = tuple(data.draw(st.integers(1, 4)) for _ in range(data.draw(st.integers(1, 4))))
    axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    assume(len({a % len(shape) for a in axes}) == len(axes))
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F16]))
    normalize_variance, mode = data.draw(st.booleans()), data.draw(st.sampled_from(["inside_sqrt", "outside_sqrt"]))
    eps = data.draw(st.sampled_from(EPSILONS[element_type]))
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False, low=-3, high=3)
    check_op(MVN6(normalize_variance=normalize_variance, eps=eps, eps_mode=mode), [x, np.array(axes, np.int32)],
             lambda d, a: ov_ops.mvn(d, a, normalize_variance, eps, mode), constant=(1,))


@OP_EXAMPLES
@given(st.data())
def test_mvn_1_matches_openvino(data):
    shape = tuple(data.draw(st.integers(1, 4)) for _ in range(data.draw(st.integers(3, 4))))
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F16]))
    across, normalize_variance = data.draw(st.booleans()), data.draw(st.booleans())
    eps = data.draw(st.sampled_from(EPSILONS[element_type]))
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False, low=-3, high=3)
    outcome = check_op(MVN(eps=eps, across_channels=across, normalize_variance=normalize_variance), [x],
                       lambda d: ov2.mvn(d, across_channels=across, normalize_variance=normalize_variance, eps=eps))
    assert outcome.cpu or outcome.reference


def test_axes_input_refusals():
    op = MVN6(normalize_variance=True, eps=1e-3, eps_mode="inside_sqrt")
    with pytest.raises(OpError, match=r"Expected 1D tensor for the 'axes' input. Got: \[1,1\]"):
        infer(op, [tt("2,3,4"), tt("1,1", "i64")], [None, None])
    with pytest.raises(OpError, match=r"Expected rank for the 'data' input to be higher than axes shape"):
        infer(op, [tt("2,3,4"), tt("4", "i64")], [None, None])
    # openvino 2026.4.1 accepts axis 3 of a rank-3 tensor when it builds the node; irgraph refuses it when it runs
    with pytest.raises(OpError, match=r"Axis 3 out of the tensor rank range \[-3, 2\]"):
        op.evaluate([np.ones((2, 3, 4), np.float32), np.array([3])])
    with pytest.raises(OpError, match="Invalid 'eps_mode' value 'middle'"):
        MVN6(normalize_variance=True, eps=1e-3, eps_mode="middle")


def test_an_openvino_written_mvn6_rewrites_byte_for_byte(tmp_path):
    """openvino 2026.4.1 writes eps_mode="INSIDE_SQRT": the text is kept as read."""
    import openvino as ov
    import openvino.opset6 as ov6

    import irgraph as ir

    data = ov6.parameter([1, 2, 3, 4], np.float32, name="x")
    node = ov6.mvn(data, ov6.constant(np.array([2, 3], np.int64)), True, 1e-5, "inside_sqrt")
    ov.save_model(ov.Model([node], [data]), str(tmp_path / "m.xml"), compress_to_fp16=False)
    model = ir.read_model(tmp_path / "m.xml")
    assert 'eps_mode="INSIDE_SQRT"' in (tmp_path / "m.xml").read_text()
    ir.write_model(model, tmp_path / "copy.xml")
    assert (tmp_path / "copy.xml").read_bytes() == (tmp_path / "m.xml").read_bytes()
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    compiled = ov.Core().compile_model(str(tmp_path / "m.xml"), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    np.testing.assert_allclose(ir.run(model, {"x": x})[model.output_key(model.results[0])],
                               compiled({0: x})[compiled.outputs[0]], rtol=1e-5, atol=1e-6)


def test_reduction_axes_choose_the_axes():
    """Over axis 1 only: columns (1, 2) and (3, 6) become (-1, 1) each (eps 0, a hand-worked case)."""
    data = np.array([[[1, 3], [2, 6]]], np.float32)
    (got,) = MVN(eps=0.0, normalize_variance=True, reduction_axes=(1,)).evaluate([data])
    assert got.tolist() == [[[-1, -1], [1, 1]]]
    with pytest.raises(OpError, match=r"^Reduction axis \(3\) is out of bounds for data of rank 3$"):
        infer(MVN(eps=0.0, reduction_axes=(1, 3)), [tt("1,2,2")], [None])


def test_variance_is_not_normalized_by_default():
    """normalize_variance defaults to false: openvino 2026.4.1 reads an MVN-1 IR layer without the attribute as
    normalize_variance=false (and its CPU plugin then only centres the data, [[-1, 1], [-2, 2]] here), as its
    opset2.mvn builds it."""
    assert ov2.mvn(ov2.parameter([1, 2, 2], np.float32)).get_attributes()["normalize_variance"] is False
    assert MVN(eps=1e-9).to_attributes()["normalize_variance"] == "false"
    data = np.array([[[1, 3], [2, 6]]], np.float32)
    (got,) = MVN(eps=0.0).evaluate([data])
    assert got.tolist() == [[[-1, 1], [-2, 2]]]


def test_integer_data_is_refused_at_run_time():
    with pytest.raises(OpError, match=r"^MVN on int32 is not implemented \(OpenVINO's reference divides integers in "
                                      r"their own type\)$"):
        MVN(eps=0.0).evaluate([np.ones((1, 2, 2), np.int32)])
