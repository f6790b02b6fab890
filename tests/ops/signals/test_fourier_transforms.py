"""DFT-7, IDFT-7, RDFT-9 and IRDFT-9 against OpenVINO 2026.4.1.

Two oracles judge the values, because 2026.4.1 neither folds nor evaluates these ops (their reference kernels
run only in the template plugin, which the wheel lacks):

- OpenVINO's reference algorithm, ported statement by statement to f32 scalars (``fft_reference``): irgraph is
  within ``FFT_TOLERANCE`` of it for f32, f16 and bf16 (the port rounds its f32 result as the reference's
  ``fft_postprocessing``);
- the CPU plugin (f32 and f16), whose own kernels differ from the reference: its DFT and IDFT use the same f32
  twiddles (within the same tolerance), its RDFT and IRDFT more accurate ones, so against them the bound adds
  the reference's twiddle error, ``8 L`` eps of the summed moduli per naive-length axis (the angle
  ``2 pi n k / L`` in f32 is off by up to 1.25 eps of itself, and reaches ``2 pi L``). Measured with 300
  random configurations up to L = 100: DFT/IDFT within 0.93 eps x sum|terms| of the plugin, RDFT 27 and IRDFT
  37 at L = 100. The plugin cannot be asked for RDFT or IRDFT with a ``-1`` signal size ("cannot create
std::vector larger than max_size()"), fails an RDFT that pads, returns wrong values for IRDFT with any signal
size (1e24 off numpy's irfftn) and crashes on an IRDFT whose output is empty: those configurations are judged
by the port alone.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np
import openvino.opset16 as ov16
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.families.fft import FFT_TOLERANCE, FourierTransform, is_power_of_two
from irgraph.ops.numeric import round_to_bf16
from irgraph.ops.op import Tolerance
from irgraph.ops.shape.shape_of import ShapeOf3
from irgraph.ops.signals.dft import DFT
from irgraph.ops.signals.idft import IDFT
from irgraph.ops.signals.irdft import IRDFT
from irgraph.ops.signals.rdft import RDFT
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, assert_values_close, check_op, check_types, port
from tests.ops.helpers import infer, tt
from tests.ops.signals import fft_reference
from tests.ops.test_shape_propagation import Twin

BUILDERS = {"DFT": ov16.dft, "IDFT": ov16.idft, "RDFT": ov16.rdft, "IRDFT": ov16.irdft}
OPS: dict[str, FourierTransform] = {"DFT": DFT(), "IDFT": IDFT(), "RDFT": RDFT(), "IRDFT": IRDFT()}


def build(name: str) -> Any:
    return lambda *inputs: BUILDERS[name](*inputs)


# ------------------------------------------------------------------------------------ the reference, independently
def reference_lengths(name: str, shape: tuple[int, ...], axes: list[int], sizes: list[int] | None) -> list[int]:
    """The transform lengths as the template plugin's ``get_info_for_*_eval`` computes them."""
    lengths = list(shape if name == "RDFT" else shape[:-1])
    for axis, size in zip(axes, sizes or [-1] * len(axes), strict=True):
        if size != -1:
            lengths[axis] = size
    if name == "IRDFT" and (sizes is None or sizes[-1] == -1):
        lengths[axes[-1]] = 2 * (shape[axes[-1]] - 1)
    return lengths


def reference(name: str, data: np.ndarray, axes: list[int], sizes: list[int] | None) -> np.ndarray:
    """The ported reference's result in the data's element type."""
    rank = data.ndim if name == "RDFT" else data.ndim - 1
    canonical = [axis + rank if axis < 0 else axis for axis in axes]
    lengths = reference_lengths(name, data.shape, canonical, sizes)
    wide = data.astype(np.float32)
    if name == "RDFT":
        result = fft_reference.rdft(wide, canonical, lengths)
    elif name == "IRDFT":
        result = fft_reference.irdft(wide, canonical, lengths)
    else:
        result = fft_reference.fft(wide, canonical, lengths, inverse=name == "IDFT")
    if data.dtype == np.dtype(ml_dtypes.bfloat16):
        return round_to_bf16(result)
    return result.astype(data.dtype)


