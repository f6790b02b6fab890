"""A GPT-2-like attention block written by the real OpenVINO (``openvino.opset13`` builders, ``ov.save_model``).

input_ids i64[?,?] -> embedding (Gather) -> ``hidden`` (Add of a position row; tensor ``x.1``) -> query, while
key and value come from the embedding itself; the mask is causal [T, T] plus padding from attention_mask
i64[?,?] ([B, 1, T, T]) -> ScaledDotProductAttention ``attention`` -> heads merged -> ``projection`` (MatMul,
f32[?,?,32]). Cut at ``hidden`` and fed a one-row hidden state, the query has one row and the [8, 8] mask
gives the attention 8: what a decoder block cut out of a converted GPT-2 does (issue 23).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

WIDTH = 32


def write_decoder(directory: Path, name: str = "decoder") -> Path:
    """Write ``name.xml``/``name.bin`` into ``directory`` with OpenVINO; return the .xml."""
    import openvino as ov
    import openvino.opset13 as ops

    rng = np.random.default_rng(3)
    heads, vocab = 2, 100

    def weights(*shape: int, scale: float = 0.2) -> object:
        return ops.constant((rng.standard_normal(shape) * scale).astype(np.float32))

    def i64(value: object) -> object:
        return ops.constant(np.array(value, np.int64))

    def split_heads(x: object) -> object:  # [B, T, W] -> [B, H, T, W/H]
        return ops.transpose(ops.reshape(x, i64([0, 0, heads, WIDTH // heads]), True), i64([0, 2, 1, 3]))

    ids = ops.parameter([-1, -1], ov.Type.i64, name="input_ids")
    attention_mask = ops.parameter([-1, -1], ov.Type.i64, name="attention_mask")
    for parameter in (ids, attention_mask):
        parameter.output(0).set_names({parameter.get_friendly_name()})
    embedded = ops.gather(weights(vocab, WIDTH, scale=1.0), ids, i64(0))
    hidden = ops.add(embedded, weights(1, 1, WIDTH), name="hidden")
    hidden.output(0).set_names({"x.1"})
    query, key, value = (split_heads(ops.matmul(source, weights(WIDTH, WIDTH), False, False))
                         for source in (hidden, embedded, embedded))
    length = ops.gather(ops.shape_of(ids), i64(1), i64(0))
    positions = ops.range(i64(0), length, i64(1), ov.Type.i64)
    rows = ops.unsqueeze(positions, i64(1))
    zero, masked = ops.constant(np.float32(0)), ops.constant(np.float32(-1e4))
    causal = ops.select(ops.greater_equal(rows, positions), zero, masked)
    padding = ops.select(ops.greater(attention_mask, i64(0)), zero, masked)
    mask = ops.add(causal, ops.unsqueeze(padding, i64([1, 2])))
    attended = ops.scaled_dot_product_attention(query, key, value, mask, causal=False, name="attention")
    merged = ops.reshape(ops.transpose(attended, i64([0, 2, 1, 3])), i64([0, 0, WIDTH]), True)
    projection = ops.matmul(merged, weights(WIDTH, WIDTH), False, False, name="projection")
    model = ov.Model([ops.result(projection)], [ids, attention_mask], name)
    path = directory / f"{name}.xml"
    ov.save_model(model, str(path))
    return path
