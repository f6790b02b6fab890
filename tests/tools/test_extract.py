"""extract: the cut sub-graph is a valid model that computes the same tensors as the whole model.

A model of ops irgraph runs (VariadicSplit, Concat, Split) is cut and run by irgraph against the
whole model with its intermediate tensors made outputs; a block of a real network (tests/convnet.py,
written by openvino 2026.4.1) is cut and run by OpenVINO against the whole network.
"""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from irgraph.core.errors import ExtractError
from irgraph.graph import OutputPort
from irgraph.graph.names import resolve_tensor
from irgraph.ops import Const
from irgraph.tools.diff import diff_models
from irgraph.tools.extract import extract

X = np.arange(24, dtype=np.float32).reshape(1, 6, 4)
Y = -np.arange(8, dtype=np.float32).reshape(1, 2, 4)


def network(mark: bool = False) -> ir.Model:
    """x f32[1,6,4], y f32[1,2,4] -> vs (VariadicSplit 2,1,3) -> join (Concat c,y,a) -> halves (Split) -> swap.

    Outputs ``mid`` (vs's second part) and ``out``; with ``mark``, also ``join`` and ``half1`` (the
    intermediate tensors, as extra Results of the same model).
    """
    m = ir.Model("net")
    x, y = m.parameter("x", [1, 6, 4]), m.parameter("y", [1, 2, 4])
    a, b, c = m.variadic_split(x, axis=1, lengths=[2, 1, 3], name="vs")
    joined = m.concat([c, y, a], axis=1, name="join")
    left, right = m.split(joined, axis=2, num_splits=2, name="halves")
    m.result(b, name="mid")
    m.result(m.concat([right, left], axis=2, name="swap"), name="out")
    if mark:
        m.result(joined, name="join_out")
        m.result(right, name="half1")
    return m


@pytest.fixture(scope="module")
def whole() -> dict[str, np.ndarray]:
    return ir.run(network(mark=True), {"x": X, "y": Y})


def test_a_block_cut_at_an_inner_tensor_runs_and_equals_the_whole_model(whole, tmp_path):
    sub = extract(network(), ["join:0"], ["out"])
    assert [(p.name, str(p.outputs[0].type)) for p in sub.parameters] == [("join:0", "f32[1,7,4]")]
    assert [sub.output_key(r) for r in sub.results] == ["out"]
    assert sorted(node.name for node in sub if node.type_name != "Const") == ["halves", "join:0", "out", "swap"]
    ir.write_model(sub, tmp_path / "block.xml")
    got = ir.run(ir.read_model(tmp_path / "block.xml"), {"join:0": whole["join_out"]})
    np.testing.assert_array_equal(got["out"], whole["out"])


def test_a_cut_input_is_named_after_its_tensor_and_layer_port_only_when_it_has_no_name(whole):
    m = network()
    join = next(node for node in m if node.name == "join")
    join.outputs[0].tensor_names = ["x.1", "joined"]
    sub = extract(m, ["join:0"], ["out"])
    assert [(p.name, p.outputs[0].tensor_names) for p in sub.parameters] == [("x.1", ["x.1", "joined"])]
    np.testing.assert_array_equal(ir.run(sub, {"x.1": whole["join_out"]})["out"], whole["out"])
    assert [p.name for p in extract(m, ["joined"], ["out"]).parameters] == ["joined"]  # the name given, a tensor's
    join.outputs[0].tensor_names = ["swap"]  # the name of a layer the cut keeps: the Parameter keeps LAYER:PORT instead
    assert [p.name for p in extract(m, ["join:0"], ["out"]).parameters] == ["join:0"]


def test_a_cut_through_a_multi_output_layer_keeps_it_and_its_other_outputs_unconnected(whole):
    sub = extract(network(), ["x", "y"], ["halves:1"])
    assert [p.name for p in sub.parameters] == ["x", "y"]
    assert "swap" not in {node.name for node in sub} and "mid" not in {node.name for node in sub}
    got = ir.run(sub, {"x": X, "y": Y})
    np.testing.assert_array_equal(got["halves:1"], whole["half1"])


