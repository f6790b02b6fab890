"""Networks the onnx wheel does not ship, built from code: MobileNet-v3-small, ViT-Ti/16 and YOLOv8n.

Each is written with ``onnx.helper`` in the layer structure its PyTorch export has (torchvision's
``mobilenet_v3_small``, timm's ``vit_tiny_patch16_224``, ultralytics' ``yolov8n`` exported with BatchNorm folded
into the convolutions), with random weights from a fixed seed, then converted to IR the way the zoo CNNs are
(``openvino.convert_model`` + ``save_model``: fp16-compressed weights behind Converts). Nothing is committed:
the files are written into a cache directory, under a name carrying a digest of this file, so that a changed
generator writes them again.

This file is loaded by its path from the tests (tests/io/test_generated_networks.py) and imported by
bench_networks.py (bench (g)).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

GENERATED_NETWORKS = ("mobilenet_v3_small", "vit_tiny", "yolov8n")
OPSET = 17
"""torch.onnx's default opset: LayerNormalization and HardSwish exist, Gelu does not (it is exported through Erf)."""


@dataclass(frozen=True)
class GeneratedIR:
    """One generated network: its ONNX original and the IR OpenVINO converted it to."""

    name: str
    xml: Path
    onnx: Path

    @property
    def bin(self) -> Path:
        return self.xml.with_suffix(".bin")


class Graph:
    """A growing ONNX graph: each method adds nodes and returns the name of its output."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list = []
        self.initializers: list = []
        self.count = 0

    def name(self, stem: str) -> str:
        self.count += 1
        return f"{stem}_{self.count}"

    def const(self, value: np.ndarray, stem: str = "const") -> str:
        from onnx import numpy_helper

        name = self.name(stem)
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def random(self, shape: tuple[int, ...], std: float, stem: str = "w") -> str:
        return self.const(self.rng.normal(0.0, std, shape).astype(np.float32), stem)

    def op(self, op_type: str, *inputs: str, outputs: int = 1, output: str = "", **attributes) -> str | list[str]:
        """One node; ``output`` names its (single) output, e.g. the graph's output."""
        from onnx import helper

        names = [output] if output else [self.name(op_type.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), names, name=names[0], **attributes))
        return names[0] if outputs == 1 else names

    def conv(self, x: str, cin: int, cout: int, kernel: int, stride: int = 1, groups: int = 1,
             activation: Callable[[str], str] | None = None, pad: int | None = None) -> str:
        """A convolution with BatchNorm folded in (a bias), then the activation; padded to keep the size unless
        ``pad`` is given."""
        fan_in = cin // groups * kernel * kernel
        weight = self.random((cout, cin // groups, kernel, kernel), math.sqrt(2.0 / fan_in))
        bias = self.random((cout,), 0.1, "b")
        pad = (kernel - 1) // 2 if pad is None else pad
        y = self.op("Conv", x, weight, bias, kernel_shape=[kernel, kernel], strides=[stride, stride],
                    pads=[pad] * 4, group=groups)
        return activation(y) if activation else y

    def linear(self, x: str, cin: int, cout: int, std: float | None = None) -> str:
        """torch's Linear on a 3-D input as exported: MatMul by the transposed weight, then Add of the bias."""
        weight = self.random((cin, cout), std if std is not None else math.sqrt(1.0 / cin))
        return self.op("Add", self.op("MatMul", x, weight), self.random((cout,), 0.02, "b"))

    # activations as torch.onnx writes them
    def relu(self, x: str) -> str:
        return self.op("Relu", x)

    def hardswish(self, x: str) -> str:
        return self.op("HardSwish", x)

    def silu(self, x: str) -> str:
        return self.op("Mul", x, self.op("Sigmoid", x))

    def model(self, inputs: list[tuple[str, tuple[int, ...]]], outputs: list[tuple[str, tuple[int, ...]]],
              name: str):
        from onnx import TensorProto, helper

        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s)) for n, s in inputs],
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s)) for n, s in outputs],
            self.initializers)
        # IR version 8 is opset 17's (what torch.onnx writes): onnx 1.23.2 would write 14, which onnxruntime 1.31.1
        # refuses (it reads up to 13)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="irgraph",
                                 ir_version=8)


# ------------------------------------------------------------------------------ MobileNet-v3-small: torchvision
def _make_divisible(value: float, divisor: int = 8) -> int:
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


