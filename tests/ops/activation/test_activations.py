"""Activations against OpenVINO (generated shapes, types and values; specials included) and named cases."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops import lookup
from irgraph.ops.activation.clamp import Clamp
from irgraph.ops.activation.elu import Elu
from irgraph.ops.activation.exp import Exp
from irgraph.ops.activation.gelu import Gelu2, Gelu7
from irgraph.ops.activation.h_sigmoid import HSigmoid
from irgraph.ops.activation.h_swish import HSwish
from irgraph.ops.activation.log_softmax import LogSoftmax
from irgraph.ops.activation.mish import Mish
from irgraph.ops.activation.p_re_lu import PReLU
from irgraph.ops.activation.relu import Relu
from irgraph.ops.activation.sigmoid import Sigmoid
from irgraph.ops.activation.soft_max import SoftMax1, SoftMax8
from irgraph.ops.activation.soft_plus import SoftPlus
from irgraph.ops.activation.soft_sign import SoftSign
from irgraph.ops.activation.swish import Swish
from irgraph.ops.op import Tolerance
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import tt
from tests.ops.unary import check_unary

UNARY = [
    (Relu(), -10, 10), (Sigmoid(), -20, 20), (Exp(), -20, 20), (Elu(alpha=0.5), -10, 10),
    (Clamp(min=-2.5, max=3.7), -10, 10), (Clamp(min=0.0, max=6.0), -10, 10), (HSigmoid(), -10, 10),
    (HSwish(), -10, 10), (Mish(), -10, 10), (SoftPlus(), -30, 30), (SoftSign(), -10, 10), (Gelu2(), -6, 6),
    (Gelu7(), -6, 6), (Gelu7(approximation_mode="tanh"), -6, 6),
]


CPU_ROUNDS_INTEGERS = (HSigmoid, HSwish)
"""openvino 2026.4.1 has no reference kernel of these (nor of SoftMax and LogSoftmax) for integers; its CPU plugin
computes them in f32 and rounds to the nearest integer (HSwish(1) = 4/6 gives 1, SoftMax([14, -10]) gives
[1, 0]), where irgraph converts as the reference's C++ template would, toward zero (0, and [0, 0]). The
formulations in tests/ops/independent.py judge integers as irgraph converts them; the plugin's answer is not
compared."""


@pytest.mark.parametrize(("op", "low", "high"), UNARY, ids=lambda v: repr(v) if not isinstance(v, int) else "")
@OP_EXAMPLES
@given(data=st.data())
def test_unary_activations_match_openvino(op, low, high, data):
    # Gelu-2 has no reference evaluate in openvino 2026.4.1: its CPU plugin, the oracle then, approximates erf
    # (and gives NaN for inf).
    gelu2 = isinstance(op, Gelu2)
    check_unary(op, data, low=low, high=high, cpu_tolerance=Tolerance(ulp=4, eps=16) if gelu2 else None,
                specials=not gelu2, cpu_on_integers=not isinstance(op, CPU_ROUNDS_INTEGERS))


@pytest.mark.parametrize("version", [SoftMax1, SoftMax8, LogSoftmax], ids=lambda c: c.title())
@OP_EXAMPLES
@given(data=st.data())
def test_softmax_matches_openvino(version, data):
    element_type = data.draw(st.sampled_from(S.FLOATS + (S.INTEGERS[2],)))
    shape = data.draw(S.shapes(min_rank=1))
    rank = len(shape)
    low_axis = 0 if version is SoftMax1 else -rank - 1
    axis = data.draw(st.integers(low_axis, rank))
    op = version(axis=axis)
    x = S.values(element_type, shape, data.draw(S.seeds), specials=data.draw(st.booleans()))
    check_op(op, [x], same_op(op, "Softmax" if version is not LogSoftmax else None),
             cpu=not element_type.is_integral)  # the plugin rounds integer results (see CPU_ROUNDS_INTEGERS)


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


@OP_EXAMPLES
@given(data=st.data())
def test_prelu_matches_openvino(data):
    element_type = data.draw(st.sampled_from(S.FLOATS + (S.SIGNED[2],)))
    shape = data.draw(S.shapes(max_rank=4))
    kind = data.draw(st.sampled_from(["channel", "scalar", "suffix", "any"]))
    if kind == "channel" and len(shape) >= 2:
        slope_shape = (shape[1],)
    elif kind == "suffix":
        slope_shape = shape[len(shape) - data.draw(st.integers(0, len(shape))):]
    elif kind == "any":  # slopes that do not broadcast to the data are refused by irgraph (stricter)
        slope_shape = data.draw(S.shapes(max_rank=2))
        assume(np.broadcast_shapes(shape, slope_shape) == shape if _broadcastable(shape, slope_shape) else False)
    else:
        slope_shape = ()
    x = S.values(element_type, shape, data.draw(S.seeds))
    slope = S.values(element_type, slope_shape, data.draw(S.seeds), specials=False)
    check_op(PReLU(), [x, slope], same_op(PReLU(), "PRelu"))


@OP_EXAMPLES
@given(data=st.data())
def test_swish_matches_openvino(data):
    element_type = data.draw(st.sampled_from(S.FLOATS))
    x = S.values(element_type, data.draw(S.shapes()), data.draw(S.seeds))
    inputs = [x]
    if data.draw(st.booleans()):
        inputs.append(S.values(element_type, data.draw(st.sampled_from([(), (1,)])), data.draw(S.seeds),
                               specials=False))  # [1] is refused by OpenVINO 2026.4.1 (and irgraph)
    check_op(Swish(), inputs, same_op(Swish()))


@pytest.mark.parametrize(
    ("op", "values", "expected"),
    [
        (Relu(), [-1.0, -0.0, 0.0, 2.0, np.inf], [0.0, -0.0, 0.0, 2.0, np.inf]),
        (Clamp(min=0.2, max=0.6), [-1.0, 0.3, 1.0], [0.2, 0.3, 0.6]),
        (HSigmoid(), [-4.0, 0.0, 4.0], [0.0, 0.5, 1.0]),
        (SoftMax8(axis=-1), [[0.0, 0.0], [1.0, 1.0]], [[0.5, 0.5], [0.5, 0.5]]),
    ],
    ids=["relu", "clamp", "hsigmoid", "softmax-negative-axis"],
)
def test_named_cases(op, values, expected):
    (got,) = op.evaluate([np.array(values, np.float32)])
    assert got.ravel().tolist() == pytest.approx(np.array(expected, np.float32).ravel().tolist())


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64], ids=str)
@pytest.mark.parametrize("length", [1, 7, 16, 67, 1000])
def test_relu_keeps_signed_zero_and_nan_payloads_bit_for_bit(dtype, length):
    """OpenVINO's reference `x < 0 ? 0 : x`: -0.0 stays -0.0 and a NaN keeps its payload, at every position of
    SIMD blocks and tails, whichever path runs (a new array, or written into the input as the interpreter does)."""
    bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
    info = ml_dtypes.finfo(dtype)
    sign = 1 << (8 * bits.itemsize - 1)
    nan = ((1 << info.nexp) - 1) << info.nmant
    specials = np.array([sign, 0, nan | 1 << (info.nmant - 1) | 1, sign | nan | 3, nan | 1], dtype=bits).view(dtype)
    for shift in range(length):
        data = np.random.default_rng(shift).standard_normal(length).astype(dtype)
        data[np.arange(shift, shift + len(specials)) % length] = specials[: length]
        expected = np.where(data < 0, dtype(0), data).view(bits)
        (made,) = Relu().evaluate([data])
        donated = data.copy()
        (written,) = Relu().evaluate_into([donated], donated)
        assert written is donated
        assert np.array_equal(made.view(bits), expected) and np.array_equal(written.view(bits), expected)


def _flawed_maximum(flaw: str):
    """np.maximum as a platform might compute it, wrong in one way the ReLU probe must notice."""
    real = np.maximum

    def maximum(zero, data, out=None):
        result = real(zero, data, out=out)
        bits = result.view(f"u{result.dtype.itemsize}")
        sign = np.array(1 << (8 * result.dtype.itemsize - 1), bits.dtype)
        if flaw == "signed zero":  # maxps keeps +0 for max(+0, -0)
            bits[data.view(bits.dtype) == sign] = 0
        elif flaw == "nan payload":  # a NaN comes back as the canonical one
            result[np.isnan(data)] = np.nan
        elif flaw == "nan sign":  # a negative NaN comes back positive
            bits[np.isnan(data)] &= ~sign
        elif flaw == "scalar tail":  # only the elements past the last SIMD block lose -0.0
            tail = bits[len(bits) // 16 * 16:]
            tail[data.view(bits.dtype)[len(bits) // 16 * 16:] == sign] = 0
        return result

    return maximum


@pytest.mark.parametrize("flaw", ["signed zero", "nan payload", "nan sign", "scalar tail"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_relu_probe_refuses_a_maximum_that_is_not_the_reference_selection(monkeypatch, flaw, dtype):
    """Where NumPy's maximum is not `x < 0 ? 0 : x` bit for bit (another CPU, another NumPy), ReLU takes the
    masked select: the probe sees each way it can differ."""
    from irgraph.ops.activation import relu as relu_module

    relu_module._maximum_selects.cache_clear()
    monkeypatch.setattr(relu_module.np, "maximum", _flawed_maximum(flaw))
    try:
        assert relu_module._maximum_selects(np.dtype(dtype)) is False
        bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
        data = np.array([-0.0, np.nan, -np.nan, -2.0, 3.0, 0.0] * 5, dtype)
        expected = np.where(data < 0, dtype(0), data).view(bits)
        donated = data.copy()  # the masked select runs instead, in both of ReLU's paths
        assert np.array_equal(Relu().evaluate([data])[0].view(bits), expected)
        assert np.array_equal(Relu().evaluate_into([donated], donated)[0].view(bits), expected)
    finally:
        monkeypatch.undo()
        relu_module._maximum_selects.cache_clear()
    assert relu_module._maximum_selects(np.dtype(dtype)) is True  # this machine's NumPy 2.4.6 selects exactly
    assert relu_module._maximum_selects(np.dtype(np.int8)) is True
    assert relu_module._maximum_selects(np.dtype(np.float16)) is False  # NumPy's f16 maximum turns -0.0 into +0


def test_clamp_refuses_a_min_above_its_max():
    with pytest.raises(OpError) as caught:
        Clamp(min=2.0, max=1.0)
    assert str(caught.value) == "Attribute 'min' must be less or equal than 'max'. Got: 2.0 and 1.0"
    assert Clamp(min=1.0, max=1.0).compute_values(np.array([0.0, 2.0], np.float32)).tolist() == [1.0, 1.0]


def test_the_erf_table_is_within_half_an_ulp_of_one_of_libm_between_its_nodes():
    """erf_by_table's Taylor expansions at the nodes k / 256 (5th order, from the Hermite polynomials' recurrence)
    against libm's erf (Python's math.erf) on a fine grid and at the midpoints between nodes, the farthest from
    them: within 1.2e-16 absolutely, as its docstring says (a wrong 3rd-order coefficient is 1e-9 off there)."""
    import math

    from irgraph.ops.activation.gelu import erf_by_table, erf_taylor_table

    erf_taylor_table.cache_clear()  # built here again: the table under test, not one an earlier test made
    points = np.concatenate([np.linspace(-7.0, 7.0, 20001), (np.arange(1536) + 0.5) / 256])
    expected = np.array([math.erf(point) for point in points])
    assert np.abs(erf_by_table(points.copy()) - expected).max() <= 1.2e-16


def test_swish_in_a_run_writes_over_the_array_of_the_step_before(monkeypatch):
    """Swish declares it writes in place: a run hands it the intermediate array it alone reads, and the values are
    the allocating formula's bits."""
    import irgraph as ir
    from irgraph.ops.arithmetic.add import Add

    written_over: list[bool] = []
    original = Swish.evaluate_into

    def spy(self, inputs, target):
        written_over.append(target is inputs[0])
        return original(self, inputs, target)

    monkeypatch.setattr(Swish, "evaluate_into", spy)
    model = ir.Model("swish")
    x = model.parameter("x", [2, 3])
    added = ir.OutputPort(model.add_node(Add(), "a", [x, model.const(np.float32(1))]).id, 0)
    model.result(ir.OutputPort(model.add_node(Swish(), "s", [added]).id, 0), name="y")
    data = np.array([[-2.0, -1.0, 0.5], [1.0, -0.0, 3.0]], np.float32)
    (got,) = ir.run(model, {"x": data}).values()
    (expected,) = Swish().evaluate([data + np.float32(1)])
    assert written_over == [True]
    assert (got.dtype, got.tobytes()) == (expected.dtype, expected.tobytes())


