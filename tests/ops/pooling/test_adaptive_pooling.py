"""AdaptiveAvgPool-8 and AdaptiveMaxPool-8 against OpenVINO 2026.4.1 (reference evaluate and CPU plugin) on
generated configurations (sizes that do and do not divide, overlapping windows, ties), and exact cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.pooling.adaptive_avg_pool import AdaptiveAvgPool
from irgraph.ops.pooling.adaptive_max_pool import AdaptiveMaxPool
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_parameter, same_op
from tests.ops.helpers import infer, tt


def _case(data, types):
    element_type = data.draw(st.sampled_from(types))
    spatial = data.draw(st.integers(1, 3))
    shape = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3))] + [data.draw(st.integers(1, 7))
                                                                           for _ in range(spatial)]
    # i32 sizes half the time: the CPU plugin (the only oracle: openvino 2026.4.1 neither folds nor evaluates
    # adaptive pooling) runs no i64 inputs
    sizes = np.array([data.draw(st.integers(1, 2 * size)) for size in shape[2:]],
                     data.draw(st.sampled_from([np.int32, np.int64])))
    # small integers make ties; floats without specials (NaN ordering is the kernel's accident)
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False, low=-5, high=5)
    if data.draw(st.booleans()):
        x = np.round(x).astype(x.dtype)
    return x, sizes


@OP_EXAMPLES
@given(st.data())
def test_adaptive_avg_pool_matches_openvino(data):
    x, sizes = _case(data, [ElementType.F32, ElementType.F16, ElementType.I32, ElementType.I8])
    # openvino 2026.4.1 evaluates no adaptive pooling but in its CPU plugin, which rounds an integer mean to the
    # nearest ([0, -3] pooled to 3 gives -2 in the middle) where the reference's C++ divides toward zero (-1, as
    # irgraph): integers are judged by the formulation in tests/ops/independent.py
    check_op(AdaptiveAvgPool(), [x, sizes], same_op(AdaptiveAvgPool()), constant=(1,), cpu=x.dtype.kind == "f")


@OP_EXAMPLES
@given(st.data())
def test_adaptive_max_pool_matches_openvino(data):
    x, sizes = _case(data, [ElementType.F32, ElementType.F16, ElementType.I32, ElementType.I64])
    op = AdaptiveMaxPool(index_element_type=data.draw(st.sampled_from(["i32", "i64"])))
    check_op(op, [x, sizes], same_op(op), constant=(1,))


def test_exact_cases():
    x = np.arange(2 * 5 * 7, dtype=np.float32).reshape(1, 2, 5, 7)
    (avg,) = AdaptiveAvgPool().evaluate([x, np.array([2, 3])])
    assert avg[0, 0].tolist() == [[8.0, 10.0, 12.0], [22.0, 24.0, 26.0]]  # windows rows [0,3),[2,5)
    values, indices = AdaptiveMaxPool().evaluate([x[:, :, ::-1, ::-1].copy(), np.array([2, 3])])
    assert values[0, 0].tolist() == [[34.0, 32.0, 30.0], [20.0, 18.0, 16.0]]
    assert indices[0, 1].tolist() == [[0, 2, 4], [14, 16, 18]]
    _, tied = AdaptiveMaxPool(index_element_type="i32").evaluate([np.ones((1, 1, 2, 2), np.float32), np.array([1, 1])])
    assert (tied.dtype, tied.tolist()) == (np.int32, [[[[0]]]])  # the first maximum in row-major order


def test_shapes_and_refusals():
    assert infer(AdaptiveMaxPool(), [tt("2,3,8,8"), tt("2", "i64")], [None, [3, 5]]) == ["[2,3,3,5]", "[2,3,3,5]"]
    assert infer(AdaptiveAvgPool(), [tt("2,3,8,8"), tt("2", "i64")], [None, None]) == ["[2,3,?,?]"]
    with pytest.raises(OpError, match="Expected a 3D, 4D or 5D tensor for the input"):
        infer(AdaptiveAvgPool(), [tt("8,8"), tt("0", "i64")], [None, None])
    with pytest.raises(OpError, match="Index element type must be i32 or i64"):
        AdaptiveMaxPool(index_element_type="f32")


def test_zero_sizes_are_empty_and_negative_sizes_refused():
    x = np.ones((1, 1, 4, 4), np.float32)
    (pooled,) = AdaptiveAvgPool().evaluate([x, np.array([0, 2])])
    assert pooled.shape == (1, 1, 0, 2)
    for sizes, shape in (([2, 0], (1, 1, 2, 0)), ([0, 2], (1, 1, 0, 2))):  # openvino 2026.4.1 infers these too
        values, indices = AdaptiveMaxPool().evaluate([x, np.array(sizes)])
        assert (values.shape, values.dtype, indices.shape, indices.dtype) == (shape, x.dtype, shape, np.int64)
    with pytest.raises(OpError, match="must give one non-negative size per spatial dim"):
        AdaptiveAvgPool().evaluate([x, np.array([-1, 2])])
    with pytest.raises(OpError, match="^Output shape must not have negative values. Got: \\[-1, 2\\]"):
        infer(AdaptiveAvgPool(), [tt("1,1,4,4"), tt("2", "i64")], [None, [-1, 2]])


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        (["1,1,2,2,2,2", "4"], "Expected a 3D, 4D or 5D tensor for the input. Got: [1,1,2,2,2,2]"),
        (["1,1,4,4", "3"], "Output shape for spatial dimension not compatible with data shape."),
    ],
)
def test_shape_refusals_match_openvino(shapes, message):
    """openvino 2026.4.1 refuses these with this message (checked on its side too)."""
    types = [tt(shapes[0]), tt(shapes[1], "i64")]
    with pytest.raises(RuntimeError, match=message.replace("[", r"\[").replace("]", r"\]")):
        same_op(AdaptiveAvgPool())(*[ov_parameter(t) for t in types])
    with pytest.raises(OpError, match="^" + message.replace("[", r"\[").replace("]", r"\]")):
        infer(AdaptiveAvgPool(), types, [None, None])


def test_output_shape_of_unknown_length_is_taken():
    types = [tt("1,1,4,4"), tt("?", "i64")]
    check_types(AdaptiveAvgPool(), types, same_op(AdaptiveAvgPool()))
    assert infer(AdaptiveAvgPool(), types, [None, None]) == ["[1,1,?,?]"]


def test_an_empty_spatial_dim_pools_only_to_size_zero():
    """[1, 1, 0, 4] pooled to [0, 2] is empty (openvino 2026.4.1's CPU plugin, the only oracle, agrees); pooled to
    [1, 2] each window would average nothing, and that plugin returns whatever its output memory held (values
    such as -3.09e-07 and 3.09e-41 from run to run): irgraph refuses it instead."""
    x = np.ones((1, 1, 0, 4), np.float32)
    check_op(AdaptiveAvgPool(), [x, np.array([0, 2], np.int32)], same_op(AdaptiveAvgPool()), constant=(1,))
    assert AdaptiveAvgPool().evaluate([x, np.array([0, 2])])[0].shape == (1, 1, 0, 2)
    for op in (AdaptiveAvgPool(), AdaptiveMaxPool()):
        with pytest.raises(OpError, match=rf"^{op.type_name} elements == 0, must be non-zero \(input \[1, 1, 0, 4\], "
                                          r"output \[1, 2\]\)$"):
            op.evaluate([x, np.array([1, 2])])
