"""BatchNormInference-1 and -5: the input orders, OpenVINO's CPU plugin through the harness, refusals."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ov1
import openvino.opset5 as ov5
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.normalization.batch_norm_inference import BatchNormInference, BatchNormInference5
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op
from tests.ops.helpers import infer, tt


def test_versions_take_the_data_at_different_positions():
    data = np.array([[1.0, 3.0]], np.float32).T.reshape(1, 2)  # channels 1 and 3
    gamma, beta = np.array([2, 2], np.float32), np.array([1, -1], np.float32)
    mean, variance = np.array([1, 1], np.float32), np.array([4, 4], np.float32)
    (v5,) = BatchNormInference5(epsilon=0.0).evaluate([data, gamma, beta, mean, variance])
    (v1,) = BatchNormInference(epsilon=0.0).evaluate([gamma, beta, data, mean, variance])
    assert v5.ravel().tolist() == v1.ravel().tolist() == [1.0, 1.0]  # (1-1)/2*2+1, (3-1)/2*2-1


@OP_EXAMPLES
@given(st.data())
def test_batch_norm_matches_openvino(data):
    version = data.draw(st.sampled_from([1, 5]))
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F16]))
    shape = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 4)),
             *(data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 3)))))
    channels = shape[1] if data.draw(st.integers(0, 9)) else shape[1] + 1  # now and then a mismatch
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False, low=-3, high=3)
    gamma, beta, mean = (S.values(element_type, (channels,), data.draw(S.seeds), specials=False, low=-3, high=3)
                         for _ in range(3))
    variance = S.values(element_type, (channels,), data.draw(S.seeds), specials=False, low=0.5, high=3)
    epsilon = data.draw(st.sampled_from([1e-5, 1e-3, 0.5]))
    if version == 1:
        check_op(BatchNormInference(epsilon=epsilon), [gamma, beta, x, mean, variance],
                 lambda g, b, d, m, v: ov1.batch_norm_inference(d, g, b, m, v, epsilon))
    else:
        check_op(BatchNormInference5(epsilon=epsilon), [x, gamma, beta, mean, variance],
                 lambda d, g, b, m, v: ov5.batch_norm_inference(d, g, b, m, v, epsilon))


@pytest.mark.parametrize(
    ("shapes", "message"),
    [(["3", "3", "3", "3", "3"], "Input argument must have rank of at least 2 (input argument shape: [3])."),
     (["2,3,4", "4", "3", "3", "3"], "Shapes for gamma/beta/mean/variance do not match."),
     (["2,3,4", "3,1", "3", "3", "3"], "Shapes for gamma/beta/mean/variance do not match."),
     (["2,0,4", "0", "0", "0", "0"], "Channel count must be at least 1.")],
)
def test_refusals_carry_openvinos_message(shapes, message):
    with pytest.raises(OpError) as refused:
        infer(BatchNormInference5(epsilon=1e-3), [tt(s) for s in shapes], [None] * 5)
    assert str(refused.value) == message


def test_integer_and_negative_epsilon_are_refused():
    with pytest.raises(OpError, match="Input element types must be floating-point. Got: i32"):
        infer(BatchNormInference5(epsilon=1e-3), [tt("2,3", "i32")] + [tt("3", "i32")] * 4, [None] * 5)
    with pytest.raises(OpError, match="Attribute 'epsilon' must be non negative value. Got: -1"):
        BatchNormInference5(epsilon=-1.0)


def test_dynamic_channels_merge_with_the_parameters():
    assert infer(BatchNormInference5(epsilon=1e-3), [tt("2,?,4"), tt("2..5"), tt("?"), tt("3"), tt("?")],
                 [None] * 5) == ["[2,3,4]"]
