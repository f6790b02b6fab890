"""HardSigmoid-1, Selu-1, Identity-16 and Xor-1 against OpenVINO 2026.4.1 (reference evaluate where it has one,
and its CPU plugin) on generated configurations, and named cases with exact expected arrays."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.activation.hard_sigmoid import HardSigmoid
from irgraph.ops.activation.identity import Identity
from irgraph.ops.activation.selu import Selu
from irgraph.ops.logical.xor import Xor
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op


@OP_EXAMPLES
@given(data=st.data())
def test_hard_sigmoid_matches_openvino(data):
    element_type = data.draw(st.sampled_from(S.FLOATS))
    x = S.values(element_type, data.draw(S.shapes()), data.draw(S.seeds), specials=data.draw(st.booleans()))
    # alpha 0 and beta 0 are left out: OpenVINO 2026.4.1's CPU plugin (the only oracle: the op has no reference
    # evaluate) computes them as ONNX's defaults 0.2 and 0.5 (test_hard_sigmoid_with_alpha_or_beta_zero)
    alpha = np.asarray(data.draw(st.floats(0.05, 1)), element_type.numpy_dtype)
    beta = np.asarray(data.draw(st.floats(0.05, 1) | st.floats(-1, -0.05)), element_type.numpy_dtype)
    check_op(HardSigmoid(), [x, alpha, beta], same_op(HardSigmoid()), constant=(1, 2))


@OP_EXAMPLES
@given(data=st.data())
def test_selu_matches_openvino(data):
    element_type = data.draw(st.sampled_from(S.FLOATS))
    x = S.values(element_type, data.draw(S.shapes()), data.draw(S.seeds), low=-20, high=20,
                 specials=data.draw(st.booleans()))
    shape = data.draw(st.sampled_from([(), (1,)]))
    alpha = S.values(element_type, shape, data.draw(S.seeds), specials=False, low=0.5, high=2)
    scale = S.values(element_type, shape, data.draw(S.seeds), specials=False, low=0.5, high=2)
    check_op(Selu(), [x, alpha, scale], same_op(Selu()), constant=(1, 2))


@OP_EXAMPLES
@given(data=st.data())
def test_identity_matches_openvino(data):
    element_type = data.draw(st.sampled_from(S.ALL))
    x = S.values(element_type, data.draw(S.shapes()), data.draw(S.seeds))
    check_op(Identity(), [x], same_op(Identity()))


@OP_EXAMPLES
@given(data=st.data())
def test_xor_matches_openvino(data):
    mode = data.draw(st.sampled_from(["numpy", "none"]))
    a_shape, b_shape = data.draw(S.broadcast_pair(mode))
    a = S.values(ElementType.BOOLEAN, a_shape, data.draw(S.seeds))
    b = S.values(ElementType.BOOLEAN, b_shape, data.draw(S.seeds))
    op = Xor(auto_broadcast=mode)
    check_op(op, [a, b], same_op(op))


def test_named_cases():
    x = np.array([-4.0, -1.0, 0.0, 1.0, 4.0, np.nan], np.float32)
    (hard,) = HardSigmoid().evaluate([x, np.float32(0.2), np.float32(0.5)])
    np.testing.assert_array_equal(hard, np.array([0.0, 0.3, 0.5, 0.7, 1.0, 1.0], np.float32))  # NaN: std::min
    (selu,) = Selu().evaluate([np.array([-1.0, 0.0, 2.0]), np.array([2.0]), np.array(0.5)])
    np.testing.assert_array_equal(selu, [2.0 * 0.5 * (np.exp(-1.0) - 1.0), 0.0, 1.0])
    (xor,) = Xor().evaluate([np.array([True, False]), np.array([[True], [False]])])
    assert xor.tolist() == [[False, True], [True, False]]


def test_refusals():
    f32 = ElementType.F32
    vector = TensorType(f32, Shape.parse("2"))
    scalar = TensorType(f32, Shape.parse(""))
    with pytest.raises(OpError, match=r"^A scalar is expected for the 'alpha' input. Got: \[2\]"):
        HardSigmoid().infer([vector, vector, scalar], [None] * 3)
    with pytest.raises(OpError, match=r"^'lambda' must hold one value; it has shape \[2\]"):
        Selu().infer([vector, scalar, vector], [None] * 3)  # openvino 2026.4.1 cycles through the values
    with pytest.raises(OpError, match="^Input element types must be floating-point. Got: i32"):
        Selu().infer([TensorType(ElementType.I32, Shape.parse("2"))] * 3, [None] * 3)


def test_hard_sigmoid_with_alpha_or_beta_zero():
    """OpenVINO 2026.4.1's CPU plugin takes alpha 0 as 0.2 and beta 0 as 0.5 (ONNX's defaults): it answers
    0.655 for 0.6553 * 0.2365 + 0 and 1.0 for 0 * 2.738 + 0.5; irgraph follows the spec."""
    x = np.array([-2.0, 0.0, 0.2365, 1.0, 3.0], np.float32)
    (got,) = HardSigmoid().evaluate([x, np.float32(0.6553), np.float32(0.0)])
    np.testing.assert_array_equal(got, np.clip(np.float32(0.6553) * x, 0, 1))
    (got,) = HardSigmoid().evaluate([np.float16([2.738]), np.float16(0.0), np.float16(0.5)])
    assert got.tolist() == [0.5]
