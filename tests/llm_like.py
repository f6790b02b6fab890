"""A LLaMA-like stateful decoder written by the real OpenVINO (``openvino.opset13`` builders, ``ov.save_model``), laid
out as optimum-intel's stateful export lays it out, with random weights (nothing big is kept in the repository).

Inputs ``input_ids`` i64[?,?], ``attention_mask`` i64[?,?] (past and new tokens), ``position_ids`` i64[?,?] and
``beam_idx`` i32[?]; output ``logits`` f32[?,?,vocab]. Each layer: RMSNorm -> q/k/v MatMuls -> rotary position
embedding (cos/sin of ``position_ids``, rotate-half by Split/Negative/Concat) -> the key and value caches, each a
ReadValue (initialised from a ``[batch, heads, 0, head]`` zero Broadcast) -> Gather of ``beam_idx`` -> Concat with
the new rows -> Assign -> ScaledDotProductAttention with an explicit causal-and-padding mask -> output projection
-> residual -> RMSNorm -> SwiGLU MLP -> residual. A final RMSNorm and the LM head give the logits.

Weights: ``"fp16"`` saves f32 weights with ``compress_to_fp16`` (Const f16 -> Convert f32), ``"f32"`` as they are;
``"int8"`` and ``"int4"`` write NNCF 3.4's decompression pattern (see docs/decompression.md): ``int8`` asymmetric per
output channel, Const u8 -> Convert f16 -> Subtract(Convert f16 of a u8 zero point) -> Multiply(f16 scale) ->
Convert f32; ``int4`` asymmetric in groups of 128 (u4 codes [out, groups, 128], a Reshape after the Multiply), with
the embedding and LM head kept int8 as NNCF's default backup mode keeps them; ``"mixed"`` alternates int8 and
int4 decoder layers (the most distinct layouts in one file, as an int4 export with int8 backup layers has) and, as
the converters leave it, saves the other f32 constants fp16-compressed. ``kv_heads`` below ``heads`` gives
grouped-query attention, each KV head repeated for its query heads by Unsqueeze -> Broadcast -> Reshape as
transformers' ``repeat_kv`` converts.

This is the one LLaMA-like generator: the tests check it against OpenVINO (tests/runtime/test_llm_like_openvino.py)
and the benchmarks load this file by its path (benchmarks/_common.py ``llm_like``) for bench (l)'s steps and bench
(r)'s reading. It imports nothing but NumPy and OpenVINO so that it can be loaded that way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

WEIGHT_FORMATS = ("f32", "fp16", "int8", "int4", "mixed")


@dataclass(frozen=True)
class LlamaConfig:
    """The shape of the decoder: LLaMA's layout with the sizes given."""

    hidden: int = 1024
    layers: int = 8
    heads: int = 16
    kv_heads: int = 0
    """Key/value heads (grouped-query attention when fewer than ``heads``); 0: as many as ``heads``."""
    intermediate: int = 2816
    vocab: int = 32000
    group: int = 128
    """int4 group size (NNCF's default for optimum-intel's int4 export)."""
    eps: float = 1e-6
    rope_base: float = 10000.0
    seed: int = 0

    @property
    def head(self) -> int:
        return self.hidden // self.heads

    @property
    def kv(self) -> int:
        """How many key/value heads the caches hold."""
        return self.kv_heads or self.heads

    def weight_count(self) -> int:
        """How many weights the model holds (the decompressed f32 model is four bytes each)."""
        projections = 2 * self.hidden * self.hidden + 2 * self.hidden * self.kv * self.head
        per_layer = projections + 3 * self.hidden * self.intermediate + 2 * self.hidden
        return 2 * self.vocab * self.hidden + self.layers * per_layer + self.hidden


SMALL = LlamaConfig(hidden=64, layers=2, heads=4, intermediate=192, vocab=128, group=32)
"""The size the oracle test builds: every layer kind of the full model, a few thousand weights each."""
SMALL_GQA = LlamaConfig(hidden=64, layers=2, heads=4, kv_heads=2, intermediate=192, vocab=128, group=32)
"""The same with grouped-query attention (two query heads per KV head)."""