def cpu_tolerance(name: str, lengths: list[int], axes: list[int]) -> Tolerance:
    """The bound against the CPU plugin: its DFT/IDFT share the reference's twiddles; its RDFT/IRDFT do not, so
    the reference's own twiddle error (8 L eps of the summed moduli per naive axis) is added."""
    if name in ("DFT", "IDFT"):
        return Tolerance(ulp=2, eps=1, sum_eps=FFT_TOLERANCE.sum_eps)
    naive = sum(8 * lengths[axis] for axis in axes if not is_power_of_two(lengths[axis]))
    return Tolerance(ulp=2, eps=1, sum_eps=FFT_TOLERANCE.sum_eps + naive)


# ------------------------------------------------------------------------------------ generated configurations
@st.composite
def configurations(draw: st.DrawFn, name: str) -> tuple[np.ndarray, list[int], list[int] | None]:
    """Data, axes (each maybe negative, in any order) and maybe signal sizes; lengths 1-9 (powers of two and
    not), now and then a line of zeros (the reference leaves it as it is)."""
    element_type = draw(st.sampled_from([ElementType.F32, ElementType.F32, ElementType.F16, ElementType.BF16]))
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 9), min_size=rank, max_size=rank)))
    count = draw(st.integers(1, rank))
    axes = draw(st.permutations(range(rank)))[:count]
    axes = [axis - rank if draw(st.booleans()) else axis for axis in axes]
    sizes = None
    if draw(st.booleans()):
        sizes = [draw(st.sampled_from([-1, 1, 2, 3, 4, 5, 6, 8, 10])) for _ in axes]
    if name == "IRDFT" and (sizes is None or sizes[-1] == -1) and shape[axes[-1]] < 2:
        shape = tuple(2 if i == axes[-1] % rank else d for i, d in enumerate(shape))  # an output of length >= 2
    full = shape if name == "RDFT" else (*shape, 2)
    data = S.values(element_type, full, draw(S.seeds), specials=False, low=-4, high=4)
    if draw(st.integers(0, 3)) == 0 and data.size:
        data[(0,) * (rank - 1)] = draw(st.sampled_from([0.0, -0.0]))  # a line of zeros (or -0.0) along the last axis
    return data, axes, sizes


@pytest.mark.parametrize("name", list(OPS))
@OP_EXAMPLES
@given(data=st.data())
def test_matches_the_reference_algorithm_and_the_cpu_plugin(name, data):
    x, axes, sizes = data.draw(configurations(name))
    op = OPS[name]
    inputs = [x, np.array(axes, np.int32)] + ([] if sizes is None else [np.array(sizes, np.int32)])
    expected = reference(name, x, axes, sizes)
    canonical, lengths = op.plan(inputs)
    plugin_can = not (name in ("RDFT", "IRDFT") and sizes is not None and (name == "IRDFT" or -1 in sizes))
    # the port judges every configuration; the CPU plugin those it can run
    outcome = check_op(op, inputs, build(name), constant={1, 2}, cpu=plugin_can,
                       cpu_tolerance=cpu_tolerance(name, lengths, canonical),
                       independent=port(lambda op, arrays, types: [expected]))
    assert not outcome.refused
    if sizes is None and x.dtype != np.dtype(ml_dtypes.bfloat16):
        assert outcome.cpu  # it refuses an RDFT that pads (a signal size above the axis' length)


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize(("shape", "axes", "sizes"), [
    ((4, 6), [0, 0], None),  # an axis twice
    ((4, 6, 2), [0, -3], None),  # the same axis counted from the end (RDFT: over the rank 3 of its real data)
    ((4, 6), [2], None),  # out of range
    ((4, 6), [-3], None),
    ((4, 6), [0], [3, 3]),  # not one signal size per axis
    ((4, 2), [[0]], None),  # axes not 1D
])
def test_what_openvino_refuses_irgraph_refuses(name, shape, axes, sizes):
    x = np.ones(shape, np.float32)
    inputs = [x, np.array(axes, np.int32)] + ([] if sizes is None else [np.array(sizes, np.int32)])
    assert check_op(OPS[name], inputs, build(name), constant={1, 2}, cpu=False).refused


