"""Inverse-14 against OpenVINO 2026.4.1 (reference evaluate and CPU plugin) on generated well-conditioned
matrices (batched, both modes), exact small cases, and refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.matrix.inverse import Inverse
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import infer, tt


@OP_EXAMPLES
@given(st.data())
def test_inverse_matches_openvino(data):
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F64]))
    size = data.draw(st.integers(1, 5))
    batch = tuple(data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 2))))
    noise = S.values(element_type, (*batch, size, size), data.draw(S.seeds), specials=False, low=-1, high=1)
    # diagonally dominant: condition numbers below ~10, where float32 LU and float64 LAPACK agree closely
    matrices = (noise / size + np.eye(size, dtype=noise.dtype) * 2).astype(noise.dtype)
    op = Inverse(adjoint=data.draw(st.booleans()))
    check_op(op, [matrices], same_op(op), cpu=False)  # types, attributes and refusals
    # openvino 2026.4.1 neither folds nor evaluates Inverse, and its CPU plugin runs f32 only and ignores adjoint
    # (test_the_cpu_plugin_ignores_adjoint): the plugin judges the plain f32 inverse. irgraph's adjugate must be
    # that inverse times the determinant, and its f64 answers must agree to f32 precision (condition below ~10)
    narrow = matrices.astype(np.float32)
    assert check_op(Inverse(), [narrow], same_op(Inverse())).cpu
    expected = Inverse().evaluate([narrow])[0].astype(np.float64)
    if op.adjoint:
        expected = expected * np.linalg.det(narrow.astype(np.float64))[..., None, None]
    np.testing.assert_allclose(op.evaluate([matrices])[0], expected, rtol=1e-5, atol=1e-6)


def test_the_cpu_plugin_ignores_adjoint():
    """OpenVINO 2026.4.1's CPU plugin returns the inverse for adjoint=true ([[0.476]] for [[2.1]]); its reference
    and the spec give the adjugate (inverse times determinant, [[1]]), as irgraph does."""
    (got,) = Inverse(adjoint=True).evaluate([np.array([[2.1]], np.float32)])
    assert got.tolist() == [[1.0]]


def test_exact_cases():
    a = np.array([[4.0, 7.0], [2.0, 6.0]])
    np.testing.assert_allclose(Inverse().evaluate([a])[0], [[0.6, -0.7], [-0.2, 0.4]])
    np.testing.assert_allclose(Inverse(adjoint=True).evaluate([a])[0], [[6.0, -7.0], [-2.0, 4.0]])  # det 10


def test_refusals():
    with pytest.raises(OpError, match="^Input must contain square matrices of the same shape."):
        infer(Inverse(), [tt("2,3,4")], [None])
    with pytest.raises(OpError, match="^Expected floating point type"):
        infer(Inverse(), [tt("3,3", "i32")], [None])
    with pytest.raises(OpError, match="singular"):
        Inverse().evaluate([np.ones((2, 2), np.float32)])
