"""Tolerance.sum_eps: a sum of products is compared against the magnitude of its terms."""

from __future__ import annotations

import numpy as np
import pytest

from irgraph.ops.matrix.mat_mul import MatMul
from irgraph.ops.op import Inputs, InputSpec, Tolerance
from tests.ops.differential import assert_values_close, term_magnitudes


def test_describe_names_every_bound():
    assert Tolerance(ulp=1, sum_eps=16).describe() == "1 ULP or 16 eps x sum|terms|"
    assert not Tolerance(sum_eps=1).is_exact


def test_a_cancelling_sum_passes_within_its_terms_magnitude_and_fails_beyond():
    # 1e8 + 1 - 1e8 in f32: the exact 1 and a rounded 0 differ by far more than any ULP of 1,
    # but by well under 16 eps of the 2e8 the terms add up to.
    a = np.array([[1e8, 1.0, -1e8]], np.float32)
    b = np.ones((3, 1), np.float32)
    (magnitude,) = term_magnitudes(MatMul(), [a, b], 1)
    assert magnitude.item() == 2e8 + 1
    tolerance = Tolerance(ulp=1, sum_eps=16)
    assert_values_close(np.array([[0.0]], np.float32), np.array([[1.0]], np.float32), tolerance, "sum", magnitude)
    with pytest.raises(AssertionError, match="1 of 1 values differ"):
        assert_values_close(np.array([[1e3]], np.float32), np.array([[1.0]], np.float32), tolerance, "sum", magnitude)


def test_trailing_inputs_may_be_optional():
    inputs = Inputs(fixed=(InputSpec("data"), InputSpec("filters"), InputSpec("output_shape")), minimum=2)
    assert [inputs.accepts(n) for n in range(5)] == [False, False, True, True, False]
    assert inputs.describe() == "2 to 3 (data, filters, output_shape)"
    assert Inputs.of(InputSpec("a")).accepts(1) and not Inputs.of(InputSpec("a")).accepts(2)
