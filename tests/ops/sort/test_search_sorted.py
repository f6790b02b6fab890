"""SearchSorted-15 against OpenVINO 2026.4.1 (reference evaluate and CPU plugin) on generated configurations:
1D and batched sequences, duplicates (left and right mode), values outside the sequence."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.sort.search_sorted import SearchSorted
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import infer, tt


@OP_EXAMPLES
@given(st.data())
def test_search_sorted_matches_openvino(data):
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F16, ElementType.I32, ElementType.I64,
                                              ElementType.U8]))
    lead = tuple(data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 2))))
    length = data.draw(st.integers(1, 6))
    sequence = np.sort(S.values(element_type, (*lead, length), data.draw(S.seeds), specials=False, low=0, high=8),
                       axis=-1)
    if lead:
        values_shape = (*lead, data.draw(st.integers(0, 5)))
    else:
        values_shape = tuple(data.draw(st.integers(0, 3)) for _ in range(data.draw(st.integers(0, 3))))
    values = S.values(element_type, values_shape, data.draw(S.seeds), specials=False, low=0, high=9)
    op = SearchSorted(right_mode=data.draw(st.booleans()),
                      output_type=data.draw(st.sampled_from([ElementType.I64, ElementType.I32])))
    check_op(op, [sequence, values], same_op(op))


def test_exact_cases():
    sequence = np.array([[1, 3, 3, 5], [0, 0, 2, 9]], np.int32)
    values = np.array([[3, 6], [0, 10]], np.int32)
    assert SearchSorted().evaluate([sequence, values])[0].tolist() == [[1, 4], [0, 4]]
    assert SearchSorted(right_mode=True).evaluate([sequence, values])[0].tolist() == [[3, 4], [2, 4]]
    assert SearchSorted().evaluate([np.array([1.0, 2.0]), np.array(1.5)])[0].tolist() == 1


def test_refusals():
    with pytest.raises(OpError, match="^The sorted sequence input cannot be a scalar."):
        infer(SearchSorted(), [tt(""), tt("3")], [None, None])
    with pytest.raises(OpError, match="^All dimensions but the last one have to be compatible."):
        infer(SearchSorted(), [tt("2,5"), tt("3,4")], [None, None])
    assert infer(SearchSorted(), [tt("2,5"), tt("...")], [None, None]) == ["[2,?]"]