def test_a_cut_output_of_a_kept_layer_moves_its_tensor_names_to_the_new_parameter(whole):
    m = network()
    halves = next(node for node in m if node.name == "halves")
    halves.outputs[0].tensor_names = ["left"]
    sub = extract(m, ["x", "y", "left"], ["out"])
    assert [(p.name, p.outputs[0].tensor_names) for p in sub.parameters] == [
        ("x", ["x"]), ("y", ["y"]), ("left", ["left"])
    ]
    assert [output.tensor_names for output in sub.node(halves.id).outputs] == [[], []]
    left = np.full((1, 7, 2), 5, np.float32)
    got = ir.run(sub, {"x": X, "y": Y, "left": left})["out"]
    np.testing.assert_array_equal(got, np.concatenate([whole["half1"], left], axis=2))


def test_without_inputs_the_cut_starts_at_the_model_inputs_it_needs(whole):
    sub = extract(network(), None, ["mid"])
    assert [p.name for p in sub.parameters] == ["x"]
    np.testing.assert_array_equal(ir.run(sub, {"x": X})["mid"], whole["mid"])


def test_cutting_out_everything_gives_an_equivalent_model():
    original = network()
    sub = extract(original, ["x", "y"], ["mid", "out"])
    result = diff_models(original, sub)
    assert result.equivalent, [d.describe() for d in result.differences]
    assert sorted(node.id for node in sub) == sorted(node.id for node in original)


def test_an_input_that_is_also_an_output_passes_through():
    sub = extract(network(), ["join:0"], ["join:0", "out"])
    got = ir.run(sub, {"join:0": np.ones((1, 7, 4), np.float32)})
    np.testing.assert_array_equal(got["join:0"], np.ones((1, 7, 4), np.float32))


def test_consts_are_shared_not_copied_and_ids_kept():
    original = network()
    sub = extract(original, ["x", "y"], ["out"])
    for node in sub:
        if isinstance(node.op, Const):
            assert node.op is original.node(node.id).op
            assert np.shares_memory(node.op.value, original.node(node.id).op.value)
            assert node.name == original.node(node.id).name


def test_tensor_names_come_first_then_layer_names_then_layer_port():
    m = network()
    join = next(node for node in m if node.name == "join")
    join.outputs[0].tensor_names = ["halves:1"]  # a tensor name that looks like LAYER:PORT (TensorFlow names do)
    assert resolve_tensor(m, "halves:1") == OutputPort(join.id, 0)
    halves = next(node for node in m if node.name == "halves")
    assert resolve_tensor(m, f"{halves.id}:1") == OutputPort(halves.id, 1)
    vs = next(node for node in m if node.name == "vs")
    assert resolve_tensor(m, "mid") == OutputPort(vs.id, 1)  # the tensor named mid, which the Result mid receives


# ------------------------------------------------------------------------------------ refusals
def refusal(inputs: list[str] | None, outputs: list[str], model: ir.Model | None = None) -> str:
    with pytest.raises(ExtractError) as caught:
        extract(model or network(), inputs, outputs)
    return caught.value.message


def test_an_unknown_name_lists_close_matches():
    assert refusal(["join:0"], ["otu"]) == "no tensor is called 'otu'; close matches: 'out'"
    assert refusal(["jion:0"], ["out"]) == "no layer is called 'jion' (in 'jion:0'); close matches: 'join'"
    assert refusal(["join:0"], ["qqqq"]) == "no tensor is called 'qqqq'"
    assert refusal(["join:0"], ["7"]) == "no tensor is called '7'"  # a layer id alone is not a tensor: 7:0 is


def test_a_layer_name_is_not_a_tensor():
    assert refusal(["x", "y"], ["swap"]) == "'swap' is a Concat layer, not a tensor: name its output: 'out' or 'swap:0'"
    assert refusal(["x", "y"], ["halves"]) == (
        "'halves' is a Split layer, not a tensor: name one of its outputs: 'halves:0'; 'halves:1'")


def test_a_port_beyond_the_layer_outputs_is_refused():
    assert refusal(["x", "y"], ["swap:1"]) == "'swap:1': the layer has 1 output (port 0); ports count the layer's " \
                                              "outputs from 0"
    assert refusal(["x", "y"], ["halves:2"]) == "'halves:2': the layer has 2 outputs (ports 0..1); ports count the " \
                                                "layer's outputs from 0"


