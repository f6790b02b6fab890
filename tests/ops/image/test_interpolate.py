"""Interpolate-1, -4 and -11 against openvino 2026.4.1's reference (constant folding), plus named cases."""

from __future__ import annotations

import numpy as np
import openvino.opset11 as ov_ops11
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openvino.utils.node_factory import NodeFactory

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.families import resampling
from irgraph.ops.image.interpolate import (
    NEAREST_MODES,
    TRANSFORMS,
    Interpolate1,
    Interpolate4,
    Interpolate11,
)
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import lookup
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_constant, ov_reference
from tests.ops.helpers import infer, tt

FOLDED = [ElementType.F32, ElementType.F16, ElementType.BF16, ElementType.I8, ElementType.U8]
"""openvino 2026.4.1 folds Interpolate of these element types only."""
CPU_TOLERANCE = Tolerance(ulp=16, eps=64)
SCALES = [0.25, 1 / 3, 0.5, 0.6, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0]


@st.composite
def configuration(draw, modes):
    """A data array, axes, sizes/scales and attributes OpenVINO's reference can run."""
    mode = draw(st.sampled_from(modes))
    rank = draw(st.integers(2, 5))
    shape = tuple(draw(st.lists(st.integers(1, 5 if rank < 5 else 3), min_size=rank, max_size=rank)))
    if mode == "linear_onnx":
        axes = list(range(rank)) if rank < 4 or draw(st.booleans()) else list(range(2, rank))
        if len(axes) == rank and rank >= 4:  # batch and channels may only keep their lengths
            fixed = 2
        else:
            fixed = 0
    elif mode.endswith("pillow"):  # exactly two axes, height then width
        # openvino 2026.4.1 crashes (a broken transpose back) when the height axis comes after the width axis
        axes = sorted(draw(st.lists(st.integers(0, rank - 1), min_size=2, max_size=2, unique=True)))
        fixed = 0
    else:
        axes = sorted(draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=min(rank, 3), unique=True)))
        fixed = 0
    pads_begin = draw(st.lists(st.integers(0, 2), min_size=rank, max_size=rank)) if draw(st.booleans()) else [0]
    pads_end = draw(st.lists(st.integers(0, 2), min_size=rank, max_size=rank)) if draw(st.booleans()) else [0]
    if fixed:
        pads_begin = [0, 0, *pads_begin[2:]] if len(pads_begin) == rank else pads_begin
        pads_end = [0, 0, *pads_end[2:]] if len(pads_end) == rank else pads_end
    padded = [n + (pads_begin[i] if i < len(pads_begin) else 0) + (pads_end[i] if i < len(pads_end) else 0)
              for i, n in enumerate(shape)]
    use_scales = draw(st.booleans())
    if use_scales:
        # openvino 2026.4.1's Pillow kernels crash (read before their bounds) on an empty output.
        def usable(axis):
            return [x for x in SCALES if int(np.float32(padded[axis]) * np.float32(x + 1e-6)) > 0] \
                if mode.endswith("pillow") else SCALES
        scales = [1.0 if i < fixed else draw(st.sampled_from(usable(a))) for i, a in enumerate(axes)]
        values = np.array(scales, np.float32)
    else:
        sizes = [padded[a] if i < fixed else draw(st.integers(1, 7)) for i, a in enumerate(axes)]
        values = np.array(sizes, draw(st.sampled_from([np.int64, np.int32])))
    attrs = {
        "mode": mode,
        "shape_calculation_mode": "scales" if use_scales else "sizes",
        "coordinate_transformation_mode": draw(st.sampled_from(TRANSFORMS)),
        "nearest_mode": draw(st.sampled_from(NEAREST_MODES)),
        "antialias": draw(st.booleans()) if mode == "linear" else False,
        "pads_begin": tuple(pads_begin),
        "pads_end": tuple(pads_end),
        "cube_coeff": draw(st.sampled_from([-0.75, -0.5, -0.6])),
    }
    element_type = draw(st.sampled_from(FOLDED))
    data = S.values(element_type, shape, draw(S.seeds), specials=draw(st.integers(0, 3)) == 0)
    return data, np.array(axes, np.int64), values, attrs


