"""Differential: TensorIterator, Loop and If run by irgraph against openvino 2026.4.1's CPU plugin.

Every model is written by OpenVINO (the sub-graph corpus in tests/data/ov-subgraphs, models built
with ``openvino.opset13`` and saved with ``openvino.save_model``, ONNX Loop/If/Scan converted by
``openvino.convert_model``), read by irgraph and run by both on the same seeded random inputs.
The CPU plugin runs with ``INFERENCE_PRECISION_HINT=f32`` (this machine's default is bf16 for
MatMul). Where the plugin refuses a run (a concatenated part that is not one step long, a Loop
running past its slices), irgraph must refuse it too; where the plugin is wrong (below), the ONNX
original run by ``onnx.reference`` (onnx 1.23.2) or onnxruntime 1.31.1 is the oracle.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irgraph as ir

ov = pytest.importorskip("openvino", reason="the test extra installs openvino")
ops = pytest.importorskip("openvino.opset13")

from tests.oracle.test_sub_graph_shapes_vs_openvino import BUILDERS as SHAPE_BUILDERS  # noqa: E402

pytestmark = pytest.mark.oracle
F32 = np.float32
CORPUS = Path(__file__).resolve().parents[1] / "data" / "ov-subgraphs"
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}

WRONG_ON_CPU = {"onnx-scan", "onnx-scan-v10"}
"""openvino 2026.4.1's CPU plugin computes ``sum + x * w`` in a TensorIterator body as ``x + x * w`` from the
second iteration on (the fused Multiply-Add reads the sliced input instead of the back edge); onnx.reference and
onnxruntime 1.31.1 agree with irgraph."""


def random_feeds(parameters: Sequence[tuple[str, np.dtype, tuple[int, ...]]], seed: int) -> dict[str, np.ndarray]:
    """Normal floats, integers in [0, 4] (trip counts), random booleans."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for name, dtype, shape in parameters:
        if dtype == np.bool_:
            feeds[name] = rng.integers(0, 2, shape).astype(np.bool_)
        elif dtype.kind in "iu":
            feeds[name] = rng.integers(0, 5, shape).astype(dtype)
        else:
            feeds[name] = rng.standard_normal(shape).astype(dtype)
    return feeds


def parameters_of(model: ir.Model, dynamic: int = 3) -> list[tuple[str, np.dtype, tuple[int, ...]]]:
    """(name, dtype, shape) of each input; dynamic dims become ``dynamic``."""
    found = []
    for parameter in model.parameters:
        op = parameter.op
        shape = tuple(dim.value if dim.is_static else dynamic for dim in op.shape)  # type: ignore[attr-defined]
        found.append((parameter.name, np.dtype(op.element_type.numpy_dtype), shape))  # type: ignore[attr-defined]
    return found


def openvino_run(xml: Path, feeds: dict[str, np.ndarray]) -> list[np.ndarray] | Exception:
    try:  # the plugin checks some shapes when it compiles the model, others when it runs it
        compiled = ov.Core().compile_model(str(xml), "CPU", CPU_CONFIG)
        results = compiled(feeds)
    except RuntimeError as err:
        return err
    return [results[output] for output in compiled.outputs]


def irgraph_run(xml: Path, feeds: dict[str, np.ndarray], **options: Any) -> list[np.ndarray] | Exception:
    try:
        return list(ir.Interpreter(ir.read_model(xml), **options).run(feeds).values())
    except ir.IrError as err:
        return err


def assert_same(ours: list[np.ndarray] | Exception, theirs: list[np.ndarray] | Exception, what: str,
                skip_values: Sequence[int] = ()) -> None:
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"{what}: openvino 2026.4.1 refuses ({theirs}) but irgraph runs"
        return
    assert not isinstance(ours, Exception), f"{what}: irgraph refuses: {ours}"
    assert len(ours) == len(theirs)
    for index, (mine, expected) in enumerate(zip(ours, theirs, strict=True)):
        assert mine.shape == expected.shape, f"{what} output {index}: {mine.shape} != {expected.shape}"
        assert mine.dtype == expected.dtype, f"{what} output {index}: {mine.dtype} != {expected.dtype}"
        if index not in skip_values:
            np.testing.assert_allclose(mine, expected, rtol=1e-5, atol=1e-5, err_msg=f"{what} output {index}")