@pytest.mark.parametrize(("name", "shape"), [("DFT", (4, 3)), ("IDFT", (2,)), ("IRDFT", (4, 6, 1))])
def test_complex_data_needs_a_last_dim_of_2_and_rank_2(name, shape):
    inputs = [np.ones(shape, np.float32), np.array([0], np.int32)]
    assert check_op(OPS[name], inputs, build(name), constant={1}, cpu=False).refused


# ------------------------------------------------------------------------------------ shapes
@pytest.mark.parametrize(("name", "shape", "axes", "sizes", "expected"), [
    # the spec's examples (dft-7.rst, idft-7.rst, rdft-9.rst, irdft-9.rst)
    ("DFT", "1,320,320,2", [1, 2], None, "[1,320,320,2]"),
    ("DFT", "320,320,2", [0, 1], None, "[320,320,2]"),
    ("DFT", "1,320,320,2", [1, 2], [512, 100], "[1,512,100,2]"),
    ("DFT", "320,320,2", [0, 1], [512, 100], "[512,100,2]"),
    ("DFT", "16,768,580,320,2", [3, 1, 2], [170, -1, 1024], "[16,768,1024,170,2]"),
    ("DFT", "16,768,580,320,2", [3, 0, 2], [258, -1, 2056], "[16,768,2056,258,2]"),
    ("IDFT", "16,768,580,320,2", [3, 1, 2], [170, -1, 1024], "[16,768,1024,170,2]"),
    ("RDFT", "1,320,320", [1, 2], None, "[1,320,161,2]"),
    ("RDFT", "320,320", [0, 1], [512, 100], "[512,51,2]"),
    ("RDFT", "16,768,580,320", [3, 1, 2], [170, -1, 1024], "[16,768,513,170,2]"),
    ("IRDFT", "1,161,161,2", [1, 2], None, "[1,161,320]"),
    ("IRDFT", "161,161,2", [0, 1], [512, 100], "[512,100]"),
    ("IRDFT", "16,768,580,320,2", [3, 1, 2], [170, -1, 1024], "[16,768,1024,170]"),
    ("IRDFT", "16,768,580,320,2", [3, 0, 2], [258, -1, 2056], "[16,768,2056,258]"),
])
def test_the_spec_examples(name, shape, axes, sizes, expected):
    values = [None, np.array(axes, np.int64)] + ([] if sizes is None else [np.array(sizes, np.int64)])
    types = [tt(shape), tt(str(len(axes)), "i64")] + ([] if sizes is None else [tt(str(len(sizes)), "i64")])
    assert infer(OPS[name], types, values) == [expected]
    check_types(OPS[name], types, build(name), values)


@st.composite
def partial_configurations(draw: st.DrawFn, name: str) -> tuple[list[Any], list[np.ndarray | None]]:
    """Partial data shapes (dynamic dims, intervals, dynamic rank), constant or unknown axes and signal sizes."""
    rank = draw(st.integers(1, 4))
    dims = [draw(st.sampled_from(["?", "2..7", "0..3", "1", "5", "8"])) for _ in range(rank)]
    if name != "RDFT":
        dims.append(draw(st.sampled_from(["2", "?", "1..2"])))
    shape = "..." if draw(st.integers(0, 6)) == 0 else ",".join(dims)
    count = draw(st.integers(1, rank))
    axes = [axis - rank if draw(st.booleans()) else axis for axis in draw(st.permutations(range(rank)))[:count]]
    types = [tt(shape), tt(str(count), draw(st.sampled_from(["i32", "i64"])))]
    values: list[np.ndarray | None] = [None, np.array(axes, np.int64) if draw(st.integers(0, 4)) else None]
    if draw(st.booleans()):
        types.append(tt(str(count), "i64"))
        known = draw(st.integers(0, 3))
        values.append(np.array([draw(st.sampled_from([-1, 0, 3, 6])) for _ in axes], np.int64) if known else None)
    return types, values