def _ov_attrs(attrs):
    return {**attrs, "pads_begin": list(attrs["pads_begin"]), "pads_end": list(attrs["pads_end"])}


@pytest.mark.parametrize("mode", ["nearest", "linear_onnx", "cubic", "linear", "bilinear_pillow", "bicubic_pillow"])
@OP_EXAMPLES
@given(data=st.data())
def test_interpolate11_matches_openvino(mode, data):
    array, axes, values, attrs = data.draw(configuration([mode]))
    with_axes = data.draw(st.booleans()) or axes.tolist() != list(range(array.ndim))
    inputs = [array, values, axes] if with_axes else [array, values]
    ov_attrs = _ov_attrs(attrs)

    def build(d, v, a=None):
        return ov_ops11.interpolate(d, v, axes=a, **ov_attrs)

    check_op(Interpolate11(**attrs), inputs, build, constant=[1, 2])


_OPSET4 = NodeFactory("opset4")
_OPSET1 = NodeFactory("opset1")


@pytest.mark.parametrize("mode", ["nearest", "linear_onnx", "cubic", "linear"])
@OP_EXAMPLES
@given(data=st.data())
def test_interpolate4_matches_openvino(mode, data):
    array, axes, values, attrs = data.draw(configuration([mode]))
    padded = np.array([n + (attrs["pads_begin"][i] if i < len(attrs["pads_begin"]) else 0)
                       + (attrs["pads_end"][i] if i < len(attrs["pads_end"]) else 0)
                       for i, n in enumerate(array.shape)])
    if attrs["shape_calculation_mode"] == "scales":  # the unused input still has to be there
        scales = values
        sizes = np.floor(padded[axes] * (scales + 1e-6)).astype(np.int64)
    else:
        sizes = values
        scales = (values / padded[axes]).astype(np.float32)
    ov_attrs = _ov_attrs(attrs)

    def build(d, s, c, a):
        return _OPSET4.create("Interpolate", [d, s, c, a], ov_attrs)

    check_op(Interpolate4(**attrs), [array, sizes, scales, axes], build, constant=[1, 2, 3])


@settings(OP_EXAMPLES, max_examples=min(OP_EXAMPLES.max_examples, 10))
@given(data=st.data())
def test_interpolate1_matches_openvino(data):
    """openvino 2026.4.1 folds no Interpolate-1: its CPU plugin (f32, spatial axes of NCHW; it returns
    uninitialised memory when resizing the batch axis) is the oracle. Few examples: each compiles a model."""
    mode = data.draw(st.sampled_from(["nearest", "linear", "cubic"]))
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=4, max_size=4)))
    axes = [2, 3] if mode == "linear" else data.draw(st.sampled_from([[2], [3], [2, 3]]))
    sizes = np.array([data.draw(st.integers(1, 7)) for _ in axes], np.int32)
    attrs = {"axes": tuple(axes), "mode": mode, "align_corners": data.draw(st.booleans()),
             "antialias": False, "pads_begin": (0,), "pads_end": (0,)}
    array = S.values(ElementType.F32, shape, data.draw(S.seeds), specials=False)
    ov_attrs = {**attrs, "axes": list(axes), "pads_begin": [0], "pads_end": [0]}

    def build(d, s):
        return _OPSET1.create("Interpolate", [d, s], ov_attrs)

    # The plugin's kernels weight and sum in their own order: values of size ~10 that cancel to ~0.05
    # differ by a few f32 eps absolutely.
    outcome = check_op(Interpolate1(**attrs), [array, sizes], build, constant=[1], cpu_tolerance=CPU_TOLERANCE)
    assert outcome.reference or outcome.cpu


