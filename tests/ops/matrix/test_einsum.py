"""Einsum-7 against OpenVINO: matmuls, traces, diagonals (repeated labels), ellipses with broadcasting, implicit
output, several inputs; malformed equations refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.matrix.einsum import Einsum, Equation
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops
from tests.ops.helpers import infer, tt

# (equation, input shapes)
CASES = [
    ("ab,bc->ac", [(2, 3), (3, 4)]), ("ab,bc", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]), ("ii->", [(3, 3)]),
    ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)]), ("...ij,...jk->...ik", [(2, 2, 3), (3, 1)]),
    ("a...,a...->...", [(2, 3), (2, 1)]), ("abc,cd,de->abe", [(2, 1, 3), (3, 2), (2, 2)]), ("i,j->ij", [(2,), (3,)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("aab->ba", [(2, 2, 3)]),
    ("i...i->...", [(3, 2, 3)]), ("Ab,bA", [(2, 3), (3, 2)]),
    ("...", [(2, 3)]), ("ba", [(2, 3)]), ("iij,ij->j", [(2, 2, 3), (2, 3)]),
    ("iij,ij", [(2, 2, 3), (2, 3)]), ("a...b->b...a", [(2, 1, 3, 2)]),
]


@OP_EXAMPLES
@given(case=st.sampled_from(CASES), element_type=st.sampled_from([ElementType.F32, ElementType.F16, ElementType.I32,
                                                                  ElementType.F64, ElementType.I64]),
       seed=S.seeds)
def test_einsum_matches_openvino(case, element_type, seed):
    equation, shapes = case
    # small integers: sums are exact in every type, so the comparison is exact whatever the summation order
    inputs = [S.values(element_type, shape, seed + i, specials=False, low=-4, high=4).round().astype(
        element_type.numpy_dtype) for i, shape in enumerate(shapes)]
    op = Einsum(equation)
    check_op(op, inputs, lambda *xs: ov_ops.einsum(list(xs), equation))


@pytest.mark.parametrize(("equation", "inputs", "output"),
                         [("ab,bc", ["2,3", "3,4"], "ac"), ("ba", ["2,3"], "ab"), ("...ij,j", ["5,2,3", "3"], "...i"),
                          ("Ab,bA", ["2,3", "3,2"], ""), ("ab,ab", ["2,3", "2,3"], "")])
def test_implicit_output(equation, inputs, output):
    assert "".join(Equation.parse(equation).output) == output.replace("...", "...")


def test_shapes_with_ellipsis_broadcast():
    assert infer(Einsum("...ij,...jk->...ik"), [tt("2,1,2,3"), tt("5,3,4")], [None, None]) == ["[2,5,2,4]"]
    assert infer(Einsum("ab,bc->ac"), [tt("2,?"), tt("3,4")], [None, None]) == ["[2,4]"]


@pytest.mark.parametrize(("equation", "shapes", "message"), [
    ("ab,bc->ac", ["2,3", "4,4"], "same labels for Einsum must be compatible. Got 3 and 4 for label 'b'"),
    ("ab->c", ["2,3"], "only labels present in the input subscripts"),
    ("a1->a", ["2,3"], "alphabetic letters"),
    ("ab,bc->ac", ["2,3"], "equal to the number of Einsum inputs"),
    ("abc->a", ["2,3"], "Input rank must be equal to a number of labels"),
    ("ii", ["3,3"], "openvino 2026.4.1 infers 'ii' as \\[n,n\\] where NumPy sums the diagonal"),
])
def test_refused_configurations(equation, shapes, message):
    with pytest.raises(OpError, match=message):
        Einsum(equation).infer([tt(s) for s in shapes], [None] * len(shapes))


@pytest.mark.parametrize(("equation", "shapes", "expected"), [
    ("ab,bc->ac", ["...", "3,4"], "[?,4]"),  # the known input still gives c
    ("...a,ab->...b", ["...", "3,4"], "[...]"),  # an ellipsis from a dynamic rank: the rank is unknown
])
def test_an_input_of_dynamic_rank_infers_as_openvino(equation, shapes, expected):
    op = Einsum(equation=equation)
    types = [tt(s) for s in shapes]
    check_types(op, types, lambda *xs: ov_ops.einsum(list(xs), equation))
    assert infer(op, types, [None, None]) == [expected]


def test_boolean_inputs_are_refused():
    """openvino 2026.4.1 refuses them too ("The input type for Einsum operation must be numeric.")."""
    with pytest.raises(OpError, match=r"^Einsum inputs must be numeric\. Got: boolean$"):
        infer(Einsum(equation="i->"), [tt("2", "boolean")], [None])


def test_f16_sums_round_once_and_integers_sum_exactly():
    """2048 + 1 + 1 in f16 one step at a time stays 2048 (each +1 is a tie, to even); summed wider and rounded
    once it is 2050, as openvino 2026.4.1's CPU plugin gives. Integers sum exactly: 2**53 + 1 is no f64 (a
    hand-worked case: OpenVINO folds no Einsum and its CPU plugin computes i64 in i32)."""
    (half,) = Einsum(equation="i,i->").evaluate([np.array([2048, 1, 1], np.float16), np.ones(3, np.float16)])
    assert half.dtype == np.float16 and half.item() == 2050
    (wide,) = Einsum(equation="i->").evaluate([np.array([2**53, 1], np.int64)])
    assert wide.dtype == np.int64 and wide.item() == 2**53 + 1
