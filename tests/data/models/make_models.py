"""Make the committed model corpus: small, randomly initialised models that users export today, converted by
OpenVINO's own PyTorch and ONNX frontends and saved with OpenVINO's defaults (fp16-compressed weights).

PyTorch is gigabytes, too large for CI, so the IR files are made once with this script and committed
(tests/test_models.py runs them). Re-make them, in an environment with the versions below, with::

    pip install torch==2.14.1 transformers==4.57.6 openvino==2026.4.1 onnx==1.23.2
    python tests/data/models/make_models.py            # every model
    python tests/data/models/make_models.py gpt2-tiny  # some

Every model is seeded, so a re-made file differs only where the tools changed. Each folder holds
``model.xml``/``model.bin`` and ``inputs.json``: how tests/test_models.py makes its inputs (shape, dtype,
value range) and which dims it may vary.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODELS: dict[str, Callable[[Path], dict]] = {}


def model(name: str) -> Callable[[Callable[[Path], dict]], Callable[[Path], dict]]:
    def register(function: Callable[[Path], dict]) -> Callable[[Path], dict]:
        MODELS[name] = function
        return function

    return register


def _save(ov_model, folder: Path, inputs: dict) -> dict:  # noqa: ANN001 - an openvino.Model
    import openvino as ov

    folder.mkdir(parents=True, exist_ok=True)
    ov.save_model(ov_model, str(folder / "model.xml"))  # OpenVINO's defaults: compress_to_fp16=True
    (folder / "inputs.json").write_text(json.dumps(inputs, indent=1, sort_keys=True) + "\n")
    return inputs


def _tokens(vocab: int, batch: int = 2, sequence: int = 7) -> dict:
    return {"shape": [batch, sequence], "dtype": "int64", "low": 0, "high": vocab}


@model("bert-tiny")
def bert_tiny(folder: Path) -> dict:
    """A BERT encoder (2 layers, hidden 32, 2 heads), dynamic batch and sequence, as OpenVINO converts it
    from PyTorch: embeddings (Gather), LayerNorm (MVN), attention (MatMul/Softmax or SDPA), GELU."""
    import openvino as ov
    import torch
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64, type_vocab_size=2)
    network = BertModel(config).eval()
    example = {"input_ids": torch.randint(0, 100, (2, 7)), "attention_mask": torch.ones(2, 7, dtype=torch.int64),
               "token_type_ids": torch.zeros(2, 7, dtype=torch.int64)}
    shapes = {name: ov.PartialShape([-1, -1]) for name in example}
    converted = ov.convert_model(network, example_input=example, input=[(name, shapes[name], ov.Type.i64)
                                                                         for name in example])
    return _save(converted, folder, {
        "input_ids": _tokens(100), "attention_mask": {**_tokens(2), "low": 1, "high": 2},
        "token_type_ids": _tokens(2),
    })


def _gpt2(seed: int):  # noqa: ANN202 - a torch module
    """GPT-2's architecture at a tiny size (2 layers, hidden 32, 2 heads, vocab 100), written out in PyTorch:
    transformers 4.57's causal-mask builder uses vmap, which TorchScript tracing (OpenVINO's PyTorch
    frontend) cannot follow. The layers are GPT-2's: learned positions, pre-LayerNorm blocks, fused QKV
    projection, causal softmax attention, tanh-GELU MLP, tied LM head; with ``cache`` the step takes and
    returns each layer's keys and values, concatenated along the sequence as GPT-2's KV cache does."""
    import math

    import torch

    torch.manual_seed(seed)
    vocab, positions, width, heads, layers = 100, 64, 32, 2, 2

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln_1, self.ln_2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
            self.qkv, self.proj = torch.nn.Linear(width, 3 * width), torch.nn.Linear(width, width)
            self.fc, self.out = torch.nn.Linear(width, 4 * width), torch.nn.Linear(4 * width, width)

        def forward(self, x, past_key=None, past_value=None):  # noqa: ANN001
            batch, length, _ = x.shape
            q, k, v = self.qkv(self.ln_1(x)).split(width, dim=2)
            q, k, v = (t.view(batch, length, heads, width // heads).transpose(1, 2) for t in (q, k, v))
            if past_key is not None:
                k, v = torch.cat((past_key, k), 2), torch.cat((past_value, v), 2)
            total = k.shape[2]
            scores = q @ k.transpose(-1, -2) / math.sqrt(width // heads)
            causal = torch.ones(length, total, dtype=torch.bool).tril(total - length)
            scores = scores.masked_fill(~causal, torch.finfo(scores.dtype).min)
            attended = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, length, width)
            x = x + self.proj(attended)
            x = x + self.out(torch.nn.functional.gelu(self.fc(self.ln_2(x)), approximate="tanh"))
            return x, k, v

    class GPT2(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.wte, self.wpe = torch.nn.Embedding(vocab, width), torch.nn.Embedding(positions, width)
            self.blocks = torch.nn.ModuleList(Block() for _ in range(layers))
            self.ln_f = torch.nn.LayerNorm(width)

        def forward(self, input_ids, *cache):  # noqa: ANN001, ANN002
            start = cache[0].shape[2] if cache else 0
            position = torch.arange(start, start + input_ids.shape[1]).unsqueeze(0)
            x = self.wte(input_ids) + self.wpe(position)
            present = []
            for index, block in enumerate(self.blocks):
                past = cache[2 * index: 2 * index + 2] if cache else ()
                x, k, v = block(x, *past)
                present += [k, v]
            logits = self.ln_f(x) @ self.wte.weight.T
            return (logits, *present) if cache else logits

    return GPT2().eval(), layers, heads, width // heads


@model("gpt2-tiny")
def gpt2_tiny(folder: Path) -> dict:
    """A GPT-2 decoder with its LM head, no cache: causal masking over a dynamic batch and sequence."""
    import openvino as ov
    import torch

    network, *_ = _gpt2(1)
    converted = ov.convert_model(network, example_input=torch.randint(0, 100, (2, 7)),
                                 input=[("input_ids", ov.PartialShape([-1, -1]), ov.Type.i64)])
    return _save(converted, folder, {"input_ids": _tokens(100)})


@model("gpt2-tiny-stateful")
def gpt2_tiny_stateful(folder: Path) -> dict:
    """The same GPT-2 with its KV cache, made stateful as optimum-intel's export makes it: every cache input
    and output pair becomes a ReadValue/Assign pair of one variable (``apply_make_stateful_transformation``)."""
    import openvino as ov
    import torch
    from openvino._offline_transformations import apply_make_stateful_transformation

    network, layers, heads, head = _gpt2(1)
    cache = [torch.zeros(1, heads, 3, head) for _ in range(2 * layers)]
    kinds = [f"{i // 2}.{'key' if i % 2 == 0 else 'value'}" for i in range(2 * layers)]
    inputs = [(ov.PartialShape([1, -1]), ov.Type.i64)] + [
        (ov.PartialShape([1, heads, -1, head]), ov.Type.f32) for _ in kinds]
    converted = ov.convert_model(network, example_input=(torch.randint(0, 100, (1, 2)), *cache), input=inputs)
    for index, name in enumerate(["input_ids"] + [f"past.{kind}" for kind in kinds]):
        converted.inputs[index].get_tensor().set_names({name})
    for index, name in enumerate(["logits"] + [f"present.{kind}" for kind in kinds]):
        converted.outputs[index].get_tensor().set_names({name})
    apply_make_stateful_transformation(converted, {f"past.{kind}": f"present.{kind}" for kind in kinds})
    return _save(converted, folder, {"input_ids": {"shape": [1, 2], "dtype": "int64", "low": 0, "high": 100}})


@model("lstm")
def lstm(folder: Path) -> dict:
    """A 2-layer bidirectional LSTM tagger (embedding, LSTM, linear), dynamic batch and sequence."""
    import openvino as ov
    import torch

    torch.manual_seed(2)

    class Tagger(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = torch.nn.Embedding(50, 8)
            self.lstm = torch.nn.LSTM(8, 16, num_layers=2, bidirectional=True, batch_first=True)
            self.head = torch.nn.Linear(32, 5)

        def forward(self, tokens):  # noqa: ANN001
            hidden, _ = self.lstm(self.embedding(tokens))
            return self.head(hidden)

    converted = ov.convert_model(Tagger().eval(), example_input=torch.randint(0, 50, (2, 7)),
                                 input=[("tokens", ov.PartialShape([-1, -1]), ov.Type.i64)])
    return _save(converted, folder, {"tokens": _tokens(50)})


@model("gru-onnx")
def gru_onnx(folder: Path) -> dict:
    """A GRU exported to ONNX by torch.onnx and converted by OpenVINO's ONNX frontend (GRUSequence)."""
    import openvino as ov
    import torch

    torch.manual_seed(3)

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gru = torch.nn.GRU(6, 12, batch_first=True)

        def forward(self, x):  # noqa: ANN001
            out, last = self.gru(x)
            return out, last

    onnx_path = folder / "model.onnx"
    folder.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(Encoder().eval(), (torch.randn(2, 5, 6),), str(onnx_path), input_names=["x"],
                      output_names=["out", "last"], dynamic_axes={"x": {0: "batch", 1: "time"}}, dynamo=False)
    converted = ov.convert_model(str(onnx_path))
    onnx_path.unlink()
    return _save(converted, folder, {"x": {"shape": [2, 5, 6], "dtype": "float32", "low": -1, "high": 1}})