def test_partial_shapes_match_openvino():
    data = tt("1,2..10,?,4")
    attrs = {"mode": "nearest", "shape_calculation_mode": "scales"}
    check_types(Interpolate11(**attrs), [data, tt("2"), tt("2", "i64")],
                lambda d, v, a: ov_ops11.interpolate(d, v, axes=a, **attrs),
                [None, np.array([1.5, 0.5], np.float32), np.array([1, 2], np.int64)])
    attrs = {"mode": "nearest", "shape_calculation_mode": "sizes", "pads_begin": [0, 1, 1, 0]}
    check_types(Interpolate11(mode="nearest", pads_begin=(0, 1, 1, 0)), [data, tt("2", "i64"), tt("2", "i64")],
                lambda d, v, a: ov_ops11.interpolate(d, v, axes=a, **attrs),
                [None, np.array([5, 3], np.int64), np.array([1, 2], np.int64)])
    check_types(Interpolate11(mode="nearest", pads_begin=(0, 1, 1, 0)), [data, tt("2", "i64"), tt("2", "i64")],
                lambda d, v, a: ov_ops11.interpolate(d, v, axes=a, **attrs),
                [None, None, np.array([1, 2], np.int64)])


def _run11(data, values, axes=None, **attrs):
    op = Interpolate11(**attrs)
    inputs = [np.asarray(data), np.asarray(values)] + ([np.array(axes, np.int64)] if axes is not None else [])
    return op.evaluate(inputs)[0]


def test_spec_example_nearest_downsample():
    """The spec's [1,1,2,4] data at scales 0.6: half_pixel and round_prefer_floor (the defaults) pick row 0
    and columns 0 and 2 (openvino 2026.4.1 folds the same)."""
    data = np.arange(1, 9, dtype=np.float32).reshape(1, 1, 2, 4)
    out = _run11(data, np.array([0.6, 0.6], np.float32), [2, 3], mode="nearest", shape_calculation_mode="scales")
    # lengths int64(2 * (0.6 + 1e-6)) = 1 and int64(4 * 0.600001) = 2; half_pixel, round_prefer_floor
    assert out.shape == (1, 1, 1, 2)
    np.testing.assert_array_equal(out, [[[[1.0, 3.0]]]])


def test_nearest_modes_on_one_axis():
    data = np.arange(4, dtype=np.float32)
    results = {rule: _run11(data, np.array([8], np.int64), mode="nearest", nearest_mode=rule,
                            coordinate_transformation_mode="asymmetric").tolist()
               for rule in NEAREST_MODES}
    # asymmetric coordinates 0, 0.5, 1, 1.5, ...: the rule decides the halves
    assert results["round_prefer_floor"] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert results["round_prefer_ceil"] == [0, 1, 1, 2, 2, 3, 3, 3]
    assert results["floor"] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert results["ceil"] == [0, 1, 1, 2, 2, 3, 3, 3]
    assert results["simple"] == [0, 0, 1, 1, 2, 2, 3, 3]


@pytest.mark.parametrize("factors", [(2, 2), (3, 1), (1, 5), (8, 4)])  # 8 x 4 copies: one broadcast copy
def test_nearest_integer_upsampling_repeats_each_value(factors):
    """YOLO's nearest Resize (floor, asymmetric): each source value repeated by the factor of its axis, the path that
    copies the data once per combination of copies; a NaN's payload is copied as it is."""
    data = np.arange(2 * 3 * 4, dtype=np.float32).reshape(1, 2, 3, 4)
    data[0, 1, 2, 3] = np.array(0x7FC00005, np.uint32).view(np.float32)
    sizes = np.array([3 * factors[0], 4 * factors[1]], np.int64)
    got = _run11(data, sizes, np.array([2, 3], np.int64), mode="nearest", nearest_mode="floor",
                 coordinate_transformation_mode="asymmetric")
    expected = data.repeat(factors[0], axis=2).repeat(factors[1], axis=3)
    assert got.flags.c_contiguous and not np.shares_memory(got, data)
    np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))


def test_linear_onnx_align_corners_doubles_a_ramp():
    data = np.array([[0.0, 3.0]], np.float32)
    out = _run11(data, np.array([1, 4], np.int64), mode="linear_onnx", coordinate_transformation_mode="align_corners")
    np.testing.assert_array_equal(out, [[0.0, 1.0, 2.0, 3.0]])


def test_integer_results_truncate():
    data = np.array([[0, 1]], np.uint8)
    out = _run11(data, np.array([1, 4], np.int64), mode="linear_onnx", coordinate_transformation_mode="align_corners")
    np.testing.assert_array_equal(out, [[0, 0, 0, 1]])  # 1/3 and 2/3 truncate (static_cast)


