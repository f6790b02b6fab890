"""irgraph.tools.surgery without an oracle: the f16 rule pinned on the values it was measured with, folding's
names and what it leaves alone, renames. tests/cli/test_ir_convert_surgery.py runs the results in OpenVINO."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.core.errors import FeedError, ShapeInferenceError
from irgraph.core.shapes import Shape
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.shape.shape_of import ShapeOf3
from irgraph.ops.type.convert import Convert
from irgraph.tools import surgery

COMPRESSED = Path(__file__).resolve().parents[1] / "data" / "compressed"

F16_MAX = np.float16(65504)


# ------------------------------------------------------------------------------------ the f16 rule
@pytest.mark.parametrize(("values", "expected"), [
    # Measured with openvino 2026.4.1's save_model(compress_to_fp16=True) on this project's machine (x86, AVX-512);
    # None: OpenVINO kept the Const in f32.
    ([1.0, 2.5, -3.1, 0.1], [1.0, 2.5, -3.1, 0.1]),
    ([0.1] * 4, [0.1] * 4),                      # relative error 2.4e-4 per element: below a tensor's 1e-3
    ([0.1], None),                               # ... above a one-element Const's 1e-4
    (0.1, None),
    (2.0794415, None),                           # log(8) as a scale factor keeps f32
    (1.00005, [1.0]),                            # relative error 5e-5
    ([1e-10, 1e-10, 1e-10, 1.0], None),          # 3 of 4 below f16's smallest subnormal
    ([1e-10, 1e-10, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]),
    ([1e6, 1e6, 1e6, 1.0], None),
    ([1e6, 1.0, 1.0, 1.0], [F16_MAX, 1.0, 1.0, 1.0]),  # clamped
    ([np.inf, 1.0, 1.0, 1.0], [F16_MAX, 1.0, 1.0, 1.0]),
    ([np.nan, 1.0, 1.0, 1.0], [F16_MAX, 1.0, 1.0, 1.0]),  # NaN is clamped to +65504 as well
    ([np.nan, np.nan, np.nan, 1.0], None),
    ([1e-6, 1e-6, 1e-6, 1.0], None),             # f16 subnormals 1.3e-2 away: out of range by relative error
    ([1e-6, 1.0, 1.0, 1.0], [1e-6, 1.0, 1.0, 1.0]),
    ([6.0e-5] * 3 + [1.0], [6.0e-5] * 3 + [1.0]),  # subnormal in f16, relative error 4e-4
    ([490.49 * 2**-24] * 3 + [1.0], [490 * 2**-24] * 3 + [1.0]),  # relative error 9.99e-4
    ([466.49 * 2**-24] * 3 + [1.0], None),       # relative error 1.05e-3
    ([60010.0, 1.0, 1.0, 1.0], None),            # one element 10 away after rounding: the whole Const keeps f32
    ([2049.0, 1.0, 1.0, 1.0], [2048.0, 1.0, 1.0, 1.0]),  # 1.0 away: still compressed
    ([], None),
])
def test_f16_rule(values: object, expected: list[float] | None) -> None:
    half = surgery.f16_value(np.asarray(values, np.float32))
    if expected is None:
        assert half is None
    else:
        assert half is not None and half.dtype == np.float16
        np.testing.assert_array_equal(half, np.asarray(expected, np.float32).astype(np.float16).reshape(half.shape))


def test_f64_constants_count_range_only() -> None:
    """f64 Consts go through OpenVINO's other path: range only, no relative-error count (0.1 compresses)."""
    half = surgery.f16_value(np.array([0.1], np.float64))
    assert half is not None and half.tolist() == [np.float16(0.1)]


@pytest.mark.parametrize(("values", "expected"), [
    ([1e-10] * 6 + [1.0, 2.0], None),             # 6 of 8 out of range, spread over three chunks
    ([1e-10] * 5 + [1.0] * 3, [0.0] * 5 + [1.0] * 3),  # 5 of 8: compressed
    ([1.0] * 7 + [60010.0], None),                 # the one far element sits in the last chunk
])
def test_f16_rule_counts_over_the_whole_const_when_it_works_in_chunks(
        monkeypatch: pytest.MonkeyPatch, values: list[float], expected: list[float] | None) -> None:
    monkeypatch.setattr(surgery.compression, "CHUNK_ELEMENTS", 3)
    half = surgery.f16_value(np.asarray(values, np.float32).reshape(8, 1))
    if expected is None:
        assert half is None
    else:
        assert half is not None and half.shape == (8, 1)
        np.testing.assert_array_equal(half.reshape(-1), np.asarray(expected, np.float16))


# ------------------------------------------------------------------------------------ folding
def _split_model() -> ir.Model:
    """x + parts[0], x + parts[1] where parts = Split(Const [[1, 2], [3, 4]]): a constant layer of two outputs."""
    model = ir.Model("split")
    x = model.parameter("x", [1, 2])
    table = model.const(np.array([[1, 2], [3, 4]], np.float32), name="table")
    first, second = model.split(table, axis=0, num_splits=2, name="parts")
    for index, part in enumerate((first, second)):
        total = model.add_node(Add(), f"sum{index}", [x, part])
        model.result(ir.OutputPort(total.id, 0), name=f"y{index}")
    return model


