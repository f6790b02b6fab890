"""ScaledDotProductAttention-13 against OpenVINO: batch broadcasting, causal, boolean and float masks, a scale,
f16/f32 (OpenVINO does not fold it: the CPU plugin is the oracle)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.sequence import scaled_dot_product_attention as sdpa
from irgraph.ops.sequence.scaled_dot_product_attention import ScaledDotProductAttention
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops
from tests.ops.helpers import infer, tt


def build(causal, count):
    def node(*xs):
        return ov_ops.scaled_dot_product_attention(*xs, causal=causal)
    return node


@OP_EXAMPLES
@given(data=st.data())
def test_attention_matches_openvino(data):
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F16]))
    batch = data.draw(S.shapes(min_rank=1, max_rank=2, max_side=3, zero=False))
    length, source = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    embed, embed_v = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5))
    causal = data.draw(st.booleans())
    if causal:
        source = max(source, length)  # every query row sees at least one key

    def thinned(shape):
        return tuple(1 if data.draw(st.booleans()) else d for d in shape)

    def tensor(shape):
        return S.values(element_type, shape, data.draw(S.seeds), specials=False, low=-1, high=1)

    rows = data.draw(st.sampled_from([length, 1]))  # a one-row query broadcasts to the mask's L rows
    inputs = [tensor((*thinned(batch), rows, embed)), tensor((*thinned(batch), source, embed)),
              tensor((*thinned(batch), source, embed_v))]
    mask_kind = data.draw(st.sampled_from(["none", "bool", "float", "zero"]))
    if mask_kind == "bool":
        mask = S.values(ElementType.BOOLEAN, (*thinned(batch), length, source), data.draw(S.seeds))
        mask[..., 0] = True  # no fully masked row (NaN)
        inputs.append(mask)
    elif mask_kind == "float":
        inputs.append(tensor((*thinned(batch), data.draw(st.sampled_from([1, length])), source)))
    elif mask_kind == "zero":
        inputs.append(np.zeros((), inputs[0].dtype))
    if mask_kind != "none" and data.draw(st.booleans()):
        inputs.append(np.array(data.draw(st.floats(0.1, 2.0)), inputs[0].dtype))
    op = ScaledDotProductAttention(causal=causal)
    check_op(op, inputs, build(causal, len(inputs)))


def test_spec_pseudo_code_by_hand():
    query = np.array([[[1.0, 0.0], [0.0, 1.0]]], np.float32)
    key = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]], np.float32)
    value = np.array([[[1.0], [2.0], [3.0]]], np.float32)
    (got,) = ScaledDotProductAttention(causal=True).evaluate([query, key, value])
    logits = np.array([0.0, 1.0]) / np.sqrt(2)  # query row 1 against keys 0 and 1 (key 2 is masked)
    first, second = 1.0, np.dot(np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum(), [1, 2])
    np.testing.assert_allclose(got.reshape(-1), [first, second], rtol=1e-6)
    assert infer(ScaledDotProductAttention(), [tt("1,?,80"), tt("1,?,80"), tt("1,?,64")], [None] * 3) == ["[1,?,64]"]


def test_large_problems_go_in_blocks(monkeypatch):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in [(2, 5, 3), (2, 7, 3), (2, 7, 4)])
    mask = rng.standard_normal((2, 5, 7)).astype(np.float32)
    (whole,) = ScaledDotProductAttention().evaluate([q, k, v, mask])
    monkeypatch.setattr(sdpa, "WEIGHTS_PER_STEP", 14)  # one row of both matrices at a time
    (blocked,) = ScaledDotProductAttention().evaluate([q, k, v, mask])
    np.testing.assert_array_equal(whole, blocked)
    monkeypatch.setattr(sdpa, "WEIGHTS_PER_STEP", 6)  # not even one row of both: one matrix at a time
    (per_matrix,) = ScaledDotProductAttention().evaluate([q, k, v, mask])
    np.testing.assert_array_equal(whole, per_matrix)


def test_refused_configurations():
    with pytest.raises(OpError, match="must be a floating-point type. Got: i32"):
        ScaledDotProductAttention().infer([tt("1,2,3", "i32")] * 3, [None] * 3)
    with pytest.raises(OpError, match="Embedding dimension of query and key must match"):
        ScaledDotProductAttention().infer([tt("1,2,3"), tt("1,2,4"), tt("1,2,4")], [None] * 3)
    with pytest.raises(OpError, match="at least 3D"):
        ScaledDotProductAttention().infer([tt("2,3")] * 3, [None] * 3)


_RNG = np.random.default_rng(13)


def _floats(*shape):
    return _RNG.uniform(-1, 1, shape).astype(np.float32)


@pytest.mark.parametrize(("query", "key", "mask", "output"), [
    # The mask's L broadcasts a one-row query to L rows (OpenVINO's shape rule merges L with it): a decoder block
    # cut at its hidden state with a [1, 1, 32] input under an [8, 8] causal mask gives 8 rows (issue 23).
    ((1, 2, 1, 4), (1, 2, 8, 4), (1, 1, 8, 8), (1, 2, 8, 4)),
    ((1, 2, 1, 4), (1, 2, 8, 4), (8, 8), (1, 2, 8, 4)),
    ((2, 1, 4), (2, 8, 4), (3, 2, 6, 8), (3, 2, 6, 4)),  # the mask's extra batch dims count
    ((1, 2, 3, 4), (1, 2, 8, 4), (1, 1, 3, 1), (1, 2, 3, 4)),  # S of 1 broadcasts over the keys
])
@pytest.mark.parametrize("boolean", [False, True])
def test_the_mask_broadcasts_the_query_rows_as_openvino_does(query, key, mask, output, boolean):
    mask_array = _RNG.integers(0, 2, mask).astype(bool) if boolean else _floats(*mask)
    if boolean:
        mask_array[..., 0] = True  # no fully masked row (NaN)
    inputs = [_floats(*query), _floats(*key), _floats(*key), mask_array]
    outcome = check_op(ScaledDotProductAttention(), inputs, build(False, 4))
    assert outcome.cpu  # judged by the CPU plugin (OpenVINO 2026.4.1 does not fold the op)
    assert ScaledDotProductAttention().evaluate(inputs)[0].shape == output


@pytest.mark.parametrize("mask", [(8,), (1, 1, 5, 8), (1, 1, 3, 5)])
def test_a_mask_that_does_not_fit_is_refused_as_openvino_refuses_it(mask):
    inputs = [_floats(1, 2, 3, 4), _floats(1, 2, 8, 4), _floats(1, 2, 8, 4), _floats(*mask)]
    assert check_op(ScaledDotProductAttention(), inputs, build(False, 4)).refused
    with pytest.raises(OpError, match="Attention mask input shape not compatible with other inputs"):
        ScaledDotProductAttention().evaluate(inputs)


@pytest.mark.parametrize("shapes", [
    ("1,2,?,4", "1,2,8,4", "1,2,8,4", "1,1,8,8"),
    ("1,2,1,4", "1,2,?,4", "1,2,?,4", "1,1,8,8"),
    ("1,2,1,4", "1,2,8,4", "1,2,8,4", "?,?"),
    ("1,2,2..4,4", "1,2,8,4", "1,2,8,4", "1,1,1..3,8"),
    ("?,2,1,4", "1,2,8,4", "1,2,8,4", "3,1,1,1,8"),
    ("1,2,1,4", "1,2,8,4", "1,2,8,4", "..."),  # a mask of dynamic rank leaves L to the query
])
def test_partial_shapes_with_a_mask_match_openvino(shapes):
    types = [tt(shape) for shape in shapes]
    assert not check_types(ScaledDotProductAttention(), types, build(False, 4)).refused


@pytest.mark.parametrize(("causal", "shapes", "expected"), [
    (False, [(1, 4, 1, 8), (1, 4, 5, 8), (1, 4, 5, 3), (1, 1, 1, 5)], (1, 4, 1, 3)),  # a decode step's
    (False, [(2, 1, 1, 8), (1, 3, 5, 8), (1, 3, 5, 8), (4, 5)], (2, 3, 4, 8)),  # the mask's rows broadcast L
    (True, [(2, 6, 8), (2, 5, 8), (2, 5, 3), (9, 9)], (2, 6, 3)),  # causal: the mask is ignored
])
def test_output_shapes_from_the_arrays_agree_with_infer_and_evaluate(causal, shapes, expected):
    """output_shapes is worked out from the arrays' shapes (not infer, which a decode step would run every
    step); it must say what infer and evaluate say."""
    op = ScaledDotProductAttention(causal=causal)
    arrays = [np.zeros(shape, np.float32) for shape in shapes]
    assert op.output_shapes(arrays) == [expected]
    types = [tt(",".join(map(str, shape))) for shape in shapes]
    assert infer(op, types, [None] * len(types)) == ["[" + ",".join(map(str, expected)) + "]"]
    assert op.evaluate(arrays)[0].shape == expected
    assert not ScaledDotProductAttention.shapes_read_values()  # the runtime remembers it per input shapes


def test_output_shapes_refuses_what_evaluate_refuses():
    op = ScaledDotProductAttention(causal=False)
    with pytest.raises(OpError, match=r"Source sequence length of key and value must match. Got: \[1, 5, 8\] and "
                                      r"\[1, 4, 8\]"):
        op.output_shapes([np.zeros((1, 2, 8), np.float32), np.zeros((1, 5, 8), np.float32),
                          np.zeros((1, 4, 8), np.float32)])
