"""ConvertPromoteTypes-14 against OpenVINO 2026.4.1: the common type of every pair of the 19 element types it takes,
under each attribute combination and scalar/tensor shapes; the values against OpenVINO's own Convert folded to
that type (2026.4.1 neither folds nor evaluates ConvertPromoteTypes: its transformations replace it by two
Converts) and its CPU plugin."""

from __future__ import annotations

import itertools

import numpy as np
import openvino as ov
import openvino.opset14 as ov14
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.type.convert_promote_types import SUPPORTED, ConvertPromoteTypes
from tests.ops import strategies as S
from tests.ops.differential import (
    OP_EXAMPLES,
    Independent,
    check_op,
    check_types,
    ov_constant,
    ov_reference,
    ov_type,
)
from tests.ops.helpers import infer, tt

TYPES = sorted(SUPPORTED, key=lambda t: t.ir_name)
RUNNABLE = [t for t in TYPES if t not in (ElementType.U1, ElementType.I4, ElementType.U4, ElementType.DYNAMIC)]
"""Types NumPy arrays of which OpenVINO's Python API takes as Constants (sub-byte types are packed there)."""


def build(op: ConvertPromoteTypes):
    return lambda a, b: ov14.convert_promote_types(a, b, op.promote_unsafe, op.pytorch_scalar_promotion,
                                                   op.u64_integer_promotion_target.ir_name)


@pytest.mark.parametrize(("unsafe", "pytorch"), list(itertools.product([False, True], repeat=2)))
def test_every_type_pair_promotes_as_openvino(unsafe, pytorch):
    """19 x 19 pairs (dynamic included), tensor and scalar shapes, the u64 target f32 or i64: types and refusals."""
    count = 0
    for (first, second), shapes, target in itertools.product(itertools.product(TYPES, repeat=2),
                                                             [("2,3", "3"), ("", "3"), ("2", "")],
                                                             [ElementType.F32, ElementType.I64]):
        if target is ElementType.I64 and ElementType.U64 not in (first, second):
            continue
        op = ConvertPromoteTypes(promote_unsafe=unsafe, pytorch_scalar_promotion=pytorch,
                                 u64_integer_promotion_target=target)
        check_types(op, [tt(shapes[0], first.ir_name), tt(shapes[1], second.ir_name)], build(op))
        count += 1
    assert count == 19 * 19 * 3 + 37 * 3


@pytest.mark.parametrize(("first", "second", "unsafe", "pytorch", "expected"), [
    # the spec's examples (convert-promote-types-14.rst)
    ("i8", "f32", False, False, "f32"), ("i32", "u8", False, False, "i32"), ("f16", "i64", True, False, "f16"),
    ("f64", "u64", True, False, "f64"), ("i8", "u8", True, False, "i16"), ("f16", "bf16", True, False, "f32"),
    ("f8e4m3", "f8e5m2", True, False, "f16"), ("u64", "i8", True, False, "f32"), ("i16", "u32", True, False, "i64"),
])
def test_the_spec_examples(first, second, unsafe, pytorch, expected):
    op = ConvertPromoteTypes(promote_unsafe=unsafe, pytorch_scalar_promotion=pytorch)
    types = op.infer([tt("256,56", first), tt("3", second)], [None, None])
    assert [str(t) for t in types] == [f"{expected}[256,56]", f"{expected}[3]"]


def test_pytorch_scalar_promotion_takes_the_tensors_type():
    """Spec: S(i64), D(u8) -> u8 (unsafe); S(f16), D(i8) -> f16 (the kinds differ: the scalar does not matter)."""
    op = ConvertPromoteTypes(promote_unsafe=True, pytorch_scalar_promotion=True)
    assert str(op.infer([tt("", "i64"), tt("4", "u8")], [None, None])[1]) == "u8[4]"
    assert str(op.infer([tt("", "f16"), tt("4", "i8")], [None, None])[1]) == "f16[4]"
    with pytest.raises(OpError, match="^Scalar input cannot be PyTorch-like aligned using safe promotion rules"):
        ConvertPromoteTypes(pytorch_scalar_promotion=True).infer([tt("", "i64"), tt("4", "u8")], [None, None])


