"""DeformableConvolution-1 and -8: named cases, generated configurations judged by a port of OpenVINO's reference
kernel and its CPU plugin, the spec's shape examples, refusals, and an IR written by OpenVINO run through ir-run.

OpenVINO 2026.4.1 neither folds nor evaluates DeformableConvolution, so the port (``deformable_reference``)
judges every configuration: for f32 it is the reference's own arithmetic, for f16 and f64 the exact computation
(positions rounded to f16 as the reference rounds them); the CPU plugin (f32 and f16) judges too.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import openvino as ov
import openvino.opset1 as ov1
import openvino.opset8 as ov8
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.errors import IrError, OpError
from irgraph.core.shapes import Shape
from irgraph.ops.convolution.deformable_convolution import DeformableConvolution, DeformableConvolution8
from irgraph.ops.convolution.group_convolution import GroupConvolution
from tests.ops.convolution import deformable_reference
from tests.ops.differential import assert_values_close, check_op, check_types, port, same_op
from tests.ops.helpers import tt

SQUARE = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
HALF_PIXEL = np.full((1, 8, 2, 2), 0.5, np.float32)  # every tap of every position moved by (0.5, 0.5)
ONES = np.ones((1, 1, 2, 2), np.float32)


def test_half_pixel_offsets_average_four_neighbours_and_clamp_to_the_edge():
    # (0.5, 0.5) reads mean(0, 1, 3, 4) = 2; (0.5, 2.5) past the last column reads that column: (2 + 5) / 2
    (result,) = DeformableConvolution().evaluate([SQUARE, HALF_PIXEL, ONES])
    np.testing.assert_array_equal(result, np.array([[[[16, 19], [25, 28]]]], np.float32))


def test_bilinear_interpolation_pad_reads_zeros_beyond_the_edge():
    # (0.5, 2.5) now weighs column 3 (zeros) by one half: (2 + 5) / 4
    op = DeformableConvolution8(bilinear_interpolation_pad=True)
    (result,) = op.evaluate([SQUARE, HALF_PIXEL, ONES])
    np.testing.assert_array_equal(result, np.array([[[[16, 14], [18, 15]]]], np.float32))


def test_mask_scales_each_tap():
    mask = np.array([1, 0, 0, 0.5], np.float32).reshape(1, 4, 1, 1).repeat(2, 2).repeat(2, 3)
    (result,) = DeformableConvolution8().evaluate([SQUARE, HALF_PIXEL, ONES, mask])
    # tap (0, 0) whole, tap (1, 1) halved: 2 + 6 / 2 at (0, 0)
    np.testing.assert_array_equal(result, np.array([[[[5, 6.25], [8.75, 10]]]], np.float32))


def test_zero_offsets_are_a_grouped_convolution():
    rng = np.random.default_rng(1)
    data, filters = rng.uniform(-1, 1, (1, 4, 5, 5)).astype(np.float32), rng.uniform(-1, 1, (6, 2, 3, 3))
    op = DeformableConvolution(group=2, deformable_group=2, pads_begin=(1, 1), pads_end=(1, 1))
    (result,) = op.evaluate([data, np.zeros((1, 36, 5, 5), np.float32), filters.astype(np.float32)])
    expected = GroupConvolution(pads_begin=(1, 1), pads_end=(1, 1)).evaluate(
        [data, filters.reshape(2, 3, 2, 3, 3).astype(np.float32)])[0]
    np.testing.assert_allclose(result, expected, atol=2e-6)


def test_output_rows_in_blocks_give_the_same_values(monkeypatch):
    from irgraph.ops.convolution import deformable_convolution as module
    op, inputs = build(configurations()[1])
    (whole,) = op.evaluate(inputs)
    monkeypatch.setattr(module, "COLUMNS_LIMIT", 1)  # one output row at a time
    (blocked,) = op.evaluate(inputs)
    assert whole.shape[2] > 1 and blocked.tobytes() == whole.tobytes()


# ------------------------------------------------------------------------------------ generated configurations
def configurations(count: int = 36) -> list[dict]:
    """Bounded, reproducible configurations: groups, deformable groups, strides, dilations, pads, auto_pad,
    both versions, mask or not, bilinear_interpolation_pad, f32/f16/f64; offsets reaching past every edge."""
    rng = np.random.default_rng(2026)
    found = []
    while len(found) < count:
        group, deformable = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        channels = group * deformable * int(rng.integers(1, 3))
        kernel = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        strides, dilations = tuple(int(v) for v in rng.integers(1, 3, 2)), tuple(int(v) for v in rng.integers(1, 3, 2))
        pads = tuple(int(v) for v in rng.integers(0, 2, 2))
        auto_pad = ["explicit", "explicit", "same_upper", "same_lower", "valid"][int(rng.integers(0, 5))]
        size = (int(rng.integers(3, 7)), int(rng.integers(3, 7)))
        extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]
        if auto_pad in ("explicit", "valid") and any(e > s + (2 * p if auto_pad == "explicit" else 0)
                                                     for e, s, p in zip(extent, size, pads, strict=True)):
            continue
        version = 8 if len(found) % 3 else 1
        dtype = [np.float32, np.float32, np.float16, np.float64, np.float32, ml_dtypes.bfloat16][len(found) % 6]
        found.append(dict(group=group, deformable=deformable, channels=channels, kernel=kernel, strides=strides,
                          dilations=dilations, pads=pads, auto_pad=auto_pad, size=size, version=version,
                          mask=version == 8 and bool(rng.integers(0, 2)), pad=version == 8 and bool(rng.integers(0, 2)),
                          batch=int(rng.integers(1, 3)), out_channels=group * int(rng.integers(1, 3)), dtype=dtype,
                          seed=int(rng.integers(0, 1 << 30))))
    return found


def build(config: dict) -> tuple[DeformableConvolution, list[np.ndarray]]:
    """The op and its inputs (offsets whole and fractional, some exactly on an edge)."""
    attributes = dict(strides=config["strides"], dilations=config["dilations"], pads_begin=config["pads"],
                      pads_end=config["pads"][::-1], auto_pad=config["auto_pad"], group=config["group"],
                      deformable_group=config["deformable"])
    if config["version"] == 8:
        op = DeformableConvolution8(bilinear_interpolation_pad=config["pad"], **attributes)
    else:
        op = DeformableConvolution(**attributes)
    rng = np.random.default_rng(config["seed"])
    dtype, batch, taps = config["dtype"], config["batch"], config["kernel"][0] * config["kernel"][1]
    data = rng.uniform(-2, 2, (batch, config["channels"], *config["size"])).astype(dtype)
    filters = rng.uniform(-1, 1, (config["out_channels"], config["channels"] // config["group"],
                                  *config["kernel"])).astype(dtype)
    out = [dim.value for dim in op.forward_spatial(Shape.static(data.shape), Shape.static(filters.shape), 2)]
    offsets = rng.uniform(-3, 3, (batch, 2 * taps * config["deformable"], *out))
    whole = rng.random(offsets.shape) < 0.25  # whole offsets land exactly on rows, columns and edges
    offsets = np.where(whole, np.round(offsets), offsets).astype(dtype)
    inputs = [data, offsets, filters]
    if config["mask"]:
        inputs.append(rng.uniform(0, 1, (batch, taps * config["deformable"], *out)).astype(dtype))
    return op, inputs


def ported(op: DeformableConvolution, inputs: list[np.ndarray]) -> np.ndarray:
    """The port of OpenVINO's kernel: its own arithmetic for f32, the exact one (rounded once) for f16 and f64."""
    data, offsets, filters = inputs[:3]
    dtype = data.dtype
    shape = op.output_shapes(inputs)[0]
    strides, dilations, _, _ = op.resolved(2)
    begin, _ = op.forward_pads(data.shape[2:], filters.shape[2:])
    exact = dtype != np.float32
    result = deformable_reference.deformable_convolution(
        data, offsets, filters, inputs[3] if len(inputs) > 3 else None, strides=strides, dilations=dilations,
        pads_begin=begin, out_shape=shape[2:], group=op.group, deformable_group=op.deformable_group,
        pad=op.pads_outside, accumulate=np.float64 if exact else np.float32,
        interpolate=np.float64 if exact else np.float32, position=dtype.type)
    return result.astype(dtype)


