"""IR -> ONNX export of what today's real OpenVINO exports contain (issue 25, item 6): NNCF's int4 weights, and
the computed-shape patterns of YOLO, Phi-3, Swin, LR-ASPP, SSDLite and Whisper (VariadicSplit with computed i32
lengths, Floor on integers, Roll over a dynamic dim, Interpolate with computed sizes, Gather on u32, Tile with
computed repeats). Each export runs in onnxruntime 1.31.1 with irgraph's values; each refusal that remains names
the ONNX rule that forbids it."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest

import irgraph as ir
from irgraph.core.errors import ConversionError
from irgraph.ops.arithmetic.ceiling import Ceiling
from irgraph.ops.arithmetic.floor import Floor
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.image.interpolate import Interpolate1, Interpolate4, Interpolate11
from irgraph.ops.movement.gather import Gather8
from irgraph.ops.movement.gather_elements import GatherElements
from irgraph.ops.movement.gather_nd import GatherND8
from irgraph.ops.movement.roll import Roll
from irgraph.ops.movement.tile import Tile
from irgraph.ops.movement.variadic_split import VariadicSplit
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.shape.shape_of import ShapeOf3
from irgraph.ops.type.convert import Convert
from tests.io.onnx_cases import same
from tests.io.test_onnx_export import onnxruntime_run

pytestmark = pytest.mark.oracle

INT4 = Path(__file__).resolve().parents[1] / "data" / "compressed"  # NNCF 3.4 output, see make.py there
RNG = np.random.default_rng(20261127)


def layer(model: ir.Model, op, inputs, name: str | None = None, outputs: int = 1):
    node = model.add_node(op, name, list(inputs), num_outputs=outputs)
    ports = [ir.OutputPort(node.id, i) for i in range(outputs)]
    return ports[0] if outputs == 1 else ports


def assert_onnxruntime_agrees(model: ir.Model, feeds: dict, opsets=(13, 18)) -> list[onnx.ModelProto]:
    """Exported at each opset, onnxruntime 1.31.1 gives irgraph's outputs bit for bit."""
    ours = ir.run(model, feeds)
    protos = []
    for opset in opsets:
        proto = ir.export_onnx(model, opset=opset)
        theirs = onnxruntime_run(proto, feeds)
        assert list(theirs) == list(ours)
        for name, value in ours.items():
            assert same(theirs[name], value), (opset, name, theirs[name], value)
        protos.append(proto)
    return protos


# ------------------------------------------------------------------------------------ int4 weights
def decompressed_weights(model: ir.Model) -> list[str]:
    """Every Convert -> f32 of the NNCF chains becomes an output too, so the weights are compared exactly."""
    names = []
    for node in list(model):
        if isinstance(node.op, Convert) and node.op.destination_type is ir.ElementType.F32:
            names.append(f"weight_{node.name}")
            model.result(ir.OutputPort(node.id, 0), name=names[-1])
    return names


@pytest.mark.parametrize("opset", [18, 21, 25])
@pytest.mark.parametrize("name, weight_type", [("int4_sym", "i4"), ("int4_asym", "u4")])
def test_nncf_int4_weights_export_and_run_in_onnxruntime(name, weight_type, opset):
    """NNCF 3.4's int4 chains: from opset 21 the u4/i4 Consts stay 4-bit ONNX initializers behind Cast-21, which
    onnxruntime 1.31.1 runs; below it (no ONNX op takes 4-bit tensors) they are stored as u8/i8, with a note."""
    model = ir.read_model(INT4 / f"{name}.xml")
    weights = decompressed_weights(model)
    assert len(weights) == 3
    explained: list[str] = []
    proto = ir.export_onnx(model, opset=opset, explain=explained)
    four_bit = {"i4": onnx.TensorProto.INT4, "u4": onnx.TensorProto.UINT4}[weight_type]
    eight_bit = {"i4": onnx.TensorProto.INT8, "u4": onnx.TensorProto.UINT8}[weight_type]
    types = [tensor.data_type for tensor in proto.graph.initializer]
    notes = [line for line in explained if "Const input is stored as" in line]
    chains = 3 if weight_type == "i4" else 6  # asymmetric: the zero points are u4 too
    if opset >= 21:
        assert types.count(four_bit) == chains and eight_bit not in types and not notes
        assert proto.ir_version == (10 if opset == 21 else 13)  # the opset's own IR version
    else:
        assert types.count(eight_bit) == chains and four_bit not in types and len(notes) == chains
        assert f"ONNX takes {'INT4' if weight_type == 'i4' else 'UINT4'} tensors from opset 21, Cast-21; this " \
               f"export writes opset {opset}" in notes[0]
    feeds = {"input_ids": np.asarray([[0, 5, 31, 7, 2, 2]], np.int64)}
    ours, theirs = ir.run(model, feeds), onnxruntime_run(proto, feeds)
    assert list(theirs) == list(ours)
    for weight in weights:  # Cast, Sub and Mul in f16, each rounding once as the IR's types say: the same bits
        assert same(theirs[weight], ours[weight]), weight
    # two MatMuls in f32: onnxruntime sums in another order than NumPy's BLAS
    np.testing.assert_allclose(theirs["logits"], ours["logits"], rtol=1e-5, atol=1e-7)


