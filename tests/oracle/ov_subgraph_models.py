"""Golden IR files with sub-graphs (TensorIterator-1, Loop-5, If-8), written by the real OpenVINO.

Each case builds an ``openvino.Model`` (with ``openvino.opset13``, or by converting an ONNX
Loop/If/Scan model built with ``onnx.helper``) and writes it with ``openvino.serialize`` as IR v11
or v10 (``version="IR_V10"``; ``openvino.save_model`` always writes v11). ``write_case(name, dir)``
writes ``model.xml``, ``model.bin`` and ``case.json``: what the case is, the IR version, the
oracle's version, and the outer outputs' types as OpenVINO infers them after reading the file back.

Bodies hold Consts (weights) at every depth, so the files check that body weights land in the one
``.bin`` (deduplicated with the outer ones) and come back byte for byte.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import openvino as ov
import openvino.opset13 as ops
from openvino.frontend import FrontEndManager

ORACLE = f"openvino {ov.get_version()}"
F32 = np.float32


def _model(results: list, parameters: list, name: str) -> ov.Model:
    return ov.Model(results, parameters, name)


# ------------------------------------------------------------------------------------ opset13 builders
def tensor_iterator() -> tuple[ov.Model, str]:
    x = ops.parameter([2, 6, 3], F32, name="x")
    h = ops.parameter([2, 3], F32, name="h")
    bx = ops.parameter([2, 1, 3], F32, name="bx")
    bh = ops.parameter([2, 3], F32, name="bh")
    w = ops.constant(np.arange(9, dtype=F32).reshape(3, 3), name="w")
    squeezed = ops.squeeze(bx, ops.constant(np.array([1], np.int64)))
    new_h = ops.add(ops.matmul(squeezed, w, False, False), bh, name="new_h")
    out = ops.unsqueeze(new_h, ops.constant(np.array([1], np.int64)))
    r_h, r_out = ops.result(new_h), ops.result(out)
    ti = ops.tensor_iterator()
    ti.set_body(_model([r_h, r_out], [bx, bh], "body"))
    ti.set_sliced_input(bx, x.output(0), 0, 1, 1, -1, 1)
    ti.set_merged_input(bh, h.output(0), r_h.output(0))
    last = ti.get_iter_value(r_h.output(0), -1)
    all_steps = ti.get_concatenated_slices(r_out.output(0), 0, 1, 1, -1, 1)
    return _model([last, all_steps], [x, h], "ti"), "TensorIterator: x sliced on axis 1, h merged by a back edge, " \
        "body weights w; last h and every step concatenated"


def tensor_iterator_reverse() -> tuple[ov.Model, str]:
    x = ops.parameter([8, 4], F32, name="x")
    inv = ops.parameter([4], F32, name="inv")
    bx = ops.parameter([2, 4], F32, name="bx")
    binv = ops.parameter([4], F32, name="binv")
    y = ops.multiply(ops.add(bx, binv), ops.constant(np.full([2, 4], 3.0, F32)))
    r = ops.result(y)
    ti = ops.tensor_iterator()
    ti.set_body(_model([r], [bx, binv], "body"))
    ti.set_sliced_input(bx, x.output(0), -1, -2, 2, 0, 0)  # backwards, two rows per step
    ti.set_invariant_input(binv, inv.output(0))
    out = ti.get_concatenated_slices(r.output(0), -1, -2, 2, 0, 0)
    return _model([out], [x, inv], "ti_reverse"), "TensorIterator: sliced backwards (start -1, stride -2, " \
        "part_size 2), an invariant input, output concatenated backwards"


def _loop_body(condition: Any, iteration: Any, value: Any, weights: np.ndarray) -> tuple[Any, Any, Any]:
    updated = ops.add(value, ops.constant(weights, name="loop_w"))
    return condition, ops.result(updated), ops.result(ops.unsqueeze(updated, ops.constant(np.int64(0))))


def loop_special_ports() -> tuple[ov.Model, str]:
    x = ops.parameter([2, 3], F32, name="x")
    iteration = ops.parameter([], np.int64, name="iteration")
    bx = ops.parameter([2, 3], F32, name="bx")
    keep_going = ops.result(ops.less(iteration, ops.constant(np.int64(3))))
    _, r_x, r_step = _loop_body(None, iteration, bx, np.full((2, 3), 0.5, F32))
    loop = ops.loop(ops.constant(np.int64(5), name="trip"), ops.constant(True, name="cond"))
    loop.set_function(_model([keep_going, r_x, r_step], [iteration, bx], "body"))
    loop.set_special_body_ports([0, 0])
    loop.set_merged_input(bx, x.output(0), r_x.output(0))
    last = loop.get_iter_value(r_x.output(0), -1)
    steps = loop.get_concatenated_slices(r_step.output(0), 0, 1, 1, -1, 0)
    return _model([last, steps], [x], "loop"), "Loop: current_iteration and body_condition special ports, " \
        "a back edge, body weights; the condition is computed, so the concatenated output is dynamic"


def loop_static_trip() -> tuple[ov.Model, str]:
    x = ops.parameter([3], F32, name="x")
    bx = ops.parameter([3], F32, name="bx")
    always = ops.result(ops.constant(True, name="always"))
    _, r_x, r_step = _loop_body(None, None, bx, np.array([1, 2, 3], F32))
    loop = ops.loop(ops.constant(np.int64(4), name="trip"), ops.constant(True, name="cond"))
    loop.set_function(_model([always, r_x, r_step], [bx], "body"))
    loop.set_special_body_ports([-1, 0])
    loop.set_merged_input(bx, x.output(0), r_x.output(0))
    steps = loop.get_concatenated_slices(r_step.output(0), 0, 1, 1, -1, 0)
    last = loop.get_iter_value(r_x.output(0), -1)
    return _model([steps, last], [x], "loop_static"), "Loop: constant trip count 4 and an always-true body " \
        "condition: the concatenated output is static [4,3]; no current_iteration port"


def loop_dynamic_trip() -> tuple[ov.Model, str]:
    x = ops.parameter([-1, 3], F32, name="x")
    trip = ops.parameter([], np.int64, name="trip")
    bx = ops.parameter([-1, 3], F32, name="bx")
    always = ops.result(ops.constant(True))
    doubled = ops.result(ops.multiply(bx, ops.constant(np.float32(2))))
    loop = ops.loop(trip, ops.constant(True))
    loop.set_function(_model([always, doubled], [bx], "body"))
    loop.set_special_body_ports([-1, 0])
    loop.set_invariant_input(bx, x.output(0))
    steps = loop.get_concatenated_slices(doubled.output(0), 0, 1, 1, -1, 1)
    return _model([steps], [x, trip], "loop_dynamic"), "Loop: trip count from a Parameter, dynamic input dim, " \
        "concatenated on axis 1"


def if_branches() -> tuple[ov.Model, str]:
    cond = ops.parameter([], np.bool_, name="cond")
    a = ops.parameter([2], F32, name="a")
    b = ops.parameter([2], F32, name="b")
    ta, tb = ops.parameter([2], F32, name="ta"), ops.parameter([2], F32, name="tb")
    then_result = ops.result(ops.multiply(ops.add(ta, tb), ops.constant(np.array([2, 3], F32), name="then_w")))
    ea = ops.parameter([2], F32, name="ea")
    else_result = ops.result(ops.negative(ops.subtract(ea, ops.constant(np.array([5, 7], F32), name="else_w"))))
    node = ops.if_op(cond)
    node.set_then_body(_model([then_result], [ta, tb], "then"))
    node.set_else_body(_model([else_result], [ea], "else"))
    node.set_input(a.output(0), ta, ea)
    node.set_input(b.output(0), tb, None)
    out = node.set_output(then_result, else_result)
    return _model([out], [cond, a, b], "if"), "If: two inputs, the else body uses one; weights in both bodies"


def if_shapes_differ() -> tuple[ov.Model, str]:
    cond = ops.parameter([], np.bool_, name="cond")
    a = ops.parameter([4, 2], F32, name="a")
    ta = ops.parameter([4, 2], F32, name="ta")
    then_result = ops.result(ops.relu(ta))
    ea = ops.parameter([4, 2], F32, name="ea")
    else_result = ops.result(ops.reshape(ea, ops.constant(np.array([2, 4], np.int64)), False))
    node = ops.if_op(cond)
    node.set_then_body(_model([then_result], [ta], "then"))
    node.set_else_body(_model([else_result], [ea], "else"))
    node.set_input(a.output(0), ta, ea)
    out = node.set_output(then_result, else_result)
    return _model([out], [cond, a], "if_shapes"), "If: the branches give [4,2] and [2,4], so the output is [?,?]"


def nested() -> tuple[ov.Model, str]:
    """If inside Loop inside TensorIterator, with weights at every level."""
    # Loop body: If(sum(l_x) > 0) adds 0.25, else halves; runs while l_iter < 2
    l_iter = ops.parameter([], np.int64, name="l_iter")
    l_x = ops.parameter([2, 3], F32, name="l_x")
    positive = ops.greater(ops.reduce_sum(l_x, ops.constant(np.array([0, 1], np.int64)), False),
                           ops.constant(np.float32(0), name="zero"))
    then_x = ops.parameter([2, 3], F32, name="then_x")
    else_x = ops.parameter([2, 3], F32, name="else_x")
    then_r = ops.result(ops.add(then_x, ops.constant(np.full((2, 3), 0.25, F32), name="if_then_w")))
    else_r = ops.result(ops.multiply(else_x, ops.constant(np.full((2, 3), 0.5, F32), name="if_else_w")))
    branch = ops.if_op(positive.output(0))
    branch.set_then_body(_model([then_r], [then_x], "then"))
    branch.set_else_body(_model([else_r], [else_x], "else"))
    branch.set_input(l_x.output(0), then_x, else_x)
    branch_out = branch.set_output(then_r, else_r)
    l_cond = ops.result(ops.less(l_iter, ops.constant(np.int64(2))))
    l_next = ops.result(branch_out)
    # TensorIterator body: Loop over (t_x + t_h), times weights
    t_x = ops.parameter([2, 1, 3], F32, name="t_x")
    t_h = ops.parameter([2, 3], F32, name="t_h")
    mixed = ops.add(ops.squeeze(t_x, ops.constant(np.array([1], np.int64))), t_h)
    loop = ops.loop(ops.constant(np.int64(4)), ops.constant(True))
    loop.set_function(_model([l_cond, l_next], [l_iter, l_x], "loop_body"))
    loop.set_special_body_ports([0, 0])
    loop.set_merged_input(l_x, mixed.output(0), l_next.output(0))
    loop_last = loop.get_iter_value(l_next.output(0), -1)
    t_next = ops.result(ops.multiply(loop_last, ops.constant(np.full((2, 3), 0.9, F32), name="ti_w")))
    ti = ops.tensor_iterator()
    ti.set_body(_model([t_next], [t_x, t_h], "ti_body"))
    x = ops.parameter([2, 5, 3], F32, name="x")
    h = ops.parameter([2, 3], F32, name="h")
    ti.set_sliced_input(t_x, x.output(0), 0, 1, 1, -1, 1)
    ti.set_merged_input(t_h, h.output(0), t_next.output(0))
    out = ti.get_iter_value(t_next.output(0), -1)
    return _model([out], [x, h], "nested"), "If inside Loop inside TensorIterator, weights at every level"


# ------------------------------------------------------------------------------------ ONNX conversions
def _onnx_loop() -> Any:
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [
            helper.make_node("Constant", [], ["one"],
                             value=helper.make_tensor("one", TensorProto.FLOAT, [3], [1, 2, 3])),
            helper.make_node("Add", ["v_in", "one"], ["v_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Identity", ["v_out"], ["scan"]),
        ],
        "loop_body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [3]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [3]),
            helper.make_tensor_value_info("scan", TensorProto.FLOAT, [3]),
        ],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Constant", [], ["M"], value=helper.make_tensor("M", TensorProto.INT64, [], [5])),
            helper.make_node("Constant", [], ["c"], value=helper.make_tensor("c", TensorProto.BOOL, [], [True])),
            helper.make_node("Loop", ["M", "c", "v0"], ["v_final", "scans"], body=body),
        ],
        "onnx_loop",
        [helper.make_tensor_value_info("v0", TensorProto.FLOAT, [3])],
        [
            helper.make_tensor_value_info("v_final", TensorProto.FLOAT, [3]),
            helper.make_tensor_value_info("scans", TensorProto.FLOAT, [5, 3]),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _onnx_if() -> Any:
    from onnx import TensorProto, helper

    def branch(name: str, values: list[float]) -> Any:
        return helper.make_graph(
            [
                helper.make_node("Constant", [], [f"{name}_w"],
                                 value=helper.make_tensor(f"{name}_w", TensorProto.FLOAT, [2], values)),
                helper.make_node("Mul", ["x", f"{name}_w"], [f"{name}_out"]),
            ],
            name, [], [helper.make_tensor_value_info(f"{name}_out", TensorProto.FLOAT, [2])],
        )

    graph = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], then_branch=branch("then", [2, 3]),
                          else_branch=branch("else", [-1, -4]))],
        "onnx_if",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _onnx_scan() -> Any:
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [
            helper.make_node("Constant", [], ["w"], value=helper.make_tensor("w", TensorProto.FLOAT, [2], [0.5, 2])),
            helper.make_node("Mul", ["x_t", "w"], ["scaled"]),
            helper.make_node("Add", ["sum_in", "scaled"], ["sum_out"]),
            helper.make_node("Identity", ["sum_out"], ["y_t"]),
        ],
        "scan_body",
        [helper.make_tensor_value_info("sum_in", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("x_t", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("sum_out", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("y_t", TensorProto.FLOAT, [2])],
    )
    graph = helper.make_graph(
        [helper.make_node("Scan", ["init", "xs"], ["final", "ys"], body=body, num_scan_inputs=1)],
        "onnx_scan",
        [helper.make_tensor_value_info("init", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("xs", TensorProto.FLOAT, [4, 2])],
        [helper.make_tensor_value_info("final", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("ys", TensorProto.FLOAT, [4, 2])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])


def _from_onnx(build: Callable[[], Any], what: str) -> Callable[[], tuple[ov.Model, str]]:
    def case() -> tuple[ov.Model, str]:
        import onnx

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "model.onnx"
            onnx.save(build(), str(path))
            return ov.convert_model(str(path)), what

    return case


# ------------------------------------------------------------------------------------ cases
BUILDERS: dict[str, Callable[[], tuple[ov.Model, str]]] = {
    "ti": tensor_iterator,
    "ti-reverse": tensor_iterator_reverse,
    "loop-special-ports": loop_special_ports,
    "loop-static-trip": loop_static_trip,
    "loop-dynamic-trip": loop_dynamic_trip,
    "if": if_branches,
    "if-shapes-differ": if_shapes_differ,
    "nested-if-loop-ti": nested,
    "onnx-loop": _from_onnx(_onnx_loop, "ONNX Loop (trip count 5, scan output) converted by openvino.convert_model"),
    "onnx-if": _from_onnx(_onnx_if, "ONNX If with weights in both branches converted by openvino.convert_model"),
    "onnx-scan": _from_onnx(_onnx_scan, "ONNX Scan (a running sum) converted by openvino.convert_model"),
}
V10 = ("ti", "loop-special-ports", "if", "nested-if-loop-ti", "onnx-scan")
"""Cases also written as IR v10 (``<name>-v10``)."""

CASES: dict[str, tuple[str, int]] = {
    **{name: (name, 11) for name in BUILDERS},
    **{f"{name}-v10": (name, 10) for name in V10},
}


_BUILT: dict[str, tuple[ov.Model, str]] = {}


def serialize(model: ov.Model, xml: Path, version: int) -> None:
    """Write ``model`` as IR ``version`` (never fp16-compressed: ``serialize`` keeps the element types)."""
    ov.serialize(model, str(xml), str(xml.with_suffix(".bin")), version=f"IR_V{version}")


def read(xml: Path, version: int) -> ov.Model:
    """Read an IR: v11 through Core.read_model, v10 through the IR frontend (no legacy v10 type fix-ups)."""
    if version >= 11:
        return ov.Core().read_model(str(xml))
    frontend = FrontEndManager().load_by_framework("ir")
    return ov.Model(frontend.convert(frontend.load(str(xml))))


def port_info(output: Any) -> dict[str, str]:
    """An output's element type and partial shape as irgraph prints them."""
    shape = output.get_partial_shape()
    return {"type": output.get_element_type().get_type_name(), "shape": str(shape).replace(" ", "")}


def write_case(name: str, directory: Path) -> dict[str, Any]:
    """Write case ``name`` (model.xml, model.bin, case.json) into ``directory``; returns case.json's content."""
    builder, version = CASES[name]
    if builder not in _BUILT:  # a v10 case is the very model of its v11 case (same auto-generated names)
        _BUILT[builder] = BUILDERS[builder]()
    model, what = _BUILT[builder]
    directory.mkdir(parents=True, exist_ok=True)
    xml = directory / "model.xml"
    serialize(model, xml, version)
    again = read(xml, version)
    meta = {
        "what": what,
        "ir_version": version,
        "oracle": ORACLE,
        "generated_by": f"tests/oracle/generate_subgraph_goldens.py (case {name})",
        "outputs": [port_info(output) for output in again.outputs],
    }
    (directory / "case.json").write_text(json.dumps(meta, indent=2) + "\n", "utf-8")
    return meta
