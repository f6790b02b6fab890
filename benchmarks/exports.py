"""Today's exports, generated with OpenVINO's opset builders (transformers, optimum and torchvision are not
dependencies): an optimum-intel-like LLM decoder and a detection network whose post-processing sits in If bodies.

- ``llm``: a LLaMA-like decoder as optimum-intel exports it (tests/llm_like.py, the generator the tests check
  against OpenVINO: stateful KV cache through ReadValue/Assign and beam_idx Gathers, RMSNorm, rotary embeddings,
  grouped-query ScaledDotProductAttention, SwiGLU MLP), its weights compressed as NNCF leaves them: u8 per output
  channel (Const u8 -> Convert f16 -> Subtract zero point -> Multiply scale -> Convert f32) and u4 in groups (the
  same plus a Reshape from [O, I/G, G] to [O, I]) in alternate layers, the embedding and lm_head u8. The two
  kinds and the per-layer shapes give the many distinct layouts of such files.
- ``detection``: a small SSD-like backbone (Conv, Add, Relu; fp16 weights behind decompression Converts) and
  per-level post-processing in If layers (an empty-detection branch and a TopK/Gather branch, one with a
  nested If), as torchvision's detection models convert.

Everything is written by ``ov.save_model`` (fp16 compression on, as the converters leave it), so both readers
read OpenVINO's own layout.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from _common import llm_like

LLM_LAYERS = 3


def _ov():  # imported here: the benchmark module imports this file whether or not OpenVINO is installed
    import openvino as ov
    import openvino.opset13 as ops

    return ov, ops


def _const(ops, array: np.ndarray):
    return ops.constant(array)


def llm(path: Path, layers: int = LLM_LAYERS, seed: int = 0) -> Path:
    """Write the LLM export to ``path`` (.xml + .bin) and return it: tests/llm_like.py's decoder with ``layers``
    layers, grouped-query attention (4 heads, 2 KV heads) and mixed u8/u4 layers (u4 in groups of 64)."""
    generator = llm_like()
    config = generator.LlamaConfig(hidden=256, layers=layers, heads=4, kv_heads=2, intermediate=512, vocab=512,
                                   group=64, seed=seed)
    return generator.write_llama(path.parent, config, "mixed", name=path.stem)


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