@pytest.mark.parametrize(
    ("op", "inputs", "values", "message"),
    [
        (Interpolate11(mode="nearest"), [tt("1,1,3,4"), tt("2", "i64"), tt("2", "i64")],
         [None, [2, 3], [2, 4]], "All axes values should less than input rank: 4"),
        (Interpolate11(mode="nearest"), [tt("1,1,3,4"), tt("2", "i64"), tt("2", "i64")],
         [None, [2, 3], [-2, -1]], "All axes values should less than input rank: 4"),
        (Interpolate11(mode="nearest"), [tt("1,1,3,4"), tt("1", "i64"), tt("2", "i64")],
         [None, [2], [2, 3]], "The number of elements in the 'sizes' input does not match the number of axes 2"),
        (Interpolate11(mode="nearest"), [tt("1,1,3,4"), tt("2"), tt("2", "i64")],
         [None, None, None], "Sizes element type must be i32, i64, u32 or u64"),
        (Interpolate11(mode="nearest", shape_calculation_mode="scales"), [tt("1,1,3,4"), tt("2", "i32")],
         [None, None], "Scales element type must be f32, f16 or bf16"),
        (Interpolate11(mode="nearest"), [tt("1,1,3,4"), tt("2", "i64"), tt("2", "i64")],
         [None, [-2, 3], [2, 3]], "Interpolate sizes must be non-negative"),
    ],
)
def test_refused(op, inputs, values, message):
    with pytest.raises(OpError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        infer(op, inputs, values)


def test_hostile_attributes_refused():
    with pytest.raises(OpError, match="must be one of"):
        Interpolate11(mode="bogus")
    with pytest.raises(OpError, match="Attribute 'nearest_mode' must be one of"):
        Interpolate11(mode="nearest", nearest_mode="bogus")
    with pytest.raises(OpError, match="pads must be non-negative"):
        Interpolate11(mode="nearest", pads_begin=(0, -1))
    huge = Interpolate11(mode="nearest", pads_begin=(0, 10**6, 10**6))
    with pytest.raises(OpError, match="above the limit"):
        huge.evaluate([np.zeros((1, 1, 1), np.float32), np.array([1, 1, 1], np.int64)])
    tiny = Interpolate11(mode="linear", antialias=True, shape_calculation_mode="scales")
    with pytest.raises(OpError, match="taps per output element"):
        tiny.evaluate([np.zeros((1000, 1000), np.float32), np.array([0.002, 0.002], np.float32)])


def test_an_empty_axis_cannot_be_resized():
    with pytest.raises(OpError, match="cannot resize axis 1 of length 0"):
        _run11(np.zeros((1, 0), np.float32), np.array([1, 3], np.int64), mode="linear_onnx")


def test_pillow_modes_need_two_axes():
    with pytest.raises(OpError, match="exactly two"):
        _run11(np.zeros((2, 2, 2), np.float32), np.array([3, 3, 3], np.int64), mode="bilinear_pillow")


def test_area_is_kept_but_does_not_run():
    op = Interpolate1(axes=(2, 3), mode="area")
    assert not op.can_run
    assert infer(op, [tt("1,1,3,4"), tt("2", "i64")], [None, [6, 8]]) == ["[1,1,6,8]"]


def test_versions():
    assert lookup("Interpolate", "opset1") is Interpolate1
    assert lookup("Interpolate", "opset3") is Interpolate1
    assert lookup("Interpolate", "opset4") is Interpolate4
    assert lookup("Interpolate", "opset10") is Interpolate4
    assert lookup("Interpolate", "opset11") is Interpolate11
    assert lookup("Interpolate", "opset16") is Interpolate11


def test_linear_onnx_rank5_quirk_of_openvino():
    """openvino 2026.4.1 (and irgraph): a rank-5 linear_onnx resize over axes [2, 3, 4] that keeps axis 2
    merges axes 1 and 2 and then takes axis 2's (identity) parameters for axis 3: rows are not interpolated."""
    data = np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2)
    out = _run11(data, np.array([2, 4, 4], np.int64), [2, 3, 4], mode="linear_onnx")
    np.testing.assert_array_equal(out[0, 0, 0], [[0, 0.25, 0.75, 1], [2, 2.25, 2.75, 3], [2, 2.25, 2.75, 3],
                                                 [2, 2.25, 2.75, 3]])


