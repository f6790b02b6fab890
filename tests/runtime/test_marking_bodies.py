"""Marking tensors inside the bodies of Loop, TensorIterator and If: returned per body execution, keyed
OWNER/iterK/KEY or OWNER/then|else/KEY, values worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from irgraph.control_flow.loop import Loop
from irgraph.core.errors import InputError, ResourceLimitError
from irgraph.graph import BackEdge, Body, OutputPort, PortMapEntry
from irgraph.graph.subgraph import EXECUTION_CONDITION
from irgraph.ops.arithmetic.multiply import Multiply
from tests.control_flow.test_runners import _add, if_model, nested_loops, running_sum


def squaring_loop(trip: int = 3) -> ir.Model:
    """Loop(trip): w = v + 1 (inside the body only), v <- w * w; outputs the last v."""
    body = ir.Model("body")
    v = body.parameter("v", [2])
    w = _add(body, v, body.const(np.float32(1)), "w")
    squared = OutputPort(body.add_node(Multiply(), "squared", [w, w]).id, 0)
    r_v = body.result(squared, name="v_out")
    keep = body.result(body.const(np.bool_(True)), name="keep")
    model = ir.Model("loop")
    v0 = model.parameter("v0", [2])
    node = model.add_node(Loop(), "loop", [model.const(np.int64(trip)), model.const(np.bool_(True)), v0],
                          num_outputs=1)
    node.bodies = (Body("body", body, (PortMapEntry(False, 2, v.node_id), PortMapEntry(True, 0, r_v.id),
                                       PortMapEntry(True, -1, keep.id, purpose=EXECUTION_CONDITION)),
                        (BackEdge(r_v.id, v.node_id),)),)
    model.result(OutputPort(node.id, 0), name="v")
    return model


V0 = np.array([0, 1], np.float32)


def test_mark_all_returns_every_body_tensor_of_every_iteration():
    outputs = ir.Interpreter(squaring_loop(), mark="all").run({"v0": V0})
    # v: [0, 1] -> w [1, 2] -> [1, 4] -> w [2, 5] -> [4, 25] -> w [5, 26] -> [25, 676]
    assert {key: value.tolist() for key, value in outputs.items()} == {
        "v": [25, 676],
        "loop/iter0/v_out": [1, 4], "loop/iter0/keep": True, "loop/iter0/w:0": [1, 2],
        "loop/iter1/v_out": [4, 25], "loop/iter1/keep": True, "loop/iter1/w:0": [2, 5],
        "loop/iter2/v_out": [25, 676], "loop/iter2/keep": True, "loop/iter2/w:0": [5, 26],
    }
    np.testing.assert_array_equal(ir.Interpreter(squaring_loop()).run({"v0": V0})["v"], outputs["v"])


def test_a_body_tensor_is_marked_by_its_layer_and_name():
    outputs = ir.Interpreter(squaring_loop(2), mark="loop/w").run({"v0": V0})
    assert list(outputs) == ["v", "loop/iter0/v_out", "loop/iter0/keep", "loop/iter0/w:0", "loop/iter1/v_out",
                             "loop/iter1/keep", "loop/iter1/w:0"]  # a marked body returns its outputs too
    with pytest.raises(InputError) as caught:
        ir.Interpreter(squaring_loop(), mark="loop/nothing")
    assert "cannot mark 'loop/nothing': no body of layer 'loop' has a tensor or layer 'nothing'" in str(caught.value)
    with pytest.raises(InputError) as caught:  # nothing after the slash: a name of the model, which has none such
        ir.Interpreter(squaring_loop(), mark="loop/")
    assert "no tensor is called 'loop/'; close matches: 'loop'" in str(caught.value)


def test_the_branch_an_if_takes_is_named():
    a, b = np.array([1, 2], np.float32), np.array([10, 20], np.float32)
    runner = ir.Interpreter(if_model(), mark="all")
    assert {k: v.tolist() for k, v in runner.run({"cond": np.array(True), "a": a, "b": b}).items()} == {
        "y": [11, 22], "if/then/then_out": [11, 22]}
    assert {k: v.tolist() for k, v in runner.run({"cond": np.array(False), "a": a, "b": b}).items()} == {
        "y": [11, 22], "if/else/else_out": [11, 22]}


def test_nested_bodies_name_every_level_and_a_tensor_iterator_counts_its_iterations():
    outputs = ir.Interpreter(nested_loops(2), mark="all").run({"x1": np.zeros(2, np.float32)})
    assert outputs["y1"].tolist() == [4, 4]
    assert [key for key in outputs if key.endswith("/r")] == [
        "loop1/iter0/loop0/iter0/r", "loop1/iter0/loop0/iter1/r", "loop1/iter1/loop0/iter0/r",
        "loop1/iter1/loop0/iter1/r"]
    assert [outputs[key].tolist() for key in outputs if key.endswith("/r")] == [[1, 1], [2, 2], [3, 3], [4, 4]]
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    sums = ir.Interpreter(running_sum(3), mark="all").run({"x": x, "s0": np.zeros((1, 2), np.float32)})
    assert [sums[f"ti/iter{k}/all"].tolist() for k in range(3)] == [[[0, 1]], [[2, 4]], [[6, 9]]]


def test_the_marked_body_tensors_of_a_run_stay_within_the_element_limit():
    runner = ir.Interpreter(squaring_loop(3), mark="all", element_limit=10)
    with pytest.raises(ResourceLimitError) as caught:
        runner.run({"v0": V0})
    assert "the marked tensors of the sub-graph bodies hold more than 10 elements together (at loop/iter2/" in str(
        caught.value)