@pytest.mark.parametrize("name", list(OPS))
@OP_EXAMPLES
@given(data=st.data())
def test_partial_shapes(name, data):
    types, values = data.draw(partial_configurations(name))
    check_types(OPS[name], types, build(name), values)


@pytest.mark.parametrize(("name", "expected"), [("DFT", "f32[4,2..7,2]"), ("IDFT", "f32[4,2..7,2]"),
                                                ("RDFT", "f32[4,?,2]"), ("IRDFT", "f32[4,?]")])
def test_a_computed_signal_size_gives_its_bounds_to_dft_and_idft_only(name, expected):
    """openvino 2026.4.1 reads the bounds of a computed signal size for DFT and IDFT; RDFT and IRDFT take only a
    constant one and leave the last axis dynamic."""
    twin = Twin()
    data = twin.parameter("4,6" if name == "RDFT" else "4,6,2")
    size = twin.op(ShapeOf3(output_type=ElementType.I64), lambda x: ov16.shape_of(x), twin.parameter("2..7"))
    node = twin.op(OPS[name], build(name), data, twin.const([1]), size)
    assert twin.check(node) == expected


# ------------------------------------------------------------------------------------ exact values
def complex_pairs(values: list[complex]) -> np.ndarray:
    return np.array([[v.real, v.imag] for v in values], np.float32)


def test_an_impulse_has_a_flat_spectrum_of_every_length():
    for length in (1, 2, 3, 4, 5, 8, 12):
        impulse = complex_pairs([1 + 0j] + [0j] * (length - 1))
        (spectrum,) = DFT().evaluate([impulse, np.array([0])])
        assert spectrum.tolist() == [[1.0, 0.0]] * length  # 1 x twiddle(0) = (1, -0): exact, as the reference