def test_an_output_depending_on_an_uncut_model_input_names_it():
    message = refusal(["vs:0", "y"], ["out"])
    assert message == ("output 'out' depends on model input 'x', which is not among the cut inputs ('vs:0', 'y'): "
                       "add it to the inputs, or cut between it and the output")


def test_inputs_no_output_needs_are_refused():
    assert refusal(["x", "y", "join:0"], ["out"]) == (
        "inputs 'x', 'y' are not needed to compute 'out' (the outputs do not depend on them, or only through the "
        "other cut inputs); leave them out")
    assert refusal(["x", "y"], ["mid"]) == (
        "input 'y' is not needed to compute 'mid' (the outputs do not depend on it, or only through the other cut "
        "inputs); leave it out")


def test_a_tensor_given_twice_is_refused():
    assert refusal(["y", "y"], ["out"]) == "input 'y' is given twice"
    assert refusal(["x", "y", "y:0"], ["out"]) == "inputs 'y' and 'y:0' name the same tensor (output 0 of layer 1 'y')"
    assert refusal(["x", "y"], ["out", "out"]) == "output 'out' is given twice"
    assert refusal(["x"], []) == "no outputs were given: name at least one tensor to compute"


def test_a_layer_name_used_twice_must_be_given_by_id():
    m = network()
    for node in m:
        if node.name == "swap":
            node.name = "halves"
    ids = sorted(node.id for node in m if node.name == "halves")
    assert refusal(["x", "y"], ["halves:0"], m) == (
        f"'halves:0': 2 layers are called 'halves' (ids {ids[0]}, {ids[1]}); name the layer by its id")


def test_a_cut_at_a_shape_input_gives_dynamic_types_as_openvino_infers_them_and_still_runs(whole):
    m = network()
    vs = next(node for node in m if node.name == "vs")
    axis = m.input_sources(vs)[1]
    assert axis is not None
    m.node(axis.node_id).outputs[0].tensor_names = ["axis"]
    sub = extract(m, ["x", "axis"], ["mid"])
    assert [str(p.outputs[0].type) for p in sub.parameters] == ["f32[1,6,4]", "i64[]"]
    assert str(next(node for node in sub if node.name == "vs").outputs[1].type) == "f32[?,?,?]"
    np.testing.assert_array_equal(ir.run(sub, {"x": X, "axis": np.int64(1)})["mid"], whole["mid"])


def test_a_cut_that_fails_shape_inference_points_at_the_layer_in_the_source_file():
    from tests.helpers import CORPUS

    path = CORPUS / "err-concat-rank-mismatch" / "model.xml"
    model = ir.read_model(path)
    assert len(extract(model, None, ["y"])) == 5  # the valid branch cuts cleanly
    with pytest.raises(ExtractError) as caught:
        extract(model, None, ["w"])
    assert str(caught.value).startswith(f"{path}:")
    assert caught.value.location.layer_name == "cat_z"
    assert caught.value.message.startswith("the extracted graph fails shape inference: Argument shapes are "
                                           "inconsistent; they must have the same rank")


# ------------------------------------------------------------------------------------ a real network
@pytest.fixture(scope="module")
def convnet(tmp_path_factory):
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    pytest.importorskip("onnx", reason="the test extra installs onnx")
    from tests.convnet import write_convnet

    return write_convnet(tmp_path_factory.mktemp("convnet"))