MOBILENET_V3_SMALL = (  # input channels, kernel, expanded, output channels, squeeze-excite, hardswish, stride
    (16, 3, 16, 16, True, False, 2),
    (16, 3, 72, 24, False, False, 2),
    (24, 3, 88, 24, False, False, 1),
    (24, 5, 96, 40, True, True, 2),
    (40, 5, 240, 40, True, True, 1),
    (40, 5, 240, 40, True, True, 1),
    (40, 5, 120, 48, True, True, 1),
    (48, 5, 144, 48, True, True, 1),
    (48, 5, 288, 96, True, True, 2),
    (96, 5, 576, 96, True, True, 1),
    (96, 5, 576, 96, True, True, 1),
)


def mobilenet_v3_small(seed: int = 0):
    """torchvision's ``mobilenet_v3_small`` (1000 classes, 224x224) as torch.onnx exports it in eval mode."""
    g = Graph(seed)
    x = g.conv("input", 3, 16, 3, 2, activation=g.hardswish)
    for cin, kernel, expanded, cout, squeeze, hard, stride in MOBILENET_V3_SMALL:
        activation = g.hardswish if hard else g.relu
        y = x if expanded == cin else g.conv(x, cin, expanded, 1, activation=activation)
        y = g.conv(y, expanded, expanded, kernel, stride, groups=expanded, activation=activation)
        if squeeze:
            squeezed = _make_divisible(expanded // 4)
            scale = g.op("GlobalAveragePool", y)
            scale = g.conv(scale, expanded, squeezed, 1, activation=g.relu)
            scale = g.op("HardSigmoid", g.conv(scale, squeezed, expanded, 1), alpha=1.0 / 6.0, beta=0.5)
            y = g.op("Mul", scale, y)
        y = g.conv(y, expanded, cout, 1)
        x = g.op("Add", y, x) if stride == 1 and cin == cout else y
    x = g.conv(x, 96, 576, 1, activation=g.hardswish)
    x = g.op("Flatten", g.op("GlobalAveragePool", x), axis=1)
    x = g.hardswish(g.op("Gemm", x, g.random((1024, 576), math.sqrt(1 / 576)), g.random((1024,), 0.02), transB=1))
    g.op("Gemm", x, g.random((1000, 1024), math.sqrt(1 / 1024)), g.random((1000,), 0.02), transB=1, output="logits")
    return g.model([("input", (1, 3, 224, 224))], [("logits", (1, 1000))], "mobilenet_v3_small")


# ------------------------------------------------------------------------------ ViT-Ti/16: timm
def _layer_norm(g: Graph, x: str, width: int) -> str:
    scale = g.const((1.0 + g.rng.normal(0, 0.1, width)).astype(np.float32), "gamma")
    return g.op("LayerNormalization", x, scale, g.random((width,), 0.1, "beta"), axis=-1, epsilon=1e-6)


def _gelu(g: Graph, x: str) -> str:
    """Gelu as torch.onnx writes it below opset 20: x * 0.5 * (1 + erf(x / sqrt 2))."""
    erf = g.op("Erf", g.op("Div", x, g.const(np.float32(math.sqrt(2.0)))))
    return g.op("Mul", g.op("Mul", x, g.op("Add", erf, g.const(np.float32(1.0)))), g.const(np.float32(0.5)))


def vit_tiny(seed: int = 0, depth: int = 12, width: int = 192, heads: int = 3, patch: int = 16, size: int = 224):
    """timm's ``vit_tiny_patch16_224`` (ViT-Ti/16: 12 blocks, width 192, 3 heads, MLP 768, 1000 classes) as
    torch.onnx exports it: patch Conv, class token Concat, position embedding Add, pre-norm blocks with
    LayerNormalization, attention as MatMul/Softmax/MatMul over Reshape/Transpose, Erf-based Gelu."""
    g = Graph(seed)
    tokens = (size // patch) ** 2
    head_width = width // heads
    x = g.conv("input", 3, width, patch, patch, pad=0)
    x = g.op("Transpose", g.op("Reshape", x, g.const(np.array([1, width, tokens], np.int64))), perm=[0, 2, 1])
    x = g.op("Concat", g.random((1, 1, width), 0.02, "cls_token"), x, axis=1)
    x = g.op("Add", x, g.random((1, tokens + 1, width), 0.02, "pos_embed"))
    split_heads = g.const(np.array([1, tokens + 1, 3, heads, head_width], np.int64))
    merge_heads = g.const(np.array([1, tokens + 1, width], np.int64))
    for _ in range(depth):
        qkv = g.linear(_layer_norm(g, x, width), width, 3 * width)
        qkv = g.op("Transpose", g.op("Reshape", qkv, split_heads), perm=[2, 0, 3, 1, 4])
        q, k, v = (g.op("Gather", qkv, g.const(np.array(i, np.int64)), axis=0) for i in range(3))
        scores = g.op("MatMul", g.op("Mul", q, g.const(np.float32(head_width ** -0.5))),
                      g.op("Transpose", k, perm=[0, 1, 3, 2]))
        attended = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
        attended = g.op("Reshape", g.op("Transpose", attended, perm=[0, 2, 1, 3]), merge_heads)
        x = g.op("Add", x, g.linear(attended, width, width))
        hidden = _gelu(g, g.linear(_layer_norm(g, x, width), width, 4 * width))
        x = g.op("Add", x, g.linear(hidden, 4 * width, width))
    cls = g.op("Gather", _layer_norm(g, x, width), g.const(np.array(0, np.int64)), axis=1)
    g.op("Gemm", cls, g.random((1000, width), math.sqrt(1 / width)), g.random((1000,), 0.02), transB=1,
         output="logits")
    return g.model([("input", (1, 3, size, size))], [("logits", (1, 1000))], "vit_tiny")


# ------------------------------------------------------------------------------ YOLOv8n: ultralytics
def _c2f(g: Graph, x: str, cin: int, cout: int, blocks: int, shortcut: bool) -> str:
    hidden = cout // 2
    parts = list(g.op("Split", g.conv(x, cin, 2 * hidden, 1, activation=g.silu),
                      g.const(np.array([hidden, hidden], np.int64)), axis=1, outputs=2))
    for _ in range(blocks):
        y = g.conv(g.conv(parts[-1], hidden, hidden, 3, activation=g.silu), hidden, hidden, 3, activation=g.silu)
        parts.append(g.op("Add", parts[-1], y) if shortcut else y)
    return g.conv(g.op("Concat", *parts, axis=1), (2 + blocks) * hidden, cout, 1, activation=g.silu)


def _sppf(g: Graph, x: str, cin: int, cout: int) -> str:
    parts = [g.conv(x, cin, cin // 2, 1, activation=g.silu)]
    for _ in range(3):
        parts.append(g.op("MaxPool", parts[-1], kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2]))
    return g.conv(g.op("Concat", *parts, axis=1), 2 * cin, cout, 1, activation=g.silu)


def _anchors(size: int, strides: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """ultralytics' make_anchors: cell centres (2, N) and each cell's stride (1, N), as the export's constants."""
    points, scales = [], []
    for stride in strides:
        cells = size // stride
        sy, sx = np.meshgrid(np.arange(cells) + 0.5, np.arange(cells) + 0.5, indexing="ij")
        points.append(np.stack([sx, sy], -1).reshape(-1, 2))
        scales.append(np.full(cells * cells, stride))
    return (np.concatenate(points).T[None].astype(np.float32),
            np.concatenate(scales)[None, None].astype(np.float32))


def yolov8n(seed: int = 0, size: int = 640, classes: int = 80, reg_max: int = 16):
    """ultralytics' ``yolov8n`` (width 0.25, depth 0.33) as ``model.export(format="onnx")`` writes it: Conv with
    BatchNorm folded + SiLU (Sigmoid, Mul), C2f (Split, Bottlenecks, Concat), SPPF (MaxPool 5x5 three times),
    nearest Resize by 2, and the Detect head with DFL (Softmax over 16 bins, a 1x1 Conv by 0..15) and the box
    decoding to (cx, cy, w, h) in pixels, concatenated with the class Sigmoids: output (1, 84, 8400)."""
    g = Graph(seed)
    conv = g.conv

    def silu_conv(x: str, cin: int, cout: int, kernel: int, stride: int = 1) -> str:
        return conv(x, cin, cout, kernel, stride, activation=g.silu)

    x = silu_conv(silu_conv("images", 3, 16, 3, 2), 16, 32, 3, 2)
    x = _c2f(g, x, 32, 32, 1, True)
    p3 = _c2f(g, silu_conv(x, 32, 64, 3, 2), 64, 64, 2, True)
    p4 = _c2f(g, silu_conv(p3, 64, 128, 3, 2), 128, 128, 2, True)
    p5 = _sppf(g, _c2f(g, silu_conv(p4, 128, 256, 3, 2), 256, 256, 1, True), 256, 256)
    no_roi, no_scale = g.const(np.zeros(0, np.float32)), g.const(np.array([1, 1, 2, 2], np.float32))

    def upsample(y: str) -> str:
        return g.op("Resize", y, no_roi, no_scale, mode="nearest", coordinate_transformation_mode="asymmetric",
                    nearest_mode="floor")

    h4 = _c2f(g, g.op("Concat", upsample(p5), p4, axis=1), 384, 128, 1, False)
    h3 = _c2f(g, g.op("Concat", upsample(h4), p3, axis=1), 192, 64, 1, False)
    m4 = _c2f(g, g.op("Concat", silu_conv(h3, 64, 64, 3, 2), h4, axis=1), 192, 128, 1, False)
    m5 = _c2f(g, g.op("Concat", silu_conv(m4, 128, 128, 3, 2), p5, axis=1), 384, 256, 1, False)
    box_width, class_width = max(16, 64 // 4, reg_max * 4), max(64, min(classes, 100))
    levels = []
    for feature, channels in ((h3, 64), (m4, 128), (m5, 256)):
        box = silu_conv(silu_conv(feature, channels, box_width, 3), box_width, box_width, 3)
        cls = silu_conv(silu_conv(feature, channels, class_width, 3), class_width, class_width, 3)
        joined = g.op("Concat", conv(box, box_width, 4 * reg_max, 1), conv(cls, class_width, classes, 1), axis=1)
        levels.append(g.op("Reshape", joined, g.const(np.array([1, 4 * reg_max + classes, -1], np.int64))))
    anchors, strides = _anchors(size, (8, 16, 32))
    cells = anchors.shape[-1]
    box, cls = g.op("Split", g.op("Concat", *levels, axis=2), g.const(np.array([4 * reg_max, classes], np.int64)),
                    axis=1, outputs=2)
    bins = g.op("Transpose", g.op("Reshape", box, g.const(np.array([1, 4, reg_max, cells], np.int64))),
                perm=[0, 2, 1, 3])
    expectation = g.op("Conv", g.op("Softmax", bins, axis=1),
                       g.const(np.arange(reg_max, dtype=np.float32).reshape(1, reg_max, 1, 1)), kernel_shape=[1, 1])
    distance = g.op("Reshape", expectation, g.const(np.array([1, 4, cells], np.int64)))
    left_top, right_bottom = g.op("Slice", distance, g.const(np.array([0], np.int64)), g.const(
        np.array([2], np.int64)), g.const(np.array([1], np.int64))), g.op(
        "Slice", distance, g.const(np.array([2], np.int64)), g.const(np.array([4], np.int64)),
        g.const(np.array([1], np.int64)))
    anchor = g.const(anchors, "anchors")
    top_left, bottom_right = g.op("Sub", anchor, left_top), g.op("Add", anchor, right_bottom)
    centre = g.op("Div", g.op("Add", top_left, bottom_right), g.const(np.float32(2.0)))
    extent = g.op("Sub", bottom_right, top_left)
    boxes = g.op("Mul", g.op("Concat", centre, extent, axis=1), g.const(strides, "strides"))
    g.op("Concat", boxes, g.op("Sigmoid", cls), axis=1, output="output0")
    return g.model([("images", (1, 3, size, size))], [("output0", (1, 4 + classes, cells))], "yolov8n")


BUILDERS = {"mobilenet_v3_small": mobilenet_v3_small, "vit_tiny": vit_tiny, "yolov8n": yolov8n}


def stamp() -> str:
    """8 hex digits of this file: cached networks are generated again when it changes."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:8]


def convert(name: str, directory: Path) -> GeneratedIR:
    """The generated network ``name``: its ONNX file and OpenVINO's IR of it (``convert_model`` + ``save_model``
    with their defaults), written into ``directory`` unless they are there already."""
    import onnx
    import openvino as ov

    folder = directory / f"{name}-{stamp()}"
    network = GeneratedIR(name, folder / "model.xml", folder / f"{name}.onnx")
    if not network.xml.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        model = BUILDERS[name]()
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, str(network.onnx))
        ov.save_model(ov.convert_model(str(network.onnx)), str(network.xml))
    return network
