"""If layers export as ONNX If (branches reading the If's inputs from the enclosing scope): on the If
files openvino 2026.4.1 wrote, onnxruntime 1.31.1 gives OpenVINO's CPU outputs for both conditions.
Loop and TensorIterator layers export as ONNX Loop: on every Loop and TensorIterator file of the corpus
(nested ones too) and on the models tests/control_flow/test_runners.py builds (counters, running sums forwards and
backwards in parts, columns joined on negative axes, zero iterations), onnxruntime 1.31.1 computes
irgraph's outputs exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irgraph as ir
from irgraph.control_flow.tensor_iterator import TensorIterator
from irgraph.core.errors import ConversionError
from irgraph.graph import BackEdge, Body, OutputPort, PortMapEntry
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.families.recurrent import RECURRENT_TOLERANCE
from irgraph.ops.infrastructure.parameter import Parameter
from irgraph.ops.sequence.lstm_cell import LSTMCell4
from irgraph.ops.shape.squeeze import Squeeze
from irgraph.ops.shape.unsqueeze import Unsqueeze
from tests.control_flow.test_runners import (
    column_loop,
    counting_loop,
    nested_loops,
    replace_port_map,
    running_sum,
    scalar_steps_loop,
)
from tests.io.test_onnx_export import onnxruntime_run
from tests.ops.differential import OP_EXAMPLES, assert_values_close

pytestmark = pytest.mark.oracle

CORPUS = Path(__file__).resolve().parents[1] / "data" / "ov-subgraphs"


@pytest.mark.parametrize("case", ["if", "if-v10", "if-shapes-differ", "onnx-if"])
@pytest.mark.parametrize("condition", [True, False])
def test_if_runs_in_onnxruntime_as_in_openvino(case, condition):
    import openvino as ov

    path = CORPUS / case / "model.xml"
    model = ir.read_model(path)
    proto = ir.export_onnx(model)
    (if_node,) = [node for node in proto.graph.node if node.op_type == "If"]
    assert {a.name for a in if_node.attribute} == {"then_branch", "else_branch"}
    feeds = {}
    for parameter in model.parameters:
        shape = [dim.value for dim in parameter.op.shape.dims]
        if parameter.op.element_type.ir_name == "boolean":
            feeds[parameter.name] = np.full(shape, condition)
        else:
            values = np.random.default_rng(len(feeds)).standard_normal(shape)
            feeds[parameter.name] = values.astype(parameter.op.element_type.numpy_dtype)
    theirs = onnxruntime_run(proto, feeds)
    compiled = ov.Core().compile_model(str(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    expected = compiled([feeds[p.name] for p in model.parameters])
    for index, output in enumerate(proto.graph.output):
        np.testing.assert_array_equal(theirs[output.name], expected[index])


LOOP_CASES = ["loop-special-ports", "loop-special-ports-v10", "loop-static-trip",
              "nested-if-loop-ti", "nested-if-loop-ti-v10", "onnx-loop", "onnx-scan", "onnx-scan-v10", "ti",
              "ti-reverse", "ti-v10"]


def corpus_feeds(model: ir.Model, rows: int = 3, trip: int = 4) -> dict[str, np.ndarray]:
    """Seeded inputs: a dynamic dim becomes ``rows``, an integer scalar (a trip count) ``trip``."""
    feeds = {}
    for index, parameter in enumerate(model.parameters):
        shape = [dim.value if dim.is_static else rows for dim in parameter.op.shape.dims]
        dtype = parameter.op.element_type.numpy_dtype
        if parameter.op.element_type.ir_name == "boolean":
            feeds[parameter.name] = np.full(shape, True)
        elif np.dtype(dtype).kind in "iu":
            feeds[parameter.name] = np.full(shape, trip, dtype)
        else:
            feeds[parameter.name] = np.random.default_rng(index).standard_normal(shape).astype(dtype)
    return feeds


def assert_exported_runs_as_irgraph(model: ir.Model, feeds: dict[str, np.ndarray], opset: int = 18) -> None:
    feeds = {name: np.asarray(value) for name, value in feeds.items()}
    ours = ir.run(model, feeds)
    proto = ir.export_onnx(model, opset=opset)
    theirs = onnxruntime_run(proto, feeds)
    assert list(ours) == [output.name for output in proto.graph.output]
    for name, value in ours.items():
        assert theirs[name].dtype == value.dtype and theirs[name].shape == value.shape, name
        np.testing.assert_array_equal(theirs[name], value, err_msg=name)


@pytest.mark.parametrize("case", LOOP_CASES)
def test_loops_and_tensor_iterators_of_the_corpus_run_in_onnxruntime_as_in_irgraph(case):
    model = ir.read_model(CORPUS / case / "model.xml")
    proto = ir.export_onnx(model)
    assert "Loop" in {node.op_type for node in proto.graph.node}
    assert_exported_runs_as_irgraph(model, corpus_feeds(model))


@pytest.mark.parametrize("opset", [13, 18])
@pytest.mark.parametrize("trip", [0, 1, 3, 7])
def test_a_loop_with_a_run_time_trip_count_and_condition(trip, opset):
    model = counting_loop(None, below=5, condition=None)
    for go in (True, False):
        feeds = {"trip": np.int64(trip), "go": np.bool_(go), "v0": np.arange(4, dtype=np.float32)}
        assert_exported_runs_as_irgraph(model, feeds, opset)


def test_a_negative_trip_count_runs_until_the_body_condition_stops_it():
    model = counting_loop(None, below=6, condition=True)
    assert_exported_runs_as_irgraph(model, {"trip": np.int64(-1), "v0": np.zeros(4, np.float32)})
    constant = counting_loop(-1, below=2)
    proto = ir.export_onnx(constant)
    (loop,) = [node for node in proto.graph.node if node.op_type == "Loop"]
    assert loop.input[0] == "", "a constant negative trip count is ONNX's empty M (no limit)"
    assert_exported_runs_as_irgraph(constant, {"v0": np.zeros(4, np.float32)})


@pytest.mark.parametrize("stride", [1, -1, 2, -2])
def test_a_tensor_iterator_slices_in_parts_forwards_and_backwards(stride):
    model = running_sum(8, stride)
    feeds = {"x": np.arange(16, dtype=np.float32).reshape(8, 2), "s0": np.ones((abs(stride), 2), np.float32)}
    assert_exported_runs_as_irgraph(model, feeds)


@pytest.mark.parametrize("axis", [1, -1, 0])
def test_a_loop_slices_and_joins_along_any_axis(axis):
    x_shape = (3, 4) if axis else (4, 3)
    model = column_loop(axis=axis, x_shape=x_shape)
    if axis == 0:
        replace_parameter_shape(model, [1, 3])
    assert_exported_runs_as_irgraph(model, {"x": np.arange(12, dtype=np.float32).reshape(x_shape)})


def replace_parameter_shape(model: ir.Model, shape: list[int], element_type: str = "f32") -> None:
    """Declare the first body Parameter of the model's Loop with ``shape`` and ``element_type``."""
    body = next(node for node in model if node.bodies).bodies[0].model
    body.parameters[0].op = Parameter(shape=ir.Shape.of(shape), element_type=ir.ElementType.from_ir_name(element_type))


