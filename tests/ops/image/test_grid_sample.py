"""GridSample-9 against openvino 2026.4.1: its reference (it folds f32 data with an f32 grid only) bit for bit on
generated configurations of every mode, padding mode and align_corners, other float types against that
reference on the same values widened to f32, integer data against the CPU plugin, and named cases."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.image.grid_sample import MODES, PADDING_MODES, GridSample
from irgraph.ops.registry import lookup
from tests.ops import strategies as S
from tests.ops.differential import (
    OP_EXAMPLES,
    check_op,
    check_types,
    ov_constant,
    ov_ops,
    ov_parameter,
    ov_reference,
    same_op,
)
from tests.ops.helpers import infer, tt
from tests.ops.ir_cli import assert_openvino_ir_runs

BF16 = np.dtype(ml_dtypes.bfloat16)


def _attributes(draw):
    return {"mode": draw(st.sampled_from(MODES)), "padding_mode": draw(st.sampled_from(PADDING_MODES)),
            "align_corners": draw(st.booleans())}


def _grid(draw, batch, dtype, *, specials):
    """Points mostly inside [-1, 1], some far outside, some on quarter steps (ties of nearest and exact taps)."""
    shape = (batch, draw(st.integers(1, 4)), draw(st.integers(1, 4)), 2)
    spread = draw(st.sampled_from([1.2, 1.2, 3.0, 40.0]))
    points = S.values(ElementType.F32, shape, draw(S.seeds), specials=specials, low=-spread, high=spread)
    if draw(st.booleans()):
        points = np.round(points * 4) / 4
    return points.astype(dtype)


def _reference_f32(attributes, data, grid, result_type=None):
    """OpenVINO's reference on the inputs widened to f32 (exact: every float type here widens without rounding),
    converted to ``result_type`` by OpenVINO's Convert when given."""
    node = ov_ops.grid_sample(ov_constant(data.astype(np.float32)), ov_constant(grid.astype(np.float32)), attributes)
    if result_type is not None:
        node = ov_ops.convert(node, result_type)
    (folded,) = ov_reference(node)
    return folded


@pytest.mark.parametrize("mode", MODES)
@OP_EXAMPLES
@given(data=st.data())
def test_grid_sample_matches_openvino(mode, data):
    attributes = {**_attributes(data.draw), "mode": mode}
    shape = tuple(data.draw(st.integers(1, 5)) for _ in range(4))
    array = S.values(ElementType.F32, shape, data.draw(S.seeds), specials=data.draw(st.booleans()))
    # NaN, infinities and points beyond the int64 range have no reflection about the corner pixels: OpenVINO reads
    # outside the data there (irgraph refuses: test_reflection_of_a_point_beyond_int64_is_refused)
    wild = not (attributes["padding_mode"] == "reflection" and attributes["align_corners"])
    grid = _grid(data.draw, shape[0], np.float32, specials=wild and data.draw(st.booleans()))
    op = GridSample(**attributes)
    assert check_op(op, [array, grid], same_op(op)).reference


@OP_EXAMPLES
@given(data=st.data())
def test_f16_and_bf16_compute_in_f32_as_openvino_does(data):
    """f16/bf16 data and grids: openvino 2026.4.1 folds neither, and its CPU plugin's f16 values depend on the
    instruction set; the judge is its reference on the same values widened to f32, rounded to the data's type."""
    attributes = _attributes(data.draw)
    data_type, grid_type = data.draw(st.sampled_from(
        [(np.float16, np.float32), (np.float16, np.float16), (np.float32, np.float16), (BF16, np.float32),
         (np.float32, BF16)]))
    shape = tuple(data.draw(st.integers(1, 4)) for _ in range(4))
    array = S.values(ElementType.F32, shape, data.draw(S.seeds), specials=False).astype(data_type)
    grid = _grid(data.draw, shape[0], grid_type, specials=False)
    op = GridSample(**attributes)
    # the harness judges them the same way (reference-widened); the test pins it bit for bit
    assert check_op(op, [array, grid], same_op(op), cpu=False).judge == "reference-widened"
    (got,) = op.evaluate([array, grid])
    expected = _reference_f32(attributes, array, grid, ElementType.from_numpy(data_type).ir_name)
    assert got.dtype == expected.dtype
    unsigned = f"u{got.itemsize}"
    np.testing.assert_array_equal(got.view(unsigned), expected.view(unsigned))


