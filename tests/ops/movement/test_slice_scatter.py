"""SliceScatter-15 against OpenVINO 2026.4.1 (reference evaluate and CPU plugin) on the Slice-8 cases of
test_slice.py (clamping, negative steps, axes), updates shaped like each region, and its refusal."""

from __future__ import annotations

import numpy as np
import openvino.opset15 as ov15
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.movement.slice import Slice
from irgraph.ops.movement.slice_scatter import SliceScatter
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op
from tests.ops.helpers import infer, tt
from tests.ops.movement.test_slice import slice_case


@OP_EXAMPLES
@given(slice_case(), st.booleans(), st.sampled_from(S.ALL), S.seeds)
def test_slice_scatter_matches_openvino(case, with_axes, element_type, seed):
    shape, start, stop, step, axes = case
    data = S.values(element_type, shape, 4)
    # i32 vectors for odd seeds: the CPU plugin (the only oracle: openvino 2026.4.1 neither folds nor evaluates
    # SliceScatter) runs no i64 inputs
    limit = np.iinfo(np.int32)
    fits = all(limit.min <= v <= limit.max for v in [*start, *stop, *step])  # slice_case draws the i64 extremes too
    index_type = np.int32 if seed % 2 and fits else np.int64
    vectors = [np.array(v, index_type) for v in (start, stop, step)] + (
        [np.array(axes, index_type)] if with_axes else [])
    (region,) = Slice().evaluate([data, *vectors])
    updates = S.values(element_type, region.shape, seed)
    if with_axes:
        check_op(SliceScatter(), [data, updates, *vectors], ov15.slice_scatter, constant={2, 3, 4, 5})
    else:
        check_op(SliceScatter(), [data, updates, *vectors], lambda d, u, a, b, c: ov15.slice_scatter(d, u, a, b, c),
                 constant={2, 3, 4})


def test_exact_case_and_refusal():
    data = np.zeros((4, 3), np.int32)
    start, stop, step = (np.array([v], np.int64) for v in (3, 0, -2))
    (got,) = SliceScatter().evaluate([data, np.array([[1, 1, 1], [2, 2, 2]], np.int32), start, stop, step])
    assert got.tolist() == [[0, 0, 0], [2, 2, 2], [0, 0, 0], [1, 1, 1]]  # rows 3 and 1
    with pytest.raises(OpError, match=r"^SliceScatter updates at index 1 are not compatible with expected slice "
                                      r"shape \[2,5\]"):
        infer(SliceScatter(), [tt("4,5"), tt("3,5"), tt("1", "i64"), tt("1", "i64"), tt("1", "i64"), tt("1", "i64")],
              [None, None, [1], [3], [1], [0]])