@pytest.mark.parametrize("trip", [1, 4])
@pytest.mark.parametrize("counter", [("i64", []), ("i32", []), ("i32", [1])])
def test_the_iteration_counter_takes_its_parameters_type_and_shape(trip, counter):
    model = scalar_steps_loop()
    element_type, shape = counter
    replace_parameter_shape(model, shape, element_type)
    assert_exported_runs_as_irgraph(model, {"trip": np.int64(trip)})


def test_nested_loops_export_as_nested_onnx_loops():
    model = nested_loops(3)
    proto = ir.export_onnx(model)
    assert_exported_runs_as_irgraph(model, {"x2": np.zeros(2, np.float32)})
    depth, graph = 0, proto.graph
    while True:
        loops = [node for node in graph.node if node.op_type == "Loop"]
        if not loops:
            break
        depth, graph = depth + 1, loops[0].attribute[0].g
    assert depth == 3


def test_a_partial_slicing_range_is_refused_with_the_layer_named():
    model = running_sum(4)
    replace_port_map(model, "ti", lambda entries: [
        PortMapEntry(False, 0, entries[0].internal_layer_id, axis=0, start=1, end=-1, stride=1, part_size=1),
        *entries[1:]])
    with pytest.raises(ConversionError, match=r"^1 layer cannot be exported to ONNX: TensorIterator x1 \(layer 2 "
                                              r"'ti': port map input \(external_port_id 0, internal_layer_id 0\): "
                                              r"start 1, end -1, stride 1 do not cover the whole axis of input 0 in "
                                              r"parts of 1; irgraph runs no other range\)$"):
        ir.export_onnx(model)


