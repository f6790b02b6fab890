"""ExperimentalDetectronROIFeatureExtractor-6 against a scalar port of OpenVINO's reference kernel
(``experimental_detectron_roi_feature_extractor.cpp``) and its CPU plugin (openvino 2026.4.1 neither folds nor
evaluates the op)."""

from __future__ import annotations

import math

import numpy as np
import openvino as ov
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openvino.utils.node_factory import NodeFactory

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.errors import OpError
from irgraph.ops.detection.experimental_detectron_roi_feature_extractor import (
    ExperimentalDetectronROIFeatureExtractor as Extractor,
)
from tests.ops.detection.judging import cpu_outputs, judged_by_port
from tests.ops.differential import (
    OP_EXAMPLES,
    assert_values_close,
    check_types,
    cpu_default,
    ov_ops,
    same_op,
)
from tests.ops.helpers import infer, tt

F32 = np.float32


def reference_features(op, rois, levels):
    """The reference's loops in float32 scalars."""
    f = F32
    size = op.output_size
    channels = levels[0].shape[1]
    out = np.zeros((len(rois), channels, size, size), F32)
    for r, (x0, y0, x1, y1) in enumerate(rois):
        area = (x1 - x0) * (y1 - y0)
        if not area > 0:
            continue
        level = math.floor(float(np.log2(np.sqrt(area) / f(224) + f(1e-6)) + f(2)))
        level = max(0, min(len(levels) - 1, level))
        data = levels[level][0]
        height, width = data.shape[1:]
        scale = f(1.0) / f(op.pyramid_scales[level])
        off = f(0.5) if op.aligned else f(0)
        sw, sh, ew, eh = x0 * scale - off, y0 * scale - off, x1 * scale - off, y1 * scale - off
        rw, rh = max(ew - sw, f(1)), max(eh - sh, f(1))
        bh, bw = rh / f(size), rw / f(size)
        gh = op.sampling_ratio if op.sampling_ratio > 0 else math.ceil(rh / f(size))
        gw = op.sampling_ratio if op.sampling_ratio > 0 else math.ceil(rw / f(size))
        for c in range(channels):
            for ph in range(size):
                for pw in range(size):
                    total = f(0)
                    for iy in range(gh):
                        for ix in range(gw):
                            y = sh + f(ph) * bh + (f(iy) + f(0.5)) * bh / f(gh)
                            x = sw + f(pw) * bw + (f(ix) + f(0.5)) * bw / f(gw)
                            if y < f(-1) or y > f(height) or x < f(-1) or x > f(width):
                                continue
                            y, x = max(y, f(0)), max(x, f(0))
                            yl, xl = int(y), int(x)
                            if yl >= height - 1:
                                yl = yh = height - 1
                                y = f(yl)
                            else:
                                yh = yl + 1
                            if xl >= width - 1:
                                xl = xh = width - 1
                                x = f(xl)
                            else:
                                xh = xl + 1
                            ly, lx = y - f(yl), x - f(xl)
                            hy, hx = f(1) - ly, f(1) - lx
                            total += (hy * hx * data[c, yl, xl] + hy * lx * data[c, yl, xh] + ly * hx * data[c, yh, xl]
                                      + ly * lx * data[c, yh, xh])
                    out[r, c, ph, pw] = total / f(gh * gw)
    return out