def write_llama(directory: Path, config: LlamaConfig = LlamaConfig(), weights: str = "fp16",
                name: str = "openvino_model") -> Path:
    """Build the decoder, save ``name.xml``/``.bin`` into ``directory`` with OpenVINO and return the .xml."""
    import openvino as ov

    if weights not in WEIGHT_FORMATS:
        raise ValueError(f"weights must be one of {WEIGHT_FORMATS}; got {weights!r}")
    builder = _Builder(config, weights)
    model = builder.model()
    path = Path(directory) / f"{name}.xml"
    ov.save_model(model, str(path), compress_to_fp16=weights in ("fp16", "mixed"))
    del builder  # only now: its u4 Constants view the codes it keeps alive
    return path


class _Builder:
    def __init__(self, config: LlamaConfig, weights: str) -> None:
        import openvino as ov
        import openvino.opset13 as ops

        self.ov, self.ops, self.config, self.weights = ov, ops, config, weights
        self.rng = np.random.default_rng(config.seed)
        self.kept_alive: list[np.ndarray] = []

    # -------------------------------------------------------------------------------- constants and weights
    def i64(self, value: object):
        return self.ops.constant(np.array(value, np.int64))

    def f32(self, value: object):
        return self.ops.constant(np.array(value, np.float32))

    def random(self, *shape: int, scale: float) -> np.ndarray:
        return (self.rng.standard_normal(shape, dtype=np.float32) * np.float32(scale)).astype(np.float32)

    def weight(self, rows: int, columns: int, name: str, *, backup: bool = False, layer: int = 0):
        """A [rows, columns] f32 weight (rows: output channels), as the chosen format stores it."""
        value = self.random(rows, columns, scale=columns ** -0.5)
        if self.weights in ("f32", "fp16"):
            return self.ops.constant(value, name=name)
        eight_bits = self.weights == "int8" or (self.weights == "mixed" and layer % 2 == 0)
        if eight_bits or backup or columns % self.config.group:
            return self._int8(value, name)
        return self._int4(value, name)

    def _int8(self, value: np.ndarray, name: str):
        ops, ov = self.ops, self.ov
        low, high = value.min(axis=1, keepdims=True), value.max(axis=1, keepdims=True)
        scale = np.maximum((high - low) / 255, 1e-8).astype(np.float16)
        zero = np.clip(np.round(-low / scale.astype(np.float32)), 0, 255).astype(np.uint8)
        codes = np.clip(np.round(value / scale.astype(np.float32)) + zero, 0, 255).astype(np.uint8)
        chain = ops.convert(ops.constant(codes, name=name), ov.Type.f16)
        chain = ops.subtract(chain, ops.convert(ops.constant(zero, name=f"{name}/zero_point"), ov.Type.f16))
        chain = ops.multiply(chain, ops.constant(scale, name=f"{name}/scale"))
        return ops.convert(chain, ov.Type.f32)

    def _int4(self, value: np.ndarray, name: str):
        ops, ov = self.ops, self.ov
        rows, columns = value.shape
        grouped = value.reshape(rows, columns // self.config.group, self.config.group)
        low, high = grouped.min(axis=2, keepdims=True), grouped.max(axis=2, keepdims=True)
        scale = np.maximum((high - low) / 15, 1e-8).astype(np.float16)
        zero = np.clip(np.round(-low / scale.astype(np.float32)), 0, 15).astype(np.uint8)
        codes = np.clip(np.round(grouped / scale.astype(np.float32)) + zero, 0, 15).astype(np.uint8)
        chain = ops.convert(self._u4(codes, name), ov.Type.f16)
        chain = ops.subtract(chain, ops.convert(self._u4(zero, f"{name}/zero_point"), ov.Type.f16))
        chain = ops.multiply(chain, ops.constant(scale, name=f"{name}/scale"))
        chain = ops.reshape(chain, self.i64([rows, columns]), False)
        return ops.convert(chain, ov.Type.f32)

    def _u4(self, codes: np.ndarray, name: str):
        flat = codes.reshape(-1)
        if flat.size % 2:
            flat = np.append(flat, np.uint8(0))
        packed = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8)  # the low nibble holds the first element
        tensor = self.ov.Tensor(packed, self.ov.Shape(list(codes.shape)), self.ov.Type.u4)
        # The Tensor and its Constant view `packed` without owning it: kept alive until the model is saved, or the
        # .bin gets whatever reused that memory (the u4 weights then differed from process to process).
        self.kept_alive.append(packed)
        return self.ops.constant(tensor, name=name)

    # -------------------------------------------------------------------------------- layers
    def linear(self, x, rows: int, columns: int, name: str, *, backup: bool = False, layer: int = 0):
        return self.ops.matmul(x, self.weight(rows, columns, name, backup=backup, layer=layer), False, True)

    def rms_norm(self, x, name: str):
        ops, config = self.ops, self.config
        variance = ops.reduce_mean(ops.power(x, self.f32(2.0)), self.i64([-1]), True)
        normed = ops.multiply(x, ops.divide(self.f32(1.0), ops.sqrt(ops.add(variance, self.f32(config.eps)))))
        gain = self.ops.constant((1 + self.random(1, 1, config.hidden, scale=0.1)).astype(np.float32), name=name)
        return ops.multiply(normed, gain)

    def heads(self, x, count: int):  # [B, T, count * head] -> [B, count, T, head]
        return self.ops.transpose(self.ops.reshape(x, self.i64([0, 0, count, self.config.head]), True),
                                  self.i64([0, 2, 1, 3]))

    def repeat_kv(self, cache):
        """[B, kv, S, head] -> [B, heads, S, head], each KV head repeated for its query heads (none when equal)."""
        ops, config = self.ops, self.config
        if config.kv == config.heads:
            return cache
        shape = ops.shape_of(cache)
        target = ops.concat([ops.gather(shape, self.i64([0, 1]), self.i64(0)), self.i64([config.heads // config.kv]),
                             ops.gather(shape, self.i64([2, 3]), self.i64(0))], 0)
        repeated = ops.broadcast(ops.unsqueeze(cache, self.i64(2)), target)
        return ops.reshape(repeated, self.i64([0, config.heads, -1, config.head]), True)

    def rotary(self, x, cos, sin):
        ops = self.ops
        first, second = ops.split(x, self.i64(-1), 2).outputs()
        return ops.add(ops.multiply(x, cos), ops.multiply(ops.concat([ops.negative(second), first], -1), sin))

    def cache(self, index: int, kind: str, new, batch, beam_idx):
        """The ReadValue/Gather/Concat/Assign of one KV cache variable; returns (all rows, the Assign)."""
        from openvino.op.util import Variable, VariableInfo

        ops, ov, config = self.ops, self.ov, self.config
        info = VariableInfo()
        info.data_shape = ov.PartialShape([-1, config.kv, -1, config.head])
        info.data_type = ov.Type.f32
        info.variable_id = f"past_key_values.{index}.{kind}present.{index}.{kind}"
        variable = Variable(info)
        shape = ops.concat([batch, self.i64([config.kv, 0, config.head])], 0)
        past = ops.read_value(ops.broadcast(self.f32(0.0), shape), variable)
        joined = ops.concat([ops.gather(past, beam_idx, self.i64(0)), new], 2)
        return joined, ops.assign(joined, variable)

    def model(self):
        ops, ov, config = self.ops, self.ov, self.config
        ids = ops.parameter([-1, -1], ov.Type.i64, name="input_ids")
        attention_mask = ops.parameter([-1, -1], ov.Type.i64, name="attention_mask")
        position_ids = ops.parameter([-1, -1], ov.Type.i64, name="position_ids")
        beam_idx = ops.parameter([-1], ov.Type.i32, name="beam_idx")
        parameters = [ids, attention_mask, position_ids, beam_idx]
        for parameter in parameters:
            parameter.output(0).set_names({parameter.get_friendly_name()})
        batch = ops.gather(ops.shape_of(ids), self.i64([0]), self.i64(0))

        table = self.weight(config.vocab, config.hidden, "model.embed_tokens.weight", backup=True)
        hidden = ops.gather(table, ids, self.i64(0))

        inverse = 1.0 / config.rope_base ** (np.arange(0, config.head, 2, dtype=np.float32) / config.head)
        angles = ops.multiply(ops.unsqueeze(ops.convert(position_ids, ov.Type.f32), self.i64(-1)),
                              self.f32(inverse.reshape(1, 1, -1)))
        angles = ops.unsqueeze(ops.concat([angles, angles], -1), self.i64(1))  # [B, 1, T, head]
        cos, sin = ops.cos(angles), ops.sin(angles)

        # The mask: a key is seen when it is not after the query's position and attention_mask keeps it.
        keys = ops.range(self.i64(0), ops.gather(ops.shape_of(attention_mask), self.i64(1), self.i64(0)),
                         self.i64(1), ov.Type.i64)
        queries = ops.unsqueeze(position_ids, self.i64([1, 3]))  # [B, 1, T, 1]
        seen = ops.logical_and(ops.less_equal(keys, queries),
                               ops.unsqueeze(ops.greater(attention_mask, self.i64(0)), self.i64([1, 2])))
        mask = ops.select(seen, self.f32(0.0), self.f32(np.finfo(np.float32).min))

        sinks = []
        for index in range(config.layers):
            prefix = f"model.layers.{index}"
            normed = self.rms_norm(hidden, f"{prefix}.input_layernorm.weight")
            query, key, value = (self.heads(self.linear(normed, count * config.head, config.hidden,
                                                        f"{prefix}.self_attn.{kind}_proj.weight", layer=index), count)
                                 for kind, count in (("q", config.heads), ("k", config.kv), ("v", config.kv)))
            query, key = self.rotary(query, cos, sin), self.rotary(key, cos, sin)
            key, key_sink = self.cache(index, "key", key, batch, beam_idx)
            value, value_sink = self.cache(index, "value", value, batch, beam_idx)
            sinks += [key_sink, value_sink]
            attended = ops.scaled_dot_product_attention(query, self.repeat_kv(key), self.repeat_kv(value), mask,
                                                        causal=False)
            merged = ops.reshape(ops.transpose(attended, self.i64([0, 2, 1, 3])), self.i64([0, 0, config.hidden]),
                                 True)
            hidden = ops.add(hidden, self.linear(merged, config.hidden, config.hidden,
                                                 f"{prefix}.self_attn.o_proj.weight", layer=index))
            normed = self.rms_norm(hidden, f"{prefix}.post_attention_layernorm.weight")
            gate = self.linear(normed, config.intermediate, config.hidden, f"{prefix}.mlp.gate_proj.weight",
                               layer=index)
            up = self.linear(normed, config.intermediate, config.hidden, f"{prefix}.mlp.up_proj.weight", layer=index)
            hidden = ops.add(hidden, self.linear(ops.multiply(ops.swish(gate), up), config.hidden,
                                                 config.intermediate, f"{prefix}.mlp.down_proj.weight", layer=index))
        normed = self.rms_norm(hidden, "model.norm.weight")
        logits = self.linear(normed, config.vocab, config.hidden, "lm_head.weight", backup=True)
        logits.output(0).set_names({"logits"})
        return ov.Model([ops.result(logits)], sinks, parameters, "llama-like")


def step_inputs(tokens: np.ndarray, past: int) -> dict[str, np.ndarray]:
    """The four inputs of one generation step: ``tokens`` [B, T] after ``past`` tokens already in the cache."""
    batch, length = tokens.shape
    return {
        "input_ids": tokens.astype(np.int64),
        "attention_mask": np.ones((batch, past + length), np.int64),
        "position_ids": np.broadcast_to(np.arange(past, past + length, dtype=np.int64), (batch, length)).copy(),
        "beam_idx": np.arange(batch, dtype=np.int32),
    }