def test_a_constant_has_only_a_dc_term_for_a_power_of_two():
    (spectrum,) = DFT().evaluate([complex_pairs([2 + 1j] * 4), np.array([-1])])
    assert spectrum.tolist() == [[8.0, 4.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    (back,) = IDFT().evaluate([spectrum, np.array([0])])
    assert back.tolist() == [[2.0, 1.0]] * 4


def test_signal_size_pads_with_zeros_and_trims():
    one = complex_pairs([1 + 0j])
    (padded,) = DFT().evaluate([one, np.array([0]), np.array([4])])
    assert padded.tolist() == [[1.0, 0.0]] * 4
    (trimmed,) = DFT().evaluate([complex_pairs([3 + 0j, 5 + 0j, 7 + 0j]), np.array([0]), np.array([1])])
    assert trimmed.tolist() == [[3.0, 0.0]]


def test_rdft_keeps_half_the_spectrum_of_the_last_listed_axis():
    (half,) = RDFT().evaluate([np.array([1, 0, 0, 0, 0], np.float32), np.array([0])])
    assert half.tolist() == [[1.0, 0.0]] * 3  # 5 // 2 + 1 values
    grid = np.zeros((3, 4), np.float32)
    grid[0, 0] = 1
    (by_rows,) = RDFT().evaluate([grid, np.array([1, 0])])  # the last listed axis is 0: 3 // 2 + 1 rows
    assert by_rows.shape == (2, 4, 2) and by_rows.tolist() == np.tile([1.0, 0.0], (2, 4, 1)).tolist()


def test_irdft_extends_a_hermitian_half_spectrum():
    (signal,) = IRDFT().evaluate([complex_pairs([4 + 0j, 0j, 0j]), np.array([0])])  # length 2 (3 - 1)
    assert signal.tolist() == [1.0, 1.0, 1.0, 1.0]
    (odd,) = IRDFT().evaluate([complex_pairs([5 + 0j, 0j, 0j]), np.array([0]), np.array([5])])
    assert odd.tolist() == [1.0] * 5


def test_a_line_of_zeros_keeps_its_signs():
    """The reference skips a line whose values all equal 0: -0.0 stays -0.0 (a computed zero would be +0.0)."""
    zeros = np.array([[-0.0, -0.0], [0.0, -0.0], [-0.0, 0.0]], np.float32)
    (out,) = DFT().evaluate([zeros, np.array([0])])
    assert np.signbit(out).tolist() == np.signbit(zeros).tolist()


def test_f16_and_bf16_are_computed_in_f32_and_rounded_once():
    x = S.values(ElementType.F32, (6, 2), 3, specials=False)
    for dtype in (np.float16, ml_dtypes.bfloat16):
        narrow = x.astype(dtype)
        (mine,) = DFT().evaluate([narrow, np.array([0])])
        (wide,) = DFT().evaluate([narrow.astype(np.float32), np.array([0])])
        assert mine.dtype == np.dtype(dtype)
        expected = wide.astype(dtype) if dtype is np.float16 else round_to_bf16(wide)
        np.testing.assert_array_equal(mine.view(np.uint16), expected.view(np.uint16))


def test_naive_lengths_use_the_reference_twiddles_not_exact_ones():
    """At L = 100, numpy.fft's exact twiddles would be 18 eps x sum|terms| from the reference; irgraph is within
    FFT_TOLERANCE of the ported reference."""
    x = S.values(ElementType.F32, (100, 2), 11, specials=False)
    inputs = [x, np.array([0])]
    (mine,) = DFT().evaluate(inputs)
    expected = fft_reference.fft(x, [0], [100], inverse=False)
    magnitude = DFT().term_magnitudes(inputs)[0]
    assert_values_close(mine, expected, FFT_TOLERANCE, "DFT L=100 vs the ported reference", magnitude)
    exact = np.fft.fft(x[:, 0].astype(np.float64) + 1j * x[:, 1])
    exact_pairs = np.stack([exact.real, exact.imag], axis=-1).astype(np.float32)
    far = np.abs(exact_pairs.astype(np.float64) - expected) / (np.finfo(np.float32).eps * magnitude)
    assert far.max() > FFT_TOLERANCE.sum_eps  # the exact transform would fail the reference's tolerance


def test_refusals_name_the_rule():
    with pytest.raises(OpError, match=r"^Each axis must be unique. Got: \[0, -2\]"):
        infer(DFT(), [tt("4,6,2"), tt("2", "i64")], [None, [0, -2]])
    with pytest.raises(OpError, match=r"^Axis 2 out of the tensor rank range \[-2, 1\]"):
        infer(IDFT(), [tt("4,6,2"), tt("1", "i64")], [None, [2]])
    with pytest.raises(OpError, match="^The last dimension of input data must be 2"):
        infer(IRDFT(), [tt("4,6,3"), tt("1", "i64")], [None, [0]])
    with pytest.raises(OpError, match="^FFT op input element type must be f32, f16, or bf16. Got: f64"):
        infer(RDFT(), [tt("4,6", "f64"), tt("1", "i64")], [None, [0]])
    with pytest.raises(OpError, match="^RDFT needs at least one axis"):  # OpenVINO 2026.4.1 crashes on it
        infer(RDFT(), [tt("4,6"), tt("0", "i64")], [None, np.zeros(0, np.int64)])
    with pytest.raises(OpError, match="^Sizes of inputs 'axes' and 'signal_size' must be equal"):
        DFT().evaluate([np.ones((3, 2), np.float32), np.array([0]), np.array([1, 2])])


def test_a_large_naive_length_builds_its_twiddles_in_chunks(monkeypatch):
    import irgraph.ops.families.fft as family
    x = S.values(ElementType.F32, (2, 30, 2), 5, specials=False)
    (whole,) = DFT().evaluate([x, np.array([1])])
    monkeypatch.setattr(family, "TWIDDLE_CHUNK", 64)  # two columns at a time
    (chunked,) = DFT().evaluate([x, np.array([1])])
    np.testing.assert_array_equal(whole, chunked)
    assert math.isfinite(float(np.abs(whole).max()))


@pytest.mark.parametrize(("name", "data", "message"), [
    ("DFT", "4,2", "The input rank must be greater than the number of axes"),
    ("IDFT", "4,2", "The input rank must be greater than the number of axes"),
    ("RDFT", "4", "The input rank must be greater than or equal to the number of axes"),
])
def test_more_axes_than_the_rank_are_refused_before_their_values_are_known(name, data, message):
    """Two axes of unknown values over one signal axis: openvino 2026.4.1 refuses it too (check_types)."""
    types = [tt(data), tt("2", "i64")]
    assert check_types(OPS[name], types, build(name)).refused
    with pytest.raises(OpError, match=message):
        infer(OPS[name], types, [None, None])


@pytest.mark.parametrize("name", ["DFT", "IDFT"])
def test_empty_complex_data_gives_an_empty_result_of_the_inferred_shape(name):
    """[0, 3, 2] over axis 1: no line to transform; the result keeps the shape [0, 3, 2] (the shape rule's)."""
    (out,) = OPS[name].evaluate([np.zeros((0, 3, 2), np.float32), np.array([1])])
    assert out.shape == (0, 3, 2) and out.dtype == np.float32
    assert infer(OPS[name], [tt("0,3,2"), tt("1", "i64")], [None, np.array([1])]) == ["[0,3,2]"]


@pytest.mark.parametrize(("name", "shape", "axes", "expected"), [
    ("DFT", (0, 3, 4, 2), [1], (0, 3, 4, 2)), ("DFT", (3, 0, 4, 2), [2], (3, 0, 4, 2)),
    ("RDFT", (0, 3, 5), [1], (0, 2, 5, 2)), ("RDFT", (2, 0, 5), [2], (2, 0, 3, 2)),
])
def test_empty_data_of_rank_three_keeps_the_other_axes(name, shape, axes, expected):
    """RDFT keeps L // 2 + 1 of the last listed axis, as the shape rule says; the empty axes stay empty."""
    (out,) = OPS[name].evaluate([np.zeros(shape, np.float32), np.array(axes)])
    assert out.shape == expected
    assert infer(OPS[name], [tt(",".join(map(str, shape))), tt("1", "i64")], [None, np.array(axes)]) == [
        "[" + ",".join(map(str, expected)) + "]"]


@pytest.mark.parametrize(("types", "values", "expected"), [
    # axes of unknown rank with a 1D signal_size: nothing to compare their lengths with yet
    ([tt("4,6,2"), tt("...", "i64"), tt("2", "i64")], [None, None, None], "[?,?,2]"),
    ([tt("4,6,2"), tt("2", "i64"), tt("...", "i64")], [None, None, None], "[?,?,2]"),
    # signal_size -1 keeps the axis, 1 sets it to 1
    ([tt("4,6,2"), tt("1", "i64"), tt("1", "i64")], [None, np.array([0]), np.array([-1])], "[4,6,2]"),
    ([tt("4,6,2"), tt("1", "i64"), tt("1", "i64")], [None, np.array([0]), np.array([1])], "[1,6,2]"),
])
def test_signal_size_shapes_match_openvino(types, values, expected):
    """openvino 2026.4.1's shape inference agrees (check_types), and gives ``expected``."""
    check_types(DFT(), types, build("DFT"), values)
    assert infer(DFT(), types, values) == [expected]


def test_complex_data_of_rank_one_is_refused_at_run_time():
    with pytest.raises(OpError, match=r"^The input rank must be greater or equal to 2\. Got shape \[2\]$"):
        IDFT().evaluate([np.ones(2, np.float32), np.array([0])])


def test_a_computed_signal_size_of_exactly_one_sets_its_axis_to_one():
    """Signal sizes [1, 2..7] (the shape of a [1, 2..7] tensor): the known 1 is a size, not -1's keep-the-axis;
    openvino 2026.4.1 gives [1,2..7,2] too."""
    twin = Twin()
    size = twin.op(ShapeOf3(output_type=ElementType.I64), lambda x: ov16.shape_of(x), twin.parameter("1,2..7"))
    node = twin.op(DFT(), build("DFT"), twin.parameter("4,6,2"), twin.const([0, 1]), size)
    assert twin.check(node) == "f32[1,2..7,2]"
