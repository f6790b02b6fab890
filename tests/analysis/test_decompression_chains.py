"""The one recognition of weight decompression chains the runtime, folding and ir-diff share: NNCF's chains
(tests/data/compressed, written by NNCF 3.4 on openvino 2026.4.1) and OpenVINO's fp16 Const -> Convert."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.analysis.decompression_chains import (
    decompression_chains,
    decompression_starts,
    neighbouring_codes,
    widened_layers,
)
from irgraph.core.shapes import Shape
from irgraph.graph import Model, RtEntry
from irgraph.ops import OpaqueOp
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.type.convert import Convert

DATA = Path(__file__).resolve().parents[1] / "data" / "compressed"


def _names(model: Model, ids: frozenset[int] | set[int]) -> set[str]:
    return {model.node(node_id).name for node_id in ids}


def test_an_asymmetric_int4_chain_names_its_parts() -> None:
    """int4_asym's embedding: u4 codes, a u4 zero point and an f16 scale per group, reshaped, closed by a Convert
    to f32; the CPU plugin computes everything above that Convert in f32."""
    model = ir.read_model(DATA / "int4_asym.xml")
    chains = decompression_chains(model)
    assert [model.node(chain.end).name for chain in chains] == [
        "Constant_198/fq_weights_0/convert", "Constant_203/fq_weights_1/convert", "Constant_206/fq_weights_1/convert"]
    chain = chains[0]
    assert model.node(chain.weight).name == "Constant_198" and chain.stored is ir.ElementType.U4
    assert chain.zero_point is not None and model.node(chain.zero_point).name == "Constant_198/zero_point"
    assert chain.scale is not None and model.node(chain.scale).name == "Constant_198/scale"
    assert _names(model, chain.starts) == {"Convert_210", "Convert_212"}
    assert _names(model, chain.layers) == {"Convert_210", "Convert_212", "Constant_198/zero_point/subtract",
                                           "Constant_198/fq_weights_0", "Reshape_218",
                                           "Constant_198/fq_weights_0/convert"}
    assert _names(model, chain.consts) == {"Constant_198", "Constant_198/zero_point", "Constant_198/scale",
                                           "Constant_217"}
    assert chain.widened == chain.layers - {chain.end}
    assert decompression_starts(model, chains) == {start for chain in chains for start in chain.starts}


@pytest.mark.parametrize("path", sorted(DATA.glob("*.xml")), ids=lambda path: path.stem)
def test_widened_layers_are_the_chains_widened_layers(path: Path) -> None:
    """widened_layers (an Interpreter build's question) recognises what decompression_chains does."""
    model = ir.read_model(path)
    widened = widened_layers(model)
    assert widened and widened == {layer for chain in decompression_chains(model) for layer in chain.widened}


def test_a_symmetric_chain_has_no_zero_point() -> None:
    model = ir.read_model(DATA / "int8_sym.xml")
    chains = decompression_chains(model)
    assert len(chains) == 3
    assert all(chain.zero_point is None and chain.scale is not None and chain.stored is ir.ElementType.I8
               for chain in chains)


def _fp16_weight(*, marked: bool) -> tuple[Model, int, int]:
    """x + Convert(Const f16 -> f32), as save_model(compress_to_fp16=True) writes it; the ids of the Const and the
    Convert."""
    model = ir.Model("fp16")
    x = model.parameter("x", [2])
    weight = model.const(np.array([0.5, 2], np.float16), name="w_compressed")
    convert = model.add_node(Convert(destination_type=ir.ElementType.F32), "w", [weight])
    if marked:
        convert.rt_info = (RtEntry("attribute", (("name", "decompression"), ("version", "0"))),)
    model.result(ir.OutputPort(model.add_node(Add(), "add", [x, ir.OutputPort(convert.id, 0)]).id, 0), name="y")
    return model, weight.node_id, convert.id


@pytest.mark.parametrize("marked", [True, False])
def test_an_fp16_weight_is_a_chain_that_starts_only_where_openvino_marks_it(marked: bool) -> None:
    """Its structure makes it a chain (ir-diff compares it as the f32 weight), but only the decompression mark keeps
    it from folding: OpenVINO's ConstantFolding folds an unmarked Convert of an f16 Const."""
    model, const, convert = _fp16_weight(marked=marked)
    (chain,) = decompression_chains(model)
    assert (chain.end, chain.weight, chain.stored) == (convert, const, ir.ElementType.F16)
    assert chain.starts == frozenset() and chain.widened == frozenset()
    assert decompression_starts(model) == ({convert} if marked else set())


def test_an_opaque_layer_is_no_part_of_a_chain() -> None:
    """A layer irgraph cannot run (here an unknown 'Convert' of a custom opset) is told apart by its class."""
    model, const, convert = _fp16_weight(marked=False)
    node = model.node(convert)
    node.op = OpaqueOp(op_type="Convert", op_version="custom",
                       declared_outputs=(ir.TensorType(ir.ElementType.F32, Shape.of([2])),))
    assert decompression_chains(model) == []


def test_a_value_read_outside_ends_the_chain_there() -> None:
    model = ir.read_model(DATA / "int8_sym.xml")
    multiply = next(node for node in model if node.op.type_name == "Multiply")
    model.result(ir.OutputPort(multiply.id, 0), name="scaled")
    chains = decompression_chains(model)
    assert len(chains) == 3  # the Multiply, read by a Result, now ends its chain
    (shortened,) = [chain for chain in chains if multiply.id in chain.layers]
    assert shortened.end == multiply.id and shortened.widened == frozenset()


@pytest.mark.parametrize(("codes", "expected"), [
    (np.array([0, 1, 254, 255], np.uint8), [1, 0, 255, 254]),
    (np.array([-128, -1, 0, 127], np.int8), [-127, -2, 1, 126]),
    (np.array(np.float16(1.0)), np.float16(1.0009766)),  # one f16 ulp above 1, and a scalar stays 0-d
])
def test_neighbouring_codes_flip_the_lowest_bit(codes: np.ndarray, expected: object) -> None:
    neighbour = neighbouring_codes(codes)
    assert neighbour.dtype == codes.dtype and neighbour.shape == codes.shape
    np.testing.assert_array_equal(neighbour, np.asarray(expected, codes.dtype))


def test_a_layer_read_twice_inside_a_chain_is_walked_once_and_its_reader_s_other_inputs_still_are() -> None:
    """Convert(zp) feeds both the Subtract (first input) and the Multiply: the walk reaches it from the Multiply
    first, and must still go on to the Subtract's second input, the codes' Convert, to find the weight."""
    from irgraph.ops.arithmetic.multiply import Multiply
    from irgraph.ops.arithmetic.subtract import Subtract
    from irgraph.ops.matrix.mat_mul import MatMul

    model = ir.Model("shared_zero_point")
    x = model.parameter("x", [1, 3])

    def port(op: object, name: str, inputs: list[ir.OutputPort]) -> ir.OutputPort:
        return ir.OutputPort(model.add_node(op, name, inputs).id, 0)

    codes = model.const(np.arange(12, dtype=np.uint8).reshape(4, 3), name="codes")
    zero_point = model.const(np.full((4, 1), 8, np.uint8), name="zero_point")
    zero_point_f16 = port(Convert(destination_type=ir.ElementType.F16), "zero_point_f16", [zero_point])
    codes_f16 = port(Convert(destination_type=ir.ElementType.F16), "codes_f16", [codes])
    centred = port(Subtract(), "centred", [zero_point_f16, codes_f16])
    scaled = port(Multiply(), "scaled", [centred, zero_point_f16])
    weights = port(Convert(destination_type=ir.ElementType.F32), "weights", [scaled])
    model.result(port(MatMul(transpose_b=True), "y", [x, weights]), name="y")
    (chain,) = decompression_chains(model)
    assert model.node(chain.weight).name == "codes" and _names(model, chain.consts) == {"codes", "zero_point"}
    assert _names(model, chain.layers) == {"zero_point_f16", "codes_f16", "centred", "scaled", "weights"}
