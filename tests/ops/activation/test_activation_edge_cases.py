"""Edge cases of the activation ops that the generated comparisons rarely draw: bounds that meet, integer data,
signed zeros, f64 Gelu, badly shaped parameters at run time, and when Relu is one NumPy call."""

from __future__ import annotations

import math

import numpy as np
import openvino.opset1 as ov1
import pytest

from irgraph.core.errors import OpError
from irgraph.ops.activation.clamp import Clamp
from irgraph.ops.activation.elu import Elu
from irgraph.ops.activation.gelu import Gelu7
from irgraph.ops.activation.p_re_lu import PReLU
from irgraph.ops.activation.relu import Relu
from irgraph.ops.activation.selu import Selu
from irgraph.ops.activation.swish import Swish
from irgraph.ops.traits import UfuncCall
from tests.ops.differential import ov_reference
from tests.ops.helpers import tt


def test_clamp_with_equal_bounds_gives_that_bound():
    """min == max is allowed: openvino 2026.4.1 folds it to the bound everywhere, as irgraph computes."""
    data = np.array([0, 1, 5], np.float32)
    (expected,) = ov_reference(ov1.clamp(ov1.constant(data), 1.0, 1.0))
    (clamped,) = Clamp(min=1.0, max=1.0).evaluate([data])
    assert clamped.tolist() == expected.tolist() == [1, 1, 1]


def test_elu_of_integers_computes_in_f64_and_truncates():
    """2 * (e^-2 - 1) = -1.73 and 2 * (e^-1 - 1) = -1.26 truncate to -1 (openvino 2026.4.1 folds no integer
    Elu: a hand-worked case)."""
    (result,) = Elu(alpha=2.0).evaluate([np.array([-2, -1, 0, 3], np.int32)])
    assert result.dtype == np.int32 and result.tolist() == [-1, -1, 0, 3]


def test_f64_gelu_tanh_is_the_formula_in_f64():
    """An independent formulation with Python's math module (f64): the result differs by at most an ULP."""
    x = np.array([-3.0, -0.5, 0.25, 1.5])
    expected = [0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3))) for v in x.tolist()]
    (result,) = Gelu7(approximation_mode="tanh").evaluate([x])
    assert result.dtype == np.float64
    np.testing.assert_allclose(result, expected, rtol=4e-16, atol=0)


def test_prelu_keeps_zeros_and_their_sign():
    """x < 0 ? x * slope : x: +0 times a negative slope would be -0; openvino 2026.4.1's reference keeps +0."""
    data, slope = np.array([0.0, -0.0, -2.0], np.float32), np.array([-1.0], np.float32)
    (expected,) = ov_reference(ov1.prelu(ov1.constant(data), ov1.constant(slope)))
    (result,) = PReLU().evaluate([data, slope])
    assert result.tolist() == expected.tolist() == [0.0, 0.0, 2.0]
    assert np.signbit(result).tolist() == np.signbit(expected).tolist() == [False, True, False]


def test_selu_refuses_parameters_of_several_values_at_run_time():
    with pytest.raises(OpError, match=r"^'alpha' and 'lambda' must hold one value each; they have shapes \[2\] and "
                                      r"\[\]$"):
        Selu().evaluate([np.ones(3), np.ones(2), np.ones(())])


def test_swish_refuses_a_beta_that_is_not_a_scalar_at_run_time():
    with pytest.raises(OpError, match=r"^Swish input with beta must be scalar but it has rank: 1$"):
        Swish().evaluate([np.ones((2, 2), np.float32), np.ones(1, np.float32)])


def test_relu_is_one_maximum_call_only_on_static_f32_and_f64_arrays():
    assert Relu().ufunc_call([tt("2,3")]) == UfuncCall(np.maximum, (0,))
    assert Relu().ufunc_call([tt("4", "f64")]) == UfuncCall(np.maximum, (0,))
    for shape, element_type in [("", "f32"), ("?", "f32"), ("4", "f16"), ("4", "bf16")]:
        assert Relu().ufunc_call([tt(shape, element_type)]) is None