def test_refusals_name_the_rule():
    with pytest.raises(OpError, match="^Integer input cannot be safely promoted to floating-point"):
        infer(ConvertPromoteTypes(), [tt("2", "f16"), tt("2", "i16")], [None, None])
    with pytest.raises(OpError, match="^Unsigned integer input cannot be safely promoted"):
        infer(ConvertPromoteTypes(), [tt("2", "u64"), tt("2", "i8")], [None, None])
    with pytest.raises(OpError, match="^Unsupported input element types for ConvertPromoteTypes"):
        infer(ConvertPromoteTypes(), [tt("2", "f16"), tt("2", "bf16")], [None, None])
    with pytest.raises(OpError, match="^ConvertPromoteTypes does not take u2"):
        infer(ConvertPromoteTypes(), [tt("2", "u2"), tt("2", "i8")], [None, None])


@st.composite
def configurations(draw: st.DrawFn) -> tuple[ConvertPromoteTypes, np.ndarray, np.ndarray]:
    op = ConvertPromoteTypes(promote_unsafe=draw(st.booleans()), pytorch_scalar_promotion=draw(st.booleans()),
                             u64_integer_promotion_target=draw(st.sampled_from([ElementType.F32, ElementType.I64])))
    first, second = draw(st.sampled_from(RUNNABLE)), draw(st.sampled_from(RUNNABLE))
    a = S.values(first, draw(S.shapes(max_rank=2)), draw(S.seeds), specials=draw(st.booleans()))
    b = S.values(second, draw(S.shapes(max_rank=2)), draw(S.seeds), specials=draw(st.booleans()))
    return op, a, b


@OP_EXAMPLES
@given(data=st.data())
def test_values_are_openvinos_convert_to_the_common_type(data):
    op, a, b = data.draw(configurations())
    # judged by OpenVINO's Convert of each input to the common type, folded; the CPU plugin where it runs the types
    check_op(op, [a, b], build(op), independent=Independent("reference", converted, in_output_type=True))


def converted(op, arrays, types):
    """Each input through OpenVINO's folded Convert to the common type (None where it folds no such Convert)."""
    found = [ov_reference(ov14.convert(ov_constant(array), ov_type(t.element_type)))
             for array, t in zip(arrays, types, strict=True)]
    return None if any(f is None for f in found) else [f[0] for f in found]


def test_ir_run_runs_openvinos_convert_promote_types_ir(tmp_path, capsys):
    a = ov14.parameter([2, 3], ov.Type.i16, name="a")
    b = ov14.parameter([3], ov.Type.u32, name="b")
    node = ov14.convert_promote_types(a, b, True, False, "f32")
    results = [ov14.result(node.output(0)), ov14.result(node.output(1))]
    for result, name in zip(results, ("a64", "b64"), strict=True):
        result.output(0).get_tensor().set_names({name})
    xml = tmp_path / "promote.xml"
    ov.save_model(ov.Model(results, [a, b], "promote"), xml)
    assert 'type="ConvertPromoteTypes" version="opset14"' in xml.read_text()
    inputs = {"a": np.array([[-3, 0, 7], [32767, -32768, 1]], np.int16),
              "b": np.array([0, 4000000000, 7], np.uint32)}
    np.savez(tmp_path / "in.npz", **inputs)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    with np.load(tmp_path / "out.npz") as written:
        assert written["a64"].dtype == np.int64 and written["a64"].tolist() == inputs["a"].tolist()
        assert written["b64"].dtype == np.int64 and written["b64"].tolist() == [0, 4000000000, 7]
    assert ir.validate(ir.read_model(xml)) == []


def test_defaults_are_openvinos():
    """openvino 2026.4.1's defaults: promote_unsafe and pytorch_scalar_promotion false, so a scalar i32 and an i8
    tensor meet in the wider i32 (PyTorch's rule would give the tensor's i8)."""
    node = ov14.convert_promote_types(ov14.parameter([], ov.Type.i32), ov14.parameter([4], ov.Type.i8))
    assert node.get_attributes() == {"promote_unsafe": False, "pytorch_scalar_promotion": False,
                                     "u64_integer_promotion_target": "f32"}
    inferred = ConvertPromoteTypes().infer([tt("", "i32"), tt("4", "i8")], [None, None])
    assert [str(t) for t in inferred] == ["i32[]", "i32[4]"]
    assert str(node.get_output_element_type(0)) == "<Type: 'int32_t'>"