def test_a_4_bit_tensor_other_than_a_convert_of_a_const_is_refused_below_opset_21():
    model = ir.Model("u4")
    x = model.parameter("x", [4], "u4")
    model.result(layer(model, Convert(destination_type=ir.ElementType.F32), [x]), name="y")
    with pytest.raises(ConversionError, match=r"ONNX Cast-13 \(opset 18\) does not take u4 tensors; it takes .* "
                                              r"\(Cast-21 takes them: export with opset 21\)"):
        ir.export_onnx(model)
    proto = ir.export_onnx(model, opset=21)
    assert proto.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.UINT4


WEIGHTS = {
    "nf4": np.asarray([0, 3, 7, 15, 9, 1], np.uint8),  # indices into NF4's table
    "f8e4m3": np.asarray([0.5, -1.25, 3, 448, -0.0078125, 1], ml_dtypes.float8_e4m3fn),
    "f4e2m1": np.asarray([0.5, -1.5, 3, 6, -0.0, 1], ml_dtypes.float4_e2m1fn),
    "f8e8m0": np.asarray([0.5, 2, 4, 1, 8, 2.0**-20], ml_dtypes.float8_e8m0fnu),
}
CASTS_FROM = {"nf4": None, "f8e4m3": 19, "f4e2m1": None, "f8e8m0": 24}
"""The opset from which the export keeps the Cast: Cast-19 takes float8, Cast-24 float8e8m0; ONNX has no NF4, and
onnxruntime 1.31.1 has no Cast kernel for FLOAT4E2M1 (Cast-23 has it in ONNX)."""


@pytest.mark.parametrize("opset", [18, 21, 24])
@pytest.mark.parametrize("weight_type", list(WEIGHTS))
def test_other_compressed_weights_are_decompressed_where_no_cast_takes_them(weight_type, opset):
    """NF4 and MXFP4 (f4e2m1 with f8e8m0 scales) weights and f8 ones: a Cast where ONNX's Cast of the opset takes
    the type and onnxruntime 1.31.1 runs it, else the Convert's values as an initializer, with a note."""
    model = ir.Model("weights")
    x = model.parameter("x", [6], "f16")
    weights = model.const(WEIGHTS[weight_type], weight_type, name="w")
    decompressed = layer(model, Convert(destination_type=ir.ElementType.F16), [weights], "decompress")
    model.result(layer(model, Multiply(), [x, decompressed], "scaled"), name="y")
    explained: list[str] = []
    proto = ir.export_onnx(model, opset=opset, explain=explained)
    cast = CASTS_FROM[weight_type] is not None and opset >= CASTS_FROM[weight_type]
    assert [node.op_type for node in proto.graph.node] == (["Cast", "Mul"] if cast else ["Mul"])
    notes = [line for line in explained if "its constant input is decompressed at export" in line]
    assert len(notes) == (0 if cast else 1)
    if not cast:
        why = "onnxruntime 1.31.1 has no Cast kernel for FLOAT4E2M1 (ONNX's Cast-23 has one)" \
            if weight_type == "f4e2m1" else \
            f"no ONNX Cast of opset {opset} takes {weight_type} tensors"
        assert notes[0].startswith(f"layer 2 'decompress': {why}, so its constant input is decompressed at export: "
                                   "an initializer of f16 (12 bytes for the")
    feeds = {"x": np.asarray([1, -2, 0.5, 3, 1, 2], np.float16)}
    ours = ir.run(model, feeds)
    assert same(onnxruntime_run(proto, feeds)["y"], ours["y"])


