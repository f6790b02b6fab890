"""Constant folding drops what it no longer needs as it goes: a constant sub-graph's intermediate values (a weight
decompression chain's f16 and f32 steps) are freed as soon as their last reader is folded, so building a plan holds
about one chain's worth at a time, not every intermediate of every chain (an int4 LLM's load peaked at 3.7x its
decompressed weights before: benchmarks/bench_llm.py). A constant that a step, a Result or a mark reads is kept."""

from __future__ import annotations

import tracemalloc

import numpy as np

import irgraph as ir
from irgraph.ops.activation.relu import Relu
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.multiply import Multiply

ELEMENTS = 1 << 20  # 4 MiB of f32 per intermediate


def _chain_model(length: int) -> tuple[ir.Model, list[ir.OutputPort]]:
    """x + (((w * 1) * 1) ... * 1): ``length`` foldable Multiplys over a 4 MiB weight, then one Add that runs."""
    model = ir.Model("folded")
    x = model.parameter("x", [ELEMENTS])
    port = model.const(np.ones(ELEMENTS, np.float32))
    chain = []
    for index in range(length):
        port = ir.OutputPort(model.add_node(Multiply(), f"scale{index}", [port, model.const(np.float32(1))]).id, 0)
        chain.append(port)
    total = ir.OutputPort(model.add_node(Add(), "add", [x, port]).id, 0)
    model.result(total, name="y")
    model.result(port, name="weight")
    return model, chain


def _peak_of_building(model: ir.Model, **options: object) -> tuple[int, ir.Interpreter]:
    tracemalloc.start()
    try:
        interpreter = ir.Interpreter(model, **options)  # type: ignore[arg-type]  # options are Interpreter keywords
        return tracemalloc.get_traced_memory()[1], interpreter
    finally:
        tracemalloc.stop()


def test_folding_a_long_chain_holds_a_few_intermediates_not_all_of_them():
    peak, interpreter = _peak_of_building(_chain_model(12)[0])
    assert peak < 5 * 4 * ELEMENTS  # 12 intermediates of 4 MiB each were all alive at once before
    outputs = interpreter.run({"x": np.full(ELEMENTS, 2, np.float32)})
    assert outputs["y"].min() == outputs["y"].max() == 3
    assert outputs["weight"].min() == outputs["weight"].max() == 1  # an output: kept, though folded


def test_a_folded_constant_a_step_or_a_mark_reads_is_kept():
    model, chain = _chain_model(3)
    relu = model.add_node(Relu(), "relu", [chain[0]])  # a step reads scale0
    model.result(ir.OutputPort(relu.id, 0), name="relu")
    outputs = ir.Interpreter(model, mark=["scale1"]).run({"x": np.zeros(ELEMENTS, np.float32)})
    assert outputs["relu"].min() == outputs["relu"].max() == 1
    marked = [key for key in outputs if "scale1" in key]
    assert marked and outputs[marked[0]].min() == outputs[marked[0]].max() == 1


def _int8_chain_model(rows: int, columns: int) -> tuple[ir.Model, np.ndarray]:
    """x @ decompressed(w).T, the weight as NNCF stores it (u8 codes -> f16, minus a u8 zero point, times an f16
    scale per row, -> f32), and the weight the f32 policy folds it to."""
    from irgraph.ops.arithmetic.subtract import Subtract
    from irgraph.ops.matrix.mat_mul import MatMul
    from irgraph.ops.type.convert import Convert

    rng = np.random.default_rng(0)
    codes = rng.integers(0, 256, (rows, columns), dtype=np.uint8)
    zero_point = rng.integers(0, 256, (rows, 1), dtype=np.uint8)
    scale = rng.uniform(0.01, 0.1, (rows, 1)).astype(np.float16)
    model = ir.Model("int8")
    x = model.parameter("x", [1, columns])

    def convert(port: ir.OutputPort, to: str, name: str) -> ir.OutputPort:
        converted = model.add_node(Convert(destination_type=ir.ElementType.from_ir_name(to)), name, [port])
        return ir.OutputPort(converted.id, 0)

    shifted = model.add_node(Subtract(), "subtract", [convert(model.const(codes), "f16", "codes"),
                                                      convert(model.const(zero_point), "f16", "zero_point")])
    scaled = model.add_node(Multiply(), "multiply", [ir.OutputPort(shifted.id, 0), model.const(scale)])
    weight = convert(ir.OutputPort(scaled.id, 0), "f32", "weight")
    product = model.add_node(MatMul(transpose_b=True), "matmul", [x, weight])
    model.result(ir.OutputPort(product.id, 0), name="y")
    expected = (codes.astype(np.float32) - zero_point.astype(np.float32)) * scale.astype(np.float32)
    return model, expected


def test_a_folded_decompression_chain_allocates_its_weight_once():
    rows, columns = 1024, 1024
    model, expected = _int8_chain_model(rows, columns)
    peak, interpreter = _peak_of_building(model, decompression="f32")
    # the codes widened to f32, then the Subtract, the Multiply and the closing Convert write over that one array
    # (the Multiply and the Convert each allocated the weight once more before: 3x)
    assert peak < 1.3 * 4 * rows * columns
    x = np.eye(1, columns, 7, dtype=np.float32)
    assert np.array_equal(interpreter.run({"x": x})["y"][0], expected[:, 7])
