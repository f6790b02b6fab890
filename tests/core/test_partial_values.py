"""PartialValue: bound pairs read as dims, and as a shape's dims (where a negative lower bound is refused)."""

from __future__ import annotations

import numpy as np
import pytest

from irgraph.core.shapes import Dim, PartialValue

MAX = np.iinfo(np.int64).max


def test_bounds_read_as_dims_with_the_dtype_maximum_meaning_no_bound() -> None:
    value = PartialValue(np.array([2, 0, -3, 4], np.int64), np.array([2, MAX, 5, MAX - 1], np.int64))
    assert value.dims() == [Dim(2, 2), Dim(0, None), Dim(0, 5), Dim(4, MAX - 1)]


def test_a_shape_from_bounds_refuses_a_negative_lower_bound_with_openvinos_message() -> None:
    good = PartialValue(np.array([1, 0], np.int64), np.array([3, MAX], np.int64))
    assert good.shape_dims() == [Dim(1, 3), Dim(0, None)]
    bad = PartialValue(np.array([-1, 2], np.int64), np.array([3, 2], np.int64))
    with pytest.raises(ValueError, match=r"^Value for partial shape evaluation can't be lower than zero\. "
                                         r"Got lower bounds \[-1, 2\]$"):
        bad.shape_dims()


def test_bounds_are_exact_when_every_lower_bound_equals_its_upper_bound() -> None:
    assert PartialValue.exact(np.array([2, 3], np.int64)).is_exact is True
    assert PartialValue(np.array([2, 3], np.int64), np.array([2, 4], np.int64)).is_exact is False