def test_a_loop_irgraph_refuses_to_run_is_refused():
    """loop-dynamic-trip concatenates [?,3] parts on axis 1 with stride 1: irgraph and openvino 2026.4.1's CPU
    plugin refuse to run it, and the export says why."""
    with pytest.raises(ConversionError, match=r"Loop x1 \(layer 3 'Loop_238': port map output \(external_port_id 0, "
                                              r"internal_layer_id 5\) concatenates parts of 3 along axis 1; each "
                                              r"iteration must give \|stride\| = 1 "):
        ir.export_onnx(ir.read_model(CORPUS / "loop-dynamic-trip" / "model.xml"))


def generated_tensor_iterator(shape: list[int], axis: int, stride: int, out_axis: int, out_stride: int,
                              last_from: str) -> ir.Model:
    """A TensorIterator slicing x along ``axis`` in parts of |stride| (from the end when negative), adding each part
    to a carried sum (a back edge) and multiplying it by an invariant; the products concatenated along ``out_axis``
    (backwards when ``out_stride`` < 0), the last sum or product as a second output."""
    part_shape = list(shape)
    part_shape[axis] = abs(stride)
    body = ir.Model("body")
    part = body.parameter("part", part_shape)
    total = body.parameter("total", part_shape)
    scale = body.parameter("scale", part_shape[-1:])
    new_total = OutputPort(body.add_node(Add(), "new_total", [total, part]).id, 0)
    product = OutputPort(body.add_node(Multiply(), "product", [new_total, scale]).id, 0)
    r_total = body.result(new_total, name="total_out")
    r_product = body.result(product, name="product_out")
    model = ir.Model("ti")
    x = model.parameter("x", shape)
    s0 = model.parameter("s0", part_shape)
    k = model.parameter("k", part_shape[-1:])
    node = model.add_node(TensorIterator(), "ti", [x, s0, k], num_outputs=2)
    start, end = (0, -1) if stride > 0 else (-1, 0)
    out_start, out_end = (0, -1) if out_stride > 0 else (-1, 0)
    port_map = (
        PortMapEntry(False, 0, part.node_id, axis=axis, start=start, end=end, stride=stride, part_size=abs(stride)),
        PortMapEntry(False, 1, total.node_id),
        PortMapEntry(False, 2, scale.node_id),
        PortMapEntry(True, 0, r_product.id, axis=out_axis, start=out_start, end=out_end, stride=out_stride,
                     part_size=abs(out_stride)),
        PortMapEntry(True, 1, (r_total if last_from == "total" else r_product).id),
    )
    node.bodies = (Body("body", body, port_map, (BackEdge(r_total.id, total.node_id),)),)
    model.result(OutputPort(node.id, 0), name="products")
    model.result(OutputPort(node.id, 1), name="last")
    return model