def test_attributes_read_and_write_as_the_ir_spells_them():
    texts = {"mode": "linear_onnx", "shape_calculation_mode": "scales", "coordinate_transformation_mode": "asymmetric",
             "nearest_mode": "floor", "antialias": "false", "pads_begin": "0,0,1,1", "pads_end": "0,0,0,0",
             "cube_coeff": "-0.5"}
    op = Interpolate11.from_attributes(texts)
    assert op.pads_begin == (0, 0, 1, 1) and op.cube_coeff == -0.5 and op.uses_scales
    assert Interpolate11.from_attributes(op.to_attributes()) == op
    old = Interpolate1.from_attributes({"axes": "2,3", "mode": "nearest", "align_corners": "1"})
    assert old.axes == (2, 3) and old.align_corners
    with pytest.raises(OpError, match="needs the attribute 'mode'"):
        Interpolate4.from_attributes({})


@pytest.mark.parametrize("mode", ["nearest", "linear", "linear_onnx", "cubic"])
@pytest.mark.parametrize("length", [3, 0])
def test_a_size_of_zero_gives_an_empty_output_as_openvino_does(mode, length):
    """openvino 2026.4.1 folds sizes [0, 3] over axes [2, 3] to an empty [1,1,0,3] in every mode, from a
    3-long axis and from an empty one (an empty axis may be resized to 0, only to 0)."""
    data = np.arange(length * 4, dtype=np.float32).reshape(1, 1, length, 4)
    attrs = {"mode": mode, "shape_calculation_mode": "sizes"}
    inputs = [data, np.array([0, 3], np.int64), np.array([2, 3], np.int64)]
    data_node, sizes_node, axes_node = (ov_constant(x) for x in inputs)
    (expected,) = ov_reference(ov_ops11.interpolate(data_node, sizes_node, axes=axes_node, **attrs))
    assert expected.shape == (1, 1, 0, 3)
    if length:  # the harness compares the inferred types too (it folds no empty input)
        check_op(Interpolate11(**attrs), inputs, lambda d, v, a: ov_ops11.interpolate(d, v, axes=a, **attrs),
                 constant=[1, 2])
    assert _run11(data, np.array([0, 3], np.int64), [2, 3], **attrs).shape == (1, 1, 0, 3)


@pytest.mark.parametrize("mode", ["bilinear_pillow", "bicubic_pillow"])
@pytest.mark.parametrize("sizes", [[0, 3], [2, 0]])
def test_pillow_modes_give_an_empty_output_for_a_size_of_zero(mode, sizes):
    """openvino 2026.4.1's Pillow kernels crash (they read before their bounds) on an empty output, so no
    oracle: an empty output holds no values, and irgraph gives it the data's type and the asked shape."""
    data = np.arange(12, dtype=np.float16).reshape(1, 1, 3, 4)
    out = _run11(data, np.array(sizes, np.int64), [2, 3], mode=mode)
    assert out.shape == (1, 1, *sizes) and out.dtype == np.float16


@pytest.mark.parametrize(("rank", "axes"), [(4, [1, 2]), (4, [0, 1]), (4, [2]), (4, [1, 2, 3]), (3, [1, 2]),
                                            (3, [2])])
def test_linear_onnx_refuses_axes_openvino_refuses(rank, axes):
    """linear_onnx resizes all axes, or axes 2.. of a rank >= 4 input: openvino 2026.4.1's reference
    refuses any other axes ("Axes are not correct!", interpolate.hpp)."""
    data = np.arange(2 * 3 * 4, dtype=np.float32).reshape((1, 2, 3, 4)[4 - rank:])
    sizes = np.array([3, 5, 5][:len(axes)], np.int64)
    with pytest.raises(RuntimeError, match="Axes are not correct!"):
        ov_reference(ov_ops11.interpolate(ov_constant(data), ov_constant(sizes), "linear_onnx", "sizes",
                                          axes=ov_constant(np.array(axes, np.int64))))
    with pytest.raises(OpError, match="Axes are not correct!"):
        _run11(data, sizes, axes, mode="linear_onnx")


