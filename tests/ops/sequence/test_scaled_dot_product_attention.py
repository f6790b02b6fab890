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
from tests.ops.differential import OP_EXAMPLES, check_op, ov_ops
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

    inputs = [tensor((*thinned(batch), length, embed)), tensor((*thinned(batch), source, embed)),
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
    monkeypatch.setattr(sdpa, "WEIGHTS_PER_STEP", 14)
    (blocked,) = ScaledDotProductAttention().evaluate([q, k, v, mask])
    np.testing.assert_array_equal(whole, blocked)


def test_refused_configurations():
    with pytest.raises(OpError, match="must be a floating-point type. Got: i32"):
        ScaledDotProductAttention().infer([tt("1,2,3", "i32")] * 3, [None] * 3)
    with pytest.raises(OpError, match="Embedding dimension of query and key must match"):
        ScaledDotProductAttention().infer([tt("1,2,3"), tt("1,2,4"), tt("1,2,4")], [None] * 3)
    with pytest.raises(OpError, match="at least 3D"):
        ScaledDotProductAttention().infer([tt("2,3")] * 3, [None] * 3)