def test_fold_names_each_output_of_a_layer_of_several() -> None:
    """OpenVINO's ConstantFolding names the Consts of a folded layer of several outputs NAME.0, NAME.1; the Consts
    only the folded layer read go with it."""
    model = _split_model()
    x = np.array([[10, 20]], np.float32)
    before = ir.run(model, {"x": x})
    report = surgery.fold_constants(model)
    assert (report.folded, report.constants) == (1, 2)
    assert sorted((node.name, node.type_name) for node in model) == [
        ("parts.0", "Const"), ("parts.1", "Const"), ("sum0", "Add"), ("sum1", "Add"), ("x", "Parameter"),
        ("y0", "Result"), ("y1", "Result")]
    after = ir.run(model, {"x": x})
    assert list(after) == list(before) == ["y0", "y1"]
    for key in before:
        np.testing.assert_array_equal(after[key], before[key])
    np.testing.assert_array_equal(after["y1"], [[13, 24]])


def test_fold_reads_static_shapes_only() -> None:
    """ShapeOf reads no element: of a static input it folds, of a dynamic one it stays."""
    for shape, folded in (([2, 3], 1), ([-1, 3], 0)):
        model = ir.Model("shape")
        x = model.parameter("x", shape)
        model.result(ir.OutputPort(model.add_node(ShapeOf3(), "shape", [x]).id, 0), name="y")
        assert surgery.fold_constants(model).folded == folded
        assert [node.type_name for node in model if node.name == "shape"] == ["Const" if folded else "ShapeOf"]


def test_decompress_weights_alone_folds_only_the_chains() -> None:
    """An f16 weight -> Convert (marked decompression) folds; the f32 Add of two Consts beside it stays."""
    model = ir.Model("mixed")
    x = model.parameter("x", [2])
    weight = model.const(np.array([1.5, -2.0], np.float16), name="w_compressed")
    convert = model.add_node(Convert(destination_type=ir.ElementType.F32), "w", [weight])
    convert.rt_info = (surgery.compression.DECOMPRESSION_ENTRY,)
    plain = model.add_node(Add(), "plain", [model.const(np.float32(1)), model.const(np.float32(2))])
    total = model.add_node(Add(), "total", [x, ir.OutputPort(convert.id, 0)])
    model.result(ir.OutputPort(model.add_node(Add(), "out", [ir.OutputPort(total.id, 0),
                                                                ir.OutputPort(plain.id, 0)]).id, 0), name="y")
    assert surgery.fold_constants(model).kept == 1
    assert {node.name: node.type_name for node in model}["w"] == "Convert"
    report = surgery.decompress_weights(model)
    assert (report.folded, report.constants) == (1, 1)
    w = {node.name: node for node in model}["w"]
    assert w.type_name == "Const" and w.op.element_type is ir.ElementType.F32
    np.testing.assert_array_equal(w.op.value, [1.5, -2.0])



@pytest.mark.parametrize(("mode", "layers"), [("int8_asym", 15), ("int8_sym", 9)])
def test_fold_counts_an_asymmetric_chain_once(mode: str, layers: int) -> None:
    """NNCF's three asymmetric chains start at two Converts each (the weight's and the zero point's): three
    sub-graphs kept, not six; decompressing them folds every layer of them (NNCF 3.4 output, tests/data/compressed)."""
    model = ir.read_model(COMPRESSED / f"{mode}.xml")
    assert surgery.fold_constants(model) == surgery.FoldReport(0, 0, 3)
    assert surgery.decompress_weights(model) == surgery.FoldReport(layers, 3)

# ------------------------------------------------------------------------------------ reshape and names
def test_reshape_restores_the_model_when_refused() -> None:
    model = _split_model()
    with pytest.raises(ShapeInferenceError, match=r"'sum0'.*--reshape x\[1,3\]: the layer cannot take it"):
        surgery.reshape(model, {"x": Shape.of([1, 3])})
    assert str(model.parameters[0].op.shape) == "[1,2]"
    assert surgery.reshape(model, {surgery.UNNAMED: Shape.of([5, 2])}) == [("x", Shape.of([5, 2]))]
    sum0 = {node.name: node for node in model}["sum0"]
    assert str(sum0.outputs[0].type.shape) == str(sum0.outputs[0].declared_type.shape) == "[5,2]"


def test_rename_output_by_a_second_tensor_name() -> None:
    """An output found by a name that is not its key gets NEW as its first name, so NEW becomes its key."""
    model = _split_model()
    sum0 = {node.name: node for node in model}["sum0"]
    sum0.outputs[0].tensor_names = ["y0", "alias"]
    surgery.rename_output(model, "alias", "scores")
    assert sum0.outputs[0].tensor_names == ["scores", "y0"]
    assert list(ir.run(model, {"x": np.zeros((1, 2), np.float32)})) == ["scores", "y1"]