@pytest.mark.parametrize("config", configurations(), ids=lambda c: f"v{c['version']}-{np.dtype(c['dtype']).name}-"
                         f"g{c['group']}dg{c['deformable']}-{c['auto_pad']}-seed{c['seed']}")
def test_generated_configurations_match_the_ported_reference_and_the_cpu_plugin(config):
    op, inputs = build(config)
    # the port judges every configuration (its values compared within the op's tolerance), the CPU plugin f32 too
    outcome = check_op(op, inputs, same_op(op), independent=port(lambda op, arrays, types: [ported(op, arrays)]))
    assert not outcome.refused and (outcome.cpu or config["dtype"] in (np.float64, ml_dtypes.bfloat16))  # not run there
    assert outcome.judge in ("cpu", "port")


def test_generated_configurations_cover_what_they_claim():
    found = configurations()
    assert {c["version"] for c in found} == {1, 8} and {c["auto_pad"] for c in found} >= {"explicit", "same_upper",
                                                                                          "valid"}
    assert any(c["mask"] for c in found) and any(c["pad"] for c in found)
    assert any(c["group"] == 2 for c in found) and any(c["deformable"] == 2 for c in found)


# ------------------------------------------------------------------------------------ shapes and refusals
@pytest.mark.parametrize("op_class", [DeformableConvolution, DeformableConvolution8])
def test_the_spec_example_shapes(op_class):
    # the spec's example: data [1,4,224,224], offsets [1,50,220,220], filters [64,4,5,5] (-8: mask [1,25,220,220])
    op = op_class(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), auto_pad="explicit")
    types = [tt("1,4,224,224"), tt("1,50,220,220"), tt("64,4,5,5")]
    if op_class is DeformableConvolution8:
        types.append(tt("1,25,220,220"))
    check_types(op, types, same_op(op))
    assert str(op.infer(types, [None] * len(types))[0]) == "f32[1,64,220,220]"


