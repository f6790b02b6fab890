"""FakeConvert-13 against OpenVINO 2026.4.1's reference (constant folding), bit for bit: every f16 and bf16 bit
pattern for both destination types, generated scales, shifts and broadcasts, and the refusals."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import openvino as ov
import openvino.opset13 as ov13
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.quantization.fake_convert import FakeConvert, round_to_e4m3, round_to_e5m2
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_reference
from tests.ops.helpers import infer, tt

EVERY_HALF = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
EVERY_BF16 = np.arange(1 << 16, dtype=np.uint16).view(ml_dtypes.bfloat16)


def build(destination: str, shifted: bool = True):
    if shifted:
        return lambda data, scale, shift: ov13.fake_convert(data, scale, shift, destination)
    return lambda data, scale: ov13.fake_convert(data, scale, None, destination)


@pytest.mark.parametrize("destination", ["f8e4m3", "f8e5m2"])
@pytest.mark.parametrize("values", [EVERY_HALF, EVERY_BF16, EVERY_HALF.astype(np.float32)],
                         ids=["every f16", "every bf16", "every f16 as f32"])
def test_every_bit_pattern_matches_the_reference(destination, values):
    for scale, shift in ((1.0, 0.0), (3.7, 0.25), (0.01, -1.5)):
        inputs = [values, np.array([scale], values.dtype), np.array([shift], values.dtype)]
        assert check_op(FakeConvert(destination_type=destination), inputs, build(destination), cpu=False).reference


@OP_EXAMPLES
@given(data=st.data())
def test_generated_configurations_match_the_reference(data):
    destination = data.draw(st.sampled_from(["f8e4m3", "f8e5m2"]))
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F16, ElementType.BF16]))
    shape = data.draw(S.shapes(max_rank=4, max_side=5))
    rank = data.draw(st.integers(0, len(shape)))
    scale_shape = tuple(1 if data.draw(st.booleans()) else d for d in shape[len(shape) - rank:])
    x = S.values(element_type, shape, data.draw(S.seeds), low=-600, high=600)
    scale = S.values(element_type, scale_shape, data.draw(S.seeds), specials=False, low=-40, high=40)
    shift = S.values(element_type, scale_shape, data.draw(S.seeds), specials=False, low=-2, high=2)
    shifted = data.draw(st.booleans())
    inputs = [x, scale, shift] if shifted else [x, scale]
    outcome = check_op(FakeConvert(destination_type=destination), inputs, build(destination, shifted),
                       cpu=False)
    assert outcome.reference or outcome.refused or x.size == 0  # 2026.4.1 folds no empty broadcast


def test_the_spec_example():
    """fake-convert-13.rst: data [1,64,56,56], per-channel scale and shift [1,64,1,1]."""
    types = [tt("1,64,56,56"), tt("1,64,1,1"), tt("1,64,1,1")]
    assert infer(FakeConvert(destination_type="f8e4m3"), types, [None] * 3) == ["[1,64,56,56]"]
    rng = np.random.default_rng(3)
    inputs = [rng.normal(0, 50, (1, 64, 5, 6)), rng.uniform(0.5, 2, (1, 64, 1, 1)), rng.uniform(-1, 1, (1, 64, 1, 1))]
    inputs = [x.astype(np.float32) for x in inputs]
    assert check_op(FakeConvert(destination_type="f8e4m3"), inputs, build("f8e4m3"), cpu=False).reference


def test_exact_values_and_where_they_leave_ieee_rounding():
    """OpenVINO 2026.4.1's f8e4m3 saturates (448 for 500, infinity and NaN), flushes below 2**-9 to +0 and rounds
    a subnormal at the normal mantissa position before shifting it (1.5 * 2**-9 and a little more stay 2**-9),
    where a round-to-nearest-even conversion (ml_dtypes' float8_e4m3fn) gives NaN above 464, 2**-9 from 2**-10 up
    and 2 * 2**-9; f8e5m2 saturates infinity to 57344 and otherwise rounds as ml_dtypes' float8_e5m2."""
    half = np.array([0.3, 1.0625, 1.1875, 500.0, np.inf, -np.inf, np.nan, 0.0025, -0.0012, 0.0029296875,
                     0.0029354095], np.float16)
    e4m3 = round_to_e4m3(half).astype(np.float32)
    assert e4m3.tolist() == [0.3125, 1.0, 1.25, 448.0, 448.0, -448.0, 448.0, 2.0**-9, 0.0, 2.0**-9, 2.0**-9]
    assert not np.signbit(e4m3[8])  # -0.0012 flushes to +0
    nearest = half.astype(np.float32).astype(ml_dtypes.float8_e4m3fn).astype(np.float32)
    assert nearest[[0, 1, 2, 7]].tolist() == e4m3[[0, 1, 2, 7]].tolist()
    assert np.isnan(nearest[3]) and nearest[8] == -2.0**-9 and nearest[[9, 10]].tolist() == [2.0**-8] * 2
    e5m2 = round_to_e5m2(np.array([0.3, 1.125, 1.375, 60000.0, np.inf, -np.inf], np.float16)).astype(np.float32)
    assert e5m2.tolist() == [0.3125, 1.0, 1.5, 57344.0, 57344.0, -57344.0]
    (out,) = FakeConvert(destination_type="f8e4m3").evaluate(
        [np.array([1.0, 100.0, 1000.0], np.float32), np.array([0.5], np.float32), np.array([0.25], np.float32)])
    assert out.tolist() == [1.0, 96.5, 896.5]  # (round(x * 0.5 - 0.25) + 0.25) / 0.5; 499.75 saturates to 448


def test_f8e5m2_matches_ml_dtypes_on_every_finite_half_in_range():
    finite = EVERY_HALF[np.isfinite(EVERY_HALF) & (np.abs(EVERY_HALF.astype(np.float32)) <= 57344)]
    expected = finite.astype(np.float32).astype(ml_dtypes.float8_e5m2).astype(np.float32)
    np.testing.assert_array_equal(round_to_e5m2(finite).astype(np.float32), expected)


@st.composite
def partial_configurations(draw: st.DrawFn) -> list:
    data = draw(st.sampled_from(["2,3", "?,3", "1..5,3", "...", "4,2,3", "", "2,3,4"]))
    scale = draw(st.sampled_from(["1", "3", "2,1", "4,1", "4", "...", "4,2,3", "", "2,?"]))
    shift = draw(st.sampled_from([None, scale, scale, "1", "5"]))
    element_type = draw(st.sampled_from(["f32", "f16", "bf16", "f64", "i32", "dynamic"]))
    other = draw(st.sampled_from([element_type, element_type, "f32", "dynamic"]))
    return [tt(data, element_type), tt(scale, other)] + ([] if shift is None else [tt(shift, other)])


@pytest.mark.parametrize("destination", ["f8e4m3", "f8e5m2"])
@OP_EXAMPLES
@given(data=st.data())
def test_partial_shapes_and_refusals(destination, data):
    types = data.draw(partial_configurations())
    check_types(FakeConvert(destination_type=destination), types, build(destination, len(types) == 3))


def test_refusals_name_the_rule():
    with pytest.raises(OpError, match="^Bad format for f8 conversion type: f8e4m3fn"):
        FakeConvert(destination_type="f8e4m3fn")
    with pytest.raises(OpError, match="^Mixed input types are not supported"):
        infer(FakeConvert(destination_type="f8e4m3"), [tt("2"), tt("1", "f16")], [None, None])
    with pytest.raises(OpError, match="^The element type of the input tensor must be a bf16, f16, f32 but got: f64"):
        infer(FakeConvert(destination_type="f8e4m3"), [tt("2", "f64"), tt("1", "f64")], [None, None])
    with pytest.raises(OpError, match="^FakeConvert support only unidirectional broadcasting"):
        infer(FakeConvert(destination_type="f8e5m2"), [tt("2,3"), tt("4,2,3")], [None, None])


def test_ir_run_runs_openvinos_fake_convert_ir(tmp_path, capsys):
    data = ov13.parameter([2, 8], ov.Type.f32, name="x")
    node = ov13.fake_convert(data, ov13.constant(np.array([[4.0], [0.5]], np.float32)),
                             ov13.constant(np.array([[0.0], [1.0]], np.float32)), "f8e4m3")
    result = ov13.result(node)
    result.output(0).get_tensor().set_names({"y"})
    xml = tmp_path / "fake_convert.xml"
    ov.save_model(ov.Model([result], [data], "fake_convert"), xml, compress_to_fp16=False)
    assert '<data destination_type="f8e4m3" />' in xml.read_text()
    x = np.random.default_rng(2).normal(0, 30, (2, 8)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    folded = ov13.fake_convert(ov13.constant(x), ov13.constant(np.array([[4.0], [0.5]], np.float32)),
                               ov13.constant(np.array([[0.0], [1.0]], np.float32)), "f8e4m3")
    with np.load(tmp_path / "out.npz") as written:
        np.testing.assert_array_equal(written["y"], ov_reference(folded)[0])
    assert ir.validate(ir.read_model(xml)) == []