@pytest.mark.parametrize(("mode", "padding_mode", "align_corners"),
                         list(itertools.product(MODES, PADDING_MODES, [False, True])))
def test_f64_computes_in_f64(mode, padding_mode, align_corners):
    """openvino 2026.4.1 neither folds f64 nor runs it in its CPU plugin (f32 there). Integer data at points on
    eighths whose pixel coordinates fall on quarters (a side of 4 without align_corners, 5 with it): every step is
    exact in f32 and f64 alike (bicubic's weights have 8 fractional bits), so the f64 result is the f32
    reference's bit for bit; at ordinary points it stays within f32's rounding of it."""
    attributes = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    rng = np.random.default_rng(7)
    side = 5 if align_corners else 4
    array = rng.integers(-8, 9, (2, 3, side, side)).astype(np.float64)
    for grid_type in (np.float64, np.float32):
        grid = (rng.integers(-12, 13, (2, 3, 4, 2)) / 8).astype(grid_type)
        (got,) = GridSample(**attributes).evaluate([array, grid])
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, _reference_f32(attributes, array, grid).astype(np.float64))
    smooth = rng.uniform(-2, 2, (2, 3, 4, 5))
    grid = rng.uniform(-1.3, 1.3, (2, 3, 4, 2))
    (got,) = GridSample(**attributes).evaluate([smooth, grid])
    np.testing.assert_allclose(got, _reference_f32(attributes, smooth, grid), rtol=0, atol=1e-5)


@pytest.mark.parametrize("element_type", [ElementType.I32, ElementType.I8, ElementType.U8])
def test_integer_data_in_nearest_mode_matches_the_cpu_plugin(element_type):
    """Nearest mode moves data without arithmetic: the CPU plugin (openvino 2026.4.1) judges integers."""
    for index, (padding_mode, align_corners) in enumerate(itertools.product(PADDING_MODES, [False, True])):
        array = S.values(element_type, (2, 3, 4, 5), index)
        grid = S.values(ElementType.F32, (2, 3, 2, 2), 100 + index, specials=False, low=-1.5, high=1.5)
        op = GridSample(mode="nearest", padding_mode=padding_mode, align_corners=align_corners)
        assert check_op(op, [array, grid], same_op(op)).cpu


def test_spec_example():
    """The spec's layer: [1,3,100,100] data and a [1,10,10,2] grid give [1,3,10,10]; align_corners, nearest,
    border. Points on the corners and centre pick the corner and centre pixels."""
    op = GridSample.from_attributes({"align_corners": "true", "mode": "nearest", "padding_mode": "border"})
    assert infer(op, [tt("1,3,100,100"), tt("1,10,10,2")], [None, None]) == ["[1,3,10,10]"]
    data = np.arange(3 * 100 * 100, dtype=np.float32).reshape(1, 3, 100, 100)
    grid = np.zeros((1, 10, 10, 2), np.float32)
    grid[0, 0, 0] = [-1, -1]  # top left: (0, 0)
    grid[0, 0, 1] = [1, 1]  # bottom right: (99, 99)
    grid[0, 0, 2] = [1, -1]  # x right, y top: (0, 99)
    grid[0, 0, 3] = [3, -7]  # outside: clamped to (0, 99)
    (out,) = op.evaluate([data, grid])
    assert out.shape == (1, 3, 10, 10)
    assert out[0, :, 0, :4].tolist() == [[0, 9999, 99, 99], [10000, 19999, 10099, 10099],
                                         [20000, 29999, 20099, 20099]]
    assert out[0, 0, 5, 5] == 50 * 100 + 50  # (0, 0) is 49.5: lrint's tie to even gives 50


