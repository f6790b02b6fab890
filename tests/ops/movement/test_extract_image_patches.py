"""ExtractImagePatches-3 against OpenVINO 2026.4.1 (reference evaluate and CPU plugin) on generated images,
patch sizes, strides, rates and paddings, and its attribute refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.movement.extract_image_patches import ExtractImagePatches
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op


@OP_EXAMPLES
@given(st.data())
def test_extract_image_patches_matches_openvino(data):
    shape = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 7)),
             data.draw(st.integers(1, 7)))
    x = S.values(data.draw(st.sampled_from(S.NUMERIC)), shape, data.draw(S.seeds))
    pairs = st.tuples(st.integers(1, 3), st.integers(1, 3))
    op = ExtractImagePatches(sizes=data.draw(pairs), strides=data.draw(pairs), rates=data.draw(pairs),
                             auto_pad=data.draw(st.sampled_from(["valid", "same_lower", "same_upper"])))
    check_op(op, [x], same_op(op), moved=(0,))


def test_exact_case():
    x = np.arange(16, dtype=np.int32).reshape(1, 1, 4, 4)
    (got,) = ExtractImagePatches(sizes=(2, 2), strides=(2, 2), rates=(1, 1), auto_pad="valid").evaluate([x])
    assert got.shape == (1, 4, 2, 2)
    assert got[0, :, 0, 1].tolist() == [2, 3, 6, 7]  # the top-right 2x2 patch, row by row


def test_attribute_refusals():
    with pytest.raises(OpError, match="^Attribute strides should be strictly greater than zeros in values."):
        ExtractImagePatches(sizes=(2, 2), strides=(0, 1), rates=(1, 1), auto_pad="valid")
    with pytest.raises(OpError, match="^Attribute padding should be in either valid or same_lower or same_upper."):
        ExtractImagePatches(sizes=(2, 2), strides=(1, 1), rates=(1, 1), auto_pad="explicit")
