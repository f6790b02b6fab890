"""Today's exports, generated with OpenVINO's opset builders (transformers, optimum and torchvision are not
dependencies): an optimum-intel-like LLM decoder and a detection network whose post-processing sits in If bodies.

- ``llm``: a LLaMA-like decoder as optimum-intel exports it (stateful KV cache through ReadValue/Assign and
  beam_idx Gathers, RMSNorm, rotary embeddings, ScaledDotProductAttention, SwiGLU MLP), its weights compressed
  as NNCF leaves them: u8 per output channel (Const u8 -> Convert f16 -> Subtract zero point -> Multiply scale
  -> Convert f32) and u4 in groups (the same plus a Reshape from [O, I/G, G] to [O, I]), the embedding and
  lm_head u8. The two kinds and the per-layer shapes give the many distinct layouts of such files. 3 decoder
  layers make about 650 IR layers (optimum-intel's small LLM exports have 230-640).
- ``detection``: a small SSD-like backbone (Conv, Add, Relu; fp16 weights behind decompression Converts) and
  per-level post-processing in If layers (an empty-detection branch and a TopK/Gather branch, one with a
  nested If), as torchvision's detection models convert.

Everything is written by ``ov.save_model`` (fp16 compression on, as the converters leave it), so both readers
read OpenVINO's own layout.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

LLM_LAYERS = 3
LLM_HIDDEN = 256
LLM_HEADS = 4
LLM_KV_HEADS = 2
LLM_FFN = 512
LLM_VOCAB = 512
GROUP = 64


def _ov():  # imported here: the benchmark module imports this file whether or not OpenVINO is installed
    import openvino as ov
    import openvino.opset13 as ops

    return ov, ops


def _const(ops, array: np.ndarray):
    return ops.constant(array)


def _compressed(ops, rng: np.random.Generator, rows: int, columns: int, bits: int, name: str):
    """An f32 weight [rows, columns] as NNCF writes a compressed one: u8 per channel, u4 in groups (16: an f16
    weight behind a decompression Convert, as an fp16 export has)."""
    ov, _ = _ov()
    if bits == 16:
        weight = (rng.standard_normal((rows, columns)) * 0.02).astype(np.float16)
        return ops.convert(ops.constant(weight, name=f"{name}.weight"), "f32")
    if bits == 8:
        codes = ops.constant(rng.integers(0, 256, (rows, columns), dtype=np.uint8), name=f"{name}.weight")
        zero = ops.constant(rng.integers(100, 156, (rows, 1), dtype=np.uint8), name=f"{name}.zp")
        scale = ops.constant((rng.random((rows, 1)) * 0.01).astype(np.float16), name=f"{name}.scale")
        shape = None
    else:
        groups = columns // GROUP
        codes = ops.constant(rng.integers(0, 16, (rows, groups, GROUP), dtype=np.uint8), ov.Type.u4,
                             name=f"{name}.weight")
        zero = ops.constant(rng.integers(6, 10, (rows, groups, 1), dtype=np.uint8), ov.Type.u4, name=f"{name}.zp")
        scale = ops.constant((rng.random((rows, groups, 1)) * 0.01).astype(np.float16), name=f"{name}.scale")
        shape = ops.constant(np.array([rows, columns], dtype=np.int64))
    value = ops.convert(codes, "f16")
    value = ops.subtract(value, ops.convert(zero, "f16"))
    value = ops.multiply(value, scale)
    if shape is not None:
        value = ops.reshape(value, shape, special_zero=False)
    return ops.convert(value, "f32")


def _linear(ops, rng, x, rows: int, columns: int, bits: int, name: str):
    return ops.matmul(x, _compressed(ops, rng, rows, columns, bits, name), transpose_a=False, transpose_b=True)


def _rms(ops, rng, x, name: str, hidden: int):
    variance = ops.reduce_mean(ops.power(x, _const(ops, np.float32(2))), _const(ops, np.array([-1])), True)
    scale = ops.sqrt(ops.add(variance, _const(ops, np.float32(1e-6))))
    normed = ops.multiply(x, ops.divide(_const(ops, np.float32(1)), scale))
    return ops.multiply(normed, _const(ops, rng.random((1, 1, hidden)).astype(np.float32)), name=f"{name}.rms")


def _rotate(ops, x, cos, sin, head: int):
    half = head // 2
    first = ops.slice(x, np.array([0]), np.array([half]), np.array([1]), np.array([3]))
    second = ops.slice(x, np.array([half]), np.array([2**62]), np.array([1]), np.array([3]))
    rotated = ops.concat([ops.multiply(second, _const(ops, np.float32(-1))), first], 3)
    return ops.add(ops.multiply(x, cos), ops.multiply(rotated, sin))


def llm(path: Path, layers: int = LLM_LAYERS, seed: int = 0, *, hidden: int = LLM_HIDDEN, heads: int = LLM_HEADS,
        kv_heads: int = LLM_KV_HEADS, ffn: int = LLM_FFN, vocab: int = LLM_VOCAB, bits: int | None = None) -> Path:
    """Write the LLM export to ``path`` (.xml + .bin) and return it. ``bits``: 8 (u8), 4 (u4 in groups; the
    embedding and lm_head u8) or 16 (f16) weights; None alternates u8 and u4 layers (the most layouts)."""
    ov, ops = _ov()
    rng = np.random.default_rng(seed)
    head = hidden // heads
    table_bits = 16 if bits == 16 else 8
    input_ids = ops.parameter([-1, -1], np.int64, name="input_ids")
    mask = ops.parameter([-1, -1], np.int64, name="attention_mask")
    positions = ops.parameter([-1, -1], np.int64, name="position_ids")
    beam_idx = ops.parameter([-1], np.int32, name="beam_idx")
    table = _compressed(ops, rng, vocab, hidden, table_bits, "model.embed_tokens")
    state = ops.gather(table, ops.convert(input_ids, "i32"), np.int32(0))
    inverse = _const(ops, (1.0 / 10000 ** (np.arange(0, head, 2) / head)).reshape(1, -1, 1).astype(np.float32))
    angles = ops.transpose(ops.matmul(inverse, ops.unsqueeze(ops.convert(positions, "f32"), np.int64(1)), False,
                                      False), np.array([0, 2, 1]))
    angles = ops.concat([angles, angles], -1)
    cos, sin = (ops.unsqueeze(f(angles), np.int64(1)) for f in (ops.cos, ops.sin))
    bias = ops.multiply(ops.subtract(_const(ops, np.float32(1)), ops.convert(mask, "f32")),
                        _const(ops, np.float32(-1e9)))
    bias = ops.unsqueeze(bias, np.array([1, 2]))
    sinks = []
    for index in range(layers):
        name = f"model.layers.{index}"
        layer_bits = bits or (4 if index % 2 else 8)
        normed = _rms(ops, rng, state, f"{name}.input_layernorm", hidden)
        projections = []
        for kind, count in (("q", heads), ("k", kv_heads), ("v", kv_heads)):
            projected = _linear(ops, rng, normed, count * head, hidden, layer_bits, f"{name}.self_attn.{kind}_proj")
            split = ops.reshape(projected, np.array([0, 0, count, head]), special_zero=True)
            projections.append(ops.transpose(split, np.array([0, 2, 1, 3])))
        query, key, value = projections
        query, key = _rotate(ops, query, cos, sin, head), _rotate(ops, key, cos, sin, head)
        cached = []
        for kind, fresh in (("key", key), ("value", value)):
            variable = ov.op.util.VariableInfo()
            variable.data_shape = ov.PartialShape([-1, kv_heads, -1, head])
            variable.data_type = ov.Type.f32
            variable.variable_id = f"past_key_values.{index}.{kind}"
            cache_variable = ov.op.util.Variable(variable)
            initial = ops.broadcast(_const(ops, np.float32(0)),
                                    ops.concat([ops.gather(ops.shape_of(input_ids), np.int64([0]), np.int64(0)),
                                                np.array([kv_heads, 0, head])], 0))
            past = ops.gather(ops.read_value(initial, cache_variable), beam_idx, np.int64(0))
            joined = ops.concat([past, fresh], 2)
            sinks.append(ops.assign(joined, cache_variable))
            cached.append(joined)
        repeat = heads // kv_heads
        expanded = []
        for cache in cached:  # grouped-query attention: each KV head repeated for its query heads
            shape = ops.shape_of(cache)
            target = ops.concat([ops.gather(shape, np.int64([0, 1]), np.int64(0)), np.array([repeat]),
                                 ops.gather(shape, np.int64([2, 3]), np.int64(0))], 0)
            repeated = ops.broadcast(ops.unsqueeze(cache, np.int64(2)), target)
            expanded.append(ops.reshape(repeated, np.array([0, heads, -1, head]), special_zero=True))
        attention = ops.scaled_dot_product_attention(query, expanded[0], expanded[1], bias, causal=False)
        merged = ops.reshape(ops.transpose(attention, np.array([0, 2, 1, 3])), np.array([0, 0, hidden]),
                             special_zero=True)
        state = ops.add(state, _linear(ops, rng, merged, hidden, hidden, layer_bits, f"{name}.self_attn.o_proj"))
        normed = _rms(ops, rng, state, f"{name}.post_attention_layernorm", hidden)
        gate = ops.swish(_linear(ops, rng, normed, ffn, hidden, layer_bits, f"{name}.mlp.gate_proj"))
        up = _linear(ops, rng, normed, ffn, hidden, layer_bits, f"{name}.mlp.up_proj")
        state = ops.add(state, _linear(ops, rng, ops.multiply(gate, up), hidden, ffn, layer_bits,
                                       f"{name}.mlp.down_proj"))
    logits = _linear(ops, rng, _rms(ops, rng, state, "model.norm", hidden), vocab, hidden, table_bits, "lm_head")
    result = ops.result(logits, name="logits")
    result.get_output_tensor(0).set_names({"logits"})
    model = ov.Model([result], sinks, [input_ids, mask, positions, beam_idx], "llama-like")
    ov.save_model(model, str(path))
    return path


def _conv(ops, rng, x, channels_in: int, channels_out: int, stride: int):
    weight = _const(ops, (rng.standard_normal((channels_out, channels_in, 3, 3)) * 0.1).astype(np.float32))
    y = ops.convolution(x, weight, [stride, stride], [1, 1], [1, 1], [1, 1])
    y = ops.add(y, _const(ops, rng.standard_normal((1, channels_out, 1, 1)).astype(np.float32)))
    return ops.relu(y)


def _if(ops, condition, inputs: list, then_build, else_build):
    """An If layer with bodies built by ``then_build``/``else_build`` from Parameters like ``inputs``."""
    ov, _ = _ov()
    node = ops.if_op(condition.output(0) if hasattr(condition, "output") else condition)
    bodies = []
    inputs = [x.output(0) if hasattr(x, "output") else x for x in inputs]
    for build in (then_build, else_build):
        parameters = [ops.parameter(x.get_partial_shape(), x.get_element_type()) for x in inputs]
        results = [ops.result(y) for y in build(parameters)]
        bodies.append((ov.Model(results, parameters), parameters, results))
    node.set_then_body(bodies[0][0])
    node.set_else_body(bodies[1][0])
    for position, x in enumerate(inputs):
        node.set_input(x, bodies[0][1][position], bodies[1][1][position])
    outputs = [node.set_output(then, other) for then, other in zip(bodies[0][2], bodies[1][2], strict=True)]
    return outputs


def detection(path: Path, levels: int = 6, seed: int = 0) -> Path:
    """Write the detection export to ``path`` and return it: a backbone and ``levels`` If post-processors."""
    ov, ops = _ov()
    rng = np.random.default_rng(seed)
    image = ops.parameter([1, 3, 128, 128], np.float32, name="image")
    x = image
    channels = 3
    outputs = []
    for level in range(levels):
        width = 16 * (level + 1)
        for stride in (2 if level < 4 else 1, 1, 1):
            x = _conv(ops, rng, x, channels, width, stride)
            channels = width
        scores = ops.reshape(ops.reduce_mean(x, np.array([1]), False), np.array([-1]), False)
        boxes = ops.reshape(_conv(ops, rng, x, channels, 4, 1), np.array([4, -1]), False)
        count = ops.reduce_max(ops.convert(ops.greater(scores, _const(ops, np.float32(0.5))), "i64"),
                               np.array([0]), False)
        condition = ops.convert(count, "boolean")

        def found(parameters, level=level):
            scores_in, boxes_in = parameters
            top = ops.topk(scores_in, np.int64(8), 0, "max", "value", "i64")
            picked = ops.gather(boxes_in, top.output(1), np.int64(1))
            scaled = ops.multiply(picked, _const(ops, rng.random((4, 1)).astype(np.float32)))
            clipped = ops.clamp(scaled, 0.0, 128.0)
            keep = ops.convert(ops.greater(ops.reduce_max(top.output(0), np.array([0]), True),
                                           _const(ops, np.float32(0.9))), "boolean")
            keep = ops.squeeze(keep, np.array([0]))
            inner = _if(ops, keep, [clipped], lambda p: [ops.floor(p[0])], lambda p: [ops.ceil(p[0])])
            return [ops.transpose(inner[0], np.array([1, 0])), top.output(0)]

        def empty(parameters):
            zeros = ops.broadcast(_const(ops, np.float32(0)), np.array([8, 4]))
            none = ops.broadcast(_const(ops, np.float32(-1)), np.array([8]))
            return [ops.add(zeros, _const(ops, np.zeros((1, 4), np.float32))), ops.abs(none)]

        branches = _if(ops, condition, [scores, boxes], found, empty)
        for branch, kind in zip(branches, ("boxes", "scores"), strict=True):
            outputs.append(ops.result(branch, name=f"level{level}.{kind}"))
    model = ov.Model(outputs, [image], "ssd-like")
    ov.save_model(model, str(path))
    return path
