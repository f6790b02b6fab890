"""ONNX Loop, If and Scan -> IR Loop-5, If-8 and TensorIterator-1: models built with onnx.helper (counted loops,
while loops, loop-carried values, scan outputs, outer-scope names, nested bodies, branches of different shapes),
converted by irgraph, run by irgraph.Interpreter and compared with onnxruntime 1.31.1 on the same inputs."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import irgraph as ir
from irgraph.control_flow.if_ import If
from irgraph.control_flow.loop import Loop
from irgraph.control_flow.tensor_iterator import TensorIterator
from irgraph.core.errors import ConversionError

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def value(name, element_type=F, shape=None):
    return helper.make_tensor_value_info(name, element_type, shape)


def init(name, array):
    return onnx.numpy_helper.from_array(np.asarray(array), name)


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "control", inputs, outputs, initializer=list(initializers))
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    proto.ir_version = min(helper.find_min_ir_version_for(proto.opset_import), 13)
    return proto


def agree(proto, feeds, rtol=1e-6, atol=1e-6):
    """irgraph's outputs equal onnxruntime 1.31.1's (exactly for integer and boolean outputs)."""
    ours = ir.run(ir.convert_onnx(proto), feeds)
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    theirs = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds), strict=True))
    assert sorted(ours) == sorted(theirs)
    for key, expected in theirs.items():
        assert ours[key].dtype == expected.dtype and ours[key].shape == expected.shape, (key, ours[key].shape,
                                                                                         expected.shape)
        if expected.dtype.kind == "f":
            np.testing.assert_allclose(ours[key], expected, rtol=rtol, atol=atol, err_msg=key)
        else:
            np.testing.assert_array_equal(ours[key], expected, err_msg=key)
    return ours


def op_types(proto) -> list[str]:
    return [node.op.type_name for node in ir.convert_onnx(proto).nodes]


# ------------------------------------------------------------------------------------ Loop
def counted_loop(with_cond_input: bool = True, scan: bool = True):
    """Loop M times: total += x * i (i the iteration number); scan output: every total; the body reads x from the
    outer scope."""
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["i_f"], to=F),
         helper.make_node("Mul", ["x", "i_f"], ["step"]),
         helper.make_node("Add", ["total_in", "step"], ["total_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Identity", ["total_out"], ["scanned"])],
        "body", [value("i", I64, []), value("cond_in", B, []), value("total_in", F, [2, 3])],
        [value("cond_out", B, []), value("total_out", F, [2, 3])] + ([value("scanned", F, [2, 3])] if scan else []))
    outputs = ["total"] + (["totals"] if scan else [])
    node = helper.make_node("Loop", ["M", "cond" if with_cond_input else "", "total0"], outputs, body=body)
    return model([node], [value("x", F, [2, 3]), value("M", I64, []), value("total0", F, [2, 3])]
                 + ([value("cond", B, [])] if with_cond_input else []),
                 [value(name) for name in outputs])


@pytest.mark.parametrize("trips", [0, 1, 4])
def test_a_counted_loop_with_outer_scope_reads_and_scan_outputs(trips):
    rng = np.random.default_rng(trips)
    feeds = {"x": rng.standard_normal((2, 3)).astype(np.float32), "M": np.array(trips, np.int64),
             "total0": rng.standard_normal((2, 3)).astype(np.float32), "cond": np.array(True)}
    got = agree(counted_loop(), feeds)
    assert got["totals"].shape == (trips, 2, 3)


def test_a_loop_without_cond_runs_its_trip_count_and_is_a_loop_5():
    proto = counted_loop(with_cond_input=False, scan=False)
    assert "Loop" in op_types(proto)
    agree(proto, {"x": np.ones((2, 3), np.float32), "M": np.array(3, np.int64), "total0": np.zeros((2, 3), np.float32)})


def test_the_loop_conversion_explains_its_ports():
    lines: list[str] = []
    ir.convert_onnx(counted_loop(), explain=lines)
    assert "Loop-16 node #0 (output 'total') body: 'x' of the outer scope -> a body Parameter f32[2,3] the layer " \
           "feeds" in lines
    assert any(line.endswith("-> Loop-5 with 1 carried value(s) (back edges), 1 scan output(s) (unsqueezed, "
                             "concatenated on axis 0), 1 outer-scope input(s)") for line in lines), lines


def while_loop():
    """No M: while total < limit, total = total * 2 + 1 (a scalar), with each iteration number scanned."""
    body = helper.make_graph(
        [helper.make_node("Mul", ["v_in", "two"], ["doubled"]),
         helper.make_node("Add", ["doubled", "one"], ["v_out"]),
         helper.make_node("Less", ["v_out", "limit"], ["cond_out"]),
         helper.make_node("Identity", ["i"], ["seen"])],
        "body", [value("i", I64, []), value("cond_in", B, []), value("v_in", F, [])],
        [value("cond_out", B, []), value("v_out", F, []), value("seen", I64, [])],
        initializer=[init("two", np.float32(2)), init("one", np.float32(1))])
    node = helper.make_node("Loop", ["", "go", "v0"], ["v", "iterations"], body=body)
    return model([node], [value("go", B, []), value("v0", F, []), value("limit", F, [])],
                 [value("v"), value("iterations", I64)])


@pytest.mark.parametrize(("start", "limit", "go"), [(0.0, 100.0, True), (5.0, 1.0, True), (0.0, 100.0, False)])
def test_a_while_loop_stops_when_its_body_condition_says_so(start, limit, go):
    feeds = {"go": np.array(go), "v0": np.array(start, np.float32), "limit": np.array(limit, np.float32)}
    agree(while_loop(), feeds)


def test_loop_carried_values_that_grow_and_a_body_reading_cond_in():
    """The carried value grows by one row per iteration (Concat); the body stops when cond_in and a count say so."""
    body = helper.make_graph(
        [helper.make_node("Concat", ["rows_in", "row"], ["rows_out"], axis=0),
         helper.make_node("Less", ["i", "three"], ["more"]),
         helper.make_node("And", ["cond_in", "more"], ["cond_out"])],
        "body", [value("i", I64, []), value("cond_in", B, []), value("rows_in", F, [None, 2])],
        [value("cond_out", B, []), value("rows_out", F, [None, 2])],
        initializer=[init("three", np.int64(3))])
    node = helper.make_node("Loop", ["M", "", "rows0"], ["rows"], body=body)
    proto = model([node], [value("M", I64, []), value("rows0", F, [1, 2]), value("row", F, [1, 2])], [value("rows")])
    for trips in (2, 10):
        agree(proto, {"M": np.array(trips, np.int64), "rows0": np.zeros((1, 2), np.float32),
                      "row": np.array([[1, 2]], np.float32)})


def test_nested_loops_capture_through_both_levels():
    """An inner Loop inside the outer body reads x from the top graph and j from the outer body."""
    inner = helper.make_graph(
        [helper.make_node("Cast", ["j"], ["j_f"], to=F),
         helper.make_node("Mul", ["x", "j_f"], ["xj"]),
         helper.make_node("Add", ["a_in", "xj"], ["a_out"]),
         helper.make_node("Identity", ["c_in"], ["c_out"])],
        "inner", [value("k", I64, []), value("c_in", B, []), value("a_in", F, [3])],
        [value("c_out", B, []), value("a_out", F, [3])])
    outer = helper.make_graph(
        [helper.make_node("Loop", ["two", "", "acc_in"], ["acc_out"], body=inner),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "outer", [value("j", I64, []), value("cond_in", B, []), value("acc_in", F, [3])],
        [value("cond_out", B, []), value("acc_out", F, [3])],
        initializer=[init("two", np.int64(2))])
    node = helper.make_node("Loop", ["M", "", "acc0"], ["acc"], body=outer)
    proto = model([node], [value("x", F, [3]), value("M", I64, []), value("acc0", F, [3])], [value("acc")])
    agree(proto, {"x": np.array([1, 2, 3], np.float32), "M": np.array(4, np.int64), "acc0": np.zeros(3, np.float32)})


# ------------------------------------------------------------------------------------ If
def if_model(cond_from_input: bool = True):
    then_branch = helper.make_graph([helper.make_node("Add", ["x", "y"], ["then_out"])], "then", [],
                                    [value("then_out", F, [2, 3])])
    else_branch = helper.make_graph([helper.make_node("ReduceSum", ["x", "axes"], ["else_out"], keepdims=1)], "else",
                                    [], [value("else_out", F, [1, 3])],
                                    initializer=[init("axes", np.array([0], np.int64))])
    node = helper.make_node("If", ["c"], ["out"], then_branch=then_branch, else_branch=else_branch)
    return model([node], [value("c", B, []), value("x", F, [2, 3]), value("y", F, [2, 3])], [value("out")])


@pytest.mark.parametrize("cond", [True, False])
def test_if_branches_of_different_shapes_read_the_outer_scope(cond):
    rng = np.random.default_rng(1)
    feeds = {"c": np.array(cond), "x": rng.standard_normal((2, 3)).astype(np.float32),
             "y": rng.standard_normal((2, 3)).astype(np.float32)}
    got = agree(if_model(), feeds, rtol=1e-6)
    assert got["out"].shape == ((2, 3) if cond else (1, 3))


def test_if_becomes_if_8_with_the_outer_names_as_inputs():
    converted = ir.convert_onnx(if_model())
    (node,) = [n for n in converted.nodes if isinstance(n.op, If)]
    assert [body.tag for body in node.bodies] == ["then_body", "else_body"]
    assert len(converted.input_sources(node)) == 3  # cond, x, y


def test_an_if_inside_a_loop_body():
    then_branch = helper.make_graph([helper.make_node("Add", ["s_in", "x"], ["t"])], "then", [], [value("t", F, [2])])
    else_branch = helper.make_graph([helper.make_node("Sub", ["s_in", "x"], ["e"])], "else", [], [value("e", F, [2])])
    body = helper.make_graph(
        [helper.make_node("Mod", ["i", "two"], ["parity"]),
         helper.make_node("Equal", ["parity", "zero"], ["even"]),
         helper.make_node("If", ["even"], ["s_out"], then_branch=then_branch, else_branch=else_branch),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body", [value("i", I64, []), value("cond_in", B, []), value("s_in", F, [2])],
        [value("cond_out", B, []), value("s_out", F, [2])],
        initializer=[init("two", np.int64(2)), init("zero", np.int64(0))])
    node = helper.make_node("Loop", ["M", "", "s0"], ["s"], body=body)
    proto = model([node], [value("M", I64, []), value("s0", F, [2]), value("x", F, [2])], [value("s")])
    agree(proto, {"M": np.array(5, np.int64), "s0": np.zeros(2, np.float32), "x": np.array([1, 10], np.float32)})


# ------------------------------------------------------------------------------------ Scan
def scan_model(input_direction=0, output_direction=0, input_axis=0, output_axis=0):
    """A running sum over the scan axis of x [4, 3] (or its transpose) and the running sum scanned out."""
    body = helper.make_graph(
        [helper.make_node("Add", ["sum_in", "row"], ["sum_out"]),
         helper.make_node("Mul", ["sum_out", "w"], ["scaled"])],
        "body", [value("sum_in", F, [3]), value("row", F, [3])], [value("sum_out", F, [3]), value("scaled", F, [3])])
    node = helper.make_node("Scan", ["s0", "x"], ["s", "partials"], body=body, num_scan_inputs=1,
                            scan_input_directions=[input_direction], scan_output_directions=[output_direction],
                            scan_input_axes=[input_axis], scan_output_axes=[output_axis])
    shape = [4, 3] if input_axis == 0 else [3, 4]
    return model([node], [value("s0", F, [3]), value("x", F, shape), value("w", F, [3])],
                 [value("s"), value("partials")])


@pytest.mark.parametrize("input_direction", [0, 1])
@pytest.mark.parametrize("output_direction", [0, 1])
@pytest.mark.parametrize(("input_axis", "output_axis"), [(0, 0), (1, 1), (1, -1)])
def test_scan_directions_and_axes(input_direction, output_direction, input_axis, output_axis):
    rng = np.random.default_rng(3)
    shape = (4, 3) if input_axis == 0 else (3, 4)
    proto = scan_model(input_direction, output_direction, input_axis, output_axis)
    assert "TensorIterator" in op_types(proto)
    agree(proto, {"s0": rng.standard_normal(3).astype(np.float32), "x": rng.standard_normal(shape).astype(np.float32),
                  "w": rng.standard_normal(3).astype(np.float32)})


def test_the_layers_are_the_ir_control_flow_ops():
    converted = [ir.convert_onnx(proto) for proto in (counted_loop(), scan_model(), if_model())]
    kinds = [type(node.op) for m in converted for node in m.nodes if node.bodies]
    assert kinds == [Loop, TensorIterator, If]


def test_scan_8_is_refused_naming_the_rule():
    body = helper.make_graph([helper.make_node("Identity", ["a"], ["b"])], "body", [value("a", F, [3])],
                             [value("b", F, [3])])
    node = helper.make_node("Scan", ["", "x"], ["y"], body=body, num_scan_inputs=1)
    graph = helper.make_graph([node], "scan8", [value("x", F, [1, 4, 3])], [value("y")])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)])
    proto.ir_version = 3
    with pytest.raises(ConversionError, match=r"Scan-8 .*: Scan-8 scans a batch with sequence_lens"):
        ir.convert_onnx(proto)


def test_an_unsupported_op_inside_a_body_is_listed_with_the_others():
    body = helper.make_graph([helper.make_node("StringNormalizer", ["a"], ["b"]),
                              helper.make_node("Identity", ["c_in"], ["c_out"])], "body",
                             [value("i", I64, []), value("c_in", B, []), value("a", TensorProto.STRING, [1])],
                             [value("c_out", B, []), value("b", TensorProto.STRING, [1])])
    nodes = [helper.make_node("Loop", ["M", "", "s"], ["t"], body=body), helper.make_node("Det", ["x"], ["y"])]
    graph = helper.make_graph(nodes, "g", [value("M", I64, []), value("s", TensorProto.STRING, [1]),
                                           value("x", F, [2, 2])], [value("t"), value("y")])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(ConversionError, match="2 nodes of 2 ONNX op types irgraph does not convert: Det×1, "
                                              "StringNormalizer×1; it converts"):
        ir.convert_onnx(proto)


ORACLE_CASES = {
    "counted-loop": (counted_loop, {"x": np.ones((2, 3), np.float32), "M": np.array(3, np.int64),
                                    "total0": np.zeros((2, 3), np.float32), "cond": np.array(True)}),
    "while-loop": (while_loop, {"go": np.array(True), "v0": np.array(0, np.float32),
                                "limit": np.array(100, np.float32)}),
    "if": (if_model, {"c": np.array(False), "x": np.ones((2, 3), np.float32), "y": np.ones((2, 3), np.float32)}),
    "scan-reversed": (lambda: scan_model(1, 1, 1, -1), {"s0": np.ones(3, np.float32),
                                                        "x": np.arange(12, dtype=np.float32).reshape(3, 4),
                                                        "w": np.ones(3, np.float32)}),
}


@pytest.mark.oracle
@pytest.mark.parametrize("name", ORACLE_CASES)
def test_the_written_ir_reads_back_and_runs_in_openvino_2026_4_1_alike(tmp_path, name):
    """Loop-5, If-8 and TensorIterator-1 as irgraph builds them, written to IR: irgraph reads the file back to the
    same values, and openvino 2026.4.1's CPU plugin (f32) runs it to the same values."""
    import openvino as ov

    make, feeds = ORACLE_CASES[name]
    converted = ir.convert_onnx(make())
    ir.write_model(converted, tmp_path / "model.xml")
    ours = ir.run(converted, feeds)
    back = ir.run(ir.read_model(tmp_path / "model.xml"), feeds)
    assert all(np.array_equal(ours[key], back[key]) for key in ours)
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(tmp_path / "model.xml")), "CPU",
                                  {"INFERENCE_PRECISION_HINT": "f32"})
    theirs = compiled(feeds)
    for output in compiled.outputs:
        np.testing.assert_allclose(theirs[output], ours[output.get_any_name()], rtol=1e-5, atol=1e-6)