@pytest.mark.parametrize("new", ["scores", "zz"])
def test_a_renamed_output_keeps_its_key_in_the_file_written(tmp_path: Path, new: str) -> None:
    """The writer sorts names as OpenVINO's writer does but keeps the first first, as it is the output's key: NEW
    sorting after the other name ('zz' > 'y0') once made ir-convert --rename-output write a file keyed 'y0' again."""
    model = _split_model()
    sum0 = {node.name: node for node in model}["sum0"]
    sum0.outputs[0].tensor_names = ["y0", "alias"]
    surgery.rename_output(model, "alias", new)
    ir.write_model(model, tmp_path / "renamed.xml")
    again = ir.read_model(tmp_path / "renamed.xml")
    assert list(ir.run(again, {"x": np.zeros((1, 2), np.float32)})) == [new, "y1"]


def test_rename_input_keeps_answering_to_nothing_old() -> None:
    model = _split_model()
    surgery.rename_input(model, "x", "pixels")
    assert model.parameters[0].name == "pixels" and model.parameters[0].outputs[0].tensor_names == ["pixels"]
    assert "x" not in model.input_index()
    with pytest.raises(FeedError, match="'y1' already names"):
        surgery.rename_input(model, "pixels", "y1")


def test_fold_keeps_a_scalar_a_scalar() -> None:
    """A folded scalar stays of shape [] (np.ascontiguousarray would have made it [1], which an attention mask or a
    broadcast then refuses)."""
    model = ir.Model("scalar")
    x = model.parameter("x", [2])
    one = model.add_node(Add(), "one", [model.const(np.float32(0.25)), model.const(np.float32(0.75))])
    model.result(ir.OutputPort(model.add_node(Add(), "y", [x, ir.OutputPort(one.id, 0)]).id, 0), name="y")
    surgery.fold_constants(model)
    folded = {node.name: node for node in model}["one"]
    assert folded.type_name == "Const" and folded.op.shape == () and folded.op.value == np.float32(1.0)


def test_compress_writes_openvinos_pattern() -> None:
    """An f64 Const becomes NAME_compressed (f16, keeping the tensor names) -> Convert NAME to f64 marked
    decompression, as openvino 2026.4.1's save_model writes it; an i64 Const is left alone."""
    model = ir.Model("f64")
    x = model.parameter("x", [2], "f64")
    weight = model.const(np.array([0.5, 3.0]), name="w")
    model.node(weight.node_id).outputs[0].tensor_names = ["w_tensor"]
    total = model.add_node(Add(), "total", [x, weight])
    model.result(ir.OutputPort(total.id, 0), name="y")
    model.const(np.array([1, 2], np.int64), name="unused")
    report = surgery.compress_to_fp16(model)
    assert (report.compressed, report.kept, report.skipped) == (1, 0, "")
    layers = {node.name: node for node in model}
    const, convert = layers["w_compressed"], layers["w"]
    assert const.op.element_type is ir.ElementType.F16 and const.outputs[0].tensor_names == ["w_tensor"]
    assert convert.op.destination_type is ir.ElementType.F64
    assert [dict(entry.attributes) for entry in convert.rt_info] == [{"name": "decompression", "version": "0"}]
    assert layers["unused"].op.element_type is ir.ElementType.I64
    np.testing.assert_array_equal(ir.run(model, {"x": np.zeros(2)})["y"], [0.5, 3.0])


def test_fold_leaves_unreachable_layers_alone() -> None:
    """A constant layer no output reaches is not folded away: it stays for validation to report."""
    model = _split_model()
    model.add_node(Add(), "dead", [model.const(np.float32(1)), model.const(np.float32(2))])
    surgery.fold_constants(model)
    assert {node.name: node.type_name for node in model}["dead"] == "Add"


def test_reshape_finds_a_layer_it_cannot_infer_past_a_diamond_walked_first():
    """x feeds a Relu -> an opaque 'Fancy' layer, and a diamond (Relu, Exp -> Add) walked before it: the walk,
    meeting the Add a second time, must go on to the Fancy branch."""
    from irgraph.ops import OpaqueOp
    from irgraph.ops.activation.exp import Exp
    from irgraph.ops.activation.relu import Relu

    model = ir.Model("diamond")
    x = model.parameter("x", [2])

    def port(op, name, inputs):
        return ir.OutputPort(model.add_node(op, name, inputs).id, 0)

    fed = port(Relu(), "fed", [x])
    fancy = port(OpaqueOp(op_type="Fancy", op_version="extension",
                          declared_outputs=(ir.TensorType(ir.ElementType.F32, Shape.of([2])),)), "fancy", [fed])
    model.result(fancy, name="odd")
    joined = port(Add(), "joined", [port(Relu(), "left", [x]), port(Exp(), "right", [x])])
    model.result(joined, name="y")
    with pytest.raises(ShapeInferenceError) as caught:
        surgery.reshape(model, {"x": Shape.of([3])})
    assert caught.value.message == ("--reshape x[3]: layer 'fancy' is of type Fancy, which irgraph does not "
                                    "implement, so the shapes after it cannot be re-inferred")