def draw_configuration(data):
    count = data.draw(st.integers(1, 2))
    op = Extractor(output_size=data.draw(st.integers(1, 3)), sampling_ratio=data.draw(st.sampled_from([0, 1, 2])),
                   pyramid_scales=(4, 8, 16, 32)[:count], aligned=data.draw(st.booleans()))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    channels = data.draw(st.integers(1, 3))
    levels = [rng.normal(0, 1, (1, channels, 64 // op.pyramid_scales[i] + 1, 48 // op.pyramid_scales[i] + 2))
              .astype(F32) for i in range(count)]
    corner = rng.uniform(-8, 50, (data.draw(st.integers(1, 5)), 2))
    rois = np.concatenate([corner, corner + rng.uniform(-2, 40, corner.shape)], -1).astype(F32)
    return op, [rois, *levels]


def assert_matches_port_and_cpu(op, inputs):
    # nothing folds: the scalar port judges, the CPU plugin too (below)
    judged_by_port(op, inputs, lambda op, arrays: [reference_features(op, arrays[0], arrays[1:]), arrays[0]])
    features, rois = op.evaluate(inputs)
    magnitude = op.term_magnitudes(inputs)[0]
    cpu = cpu_outputs(op, inputs)
    assert_values_close(features, cpu[0], cpu_default(op.tolerance), f"{op!r} vs the CPU plugin on "
                        f"{[x.tolist() for x in inputs]}", magnitude)
    np.testing.assert_array_equal(rois, cpu[1])


@OP_EXAMPLES
@given(data=st.data())
def test_generated_configurations_match_the_reference_port_and_cpu_plugin(data):
    op, inputs = draw_configuration(data)
    assert_matches_port_and_cpu(op, inputs)


def test_exact_values_on_a_ramp():
    """A 4x4 ramp (value = x + 10 y) at scale 1, roi (0, 0, 2, 2), one bin of 2x2 samples at (0.5, 0.5), (1.5, 0.5),
    (0.5, 1.5), (1.5, 1.5): bilinear on a plane gives its mean 1 + 10 = 11. A roi of no area stays 0."""
    op = Extractor(output_size=1, sampling_ratio=2, pyramid_scales=(1,))
    ramp = (np.arange(4)[None, :] + 10 * np.arange(4)[:, None]).astype(F32).reshape(1, 1, 4, 4)
    rois = np.array([[0, 0, 2, 2], [1, 1, 1, 3]], F32)
    features, _ = op.evaluate([rois, ramp])
    assert features.reshape(-1).tolist() == [11.0, 0.0]
    assert_matches_port_and_cpu(op, [rois, ramp])


def test_a_sample_on_the_far_edge_reads_the_last_row():
    """One sample per bin, at the roi's centre: roi (0, 3, 2, 5) puts it at (1, 4), on the 4x4 ramp's far edge
    y = H, which the reference still reads (as row 3: 1 + 30 = 31); roi (0, 3.5, 2, 5.5) puts it at y = 4.5,
    past the edge, where it reads 0."""
    op = Extractor(output_size=1, sampling_ratio=1, pyramid_scales=(1,))
    ramp = (np.arange(4)[None, :] + 10 * np.arange(4)[:, None]).astype(F32).reshape(1, 1, 4, 4)
    rois = np.array([[0, 3, 2, 5], [0, 3.5, 2, 5.5]], F32)
    features, _ = op.evaluate([rois, ramp])
    assert features.reshape(-1).tolist() == [31.0, 0.0]
    assert_matches_port_and_cpu(op, [rois, ramp])


def test_partial_shapes_and_refusals():
    op = Extractor(output_size=2, sampling_ratio=2, pyramid_scales=(4, 8))
    for types in ([tt("5,4"), tt("1,3,8,8"), tt("1,3,4,4")], [tt("..."), tt("..."), tt("...")],
                  [tt("?,4"), tt("1,?,8,8"), tt("...")]):
        check_types(op, types, same_op(op))
    assert infer(op, [tt("5,4"), tt("1,3,8,8"), tt("1,3,4,4")], [None] * 3) == ["[5,3,2,2]", "[5,4]"]
    for types, message in (([tt("5,5"), tt("1,3,8,8")], "must be equal to 4"),
                           ([tt("5,4"), tt("2,3,8,8")], "first dimension of each pyramid"),
                           ([tt("5,4"), tt("1,3,8,8"), tt("1,2,4,4")], "number of channels"),
                           ([tt("5,4"), tt("1,3,8")], "Rank of each element")):
        with pytest.raises(OpError, match=message):
            infer(op, types, [None] * len(types))
        check_types(op, types, same_op(op))  # OpenVINO refuses them too


def test_ir_run_runs_openvinos_roi_feature_extractor_ir(tmp_path, capsys):
    rois = ov_ops.parameter([4, 4], ov.Type.f32, name="rois")
    levels = [ov_ops.parameter([1, 2, 16, 16], ov.Type.f32, name="p2"),
              ov_ops.parameter([1, 2, 8, 8], ov.Type.f32, name="p3")]
    node = NodeFactory("opset6").create("ExperimentalDetectronROIFeatureExtractor",
                                        [rois.output(0), *(x.output(0) for x in levels)],
                                        {"output_size": 2, "sampling_ratio": 2, "pyramid_scales": [4, 8],
                                         "aligned": True})
    results = [ov_ops.result(node.output(i)) for i in range(2)]
    for result, name in zip(results, ("features", "rois_out"), strict=True):
        result.output(0).get_tensor().set_names({name})
    xml = tmp_path / "roi_features.xml"
    ov.save_model(ov.Model(results, [rois, *levels], "fpn"), xml, compress_to_fp16=False)
    rng = np.random.default_rng(9)
    feeds = {"rois": np.array([[0, 0, 30, 30], [10, 4, 60, 50], [2, 2, 3, 3], [0, 0, 200, 300]], F32),
             "p2": rng.normal(0, 1, (1, 2, 16, 16)).astype(F32), "p3": rng.normal(0, 1, (1, 2, 8, 8)).astype(F32)}
    np.savez(tmp_path / "in.npz", **feeds)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    compiled = ov.Core().compile_model(xml, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    expected = compiled(feeds)
    op = Extractor(output_size=2, sampling_ratio=2, pyramid_scales=(4, 8), aligned=True)
    magnitude = op.term_magnitudes([feeds["rois"], feeds["p2"], feeds["p3"]])[0]
    with np.load(tmp_path / "out.npz") as written:
        assert_values_close(written["features"], expected[compiled.output(0)], cpu_default(Extractor.tolerance),
                            "ir-run's features vs the CPU plugin", magnitude)
        np.testing.assert_array_equal(written["rois_out"], feeds["rois"])
    assert ir.validate(ir.read_model(xml)) == []


def test_spec_example_shapes():
    """experimental-detectron-roi-feature-extractor-6.rst: 1000 rois, four levels of 256 channels, 7 x 7."""
    op = Extractor(output_size=7, sampling_ratio=2, pyramid_scales=(4, 8, 16, 32))
    types = [tt("1000,4"), tt("1,256,200,336"), tt("1,256,100,168"), tt("1,256,50,84"), tt("1,256,25,42")]
    assert infer(op, types, [None] * 5) == ["[1000,256,7,7]", "[1000,4]"]
    check_types(op, types, same_op(op))
