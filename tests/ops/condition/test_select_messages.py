"""Select's refusals name the offending element types exactly (irgraph's wording, after OpenVINO's)."""

from __future__ import annotations

import numpy as np
import pytest

from irgraph.core.errors import OpError
from irgraph.ops.condition.select import Select


def test_a_non_boolean_condition_is_refused_with_its_type():
    with pytest.raises(OpError) as caught:
        Select().evaluate([np.zeros(2, np.int32), np.zeros(2, np.float32), np.ones(2, np.float32)])
    assert str(caught.value.message) == "Argument 0 must have boolean element type (element type: int32)."


def test_branches_of_different_types_are_refused_with_both_types():
    with pytest.raises(OpError) as caught:
        Select().evaluate([np.zeros(2, np.bool_), np.zeros(2, np.float32), np.ones(2, np.int64)])
    assert str(caught.value.message) == "Argument 1 and 2 element types must match. Got: float32 and int64"


def test_the_condition_picks_then_where_true():
    cond = np.array([True, False, True])
    assert Select().evaluate([cond, np.array([1, 2, 3], np.int8), np.array([7, 8, 9], np.int8)])[0].tolist() \
        == [1, 8, 3]