@pytest.mark.oracle
@pytest.mark.parametrize(("inputs", "outputs", "kept"), [
    (["p1"], ["cat"], ["conv2/WithoutBiases", "conv2", "relu2", "add2", "split", "concat"]),
    (["r1"], ["cat", "s1"], None),
    (["pool1:0"], ["prob"], None),
    (["c2", "bias3"], ["logits"], None),
])
def test_a_block_of_a_real_network_runs_in_openvino_and_equals_the_whole_network(convnet, tmp_path, inputs, outputs,
                                                                               kept):
    from tests.convnet import INPUT_SHAPE, ov_tensors

    model = ir.read_model(convnet)
    sub = extract(model, inputs, outputs)
    assert [d for d in ir.validate(sub) if d.is_error] == []
    if kept is not None:
        # Consts and their Converts counted, not named: OpenVINO names some by a process-wide counter
        # (Constant_37 in one run, Constant_2974 in another).
        inner = [n.name for n in sub if n.type_name not in ("Parameter", "Const", "Convert", "Result")]
        assert sorted(inner) == sorted(kept)
        weights = sorted(n.type_name for n in sub if n.type_name in ("Const", "Convert"))
        assert weights == ["Const"] * 4 + ["Convert"] * 3  # w2, conv2's bias, bias3 (f16 + Convert), split's axis
    ir.write_model(sub, tmp_path / "block.xml")
    x = np.random.default_rng(5).standard_normal(INPUT_SHAPE).astype(np.float32)
    names = {"pool1:0": "p1"}
    reference = ov_tensors(convnet, {"x": x}, [names.get(n, n) for n in inputs] + outputs)
    feeds = {names.get(name, name): reference[names.get(name, name)] for name in inputs}  # OpenVINO: tensor names
    got = ov_tensors(tmp_path / "block.xml", feeds, outputs)
    for name in outputs:
        np.testing.assert_allclose(got[name], reference[name], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.oracle
def test_a_real_block_keeps_types_names_and_rt_info(convnet):
    model = ir.read_model(convnet)
    sub = extract(model, ["r1"], ["cat"])
    (parameter,) = sub.parameters
    assert (parameter.name, parameter.outputs[0].tensor_names) == ("r1", ["r1"])
    assert str(parameter.outputs[0].type) == "f32[1,8,16,16]"
    original = {node.name: node for node in model}
    for node in sub:
        if node.name in original:
            assert node.id == original[node.name].id
            assert node.rt_info == original[node.name].rt_info
            assert [o.tensor_names for o in node.outputs] == [o.tensor_names for o in original[node.name].outputs]
    assert any(entry.attributes == (("name", "decompression"), ("version", "0"))
               for node in sub for entry in node.rt_info)


def test_a_tensor_named_like_the_layer_that_consumes_it_gets_a_new_result(whole):
    m = network()
    halves = next(node for node in m if node.name == "halves")
    halves.outputs[1].tensor_names = ["swap"]  # the tensor swap (halves:1) feeds input 0 of the layer swap
    sub = extract(m, ["x", "y"], ["swap"])
    assert [(r.type_name, r.name, sub.output_key(r)) for r in sub.results] == [("Result", "swap", "swap")]
    assert "Concat" not in {node.type_name for node in sub if node.name == "swap"}
    np.testing.assert_array_equal(ir.run(sub, {"x": X, "y": Y})["swap"], whole["half1"])


def test_an_input_whose_type_is_unknown_is_refused():
    m = ir.Model("broken")
    x, y = m.parameter("x", [2, 3]), m.parameter("y", [2])
    bad = m.concat([x, y], axis=0, name="bad")  # ranks differ: inference fails here
    m.result(m.concat([bad, bad], axis=0, name="after"), name="out")
    assert refusal(["bad:0"], ["out"], m) == (
        "the type of input 'bad:0' is unknown: shape inference could not type it and the file does not declare it "
        "(see ir-validate)")


def test_a_layer_with_a_body_is_cut_out_with_it(tmp_path) -> None:
    """tests/data/ov-subgraphs/ti (written by openvino 2026.4.1): the TensorIterator alone, its body kept, computes
    what it computes in the whole model, also after a write and a read."""
    from pathlib import Path

    model = ir.read_model(Path(__file__).resolve().parents[1] / "data" / "ov-subgraphs" / "ti" / "model.xml")
    rng = np.random.default_rng(3)
    feeds = {"x": rng.standard_normal((2, 6, 3)).astype(np.float32),
             "h": rng.standard_normal((2, 3)).astype(np.float32)}
    whole = ir.Interpreter(model).run(feeds)
    sub = extract(model, ["x", "h"], ["TensorIterator_17:0", "TensorIterator_17:1"])
    assert [node.type_name for node in sub] == ["Parameter", "Parameter", "TensorIterator", "Result", "Result"]
    ir.write_model(sub, tmp_path / "ti.xml")
    for cut in (sub, ir.read_model(tmp_path / "ti.xml")):
        got = list(ir.Interpreter(cut).run(feeds).values())
        assert len(got) == 2
        for array, expected in zip(got, whole.values(), strict=True):
            np.testing.assert_array_equal(array, expected)
