"""Bucketize-3 against OpenVINO: both bound rules, mixed data/bucket types (C++ comparisons), NaN data."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.condition.bucketize import Bucketize
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import tt

TYPES = (ElementType.F32, ElementType.F16, ElementType.I32, ElementType.I64, ElementType.U8, ElementType.F64)


@OP_EXAMPLES
@given(data=st.data())
def test_bucketize_matches_openvino(data):
    data_type, bucket_type = data.draw(st.sampled_from(TYPES)), data.draw(st.sampled_from(TYPES))
    x = S.values(data_type, data.draw(S.shapes(max_rank=3)), data.draw(S.seeds), specials=False, low=-30, high=30)
    if data_type.is_real and data.draw(st.booleans()):
        x.reshape(-1)[:1] = np.nan
    buckets = np.sort(S.values(bucket_type, (data.draw(st.integers(0, 6)),), data.draw(S.seeds), specials=False,
                               low=-20, high=20))
    op = Bucketize(output_type=data.draw(st.sampled_from([ElementType.I32, ElementType.I64])),
                   with_right_bound=data.draw(st.booleans()))
    check_op(op, [x, buckets], same_op(op))


@pytest.mark.parametrize(("right", "expected"), [(True, [0, 0, 1, 2, 3, 0]), (False, [0, 1, 2, 3, 3, 3])])
def test_spec_example_bounds(right, expected):
    x = np.array([-1, 1, 2, 5, 7, np.nan], np.float32)
    (got,) = Bucketize(with_right_bound=right).evaluate([x, np.array([1, 2, 5], np.float32)])
    assert got.tolist() == expected


def test_buckets_must_be_one_dimensional():
    with pytest.raises(OpError, match=r"Buckets input must be a 1D tensor. Got: \[2,2\]"):
        Bucketize().infer([tt("3"), tt("2,2")], [None, None])
    assert check_op(Bucketize(), [np.ones(2, np.float32), np.ones((2, 2), np.float32)], same_op(Bucketize())).refused