@pytest.mark.parametrize("shapes", [
    ("?,4,?,?", "?,18,?,?", "8,2,3,3"),
    ("1..3,4,10,10", "?,?,8,8", "?,?,3,3"),
    ("...", "2,18,4,4", "6,2,3,3"),
    ("...", "...", "..."),
    ("...", "1,18,3,3", "2,4,3,3", "1,9,3,3"),  # a mask beside data of dynamic rank
])
def test_partial_shapes_follow_openvino(shapes):
    op = DeformableConvolution8(group=2)
    check_types(op, [tt(s) for s in shapes], same_op(op))


@pytest.mark.parametrize("shapes, attributes", [
    (("1,4,5,5", "1,17,3,3", "2,4,3,3"), {}),  # offsets channels not 2 * taps * deformable_group
    (("1,4,5,5", "1,18,3,3", "2,4,3,3", "1,8,3,3"), {}),  # mask channels not taps * deformable_group
    (("1,3,5,5", "1,18,3,3", "2,3,3,3"), {"group": 2}),  # data channels not divisible by group
    (("1,4,5,5", "1,18,3,3", "3,2,3,3"), {"group": 2}),  # output channels not divisible by group
    (("1,4,5,5", "1,18,3,3", "2,3,3,3"), {}),  # filters' input channels not the data's
    (("1,4,5,5", "2,18,3,3", "2,4,3,3"), {}),  # offsets batch not the data's
    (("1,4,5,5", "1,18,4,3", "2,4,3,3"), {}),  # offsets spatial dims not the output's
    (("1,4,5,5", "1,18,3,3", "2,4,3,3", "1,9,3,2"), {}),  # mask spatial dims not the output's
    (("1,4,5", "1,18,3", "2,4,3"), {}),  # rank 3
    (("1,4,5,5", "1,36,3,3", "2,4,3,3"), {"deformable_group": 3}),  # offsets not divisible by deformable group
    (("1,4,5,5", "1,18,3,3", "2,4,3,3", "2,9,3,3"), {}),  # mask batch not the data's
])
def test_what_openvino_refuses_irgraph_refuses(shapes, attributes):
    op = DeformableConvolution8(**attributes)
    assert check_types(op, [tt(s) for s in shapes], same_op(op)).refused


def test_zero_groups_are_refused():
    with pytest.raises(OpError, match="'group' must be any value starting from 1. Got: 0"):
        DeformableConvolution(group=0)
    with pytest.raises(OpError, match="'deformable group' must be any value starting from 1"):
        DeformableConvolution8(deformable_group=0)


def test_integer_data_is_refused_at_run_time_not_computed():
    # OpenVINO 2026.4.1 builds the op on i32 (its shape rule takes numeric types) but has no kernel for it
    data = np.ones((1, 1, 3, 3), np.int32)
    with pytest.raises(IrError, match="runs f32, f16, bf16 and f64 data"):
        DeformableConvolution().evaluate([data, np.zeros((1, 2, 3, 3), np.int32), np.ones((1, 1, 1, 1), np.int32)])