@model("yolo-tiny")
def yolo_tiny(folder: Path) -> dict:
    """A YOLO-like detector: a small conv backbone (Conv, BatchNorm, SiLU, MaxPool, upsampling, Concat) with
    two heads decoded into boxes (sigmoid, grid offsets, anchors), as OpenVINO converts it from PyTorch."""
    import openvino as ov
    import torch

    torch.manual_seed(4)

    def block(cin: int, cout: int, stride: int = 1) -> torch.nn.Module:
        return torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False), torch.nn.BatchNorm2d(cout),
                                   torch.nn.SiLU())

    class Detector(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = block(3, 8, 2)
            self.down1 = torch.nn.Sequential(block(8, 16, 2), torch.nn.MaxPool2d(2))
            self.down2 = block(16, 32, 2)
            self.up = torch.nn.Upsample(scale_factor=2, mode="nearest")
            self.head_small = torch.nn.Conv2d(32, 3 * 7, 1)
            self.head_large = torch.nn.Conv2d(48, 3 * 7, 1)
            self.anchors = torch.tensor([[10.0, 13.0], [16.0, 30.0], [33.0, 23.0]])
            for module in self.modules():
                if isinstance(module, torch.nn.BatchNorm2d):  # trained-looking statistics, not 0/1
                    module.running_mean.uniform_(-0.5, 0.5)
                    module.running_var.uniform_(0.5, 2.0)

        def decode(self, raw, stride: int):  # noqa: ANN001
            batch, _, height, width = raw.shape
            raw = raw.view(batch, 3, 7, height, width).permute(0, 1, 3, 4, 2)
            ys, xs = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
            grid = torch.stack((xs, ys), -1).float()
            xy = (raw[..., :2].sigmoid() + grid) * stride
            wh = raw[..., 2:4].exp() * self.anchors.view(1, 3, 1, 1, 2)
            rest = raw[..., 4:].sigmoid()
            return torch.cat((xy, wh, rest), -1).reshape(batch, -1, 7)

        def forward(self, image):  # noqa: ANN001
            small = self.down1(self.stem(image))
            deep = self.down2(small)
            large = torch.cat((self.up(deep), small), 1)
            return torch.cat((self.decode(self.head_small(deep), 16), self.decode(self.head_large(large), 8)), 1)

    converted = ov.convert_model(Detector().eval(), example_input=torch.randn(1, 3, 64, 64),
                                 input=[("image", ov.PartialShape([-1, 3, 64, 64]), ov.Type.f32)])
    return _save(converted, folder, {"image": {"shape": [2, 3, 64, 64], "dtype": "float32", "low": 0, "high": 1}})


@model("t5-tiny")
def t5_tiny(folder: Path) -> dict:
    """A T5 encoder-decoder (2+2 layers, d_model 32): relative position buckets (Log, Minimum, Select),
    RMS-style T5 LayerNorm exported as standard ops, gated activations."""
    import openvino as ov
    import torch
    from transformers import T5Config, T5Model

    torch.manual_seed(5)
    config = T5Config(vocab_size=100, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
                      relative_attention_num_buckets=8, relative_attention_max_distance=20, use_cache=False,
                      feed_forward_proj="gated-gelu")
    network = T5Model(config).eval()
    example = {"input_ids": torch.randint(0, 100, (2, 7)), "decoder_input_ids": torch.randint(0, 100, (2, 5))}
    converted = ov.convert_model(network, example_input=example,
                                 input=[(name, ov.PartialShape([-1, -1]), ov.Type.i64) for name in example])
    return _save(converted, folder, {"input_ids": _tokens(100), "decoder_input_ids": _tokens(100, 2, 5)})


@model("whisper-tiny-encoder")
def whisper_encoder(folder: Path) -> dict:
    """A Whisper-like audio encoder (Conv1d stem with GELU, sinusoidal positions, 2 layers)."""
    import openvino as ov
    import torch
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    torch.manual_seed(6)
    config = WhisperConfig(vocab_size=100, num_mel_bins=8, encoder_layers=2, encoder_attention_heads=2,
                           decoder_layers=1, decoder_attention_heads=2, d_model=32, encoder_ffn_dim=64,
                           decoder_ffn_dim=64, max_source_positions=16, max_target_positions=16)
    network = WhisperEncoder(config).eval()
    converted = ov.convert_model(network, example_input=torch.randn(1, 8, 32),
                                 input=[("input_features", ov.PartialShape([-1, 8, 32]), ov.Type.f32)])
    return _save(converted, folder, {"input_features": {"shape": [2, 8, 32], "dtype": "float32", "low": -1,
                                                        "high": 1}})


@model("onnx")
def onnx_exports(folder: Path) -> dict:
    """The BERT and GPT-2 above exported by torch.onnx (opset 17, dynamic batch and sequence) into ``onnx/``: the
    ONNX originals users bring to ``ir-convert`` (tests/io/test_onnx_import_rules.py converts and runs them)."""
    import torch
    from transformers import BertConfig, BertModel

    folder.mkdir(parents=True, exist_ok=True)
    network, *_ = _gpt2(1)
    torch.onnx.export(network, (torch.randint(0, 100, (2, 7)),), str(folder / "gpt2-tiny.onnx"),
                      input_names=["input_ids"], output_names=["logits"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "sequence"}}, opset_version=17, dynamo=False)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64, type_vocab_size=2,
                        attn_implementation="eager")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    example = (torch.randint(0, 100, (2, 7)), torch.ones(2, 7, dtype=torch.int64), torch.zeros(2, 7, dtype=torch.int64))
    torch.onnx.export(BertModel(config).eval(), example, str(folder / "bert-tiny.onnx"), input_names=names,
                      output_names=["last_hidden_state", "pooler_output"],
                      dynamic_axes={name: {0: "batch", 1: "sequence"} for name in names}, opset_version=17,
                      dynamo=False)
    return {}


def main(names: list[str]) -> None:
    for name in names or MODELS:
        MODELS[name](HERE / name)
        print(f"made {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