def test_integer_clamp_rounds_bounds_inward():
    """Clamp-1 spec: for integer inputs min is ceil(min) and max is floor(max)."""
    (got,) = Clamp(min=-2.5, max=3.7).evaluate([np.array([-5, -2, 3, 9], np.int32)])
    assert got.tolist() == [-2, -2, 3, 3]


def test_versions_resolve_by_opset():
    assert lookup("SoftMax", "opset1") is SoftMax1 and lookup("Softmax", "opset7") is SoftMax1
    assert lookup("SoftMax", "opset8") is SoftMax8 and lookup("softmax", "opset16") is SoftMax8
    assert lookup("Gelu", "opset2") is Gelu2 and lookup("Gelu", "opset6") is Gelu2 and lookup("Gelu", "opset7") is Gelu7
    assert lookup("Gelu", "opset1") is None and lookup("Swish", "opset3") is None


def test_an_axis_left_out_of_the_ir_is_openvino_s_default():
    """openvino 2026.4.1 reads a SoftMax-1 without ``axis`` as 0, SoftMax-8 and LogSoftmax-5 as 1 (its IR reader
    keeps the default-constructed value, as NodeFactory's nodes show)."""
    from openvino.utils.node_factory import NodeFactory

    from tests.ops.differential import ov_parameter

    for opset, name, op_class in (("opset1", "Softmax", SoftMax1), ("opset8", "Softmax", SoftMax8),
                                  ("opset5", "LogSoftmax", LogSoftmax)):
        expected = NodeFactory(opset).create(name, [ov_parameter(tt("2,3"))], {}).get_attributes()["axis"]
        assert op_class.from_attributes({}).axis == expected == (0 if op_class is SoftMax1 else 1)


