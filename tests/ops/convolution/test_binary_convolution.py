"""BinaryConvolution-1: named cases, generated configurations judged by a port of OpenVINO's reference kernel,
OpenVINO's shape rule and refusals, and an IR with u1 weights written by OpenVINO run through ir-run.

OpenVINO 2026.4.1 neither folds nor evaluates BinaryConvolution, and its CPU plugin's values for f32 data with u1
filters change from run to run (``BinaryConvolution.cpu_plugin_differs``), so the port judges every value.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import openvino as ov
import openvino.opset1 as ov1
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.errors import IrError, OpError
from irgraph.ops.convolution.binary_convolution import BinaryConvolution
from tests.ops.differential import check_op, check_types, port, same_op
from tests.ops.helpers import tt

U1 = np.dtype(ml_dtypes.uint1)


def ported(data, filters, strides, dilations, pads_begin, out_shape, pad_value, dtype) -> np.ndarray:
    """OpenVINO's ``binary_convolve_3D_channels`` (reference/binary_convolution.hpp, 2026.4.1) for 2D data: per
    input channel ``2 * popcount - bits``, a value matching its bit when equal to it in the data type, padding
    ``pad_value`` cast to the data type. Filter bits are read in (O, C, KH, KW) order."""
    batch, channels, height, width = data.shape
    out_channels, _, kernel_y, kernel_x = filters.shape
    pad = dtype.type(pad_value) if dtype.kind == "f" else dtype.type(int(pad_value))
    result = np.zeros((batch, out_channels, *out_shape), dtype)
    for n in range(batch):
        for o in range(out_channels):
            for oy in range(out_shape[0]):
                for ox in range(out_shape[1]):
                    total = 0
                    for c in range(channels):
                        popcount = 0
                        for fy in range(kernel_y):
                            for fx in range(kernel_x):
                                y = oy * strides[0] - pads_begin[0] + fy * dilations[0]
                                x = ox * strides[1] - pads_begin[1] + fx * dilations[1]
                                inside = 0 <= y < height and 0 <= x < width
                                value = data[n, c, y, x] if inside else pad
                                popcount += bool(value == dtype.type(int(filters[o, c, fy, fx])))
                        total += 2 * popcount - kernel_y * kernel_x
                    result[n, o, oy, ox] = total
    return result


def bits(values, shape) -> np.ndarray:
    return np.array(values, np.uint8).reshape(shape).astype(U1)


def test_xnor_popcount_counts_matches_minus_mismatches():
    data = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1]], np.float32).reshape(1, 1, 3, 3)
    filters = bits([1, 0, 0, 1], (1, 1, 2, 2))
    op = BinaryConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0))
    (result,) = op.evaluate([data, filters])
    # [1 0; 0 1] matches all four bits: 4; [0 1; 1 0] none: -4; [0 1; 1 1] one: -2; [1 0; 1 1] three: 2
    np.testing.assert_array_equal(result, np.array([[[[4, -4], [-2, 2]]]], np.float32))


def test_the_tap_by_tap_path_counts_the_same(monkeypatch):
    """Windows too large to copy (here: any) are counted one tap at a time, to the same counts."""
    from irgraph.ops.families import convolution_kernels

    monkeypatch.setattr(convolution_kernels, "WINDOW_COPY_LIMIT", 0)
    monkeypatch.setattr(convolution_kernels, "WINDOW_COPY_FACTOR", 0)
    data = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1]], np.float32).reshape(1, 1, 3, 3)
    op = BinaryConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0))
    (result,) = op.evaluate([data, bits([1, 0, 0, 1], (1, 1, 2, 2))])
    np.testing.assert_array_equal(result, np.array([[[[4, -4], [-2, 2]]]], np.float32))


def test_values_other_than_0_and_1_match_no_bit_and_padding_reads_pad_value():
    data = np.array([0.5, 1, -1, 0], np.float32).reshape(1, 1, 1, 4)
    filters = bits([1, 1], (1, 1, 1, 2))
    op = BinaryConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 1), pads_end=(0, 1), pad_value=1.0)
    (result,) = op.evaluate([data, filters])
    # windows: [pad=1, 0.5] -> 0, [0.5, 1] -> 0, [1, -1] -> 0, [-1, 0] -> -2, [0, pad=1] -> 0
    np.testing.assert_array_equal(result, np.array([[[[0, 0, 0, -2, 0]]]], np.float32))


# ------------------------------------------------------------------------------------ generated configurations
def configurations(count: int = 30) -> list[dict]:
    """Reproducible configurations over strides, dilations, pads, auto_pad, pad_value and data types."""
    rng = np.random.default_rng(71)
    found = []
    while len(found) < count:
        kernel = tuple(int(v) for v in rng.integers(1, 4, 2))
        dilations, strides = tuple(int(v) for v in rng.integers(1, 3, 2)), tuple(int(v) for v in rng.integers(1, 3, 2))
        pads = tuple(int(v) for v in rng.integers(0, 3, 2))
        size = tuple(int(v) for v in rng.integers(3, 8, 2))
        auto_pad = ["explicit", "explicit", "same_upper", "same_lower", "valid"][int(rng.integers(0, 5))]
        extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]
        if auto_pad in ("explicit", "valid") and any(e > s + (2 * p if auto_pad == "explicit" else 0)
                                                     for e, s, p in zip(extent, size, pads, strict=True)):
            continue
        found.append(dict(kernel=kernel, dilations=dilations, strides=strides, pads=pads, size=size,
                          auto_pad=auto_pad, pad_value=[0.0, 1.0, 0.5, -1.0][len(found) % 4],
                          dtype=np.dtype([np.float32, np.float16, np.float64, np.int32][len(found) % 4 - 1]),
                          channels=int(rng.integers(1, 4)), out_channels=int(rng.integers(1, 4)),
                          batch=int(rng.integers(1, 3)), seed=int(rng.integers(0, 1 << 30))))
    return found


@pytest.mark.parametrize("config", configurations(), ids=lambda c: f"{c['dtype'].name}-{c['auto_pad']}-"
                         f"pad{c['pad_value']}-seed{c['seed']}")
def test_generated_configurations_match_the_ported_reference(config):
    rng = np.random.default_rng(config["seed"])
    dtype = config["dtype"]
    data = rng.integers(0, 2, (config["batch"], config["channels"], *config["size"])).astype(dtype)
    if dtype.kind == "f":  # a few values that match neither bit
        data[rng.random(data.shape) < 0.1] = 0.5
    filters = rng.integers(0, 2, (config["out_channels"], config["channels"], *config["kernel"])).astype(U1)
    op = BinaryConvolution(strides=config["strides"], dilations=config["dilations"], pads_begin=config["pads"],
                           pads_end=config["pads"][::-1], auto_pad=config["auto_pad"], pad_value=config["pad_value"])
    # openvino neither folds nor evaluates it, and its CPU plugin ignores the filter bits: the port judges
    outcome = check_op(op, [data, filters], same_op(op), constant=(1,), cpu=False, independent=port(by_the_port))
    assert outcome.judge == "port"


def by_the_port(op: BinaryConvolution, arrays: list[np.ndarray], types: list) -> list[np.ndarray]:
    data, filters = arrays
    begin, _ = op.forward_pads(data.shape[2:], filters.shape[2:])
    out_spatial = types[0].shape.to_tuple()[2:]
    return [ported(data, filters, op.resolved(2)[0], op.resolved(2)[1], begin, out_spatial, op.pad_value, data.dtype)]


# ------------------------------------------------------------------------------------ shapes and refusals
def test_the_spec_example_shape():
    # the spec's example: data [1,64,56,56], filters [64,64,3,3] u1, pads 1 -> [1,64,56,56]
    op = BinaryConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1), pad_value=1.0)
    types = [tt("1,64,56,56"), tt("64,64,3,3", "u1")]
    check_types(op, types, same_op(op))
    assert str(op.infer(types, [None, None])[0]) == "f32[1,64,56,56]"


@pytest.mark.parametrize("data, filters", [
    (tt("?,3,?,?"), tt("8,3,3,3", "u1")),
    (tt("1..4,?,10..20,7", "f16"), tt("?,?,3,3", "u1")),
    (tt("...", "i32"), tt("5,3,2,2", "u1")),
    (tt("1,3,9,9", "f64"), tt("...", "u1")),
    (tt("1,3,9,9"), tt("4,3,3,3", "f32")),  # OpenVINO builds it on filters of any type
    (tt("...", "f32"), tt("...", "u1")),  # no rank known: the attributes give it (2 spatial axes)
])
def test_partial_shapes_follow_openvino(data, filters):
    op = BinaryConvolution(strides=(2, 1), dilations=(1, 2), pads_begin=(1, 0), pads_end=(0, 1))
    check_types(op, [data, filters], same_op(op))


@pytest.mark.parametrize("data, filters", [
    (tt("1,2,5"), tt("3,2,2", "u1")),  # 3D: the op is 2D only
    (tt("1,2,5,5,5"), tt("3,2,2,2,2", "u1")),
    (tt("1,2,5,5", "boolean"), tt("3,2,2,2", "u1")),
    (tt("1,3,5,5"), tt("3,2,2,2", "u1")),  # channels
    (tt("1,2,2,2"), tt("3,2,3,3", "u1")),  # kernel larger than the data
])
def test_what_openvino_refuses_irgraph_refuses(data, filters):
    op = BinaryConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0))
    assert check_types(op, [data, filters], same_op(op)).refused


def test_an_unknown_mode_is_refused():
    with pytest.raises(OpError, match='mode "and" is not a member'):
        BinaryConvolution(mode="and")


def test_filters_other_than_u1_are_refused_at_run_time():
    op = BinaryConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0))
    with pytest.raises(IrError, match="runs u1 filters"):
        op.evaluate([np.ones((1, 1, 2, 2), np.float32), np.ones((1, 1, 1, 1), np.float32)])


# ------------------------------------------------------------------------------------ an IR written by OpenVINO
def test_ir_run_runs_openvinos_binary_convolution_ir(tmp_path, capsys):
    rng = np.random.default_rng(3)
    weights = rng.integers(0, 2, (4, 3, 3, 3)).astype(np.uint8)  # 108 bits: not a whole number of bytes per row
    packed = ov.Tensor(ov.Type.u1, ov.Shape(list(weights.shape)))
    packed.data[:] = np.packbits(weights.reshape(-1))  # OpenVINO packs u1 from the most significant bit
    data = ov1.parameter([1, 3, 7, 7], ov.Type.f32, name="data")
    filters = ov.op.Constant(packed, shared_memory=False)  # owning its bits
    node = ov1.binary_convolution(data, filters, [2, 2], [1, 1], [1, 1], [1, 1], "xnor-popcount", 1.0)
    result = ov1.result(node)
    result.output(0).get_tensor().set_names({"out"})
    xml = tmp_path / "binary.xml"
    ov.save_model(ov.Model([result], [data], "binary"), xml, compress_to_fp16=False)
    text = xml.read_text()
    assert 'type="BinaryConvolution" version="opset1"' in text and 'element_type="u1"' in text
    x = rng.integers(0, 2, (1, 3, 7, 7)).astype(np.float32)
    np.savez(tmp_path / "in.npz", data=x)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    with np.load(tmp_path / "out.npz") as written:
        got = written["out"]
    assert got.shape == (1, 4, 4, 4)
    np.testing.assert_array_equal(got, ported(x, weights, (2, 2), (1, 1), (1, 1), (4, 4), 1.0, np.dtype(np.float32)))
    assert ir.validate(ir.read_model(xml)) == []
    ir.write_model(ir.read_model(xml), tmp_path / "again.xml", version=11)  # written back byte for byte
    assert (tmp_path / "again.xml").read_bytes() == xml.read_bytes()
    assert (tmp_path / "again.bin").read_bytes() == xml.with_suffix(".bin").read_bytes()