# ------------------------------------------------------------------------------------ an IR written by OpenVINO
def test_ir_run_runs_openvinos_deformable_convolution_ir(tmp_path, capsys):
    rng = np.random.default_rng(5)
    data = ov8.parameter([1, 4, 6, 6], ov.Type.f32, name="data")
    offsets = ov8.parameter([1, 36, 6, 6], ov.Type.f32, name="offsets")
    mask = ov8.parameter([1, 18, 6, 6], ov.Type.f32, name="mask")
    filters = rng.uniform(-1, 1, (4, 2, 3, 3)).astype(np.float32)
    v8 = ov8.deformable_convolution(data, offsets, ov8.constant(filters), [1, 1], [1, 1], [1, 1], [1, 1], mask=mask,
                                    group=2, deformable_group=2, bilinear_interpolation_pad=True)
    v1 = ov1.deformable_convolution(data, offsets, ov1.constant(filters), [1, 1], [1, 1], [1, 1], [1, 1],
                                    group=2, deformable_group=2)
    results = [ov8.result(v8), ov8.result(v1)]
    for result, name in zip(results, ("with_mask", "plain"), strict=True):
        result.output(0).get_tensor().set_names({name})
    xml = tmp_path / "deformable.xml"
    ov.save_model(ov.Model(results, [data, offsets, mask], "deformable"), xml, compress_to_fp16=False)
    text = xml.read_text()
    assert 'type="DeformableConvolution" version="opset8"' in text
    assert 'type="DeformableConvolution" version="opset1"' in text
    feeds = {"data": rng.uniform(-1, 1, (1, 4, 6, 6)), "offsets": rng.uniform(-2, 2, (1, 36, 6, 6)),
             "mask": rng.uniform(0, 1, (1, 18, 6, 6))}
    feeds = {name: value.astype(np.float32) for name, value in feeds.items()}
    np.savez(tmp_path / "in.npz", **feeds)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    with np.load(tmp_path / "out.npz") as written:
        got = {name: written[name] for name in written.files}
    attributes = dict(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1), group=2,
                      deformable_group=2)
    cases = {"with_mask": (DeformableConvolution8(bilinear_interpolation_pad=True, **attributes),
                           [feeds["data"], feeds["offsets"], filters, feeds["mask"]]),
             "plain": (DeformableConvolution(**attributes), [feeds["data"], feeds["offsets"], filters])}
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    on_cpu = {next(iter(port.get_names())): np.asarray(value) for port, value in compiled(feeds).items()}
    for name, (op, inputs) in cases.items():
        magnitude = op.term_magnitudes(inputs)[0]
        assert_values_close(got[name], ported(op, inputs), op.tolerance, f"{name} vs the ported reference", magnitude)
        assert_values_close(got[name], on_cpu[name], op.tolerance, f"{name} vs the CPU plugin", magnitude)
    assert ir.validate(ir.read_model(xml)) == []
    ir.write_model(ir.read_model(xml), tmp_path / "again.xml", version=11)  # written back byte for byte
    assert (tmp_path / "again.xml").read_bytes() == xml.read_bytes()
    assert (tmp_path / "again.bin").read_bytes() == xml.with_suffix(".bin").read_bytes()


def test_batch_refusals_name_both_batches():
    op = DeformableConvolution8()
    with pytest.raises(OpError, match="^Data batch and offsets batch dimension must be same value. Got: 1 and 2$"):
        op.infer([tt("1,4,5,5"), tt("2,18,3,3"), tt("2,4,3,3")], [None] * 3)
    with pytest.raises(OpError, match="^Data batch and mask batch dimension must be same value. Got: 2 and 1$"):
        op.infer([tt("1,4,5,5"), tt("1,18,3,3"), tt("2,4,3,3"), tt("2,9,3,3")], [None] * 4)


def test_samples_that_read_nothing_add_zero_whatever_the_data_holds():
    """A NaN offset compares false with every bound, and an offset of -5 lands outside: neither sample reads the
    data. openvino 2026.4.1's CPU plugin gives 0 there (its reference skips them too), also when the element an
    unread neighbour's clipped index points at is infinite."""
    op = DeformableConvolution8(strides=(1, 1), pads_begin=(0, 0), pads_end=(0, 0), dilations=(1, 1),
                                bilinear_interpolation_pad=True)
    data = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 2, 2)
    filters = np.ones((1, 1, 1, 1), np.float32)
    offsets = np.zeros((1, 2, 2, 2), np.float32)
    offsets[0, 0, 1, 1] = np.nan  # the row offset of output (1, 1)
    assert op.evaluate([data, offsets, filters])[0].tolist() == [[[[1, 2], [3, 0]]]]
    data[0, 0, 0, 0] = np.inf
    offsets[0, 0, 1, 1] = -5
    assert op.evaluate([data, offsets, filters])[0].tolist() == [[[[np.inf, 2], [3, 0]]]]