def test_bilinear_by_hand():
    data = np.array([[[[0.0, 1.0], [2.0, 3.0]]]], np.float32)
    grid = np.array([[[[-1, -1], [1, 1], [0, 0], [0.5, -1]]]], np.float32)
    (corners,) = GridSample(align_corners=True).evaluate([data, grid])
    assert corners.tolist() == [[[[0.0, 3.0, 1.5, 0.75]]]]
    # without align_corners -1 and 1 are the outer borders of the edge pixels: at a corner three of the four taps
    # read zeros, on an edge two of them
    shifted = data * 4 + 4  # [[4, 8], [12, 16]]
    (outer,) = GridSample().evaluate([shifted, grid])
    assert outer.tolist() == [[[[1.0, 4.0, 10.0, 4.0]]]]
    (border,) = GridSample(padding_mode="border").evaluate([shifted, grid])
    assert border.tolist() == [[[[4.0, 16.0, 10.0, 8.0]]]]


def test_reflection_mirrors_indices():
    """Each tap's index is reflected (OpenVINO), not the coordinate (PyTorch, ONNX). Without align_corners index
    -1 mirrors to 0 and 4 to 3 in a row of 4; with it, -1 mirrors to 1 and 4 to 2."""
    row = np.array([[[[10.0, 20.0, 30.0, 40.0]]]], np.float32)
    # x = -1.25 and 1.25: -0.75*... no align: ((g + 1) * 4 - 1) / 2 = -1 and 4
    grid = np.array([[[[-1.25, 0], [1.25, 0]]]], np.float32)
    (plain,) = GridSample(mode="nearest", padding_mode="reflection").evaluate([row, grid])
    assert plain.tolist() == [[[[10.0, 40.0]]]]
    # align: (g + 1) * 3 / 2 = -1 and 4 for g = -5/3 and 5/3 (lrint of -0.99999 and 4.00001)
    grid = np.array([[[[-5 / 3, 0], [5 / 3, 0]]]], np.float32)
    (aligned,) = GridSample(mode="nearest", padding_mode="reflection", align_corners=True).evaluate([row, grid])
    assert aligned.tolist() == [[[[20.0, 30.0]]]]


def test_nearest_ties_go_to_even():
    row = np.array([[[[10, 20, 30]]]], np.int32)
    grid = np.array([[[[-0.5, 0], [0.5, 0]]]], np.float32)  # align_corners: x = g + 1 = 0.5 and 1.5
    (out,) = GridSample(mode="nearest", align_corners=True).evaluate([row, grid])
    assert out.tolist() == [[[[10, 30]]]] and out.dtype == np.int32


def test_bicubic_by_hand():
    """Keys' weights (A = -0.75) at fraction 0.75 are -0.03515625, 0.26171875, 0.87890625 and -0.10546875: on a
    ramp the taps 2..5 give 3.703125 (A = -0.75 does not reproduce straight lines); at a pixel centre the pixel."""
    ramp = np.arange(8, dtype=np.float32).reshape(1, 1, 1, 8) * np.ones((1, 1, 8, 1), np.float32)
    grid = np.array([[[[-0.125, 0], [0.0625, 0.25]]]], np.float32)  # x = ((g + 1) * 8 - 1) / 2 = 3.0 and 3.75
    (out,) = GridSample(mode="bicubic", padding_mode="border", align_corners=False).evaluate([ramp, grid])
    assert out.tolist() == [[[[3.0, 3.703125]]]]


def test_partial_shapes_match_openvino():
    def build(d, g):
        return ov_ops.grid_sample(d, g, {"mode": "bilinear", "padding_mode": "zeros", "align_corners": False})

    op = GridSample()
    for data, grid in [("1..3,4,?,8", "?,5,6,2"), ("?,4,5,6", "..."), ("...", "2,3..9,?,2"), ("...", "..."),
                       ("2..5,?,1,1", "3..8,1,1,?")]:
        check_types(op, [tt(data), tt(grid)], build)


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ([tt("1,1,2,2"), tt("1,2,2,2", "i32")],
         "The element type of the grid input tensor must be a floating point type. Got: i32"),
        ([tt("1,2,2"), tt("1,2,2,2")], "The supported shape of the input data tensor is 4D. Got: [1,2,2]"),
        ([tt("1,1,2,2"), tt("1,2,2,2,2")], "The supported shape of the grid tensor is 4D. Got: [1,2,2,2,2]"),
        ([tt("1,1,2,2"), tt("1,2,2,3")], "The last dimension of grid tensor's shape has to be equal to 2"),
        ([tt("2,1,2,2"), tt("3,2,2,2")], "The batch dimension in the input data tensor's shape doesn't match"),
    ],
)
def test_refused_as_openvino_refuses(inputs, message):
    with pytest.raises(OpError) as refusal:
        infer(GridSample(), inputs, [None, None])
    assert str(refusal.value).startswith(message)
    build = same_op(GridSample())
    with pytest.raises(RuntimeError, match=message.split(" Got")[0].replace("[", r"\[").replace("]", r"\]")):
        build(*[ov_parameter(t) for t in inputs])


