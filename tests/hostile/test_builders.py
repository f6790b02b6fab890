"""Models built in code (Model methods and the generated builders, irgraph.builders): values of the wrong kind or
absurd size are refused with an IrError naming them, before anything is allocated or changed silently."""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from irgraph.core.errors import IrParseError


@pytest.mark.parametrize(("dims", "message"), [
    ([2.5, 6], "a dimension is an int, None, '?' or a range like '1..8', got 2.5"),  # before: made [2,6]
    ([True, 6], "a dimension is an int, None, '?' or a range like '1..8', got True"),  # before: made [1,6]
    ([-3, 6], "dimension must be >= -1, got -3"),  # before: a ValueError outside IrError
])
def test_a_dimension_that_is_no_integer_is_refused_not_truncated(dims, message):
    model = ir.Model("built")
    with pytest.raises(IrParseError, match=message.replace("?", r"\?").replace(".", r"\.")):
        model.parameter("x", dims, "f32")
    assert len(model) == 0


def test_integral_dimensions_of_any_integer_type_still_make_a_shape():
    model = ir.Model("built")
    port = model.parameter("x", [np.int64(2), np.uint8(6), -1, None, "1..8"], "f32")
    assert str(model.node(port.node_id).op.shape) == "[2,6,?,?,1..8]"