def test_onnxruntime_1_31_1_has_no_cast_from_float4e2m1():
    """Why f4e2m1 weights are decompressed at every opset: onnxruntime refuses the model ONNX's checker accepts."""
    import onnxruntime
    from onnx import TensorProto, helper, numpy_helper

    weights = numpy_helper.from_array(WEIGHTS["f4e2m1"], "w")
    graph = helper.make_graph([helper.make_node("Cast", ["w"], ["y"], to=TensorProto.FLOAT)], "cast", [],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6])], initializer=[weights])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)], ir_version=11)
    onnx.checker.check_model(proto, full_check=True)
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 4
    with pytest.raises(Exception, match="NOT_IMPLEMENTED"):
        onnxruntime.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])


# ------------------------------------------------------------------------------------ VariadicSplit
@pytest.mark.parametrize("lengths", [[2, -1, 3], [1, 4, 5], [-1, 0, 10]])
def test_variadic_split_by_computed_i32_lengths(lengths):
    """YOLO's and Phi-3's lengths come from a computation in i32: cast to int64, a -1 resolved in the graph over a
    dynamic dim (ONNX Split takes int64 lengths >= 0)."""
    model = ir.Model("split")
    x = model.parameter("x", [2, -1], "f32")
    given = model.parameter("lengths", [3], "i32")
    parts = layer(model, VariadicSplit(), [x, model.const(np.int64(1)), given], "split", outputs=3)
    for index, part in enumerate(parts):
        model.result(part, name=f"part{index}")
    feeds = {"x": RNG.standard_normal((2, 10)).astype(np.float32), "lengths": np.asarray(lengths, np.int32)}
    assert_onnxruntime_agrees(model, feeds)


def test_variadic_split_with_minus_one_over_a_dynamic_dim():
    """Constant lengths holding -1 over a dynamic dim: resolved in the graph (a refusal before)."""
    model = ir.Model("split")
    x = model.parameter("x", [-1, 3], "f32")
    parts = layer(model, VariadicSplit(), [x, model.const(np.int64(0)), model.const(np.asarray([1, -1], np.int32))],
                  "split", outputs=2)
    model.result(parts[0], name="head")
    model.result(parts[1], name="rest")
    for rows in (1, 5):
        assert_onnxruntime_agrees(model, {"x": RNG.standard_normal((rows, 3)).astype(np.float32)})


# ------------------------------------------------------------------------------------ Floor, Ceiling
@pytest.mark.parametrize("op", [Floor(), Ceiling()], ids=["Floor", "Ceiling"])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_floor_and_ceiling_of_integers_are_identities(op, dtype):
    """Swin floors an i64 size: integers pass (OpenVINO's reference), where ONNX's Floor and Ceil take floats only."""
    model = ir.Model("floor")
    x = model.parameter("x", [5], ir.ElementType.from_numpy(np.dtype(dtype)))
    model.result(layer(model, op, [x], "op"), name="y")
    (proto, _) = assert_onnxruntime_agrees(model, {"x": np.asarray([0, 1, 7, 100, 3], dtype)})
    assert [node.op_type for node in proto.graph.node] == ["Identity"]


# ------------------------------------------------------------------------------------ Roll
@pytest.mark.parametrize("rows, cols", [(7, 5), (2, 3), (0, 4)])
def test_roll_over_dynamic_dims(rows, cols):
    """Swin's shifted windows: constant shifts (-3, -3) over the dynamic H and W; shift mod dim in the graph,
    a dim of 0 rolls nothing."""
    model = ir.Model("roll")
    x = model.parameter("x", [1, -1, -1, 2], "f32")
    rolled = layer(model, Roll(), [x, model.const(np.asarray([-3, -3], np.int64)),
                                   model.const(np.asarray([1, 2], np.int64))], "roll")
    model.result(rolled, name="y")
    assert_onnxruntime_agrees(model, {"x": RNG.standard_normal((1, rows, cols, 2)).astype(np.float32)})