def saved(model: ov.Model, tmp_path: Path, name: str = "model") -> Path:
    xml = tmp_path / f"{name}.xml"
    ov.save_model(model, str(xml), compress_to_fp16=False)
    return xml


# ------------------------------------------------------------------------------------ the corpus
CORPUS_CASES = sorted(path.name for path in CORPUS.iterdir())


@pytest.mark.parametrize("case", CORPUS_CASES)
def test_the_sub_graph_corpus_runs_as_openvino_runs_it(case: str) -> None:
    xml = CORPUS / case / "model.xml"
    parameters = parameters_of(ir.read_model(xml))
    outcomes = []
    for seed in range(4):
        feeds = random_feeds(parameters, seed)
        ours = irgraph_run(xml, feeds)
        if case in WRONG_ON_CPU:
            theirs = onnx_scan_reference(feeds)
        else:
            theirs = openvino_run(xml, feeds)
        assert_same(ours, theirs, f"{case} seed {seed}")
        outcomes.append(isinstance(theirs, Exception))
    assert not all(outcomes), "every run was refused: the case compares nothing"


def onnx_scan_reference(feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    from onnx.reference import ReferenceEvaluator

    from tests.oracle.ov_subgraph_models import _onnx_scan

    return list(ReferenceEvaluator(_onnx_scan()).run(None, feeds))


def test_openvino_is_wrong_on_the_onnx_scan_corpus_case() -> None:
    """The reason for WRONG_ON_CPU: if a later openvino fixes it, the corpus case can compare with it again."""
    feeds = {"init": np.array([1, 2], F32), "xs": np.arange(8, dtype=F32).reshape(4, 2)}
    cpu = openvino_run(CORPUS / "onnx-scan" / "model.xml", feeds)
    assert not isinstance(cpu, Exception)
    np.testing.assert_array_equal(cpu[0], np.array([9, 21], F32))  # 1 + 0 + ..., not the sum
    np.testing.assert_array_equal(onnx_scan_reference(feeds)[0], np.array([7, 34], F32))
    np.testing.assert_array_equal(irgraph_run(CORPUS / "onnx-scan" / "model.xml", feeds)[0],  # type: ignore[index]
                                  np.array([7, 34], F32))


def test_the_corpus_outputs_have_the_types_openvino_inferred() -> None:
    for case in CORPUS_CASES:
        meta = json.loads((CORPUS / case / "case.json").read_text("utf-8"))
        model = ir.read_model(CORPUS / case / "model.xml")
        feeds = random_feeds(parameters_of(model, dynamic=2), 0)
        if "trip" in feeds:
            feeds["trip"] = np.int64(0)  # its per-iteration part is 3 long: only zero iterations run
        outputs = list(ir.run(model, feeds).values())
        for output, declared in zip(outputs, meta["outputs"], strict=True):
            assert ir.ElementType.from_numpy(output.dtype).ir_name == declared["type"], case  # type: ignore[attr-defined]
            assert ir.Shape.parse(declared["shape"].strip("[]")).accepts(output.shape), case


# ------------------------------------------------------------------------------------ opset13 models
RUNNABLE_SHAPES = [(name, shape) for name, (_, shape, _) in SHAPE_BUILDERS.items()]
COMPILE_REFUSED = {"loop-condition-false": [np.zeros(0, F32), np.zeros((0, 8), F32)]}
"""openvino 2026.4.1's CPU plugin refuses to compile a Loop whose execution condition is the constant false (its
shape inference gives the outputs 0 rows, then the plugin's port check fails); irgraph runs it, giving the empty
outputs that inference promised."""
REFUSED_BY_BOTH = ("loop", "loop-back-edge-concatenated-only", "loop-condition-input", "loop-condition-parameter",
                   "ti-no-slices")
"""Shape-inference models no feed runs: a body gives 2 (or 4) rows per iteration to a concatenated output of stride 1,
which openvino 2026.4.1's CPU plugin refuses to compile ('full_dims == part_dims') and irgraph refuses at the first
iteration. They compare refusals only; the others must compare values on every seed."""


@pytest.mark.parametrize(("name", "shape"), RUNNABLE_SHAPES)
def test_the_shape_inference_models_run_as_openvino_runs_them(name: str, shape: str, tmp_path: Path) -> None:
    build = SHAPE_BUILDERS[name][0]
    h_shape = ",".join([shape.split(",")[0], "1", shape.split(",")[2]]) if shape.count(",") == 2 else shape
    xml = saved(build(f"[{shape}]", f"[{h_shape}]"), tmp_path)
    parameters = parameters_of(ir.read_model(xml))
    refused = []
    for seed in range(3):
        feeds = random_feeds(parameters, seed)
        theirs = openvino_run(xml, feeds)
        if name in COMPILE_REFUSED:
            assert isinstance(theirs, RuntimeError) and "Shape mismatch for tensor iterator port" in str(theirs)
            theirs = COMPILE_REFUSED[name]
        ours = irgraph_run(xml, feeds)
        assert_same(ours, theirs, f"{name} seed {seed}")
        refused.append(isinstance(theirs, Exception))
        if refused[-1]:
            assert "each iteration must give |stride| = 1" in str(ours), ours
    # Both refusing passes assert_same: five models did on every seed, comparing no value. They are named.
    assert refused == [name in REFUSED_BY_BOTH] * 3, f"{name}: refused by both on seeds {refused}"


def counter_loop(trip_type: type = np.int64, counter_type: type = np.int64, counter_shape: Sequence[int] = (),
                 stop_at: int = 5) -> ov.Model:
    """Loop(trip, true): v += it while it < stop_at; the current iteration as ``counter_type[counter_shape]``."""
    trip = ops.parameter([], trip_type, name="trip")
    x = ops.parameter([1], F32, name="x")
    it = ops.parameter(list(counter_shape), counter_type, name="it")
    v = ops.parameter([1], F32, name="v")
    as_float = ops.convert(ops.reshape(it, ops.constant(np.array([1], np.int64)), False), F32)
    keep_going = ops.result(ops.less(it, ops.constant(np.array(stop_at, counter_type))))
    r_v = ops.result(ops.add(v, as_float))
    r_step = ops.result(ops.unsqueeze(it, ops.constant(np.int64(0))) if not counter_shape else it)
    loop = ops.loop(trip, ops.constant(True))
    loop.set_function(ov.Model([keep_going, r_v, r_step], [it, v]))
    loop.set_special_body_ports([0, 0])
    loop.set_merged_input(v, x.output(0), r_v.output(0))
    return ov.Model([loop.get_iter_value(r_v.output(0), -1),
                     loop.get_concatenated_slices(r_step.output(0), 0, 1, 1, -1, 0)], [trip, x])


@pytest.mark.parametrize(("trip_type", "counter_type", "counter_shape"), [
    (np.int64, np.int64, ()), (np.int32, np.int32, ()), (np.int64, np.int64, (1,)), (np.int32, np.int64, (1,)),
])
@pytest.mark.parametrize("trip", [-1, 0, 1, 3, 9])
def test_loop_trip_counts_and_current_iteration_types(trip_type: type, counter_type: type,
                                                      counter_shape: tuple[int, ...], trip: int,
                                                      tmp_path: Path) -> None:
    xml = saved(counter_loop(trip_type, counter_type, counter_shape), tmp_path)
    feeds = {"trip": np.array(trip, trip_type), "x": np.array([0.5], F32)}
    ours = irgraph_run(xml, feeds)
    assert_same(ours, openvino_run(xml, feeds), f"trip {trip}")
    expected_steps = min(trip if trip >= 0 else 6, 6)  # the body condition it < 5 is false at it = 5
    assert not isinstance(ours, Exception)
    np.testing.assert_array_equal(ours[1].reshape(-1), np.arange(expected_steps))


def sliced_loop() -> ov.Model:
    """Loop(trip, cond) slicing x f32[4,2] on axis 0 with a running sum h; the last h and every h."""
    x = ops.parameter([4, 2], F32, name="x")
    trip = ops.parameter([], np.int64, name="trip")
    cond = ops.parameter([], np.bool_, name="cond")
    h = ops.parameter([2], F32, name="h")
    bx, bh = ops.parameter([1, 2], F32, name="bx"), ops.parameter([2], F32, name="bh")
    new_h = ops.add(bh, ops.squeeze(bx, ops.constant(np.array([0], np.int64))))
    r_h, r_keep = ops.result(new_h), ops.result(ops.constant(True))
    r_step = ops.result(ops.unsqueeze(new_h, ops.constant(np.int64(0))))
    loop = ops.loop(trip, cond)
    loop.set_function(ov.Model([r_keep, r_h, r_step], [bx, bh], "body"))
    loop.set_special_body_ports([-1, 0])
    loop.set_sliced_input(bx, x.output(0), 0, 1, 1, -1, 0)
    loop.set_merged_input(bh, h.output(0), r_h.output(0))
    return ov.Model([loop.get_iter_value(r_h.output(0), -1), loop.get_concatenated_slices(r_step.output(0), 0, 1, 1,
                                                                                          -1, 0)], [x, trip, cond, h])


@pytest.mark.parametrize(("trip", "cond"), [(4, True), (2, True), (0, True), (3, False), (6, True), (-1, True)])
def test_a_loop_slicing_its_input_stops_at_its_trip_count_and_refuses_to_run_past_its_slices(
        trip: int, cond: bool, tmp_path: Path) -> None:
    xml = saved(sliced_loop(), tmp_path)
    feeds = {"x": np.arange(8, dtype=F32).reshape(4, 2), "trip": np.int64(trip), "cond": np.bool_(cond),
             "h": np.array([100, 200], F32)}
    ours, theirs = irgraph_run(xml, feeds), openvino_run(xml, feeds)
    assert_same(ours, theirs, f"trip {trip} cond {cond}")
    if trip in (6, -1):
        assert str(ours).endswith("(Loop): Loop-5 would run iteration 5 but its sliced inputs have 4 parts "
                                  "(openvino 2026.4.1's CPU plugin refuses too)")


def column_loop() -> ov.Model:
    """Loop(trip, true) slicing x f32[3,4] column by column, adding the iteration's number, joining the columns
    again (openvino 2026.4.1 builds Loops with start 0, stride 1, part_size 1, end -1 only, and its IR reader
    takes no negative axis)."""
    x = ops.parameter([3, 4], F32, name="x")
    trip = ops.parameter([], np.int64, name="trip")
    column = ops.parameter([3, 1], F32, name="column")
    it = ops.parameter([], np.int64, name="it")
    r = ops.result(ops.add(column, ops.convert(it, F32)))
    loop = ops.loop(trip, ops.constant(True))
    loop.set_function(ov.Model([ops.result(ops.constant(True)), r], [it, column], "body"))
    loop.set_special_body_ports([0, 0])
    loop.set_sliced_input(column, x.output(0), 0, 1, 1, -1, 1)
    return ov.Model([loop.get_concatenated_slices(r.output(0), 0, 1, 1, -1, 1)], [x, trip])


@pytest.mark.parametrize("trip", [1, 2, 4, 5])
def test_a_loop_slicing_columns_runs_as_openvino_runs_it(trip: int, tmp_path: Path) -> None:
    xml = saved(column_loop(), tmp_path)
    feeds = {"x": np.arange(12, dtype=F32).reshape(3, 4), "trip": np.int64(trip)}
    ours = irgraph_run(xml, feeds)
    assert_same(ours, openvino_run(xml, feeds), f"trip {trip}")
    if trip <= 4:
        np.testing.assert_array_equal(ours[0], feeds["x"][:, :trip] + np.arange(trip, dtype=F32))  # type: ignore[index]


def zero_iteration_loop() -> ov.Model:
    """Loop(trip, cond) with a back-edge output, a last-iteration output of another Result, a concatenated one."""
    x = ops.parameter([2, 3], F32, name="x")
    trip = ops.parameter([], np.int64, name="trip")
    cond = ops.parameter([], np.bool_, name="cond")
    bv, bi = ops.parameter([2, 3], F32, name="bv"), ops.parameter([2, 3], F32, name="bi")
    r_v = ops.result(ops.add(bv, ops.constant(F32(1))))
    tripled = ops.multiply(bi, ops.constant(F32(3)))
    r_o = ops.result(tripled)
    r_step = ops.result(ops.unsqueeze(tripled, ops.constant(np.int64(1))))
    loop = ops.loop(trip, cond)
    loop.set_function(ov.Model([ops.result(ops.constant(True)), r_v, r_o, r_step], [bv, bi], "body"))
    loop.set_special_body_ports([-1, 0])
    loop.set_merged_input(bv, x.output(0), r_v.output(0))
    loop.set_invariant_input(bi, x.output(0))
    return ov.Model([loop.get_iter_value(r_v.output(0), -1), loop.get_iter_value(r_o.output(0), -1),
                     loop.get_concatenated_slices(r_step.output(0), 0, 1, 1, -1, 1)], [x, trip, cond])


@pytest.mark.parametrize(("trip", "cond"), [(0, True), (3, False), (2, True)])
def test_a_loop_of_zero_iterations_gives_what_openvino_gives(trip: int, cond: bool, tmp_path: Path) -> None:
    xml = saved(zero_iteration_loop(), tmp_path)
    feeds = {"x": np.arange(6, dtype=F32).reshape(2, 3), "trip": np.int64(trip), "cond": np.bool_(cond)}
    ours = irgraph_run(xml, feeds)
    # Output 1 (a Result no back edge feeds) is memory openvino 2026.4.1 never writes when no iteration runs.
    assert_same(ours, openvino_run(xml, feeds), f"trip {trip}", skip_values=(1,) if trip == 0 or not cond else ())
    if trip == 0 or not cond:
        assert not isinstance(ours, Exception)
        np.testing.assert_array_equal(ours[0], feeds["x"])
        np.testing.assert_array_equal(ours[1], np.zeros((2, 3), F32))
        assert ours[2].shape == (2, 0, 3)


def growing_loop() -> ov.Model:
    """Loop(trip, true) whose back edge grows v by a row each iteration; the last v, and each iteration's row sum
    (one element per iteration) concatenated."""
    x = ops.parameter([1, 2], F32, name="x")
    trip = ops.parameter([], np.int64, name="trip")
    v = ops.parameter([-1, 2], F32, name="v")
    grown = ops.concat([v, ops.constant(np.full((1, 2), 0.5, F32))], 0)
    total = ops.reduce_sum(grown, ops.constant(np.array([0, 1], np.int64)), True)  # [1, 1]
    r_v, r_total = ops.result(grown), ops.result(ops.squeeze(total, ops.constant(np.array([1], np.int64))))
    loop = ops.loop(trip, ops.constant(True))
    loop.set_function(ov.Model([ops.result(ops.constant(True)), r_v, r_total], [v], "body"))
    loop.set_special_body_ports([-1, 0])
    loop.set_merged_input(v, x.output(0), r_v.output(0))
    return ov.Model([loop.get_iter_value(r_v.output(0), -1), loop.get_concatenated_slices(r_total.output(0), 0, 1, 1,
                                                                                           -1, 0)], [x, trip])


@pytest.mark.parametrize("trip", [0, 1, 4])
def test_a_back_edge_value_that_grows_each_iteration_runs_as_openvino_runs_it(trip: int, tmp_path: Path) -> None:
    xml = saved(growing_loop(), tmp_path)
    feeds = {"x": np.array([[1, 2]], F32), "trip": np.int64(trip)}
    ours = irgraph_run(xml, feeds)
    assert_same(ours, openvino_run(xml, feeds), f"trip {trip}")
    expected_v = np.concatenate([feeds["x"], np.full((trip, 2), 0.5, F32)])
    np.testing.assert_array_equal(ours[0], expected_v)  # type: ignore[index]
    np.testing.assert_array_equal(ours[1], np.array([3 + k for k in range(1, trip + 1)], F32))  # type: ignore[index]


def if_in_loop_in_if() -> ov.Model:
    """If(c): then a Loop(3) whose body holds an If on the iteration's parity; else -a."""
    c = ops.parameter([], np.bool_, name="c")
    a = ops.parameter([2], F32, name="a")
    it = ops.parameter([], np.int64, name="it")
    v = ops.parameter([2], F32, name="v")
    odd = ops.equal(ops.floor_mod(it, ops.constant(np.int64(2))), ops.constant(np.int64(1)))
    inner_then_v, inner_else_v = ops.parameter([2], F32, name="itv"), ops.parameter([2], F32, name="iev")
    inner_then = ops.result(ops.multiply(inner_then_v, ops.constant(np.array([2, -1], F32))))
    inner_else = ops.result(ops.add(inner_else_v, ops.constant(np.array([1, 1], F32))))
    inner = ops.if_op(odd.output(0))  # a Node (not an Output) gives an If without its condition input
    inner.set_then_body(ov.Model([inner_then], [inner_then_v]))
    inner.set_else_body(ov.Model([inner_else], [inner_else_v]))
    inner.set_input(v.output(0), inner_then_v, inner_else_v)
    stepped = inner.set_output(inner_then, inner_else)
    r_v, r_keep = ops.result(stepped), ops.result(ops.constant(True))
    ta = ops.parameter([2], F32, name="ta")
    loop = ops.loop(ops.constant(np.int64(3)), ops.constant(True))
    loop.set_function(ov.Model([r_keep, r_v], [it, v]))
    loop.set_special_body_ports([0, 0])
    loop.set_merged_input(v, ta.output(0), r_v.output(0))
    then_out = ops.result(loop.get_iter_value(r_v.output(0), -1))
    ea = ops.parameter([2], F32, name="ea")
    else_out = ops.result(ops.negative(ea))
    outer = ops.if_op(c.output(0))
    outer.set_then_body(ov.Model([then_out], [ta]))
    outer.set_else_body(ov.Model([else_out], [ea]))
    outer.set_input(a.output(0), ta, ea)
    return ov.Model([outer.set_output(then_out, else_out)], [c, a])


@pytest.mark.parametrize("condition", [True, False])
def test_if_loop_and_if_nested_run_as_openvino_runs_them(condition: bool, tmp_path: Path) -> None:
    xml = saved(if_in_loop_in_if(), tmp_path)
    feeds = {"c": np.bool_(condition), "a": np.array([1.5, -2], F32)}
    ours = irgraph_run(xml, feeds)
    assert_same(ours, openvino_run(xml, feeds), f"c={condition}")
    # it = 0: +1 -> [2.5, -1]; it = 1: *[2, -1] -> [5, 1]; it = 2: +1 -> [6, 2]
    expected = np.array([6, 2], F32) if condition else np.array([-1.5, 2], F32)
    np.testing.assert_array_equal(ours[0], expected)  # type: ignore[index]


def nested_loop_chain(depth: int) -> ov.Model:
    """``depth`` Loops, each with trip count 1 in the body of the one outside it; the innermost adds 1."""
    v = ops.parameter([2], F32, name="v")
    body = ov.Model([ops.result(ops.constant(True)), ops.result(ops.add(v, ops.constant(F32(1))))], [v])
    for _ in range(depth):
        x = ops.parameter([2], F32, name="x")
        loop = ops.loop(ops.constant(np.int64(1)), ops.constant(True))
        loop.set_function(body)
        loop.set_special_body_ports([-1, 0])
        inner_result = body.get_results()[1]
        loop.set_merged_input(body.get_parameters()[0], x.output(0), inner_result.output(0))
        out = loop.get_iter_value(inner_result.output(0), -1)
        body = ov.Model([ops.result(ops.constant(True)), ops.result(out)], [x])
    return ov.Model([body.get_results()[1].input_value(0)], body.get_parameters())


def test_loops_nested_fifty_deep_run_as_openvino_runs_them(tmp_path: Path) -> None:
    xml = saved(nested_loop_chain(50), tmp_path)
    feeds = {"x": np.array([1, 2], F32)}
    ours = irgraph_run(xml, feeds)
    assert_same(ours, openvino_run(xml, feeds), "depth 50")
    np.testing.assert_array_equal(ours[0], np.array([2, 3], F32))  # type: ignore[index]


def test_ten_thousand_iterations_run_as_openvino_runs_them(tmp_path: Path) -> None:
    xml = saved(counter_loop(stop_at=20_000), tmp_path)
    feeds = {"trip": np.int64(10_000), "x": np.zeros(1, F32)}
    ours = irgraph_run(xml, feeds)
    assert_same(ours, openvino_run(xml, feeds), "10,000 iterations")
    np.testing.assert_array_equal(ours[1], np.arange(10_000))  # type: ignore[index]
    assert ours[0][0] == np.add.accumulate(np.arange(10_000, dtype=F32))[-1]  # f32 sums in iteration order


# ------------------------------------------------------------------------------------ ONNX Loop, If, Scan
def _onnx_while_loop() -> Any:
    """ONNX Loop(M, cond, s): s += i * w while sum(s) < limit; scan output every s; M and limit are inputs."""
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [
            helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
            helper.make_node("Constant", [], ["w"], value=helper.make_tensor("w", TensorProto.FLOAT, [2], [1, 2])),
            helper.make_node("Mul", ["i_f", "w"], ["step"]),
            helper.make_node("Add", ["s_in", "step"], ["s_out"]),
            helper.make_node("ReduceSum", ["s_out"], ["total"], keepdims=0),
            helper.make_node("Less", ["total", "limit"], ["cond_out"]),
            helper.make_node("Identity", ["s_out"], ["scan"]),
        ],
        "while_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("scan", TensorProto.FLOAT, [2])],
    )
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["c"], value=helper.make_tensor("c", TensorProto.BOOL, [], [True])),
         helper.make_node("Loop", ["M", "c", "s0"], ["s_final", "scans"], body=body)],
        "onnx_while",
        [helper.make_tensor_value_info("M", TensorProto.INT64, []),
         helper.make_tensor_value_info("limit", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("s0", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("s_final", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("scans", TensorProto.FLOAT, [None, 2])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _onnx_if_with_loop() -> Any:
    """ONNX If(cond): then a Loop(3) doubling x, else Scan-free x - 1."""
    from onnx import TensorProto, helper

    loop_body = helper.make_graph(
        [helper.make_node("Add", ["x_in", "x_in"], ["x_out"]), helper.make_node("Identity", ["c_in"], ["c_out"])],
        "double",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x_in", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x_out", TensorProto.FLOAT, [3])],
    )
    then_branch = helper.make_graph(
        [helper.make_node("Constant", [], ["n"], value=helper.make_tensor("n", TensorProto.INT64, [], [3])),
         helper.make_node("Constant", [], ["t"], value=helper.make_tensor("t", TensorProto.BOOL, [], [True])),
         helper.make_node("Loop", ["n", "t", "x"], ["doubled"], body=loop_body)],
        "then", [], [helper.make_tensor_value_info("doubled", TensorProto.FLOAT, [3])])
    else_branch = helper.make_graph(
        [helper.make_node("Constant", [], ["one"], value=helper.make_tensor("one", TensorProto.FLOAT, [], [1])),
         helper.make_node("Sub", ["x", "one"], ["less"])],
        "else", [], [helper.make_tensor_value_info("less", TensorProto.FLOAT, [3])])
    graph = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], then_branch=then_branch, else_branch=else_branch)],
        "onnx_if_loop",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _onnx_scan_reverse() -> Any:
    """ONNX Scan over xs f32[5,3] backwards (scan_input_directions 1), a running max."""
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [helper.make_node("Max", ["m_in", "x_t"], ["m_out"]), helper.make_node("Identity", ["m_out"], ["y_t"])],
        "scan_body",
        [helper.make_tensor_value_info("m_in", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("x_t", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("m_out", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("y_t", TensorProto.FLOAT, [3])],
    )
    graph = helper.make_graph(
        [helper.make_node("Scan", ["m0", "xs"], ["m", "ys"], body=body, num_scan_inputs=1,
                          scan_input_directions=[1])],
        "onnx_scan_reverse",
        [helper.make_tensor_value_info("m0", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("xs", TensorProto.FLOAT, [5, 3])],
        [helper.make_tensor_value_info("m", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("ys", TensorProto.FLOAT, [5, 3])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=8)


ONNX_CASES: dict[str, tuple[Callable[[], Any], list[dict[str, Any]]]] = {
    "while": (_onnx_while_loop, [
        {"M": np.int64(M), "limit": np.float32(limit), "s0": np.array([0.5, -1], F32)}
        for M, limit in [(10, 20.0), (2, 100.0), (0, 5.0), (10, -5.0)]]),  # M < 0: onnxruntime runs none
    "if-loop": (_onnx_if_with_loop, [
        {"cond": np.bool_(cond), "x": np.array([1, -2, 3.5], F32)} for cond in (True, False)]),
    "scan-reverse": (_onnx_scan_reverse, [
        {"m0": np.full(3, -9, F32), "xs": np.random.default_rng(seed).standard_normal((5, 3)).astype(F32)}
        for seed in range(3)]),
}


@pytest.mark.parametrize("case", sorted(ONNX_CASES))
def test_onnx_control_flow_converted_by_openvino_runs_as_openvino_and_onnxruntime_run_it(
        case: str, tmp_path: Path) -> None:
    """onnxruntime 1.31.1 runs the ONNX original (onnx.reference 1.23.2 runs neither a Loop of zero iterations nor
    a backwards Scan)."""
    import onnx
    import onnxruntime

    build, feed_sets = ONNX_CASES[case]
    original = build()
    onnx.save(original, str(tmp_path / "model.onnx"))
    xml = saved(ov.convert_model(str(tmp_path / "model.onnx")), tmp_path)
    session = onnxruntime.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"])
    for feeds in feed_sets:
        ours = irgraph_run(xml, feeds)
        assert_same(ours, openvino_run(xml, feeds), f"{case} {feeds}")
        expected = session.run(None, {key: np.asarray(value) for key, value in feeds.items()})
        assert not isinstance(ours, Exception)
        for mine, wanted in zip(ours, expected, strict=True):
            assert mine.shape == wanted.shape
            np.testing.assert_allclose(mine, wanted, rtol=1e-6, atol=1e-6)