@pytest.mark.parametrize("mode", ["bilinear_pillow", "bicubic_pillow"])
def test_pillow_intermediate_is_held_to_the_element_limit(mode, monkeypatch):
    """The width pass of [1,1,2,4] to width 100 keeps 2 rows: 2 x 100 = 200 elements, allowed at a limit of
    200 and refused (before anything is allocated) at 199."""
    data = np.ones((1, 1, 2, 4), np.float32)
    monkeypatch.setattr(resampling, "DEFAULT_ELEMENT_LIMIT", 200)
    assert _run11(data, np.array([2, 100], np.int64), [2, 3], mode=mode).shape == (1, 1, 2, 100)
    monkeypatch.setattr(resampling, "DEFAULT_ELEMENT_LIMIT", 199)
    with pytest.raises(OpError, match="intermediate .* would have 200 elements, above the limit of 199"):
        _run11(data, np.array([2, 100], np.int64), [2, 3], mode=mode)


def test_linear_onnx_refuses_to_resize_batch_or_channels():
    """A rank-4 linear_onnx resize over all axes that changes the batch: openvino 2026.4.1's reference resizes
    only the spatial axes and leaves the new batch row zero, which no resize means; irgraph refuses it."""
    data = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    sizes, axes = np.array([2, 2, 3, 4], np.int64), np.array([0, 1, 2, 3], np.int64)
    (theirs,) = ov_reference(ov_ops11.interpolate(ov_constant(data), ov_constant(sizes), "linear_onnx", "sizes",
                                                  axes=ov_constant(axes)))
    np.testing.assert_array_equal(theirs, np.concatenate([data, np.zeros_like(data)]))
    with pytest.raises(OpError, match="linear_onnx resizes only the last 3 axes here; axis 0 changes from 1 to 2"):
        _run11(data, sizes, [0, 1, 2, 3], mode="linear_onnx")