def test_reflection_of_a_point_beyond_int64_is_refused():
    """With align_corners a NaN (or infinite) point has index INT64_MIN, whose |.| stays negative: OpenVINO 2026.4.1
    reads before the data for a height of 4 (INT64_MIN % 6 is -2). irgraph refuses; on spans that divide 2**63
    the index is 0 and it runs."""
    op = GridSample(padding_mode="reflection", align_corners=True)
    grid = np.array([[[[np.nan, 0.0]]]], np.float32)
    with pytest.raises(OpError, match="reflection with align_corners: a grid x that is NaN"):
        op.evaluate([np.ones((1, 1, 4, 4), np.float32), grid])
    (out,) = op.evaluate([np.ones((1, 1, 3, 3), np.float32), grid])  # span 4 divides 2**63
    assert np.isnan(out).all()


def test_integer_data_is_refused_for_interpolating_modes():
    with pytest.raises(OpError, match="GridSample bilinear needs floating-point data"):
        GridSample().evaluate([np.ones((1, 1, 2, 2), np.int32), np.zeros((1, 1, 1, 2), np.float32)])


def test_empty_data():
    grid = np.zeros((1, 2, 2, 2), np.float32)
    (out,) = GridSample().evaluate([np.ones((1, 2, 0, 3), np.float32), grid])
    assert out.shape == (1, 2, 2, 2) and not out.any()  # zeros padding: every tap is outside
    with pytest.raises(OpError, match="padding_mode border has no pixel to read in data of shape"):
        GridSample(padding_mode="border").evaluate([np.ones((1, 2, 0, 3), np.float32), grid])
    (none,) = GridSample(padding_mode="border").evaluate([np.ones((1, 0, 0, 3), np.float32), grid])
    assert none.shape == (1, 0, 2, 2)


def test_attributes():
    assert GridSample.from_attributes({}) == GridSample(align_corners=False, mode="bilinear", padding_mode="zeros")
    op = GridSample.from_attributes({"align_corners": "true", "mode": "bicubic", "padding_mode": "reflection"})
    assert op.to_attributes() == {"align_corners": "true", "mode": "bicubic", "padding_mode": "reflection"}
    with pytest.raises(OpError, match="GridSample mode must be one of bilinear, bicubic, nearest. Got: 'linear'"):
        GridSample(mode="linear")
    with pytest.raises(OpError, match="padding_mode must be one of"):
        GridSample(padding_mode="mirror")
    assert lookup("GridSample", "opset9") is GridSample and lookup("GridSample", "opset16") is GridSample
    assert lookup("GridSample", "opset8") is None


def test_an_openvino_ir_runs_through_the_cli(tmp_path, capsys):
    rng = np.random.default_rng(3)
    data = rng.standard_normal((1, 2, 5, 6)).astype(np.float32)
    grid = rng.uniform(-1.2, 1.2, (1, 3, 4, 2)).astype(np.float32)
    attributes = {"mode": "bicubic", "padding_mode": "reflection", "align_corners": False}
    assert_openvino_ir_runs(lambda d, g: ov_ops.grid_sample(d, g, attributes), [data, grid], tmp_path, capsys)


@pytest.mark.parametrize("padding_mode", ["border", "reflection"])
def test_an_empty_image_has_no_pixel_to_read_for_any_batch(padding_mode):
    """Two images of height 0 and one grid point each: border and reflection padding read a pixel, there is none."""
    op = GridSample(padding_mode=padding_mode)
    with pytest.raises(OpError, match=rf"^GridSample padding_mode {padding_mode} has no pixel to read in data of "
                                      r"shape \[2,1,0,3\]$"):
        op.evaluate([np.zeros((2, 1, 0, 3), np.float32), np.zeros((2, 1, 1, 2), np.float32)])