@OP_EXAMPLES
@given(st.data())
def test_generated_tensor_iterators_run_in_onnxruntime_as_in_irgraph(data):
    """Slicing axis, part size, directions of slicing and joining, joining axis, and which value is the last one:
    onnxruntime 1.31.1 computes irgraph's outputs exactly (or irgraph refuses the configuration, as OpenVINO)."""
    draw = data.draw
    rank = draw(st.integers(1, 3))
    axis = draw(st.integers(0, rank - 1))
    stride = draw(st.sampled_from([1, -1, 2, -2, 3]))
    parts = draw(st.integers(1, 4))
    shape = [draw(st.integers(1, 3)) for _ in range(rank)]
    shape[axis] = parts * abs(stride)
    out_axis = draw(st.integers(0, rank - 1))
    part_dim = abs(stride) if out_axis == axis else shape[out_axis]
    out_stride = part_dim * draw(st.sampled_from([1, -1]))
    model = generated_tensor_iterator(shape, axis, stride, out_axis, out_stride,
                                      draw(st.sampled_from(["total", "product"])))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    part_shape = list(shape)
    part_shape[axis] = abs(stride)
    feeds = {"x": rng.standard_normal(shape).astype(np.float32),
             "s0": rng.standard_normal(part_shape).astype(np.float32),
             "k": rng.standard_normal(part_shape[-1:]).astype(np.float32)}
    assert_exported_runs_as_irgraph(model, feeds, draw(st.sampled_from([13, 18])))


def lstm_tensor_iterator(steps: int = 5, batch: int = 2, inputs: int = 3, hidden: int = 4) -> ir.Model:
    """The form OpenVINO's older converters gave recurrent networks: a TensorIterator over the time axis whose body
    squeezes the step, runs an LSTMCell-4 with body weights and carries H and C by back edges; every H is
    concatenated, the last C is an output."""
    rng = np.random.default_rng(7)
    body = ir.Model("body")
    x_t = body.parameter("x_t", [batch, 1, inputs])
    h = body.parameter("h", [batch, hidden])
    c = body.parameter("c", [batch, hidden])
    squeezed = OutputPort(body.add_node(Squeeze(), "squeeze", [x_t, body.const(np.asarray([1], np.int64))]).id, 0)
    weights = [body.const((rng.uniform(-1, 1, shape) / np.sqrt(shape[-1])).astype(np.float32))
               for shape in ((4 * hidden, inputs), (4 * hidden, hidden), (4 * hidden,))]
    cell = body.add_node(LSTMCell4(hidden_size=hidden), "cell", [squeezed, h, c, *weights])
    h_next, c_next = OutputPort(cell.id, 0), OutputPort(cell.id, 1)
    r_h = body.result(h_next, name="h_out")
    r_c = body.result(c_next, name="c_out")
    step = OutputPort(body.add_node(Unsqueeze(), "unsqueeze", [h_next, body.const(np.asarray([1], np.int64))]).id, 0)
    r_step = body.result(step, name="step_out")
    model = ir.Model("lstm_ti")
    x = model.parameter("x", [batch, steps, inputs])
    h0, c0 = model.parameter("h0", [batch, hidden]), model.parameter("c0", [batch, hidden])
    node = model.add_node(TensorIterator(), "ti", [x, h0, c0], num_outputs=2)
    port_map = (
        PortMapEntry(False, 0, x_t.node_id, axis=1, start=0, end=-1, stride=1, part_size=1),
        PortMapEntry(False, 1, h.node_id), PortMapEntry(False, 2, c.node_id),
        PortMapEntry(True, 0, r_step.id, axis=1, start=0, end=-1, stride=1, part_size=1),
        PortMapEntry(True, 1, r_c.id),
    )
    node.bodies = (Body("body", body, port_map, (BackEdge(r_h.id, h.node_id), BackEdge(r_c.id, c.node_id))),)
    model.result(OutputPort(node.id, 0), name="hs")
    model.result(OutputPort(node.id, 1), name="c_last")
    return model


def test_a_tensor_iterator_over_an_lstm_cell_runs_in_onnxruntime_as_in_irgraph():
    model = lstm_tensor_iterator()
    rng = np.random.default_rng(8)
    feeds = {"x": rng.uniform(-1, 1, (2, 5, 3)).astype(np.float32), "h0": np.zeros((2, 4), np.float32),
             "c0": rng.uniform(-1, 1, (2, 4)).astype(np.float32)}
    ours = ir.run(model, feeds)
    theirs = onnxruntime_run(ir.export_onnx(model), feeds)
    for name, value in ours.items():  # the LSTM cell's tolerance (docs/tolerances.md), carried over five steps
        assert_values_close(value, theirs[name], RECURRENT_TOLERANCE, name)