def test_interpolate4_without_axes_resizes_every_axis():
    """Three inputs (no axes): openvino 2026.4.1 folds the resize of every axis by ``sizes``."""
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    sizes, scales = np.array([4, 5], np.int64), np.array([2.0, 5 / 3], np.float32)
    attrs = {"mode": "nearest", "shape_calculation_mode": "sizes", "coordinate_transformation_mode": "asymmetric",
             "nearest_mode": "floor", "antialias": False, "pads_begin": [0], "pads_end": [0], "cube_coeff": -0.75}
    op = Interpolate4(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    outcome = check_op(op, [data, sizes, scales], lambda d, s, c: _OPSET4.create("Interpolate", [d, s, c], attrs),
                       constant=[1, 2])
    assert outcome.reference
    assert op.output_shapes([data, sizes, scales]) == [(4, 5)]


@pytest.mark.parametrize(("scales_type", "axes_shape"), [("i32", "2"), ("f32", "1,2")])
def test_interpolate4_refuses_what_openvino_refuses(scales_type, axes_shape):
    """openvino 2026.4.1 refuses integer scales and axes that are not 1-D, whichever shape mode is used."""
    attrs = {"mode": "nearest", "shape_calculation_mode": "sizes", "pads_begin": [0], "pads_end": [0]}
    outcome = check_types(Interpolate4(mode="nearest"),
                          [tt("1,1,3,4"), tt("2", "i64"), tt("2", scales_type), tt(axes_shape, "i64")],
                          lambda d, s, c, a: _OPSET4.create("Interpolate", [d, s, c, a], attrs))
    assert outcome.refused


def test_interpolate11_refuses_axes_that_are_not_1d():
    attrs = {"mode": "nearest", "shape_calculation_mode": "sizes"}
    outcome = check_types(Interpolate11(mode="nearest"), [tt("1,1,3,4"), tt("2", "i64"), tt("1,2", "i64")],
                          lambda d, v, a: ov_ops11.interpolate(d, v, axes=a, **attrs))
    assert outcome.refused


def test_nearest_cannot_fill_an_output_from_an_empty_axis():
    """openvino 2026.4.1 folds [1,1,0,4] resized to [1,1,2,3] by reading outside the data; irgraph refuses
    (an empty output from it is fine: test_a_size_of_zero_gives_an_empty_output_as_openvino_does)."""
    with pytest.raises(OpError, match="cannot resize axis 2 of length 0 to 2"):
        _run11(np.zeros((1, 1, 0, 4), np.float32), np.array([2, 3], np.int64), [2, 3], mode="nearest")


def test_interpolate1_linear_needs_rank_at_most_5():
    """irgraph maps Interpolate-1 linear as OpenVINO's transform_v0_to_v4 does (linear_onnx below rank 5, linear
    at rank 5) and refuses higher ranks, which no v4 mode it maps to runs."""
    op = Interpolate1(axes=(2, 3), mode="linear", pads_begin=(0,), pads_end=(0,))
    with pytest.raises(OpError, match="Interpolate-1 linear needs rank <= 5. Got rank 6"):
        op.evaluate([np.zeros((1, 1, 2, 2, 1, 1), np.float32), np.array([3, 3], np.int64)])
    assert op.evaluate([np.ones((1, 1, 2, 2, 1), np.float32), np.array([3, 3], np.int64)])[0].shape == (1, 1, 3, 3, 1)


def test_linear_onnx_half_pixel_clamps_coordinates_past_both_ends():
    """[0, 4] to 4 with half_pixel: coordinates -0.25, 0.25, 0.75, 1.25 clamp to 0..1 (ONNX's and OpenVINO's rule),
    so the ends repeat the edge values: [0, 1, 3, 4]."""
    data = np.array([[0.0, 4.0]], np.float32)
    out = _run11(data, np.array([1, 4], np.int64), mode="linear_onnx", coordinate_transformation_mode="half_pixel")
    np.testing.assert_array_equal(out, [[0.0, 1.0, 3.0, 4.0]])


def test_pillow_bicubic_weights_an_exact_tap_by_one():
    """Resizing 4 to 4 with bicubic_pillow samples at the pixel centres: every weight but the centre's is 0 (the
    kernel is 1 at distance 0 and 0 at distances 1 and 2), so the data come back unchanged."""
    data = np.array([[1.0, 5.0, 2.0, 8.0]], np.float32)
    out = _run11(data, np.array([1, 4], np.int64), [0, 1], mode="bicubic_pillow")
    np.testing.assert_allclose(out, data, rtol=0, atol=1e-6)


def test_interpolate_1_needs_one_output_length_per_axis():
    op = Interpolate1(axes=(2, 3), mode="nearest")
    with pytest.raises(OpError, match=r"^output_shape needs one length per axis \[2, 3\]\. Got: \[4\]$"):
        op.evaluate([np.zeros((1, 1, 2, 2), np.float32), np.array([4], np.int64)])


def test_antialias_skips_the_taps_outside_the_input_before_counting_them(monkeypatch):
    """Hand-worked: [1, 8] to [1, 2] by scales [1, 0.25], antialias, half_pixel: radius ceil(2 / 0.25) = 8, the
    centres 1.5 and 5.5 round to 2 and 6, so of the 17 taps k (source k + centre - 8) those below 8 - 6 = 2 and
    above 8 - 1 + 8 = 15 read outside the input for both outputs: 14 taps count against the limit."""
    op = Interpolate11(mode="linear", antialias=True, shape_calculation_mode="scales")
    inputs = [np.arange(8, dtype=np.float32).reshape(1, 8), np.array([1, 0.25], np.float32)]
    (expected,) = op.evaluate(inputs)
    monkeypatch.setattr(resampling, "TAP_LIMIT", 14)
    (at_the_limit,) = op.evaluate(inputs)
    np.testing.assert_array_equal(at_the_limit, expected)
    monkeypatch.setattr(resampling, "TAP_LIMIT", 13)
    with pytest.raises(OpError, match="Interpolate linear needs 14 taps per output element"):
        op.evaluate(inputs)