@pytest.mark.parametrize("shift", [np.asarray([4, -9, 2], np.int32), np.asarray(-7, np.int64)],
                         ids=["per-axis-i32", "scalar"])
def test_roll_by_computed_shifts_with_a_repeated_axis(shift):
    model = ir.Model("roll")
    x = model.parameter("x", [3, -1], "i32")
    given = model.parameter("shift", list(shift.shape), ir.ElementType.from_numpy(shift.dtype))
    model.result(layer(model, Roll(), [x, given, model.const(np.asarray([1, 0, 1], np.int64))], "roll"), name="y")
    assert_onnxruntime_agrees(model, {"x": np.arange(15, dtype=np.int32).reshape(3, 5), "shift": shift})


def test_roll_over_computed_axes_is_refused_naming_onnx_concat():
    model = ir.Model("roll")
    x = model.parameter("x", [3, 4], "f32")
    axes = model.parameter("axes", [1], "i64")
    model.result(layer(model, Roll(), [x, model.const(np.asarray([1], np.int64)), axes], "roll"), name="y")
    with pytest.raises(ConversionError, match=r"its axes \(input 2\) must come straight from a Const to export it "
                                              r"\(ONNX takes it as an attribute"):
        ir.export_onnx(model)


# ------------------------------------------------------------------------------------ Interpolate
@pytest.mark.parametrize("version, mode", [("Interpolate4", "nearest"), ("Interpolate4", "linear_onnx"),
                                           ("Interpolate11", "nearest"), ("Interpolate11", "linear_onnx"),
                                           ("Interpolate1", "linear")])
def test_interpolate_to_computed_sizes(version, mode):
    """LR-ASPP resizes its head to the input's H and W (ShapeOf, Gather, as i32 here): the sizes become ONNX
    Resize's sizes input, cast to int64 (opset 18: with axes; 13: scattered into the data's shape)."""
    model = ir.Model("resize")
    x = model.parameter("x", [1, 2, 3, 4], "f32")
    image = model.parameter("image", [1, 3, -1, -1], "f32")
    shape = layer(model, ShapeOf3(output_type=ir.ElementType.I32), [image])
    sizes = layer(model, Gather8(), [shape, model.const(np.asarray([2, 3], np.int64)), model.const(np.int64(0))])
    axes = model.const(np.asarray([2, 3], np.int64))
    if version == "Interpolate1":  # its nearest runs nearest_mode simple, which has no ONNX Resize form
        op, inputs = Interpolate1(axes=(2, 3), mode=mode), [x, sizes]
    elif version == "Interpolate4":
        op = Interpolate4(mode=mode, coordinate_transformation_mode="asymmetric", nearest_mode="floor")
        inputs = [x, sizes, model.const(np.asarray([1.0, 1.0], np.float32)), axes]
    else:
        op = Interpolate11(mode=mode, coordinate_transformation_mode="asymmetric", nearest_mode="floor")
        inputs = [x, sizes, axes]
    model.result(layer(model, op, inputs, "resize"), name="y")
    for height, width in ((6, 8), (5, 7), (2, 2)):
        feeds = {"x": RNG.standard_normal((1, 2, 3, 4)).astype(np.float32),
                 "image": np.zeros((1, 3, height, width), np.float32)}
        if mode == "nearest":
            assert_onnxruntime_agrees(model, feeds)
        else:  # linear: two weighted taps per axis, onnxruntime weighs in another order than OpenVINO's reference
            ours = ir.run(model, feeds)["y"]
            for opset in (13, 18):
                proto = ir.export_onnx(model, opset=opset)
                (resize,) = [node for node in proto.graph.node if node.op_type == "Resize"]
                assert resize.input[3] not in {tensor.name for tensor in proto.graph.initializer}
                theirs = onnxruntime_run(proto, feeds)["y"]
                assert theirs.shape == ours.shape == (1, 2, height, width)
                np.testing.assert_allclose(theirs, ours, rtol=2e-6, atol=2e-6)