@pytest.mark.parametrize("op", [SoftMax1(), SoftMax8(), LogSoftmax()], ids=lambda op: op.type_name)
def test_boolean_data_is_refused(op):
    """openvino 2026.4.1 builds a boolean SoftMax and its CPU plugin returns all False for [True, False, True] (no
    folding, no reference kernel): irgraph refuses it, in shape inference and at run time."""
    message = r"^Arguments cannot have boolean element type \(argument element type: boolean\)\.$"
    with pytest.raises(OpError, match=message):
        op.infer([tt("1,3", "boolean")], [None])
    with pytest.raises(OpError, match=message):
        op.evaluate([np.array([[True, False, True]])])


def test_version_rules_name_themselves():
    with pytest.raises(OpError, match="SoftMax-1 takes no negative axis"):
        SoftMax1(axis=-1).infer([tt("2,3")], [None])
    with pytest.raises(OpError, match=r"Axis 2 out of the tensor rank range \[-2, 1\]"):
        SoftMax8(axis=2).infer([tt("2,3")], [None])
    with pytest.raises(OpError, match="Input element type must be float. Got: i32"):
        SoftSign().infer([tt("2", "i32")], [None])
    with pytest.raises(OpError, match="approximation_mode' must be erf or tanh"):
        Gelu7(approximation_mode="fast")
