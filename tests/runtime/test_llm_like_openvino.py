"""The LLaMA-like stateful decoder of tests/llm_like.py (the layout benchmarks/bench_llm.py times at full width),
built small, generates as openvino 2026.4.1's CPU plugin does with the exact hints (f32 inference precision, no
dynamic quantization, an f32 KV cache): a 5-token prefill of two sequences, then two decode steps, the second
reordering the beams (beam_idx [1, 0]); logits and every KV cache variable within the model corpus's tolerance
(tests/test_models.py: float32 networks of a few layers, summation order differs). fp16, int8 and int4 weights;
with grouped-query attention and mixed int8/int4 layers (the layout benchmarks/exports.py gives bench (r)); with the
weights kept compressed the outputs are the same arrays as with them folded."""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from tests.llm_like import SMALL, SMALL_GQA, LlamaConfig, step_inputs, write_llama
from tests.test_models import TOLERANCE

EXACT_CPU = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0", "KV_CACHE_PRECISION": "f32"}


def _steps() -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(7)
    prefill = step_inputs(rng.integers(0, SMALL.vocab, (2, 5)), past=0)
    first = step_inputs(rng.integers(0, SMALL.vocab, (2, 1)), past=5)
    second = step_inputs(rng.integers(0, SMALL.vocab, (2, 1)), past=6)
    second["beam_idx"] = np.array([1, 0], np.int32)
    return [prefill, first, second]


@pytest.mark.oracle
@pytest.mark.parametrize(("config", "weights"), [(SMALL, "fp16"), (SMALL, "int8"), (SMALL, "int4"),
                                                 (SMALL_GQA, "mixed"), (SMALL_GQA, "fp16")],
                         ids=["fp16", "int8", "int4", "gqa-mixed", "gqa-fp16"])
def test_the_llama_like_decoder_generates_as_openvino_2026_4_1_cpu(tmp_path, config: LlamaConfig, weights: str):
    import openvino as ov

    xml = write_llama(tmp_path, config, weights)
    model = ir.read_model(xml)
    assert sum(node.op.type_name == "ReadValue" for node in model) == 2 * config.layers
    assert sum(node.op.type_name == "ScaledDotProductAttention" for node in model) == config.layers
    caches_repeated = 2 * config.layers if config.kv < config.heads else 0  # repeat_kv's Broadcasts
    assert sum(node.op.type_name == "Broadcast" for node in model) == 2 * config.layers + caches_repeated
    request = ov.Core().compile_model(str(xml), "CPU", EXACT_CPU).create_infer_request()
    folded = ir.Interpreter(model, decompression="f32")
    kept = ir.Interpreter(model, decompression="f32", keep_weights_compressed=True)
    for index, feeds in enumerate(_steps()):
        theirs = request.infer(feeds)
        logits = folded.run(feeds)["logits"]
        assert logits.shape == (2, feeds["input_ids"].shape[1], config.vocab)
        np.testing.assert_allclose(logits, theirs["logits"], **TOLERANCE, err_msg=f"step {index}")
        np.testing.assert_array_equal(kept.run(feeds)["logits"], logits, err_msg=f"step {index}")
        states = request.query_state()
        assert len(states) == 2 * config.layers, [state.name for state in states]  # each layer's key and value
        for state in states:
            np.testing.assert_allclose(folded.get_state(state.name), state.state.data, **TOLERANCE,
                                       err_msg=f"step {index}: {state.name}")
    assert folded.get_state("past_key_values.0.keypresent.0.key").shape == (2, config.kv, 7, config.head)
