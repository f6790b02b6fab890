"""BitwiseLeftShift-15 and BitwiseRightShift-15 against OpenVINO: every integer type, broadcasting, and
shift counts at and beyond the bit width (x86: narrow types promoted to 32 bits, the count masked)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.bitwise.bitwise_left_shift import BitwiseLeftShift
from irgraph.ops.bitwise.bitwise_right_shift import BitwiseRightShift
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import tt


@pytest.mark.parametrize("op_class", [BitwiseLeftShift, BitwiseRightShift], ids=lambda c: c.type_name)
@OP_EXAMPLES
@given(data=st.data())
def test_shift_matches_openvino(op_class, data):
    element_type = data.draw(st.sampled_from(S.INTEGERS))
    a_shape, b_shape = data.draw(S.broadcast_pair("numpy", max_rank=3))
    a = S.values(element_type, a_shape, data.draw(S.seeds))
    b = S.values(element_type, b_shape, data.draw(S.seeds), low=0, high=70)
    op = op_class()
    check_op(op, [a, b], same_op(op))


def test_i32_counts_at_and_beyond_the_width_wrap_as_openvino():
    """openvino 2026.4.1's reference (C++ << on x86) masks the count to 5 bits: -7 << 32 is -7, << 33 is -14,
    << -1 is << 31."""
    a = np.full(5, -7, np.int32)
    b = np.array([31, 32, 33, 64, -1], np.int32)
    assert check_op(BitwiseLeftShift(), [a, b], same_op(BitwiseLeftShift())).reference
    (got,) = BitwiseLeftShift().evaluate([a, b])
    assert got.tolist() == [-2**31, -7, -14, -7, -2**31]
    (got,) = BitwiseRightShift().evaluate([a, b])
    assert got.tolist() == [-1, -7, -4, -7, -1]


def test_narrow_types_are_promoted_before_shifting():
    (got,) = BitwiseLeftShift().evaluate([np.array([1, 1, 1], np.int8), np.array([7, 8, 33], np.int8)])
    assert got.tolist() == [-128, 0, 2]
    (got,) = BitwiseRightShift().evaluate([np.array([-128, 200], np.int16), np.array([20, 3], np.int16)])
    assert got.tolist() == [-1, 25]


def test_64_bit_right_shifts_are_arithmetic_for_signed_and_logical_for_unsigned():
    """Hand-worked, C++ >> on x86 (the rule of openvino 2026.4.1's narrower kernels): an i64 shift keeps the sign
    bit, a u64 shift brings in zeros; with 64 bits no spare high bits of a promotion hide the difference.
    OpenVINO 2026.4.1 judges nothing here: it neither folds nor evaluates 64-bit shifts, and its CPU plugin
    gives i64 [-4, -1, 0, 0] and u64 [0, 2**64 - 1, 1] for these inputs, not the C++ rule."""
    (got,) = BitwiseRightShift().evaluate([np.array([-8, -1, -2**63, 2**62], np.int64),
                                           np.array([1, 63, 62, 61], np.int64)])
    assert got.tolist() == [-4, -1, -2, 2]
    (got,) = BitwiseRightShift().evaluate([np.array([2**63, 2**64 - 1, 2**63 + 8], np.uint64),
                                           np.array([1, 63, 3], np.uint64)])
    assert got.tolist() == [2**62, 1, 2**60 + 1]


def test_float_inputs_are_refused():
    with pytest.raises(OpError, match="must be integer. Got: f32"):
        BitwiseLeftShift().infer([tt("2"), tt("2")], [None, None])
    assert check_op(BitwiseRightShift(), [np.ones(2, np.float32)] * 2, same_op(BitwiseRightShift())).refused


def _through_openvinos_onnx_frontend(name: str, tmp_path, frozen: bool = False):
    """onnx 1.23.2's node test ``name`` converted by openvino 2026.4.1's ONNX frontend (saved as IR, read by
    irgraph), its inputs, its expected output; ``frozen``: the inputs as initializers (OpenVINO then folds)."""
    import onnx
    import onnx.backend.test.case.node.bitshift  # noqa: F401 - importing runs its expect() calls
    import openvino as ov
    from onnx.backend.test.case.node import _NodeTestCases

    import irgraph as ir

    case = next(c for c in _NodeTestCases if c.name == name)
    (inputs, (expected,)) = case.data_sets[0]
    proto = case.model
    if frozen:
        graph = proto.graph
        proto = onnx.helper.make_model(
            onnx.helper.make_graph(list(graph.node), "frozen", [], list(graph.output), initializer=[
                onnx.numpy_helper.from_array(x, i.name) for x, i in zip(inputs, graph.input, strict=True)]),
            opset_imports=proto.opset_import)
    converted = ov.Core().read_model(proto.SerializeToString(), ov.Tensor(np.zeros(0, np.uint8)))
    ov.save_model(converted, tmp_path / "model.xml", compress_to_fp16=False)
    feeds = dict(zip((i.name for i in case.model.graph.input), inputs, strict=True))
    return converted, ir.read_model(tmp_path / "model.xml"), feeds, expected


def _openvino_reference(model) -> np.ndarray | str:
    """The frozen model after OpenVINO's ConstantFolding: the folded value, the error, or what stayed unfolded."""
    from openvino.passes import ConstantFolding, Manager

    manager = Manager()
    manager.register_pass(ConstantFolding())
    try:
        manager.run_passes(model)
    except (RuntimeError, ValueError) as err:  # the pybind layer maps the kernel's domain_error to ValueError
        return str(err).strip().splitlines()[-1]
    source = model.get_results()[0].input_value(0).get_node()
    return source.get_vector() if source.get_type_name() == "Constant" else f"{source.get_type_name()} not folded"


@pytest.mark.parametrize(
    ("name", "reference", "irgraph"),
    [("test_bitshift_right_int32_negative_shift", "integer division by zero", "integer division by zero"),
     ("test_bitshift_right_int32_shift_ge_width", [0, -1, 0], [0, -1, 0]),
     ("test_bitshift_right_int8_shift_ge_width", "Divide not folded", "integer division by zero"),
     ("test_bitshift_right_int8_negative_shift", "Divide not folded", "integer division by zero")],
)
def test_onnx_bitshift_through_openvinos_frontend_is_power_and_divide(name, reference, irgraph, tmp_path):
    """openvino 2026.4.1's ONNX frontend writes BitShift RIGHT as Divide(x, Power(2, shift)), m_pythondiv="true",
    no Bitwise*Shift: 2 to a negative power is 0 in integers, and 2^8 wraps to 0 in i8. OpenVINO's reference
    refuses the i32 division by zero ("integer division by zero") and gives [0, -1, 0] for shifts of 32 or more
    (2^32 is INT_MIN); it has no i8 Power or Divide kernel. irgraph gives the reference's answers, and for i8 the
    same rule: the division by zero is an error naming the layer, never a traceback. ONNX's expected [-1, 0, -1]
    follows BitShift-28's rule for such shifts, which irgraph's own ONNX import implements
    (tests/io/test_onnx_import_sweep.py)."""
    from irgraph.core.errors import IrError
    from irgraph.runtime.interpreter import run

    converted, model, feeds, expected = _through_openvinos_onnx_frontend(name, tmp_path)
    assert {node.type_name for node in model.nodes} == {"Parameter", "Const", "Power", "Divide", "Result"}
    frozen, _, _, _ = _through_openvinos_onnx_frontend(name, tmp_path / "frozen", frozen=True)
    got = _openvino_reference(frozen)
    assert (got if isinstance(got, str) else got.tolist()) == reference
    try:
        mine: object = next(iter(run(model, feeds).values())).tolist()
    except IrError as err:
        assert "layer" in str(err) and str(err).endswith("(Divide): integer division by zero")
        mine = err.message
    assert mine == irgraph and expected.tolist() == [-1, 0, -1]