def test_interpolate_by_computed_scales_is_refused_naming_onnx_resize():
    model = ir.Model("resize")
    x = model.parameter("x", [1, 1, 3, 4], "f32")
    scales = model.parameter("scales", [2], "f32")
    op = Interpolate11(mode="nearest", shape_calculation_mode="scales")
    model.result(layer(model, op, [x, scales, model.const(np.asarray([2, 3], np.int64))], "resize"), name="y")
    with pytest.raises(ConversionError, match=r"ONNX Resize takes scales or sizes, not both .* floor\(length \* "
                                              r"scale\) where OpenVINO's adds 1e-6"):
        ir.export_onnx(model)


# ------------------------------------------------------------------------------------ gathers
@pytest.mark.parametrize("dtype", [np.uint32, np.uint8, np.int16, np.uint64])
def test_gathers_on_indices_onnx_does_not_take(dtype):
    """SSDLite gathers with u32 indices: ONNX's Gather takes int32/int64 (GatherND int64 only), so they are cast
    to int64."""
    model = ir.Model("gather")
    data = model.parameter("data", [5, 3], "f32")
    indices = model.parameter("indices", [4], ir.ElementType.from_numpy(np.dtype(dtype)))
    model.result(layer(model, Gather8(), [data, indices, model.const(np.int64(0))], "gather"), name="rows")
    grid = model.parameter("grid", [2, 3], ir.ElementType.from_numpy(np.dtype(dtype)))
    model.result(layer(model, GatherElements(axis=0), [data, grid], "elements"), name="elements")
    pairs = model.parameter("pairs", [2, 2], ir.ElementType.from_numpy(np.dtype(dtype)))
    model.result(layer(model, GatherND8(), [data, pairs], "nd"), name="nd")
    feeds = {"data": RNG.standard_normal((5, 3)).astype(np.float32),
             "indices": np.asarray([4, 0, 2, 2], dtype), "grid": np.asarray([[1, 4, 0], [3, 3, 2]], dtype),
             "pairs": np.asarray([[4, 2], [0, 1]], dtype)}
    assert_onnxruntime_agrees(model, feeds)


def test_gather_nd_on_i32_indices():
    model = ir.Model("gather")
    data = model.parameter("data", [5, 3], "f32")
    pairs = model.parameter("pairs", [2, 2], "i32")
    model.result(layer(model, GatherND8(), [data, pairs], "nd"), name="nd")
    assert_onnxruntime_agrees(model, {"data": RNG.standard_normal((5, 3)).astype(np.float32),
                                      "pairs": np.asarray([[4, 2], [0, -1]], np.int32)})


# ------------------------------------------------------------------------------------ Tile
@pytest.mark.parametrize("count", [1, 3, 4])
def test_tile_by_computed_repeats(count):
    """Whisper's decoder tiles by repeats it computes: cast to int64; fewer than the data's rank get leading 1s
    in the graph, more lift the data first (OpenVINO aligns them so)."""
    model = ir.Model("tile")
    x = model.parameter("x", [2, -1, 3], "f32")
    repeats = model.parameter("repeats", [count], "i32")
    model.result(layer(model, Tile(), [x, repeats], "tile"), name="y")
    given = np.asarray([2, 1, 3, 2][:count], np.int32)
    assert_onnxruntime_agrees(model, {"x": RNG.standard_normal((2, 4, 3)).astype(np.float32), "repeats": given})


def test_tile_by_repeats_of_unknown_length_is_refused_naming_onnx_tile():
    model = ir.Model("tile")
    x = model.parameter("x", [2, 3], "f32")
    repeats = model.parameter("repeats", [-1], "i64")
    tiled = layer(model, Tile(), [x, repeats], "tile")  # of unknown rank: flattened to be an output
    model.result(layer(model, Reshape(special_zero=False), [tiled, model.const(np.asarray([-1], np.int64))]), name="y")
    with pytest.raises(ConversionError, match=r"ONNX Tile takes one repeat per data dim \(its repeats input is 1-D "
                                              r"of the data's rank\)"):
        ir.export_onnx(model)
