"""(s) The fixed cost of one plan step: a chain of 1,000 cheap element-wise layers (Add, Multiply, ReLU,
Subtract of a constant, cycling) on a tiny 1x16 f32 tensor, run warm by irgraph's Interpreter, against the same
NumPy calls made directly in a Python loop (the floor: what a hand-written NumPy program pays) and against
OpenVINO's CPU plugin on the same IR (written by irgraph), both at the same thread count. The chain runs with a
static input shape and with a dynamic one (``[?,16]``: from its second run on the same shape irgraph runs a plan
built for that shape). Contenders take turns in one process, as in ``_common.interleaved``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
from _common import Row, Section, have, interleaved

import irgraph as ir
from irgraph.ops.activation.relu import Relu
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.subtract import Subtract

LAYERS = 1000
WIDTH = 16
THREADS = 2
TARGET = 1.5
"""irgraph's warm run of the chain at most this many times the bare NumPy calls (issue 28, item 1)."""
CYCLE = (Add, Multiply, Relu, Subtract)


def chain(shape: list[int | str]) -> ir.Model:
    """The chain: layer i applies CYCLE[i % 4] (with a 1x16 constant operand for the binary ones)."""
    model = ir.Model("step_chain")
    port = model.parameter("x", shape, "f32")
    for index in range(LAYERS):
        op = CYCLE[index % len(CYCLE)]
        inputs = [port] if op is Relu else [port, model.const(_constant(index))]
        port = ir.OutputPort(model.add_node(op(), f"layer{index}", inputs).id, 0)
    model.result(port, name="y")
    return model


def _constant(index: int) -> np.ndarray:
    """Operands that keep the values near 1 over the chain: factors 7/8, 1, 9/8; terms 1/4 and 3/16."""
    if CYCLE[index % len(CYCLE)] is Multiply:
        return np.full((1, WIDTH), 1.0 + (index // len(CYCLE) % 3 - 1) / 8, np.float32)
    return np.full((1, WIDTH), 0.25 if CYCLE[index % len(CYCLE)] is Add else 0.1875, np.float32)


def bare_calls() -> list[tuple[np.ufunc, tuple[object, ...]]]:
    """The NumPy calls the chain makes: (ufunc, operands before and after the data)."""
    zero = np.float32(0)
    calls = []
    for index in range(LAYERS):
        op = CYCLE[index % len(CYCLE)]
        if op is Relu:
            calls.append((np.maximum, (zero,)))
        else:
            calls.append(({Add: np.add, Multiply: np.multiply, Subtract: np.subtract}[op], (_constant(index),)))
    return calls


def run(quick: bool = False) -> Section:
    rounds, per_round = (5, 5) if quick else (15, 7)
    section = Section()
    x = np.random.default_rng(0).standard_normal((1, WIDTH)).astype(np.float32)
    calls = bare_calls()
    relu_at = {index for index in range(LAYERS) if CYCLE[index % len(CYCLE)] is Relu}

    # the tightest loop a NumPy program could write: each call and its operand bound ahead
    bound = [(ufunc, operand, index in relu_at) for index, (ufunc, (operand,)) in enumerate(calls)]

    def numpy_floor() -> np.ndarray:
        data = x
        for ufunc, operand, leading in bound:
            data = ufunc(operand, data) if leading else ufunc(data, operand)
        return data

    static, dynamic = chain([1, WIDTH]), chain(["?", WIDTH])
    interpreters = {"static": ir.Interpreter(static, threads=THREADS),
                    "dynamic": ir.Interpreter(dynamic, threads=THREADS)}
    feeds = {"x": x}
    expected = numpy_floor()
    for name, interpreter in interpreters.items():
        for _ in range(2):  # the dynamic chain's second run builds its plan for [1,16]
            np.testing.assert_array_equal(interpreter.run(feeds)["y"], expected, err_msg=name)
    contenders = {
        "numpy": numpy_floor,
        "irgraph": lambda: interpreters["static"].run(feeds),
        "irgraph dynamic": lambda: interpreters["dynamic"].run(feeds),
    }
    with tempfile.TemporaryDirectory() as scratch:
        if have("openvino"):
            import openvino as ov

            path = Path(scratch) / "chain.xml"
            ir.write_model(static, path)
            request = ov.Core().compile_model(str(path), "CPU", {
                "INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": "1",
                "INFERENCE_NUM_THREADS": THREADS}).create_infer_request()
            np.testing.assert_allclose(request.infer({0: x})[0], expected, rtol=1e-3)  # it may fuse
            contenders["openvino"] = lambda: request.infer({0: x})
        times = interleaved(contenders, rounds, per_round)
    numpy_time = times["numpy"]
    for name, how in (("irgraph", "Interpreter.run, input [1,16]"),
                      ("irgraph dynamic", "Interpreter.run, input [?,16] fed [1,16]")):
        section.rows.append(Row("s", f"1,000-layer element-wise chain: {how}", times[name],
                                "the same NumPy calls in a Python loop", numpy_time, target=TARGET,
                                paired=times.ratio(name, "numpy")))
        if "openvino" in times:
            section.rows.append(Row("s", f"1,000-layer element-wise chain: {how}", times[name],
                                    f"OpenVINO CPU warm infer ({THREADS} threads)", times["openvino"],
                                    paired=times.ratio(name, "openvino")))
    per_step = (times["irgraph"] - numpy_time) / LAYERS * 1e6
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    section.notes.append(
        f"(s) per-step overhead above the bare NumPy call: {per_step:.3f} us (irgraph "
        f"{times['irgraph'] / LAYERS * 1e6:.3f} us a layer, NumPy {numpy_time / LAYERS * 1e6:.3f} us"
        + (f", OpenVINO {times['openvino'] / LAYERS * 1e6:.3f} us" if "openvino" in times else "")
        + f"); load average {load:.1f} at the end; {rounds} rounds of {per_round} calls per contender. irgraph "
        "compiles consecutive element-wise steps of static types into one function of straight-line ufunc calls "
        "(irgraph.runtime._fast.ufunc_steps)")
    return section


if __name__ == "__main__":
    from run import main

    main(["--only", "s"])
