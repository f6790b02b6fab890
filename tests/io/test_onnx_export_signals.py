"""IR -> ONNX for DFT-7, IDFT-7, RDFT-9, IRDFT-9, STFT-15 and DeformableConvolution-1/-8, and ONNX -> IR for
DeformConv, differentially.

Each one-op IR model is exported at each of its opsets (DFT-17's axis attribute, DFT-20's axis input) and run by
onnxruntime 1.31.1 and by onnx 1.23.2's ``onnx.reference``; both are compared with irgraph's evaluation of the IR,
and the IR itself, written and read by OpenVINO 2026.4.1, is run by its CPU plugin (INFERENCE_PRECISION_HINT f32) on
the f32 configurations the plugin runs (its RDFT and IRDFT fail or crash on signal sizes, see docs/tolerances.md).

Bounds come from the ops' rows of docs/tolerances.md: the Fourier ops 2 ULP or 4 eps x sum|terms|, widened by the
reference's own twiddle error (``8 L`` eps x sum|terms| per axis of a length L that is not a power of two) where the
other side uses accurate twiddles (onnxruntime, onnx.reference, the plugin's RDFT, IRDFT and STFT); the deformable
convolutions 1 ULP or 16 eps x sum|terms|, at least 2 ULP or 1 eps against another implementation (its own
summation order and FMA use). f16 cases are judged by the ONNX runtimes only (the export computes them in f32 and
rounds once, as irgraph does; the plugin's f16 depends on the instruction set).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

import irgraph as ir
from irgraph.core.errors import ConversionError
from irgraph.ops.convolution.deformable_convolution import DeformableConvolution, DeformableConvolution8
from irgraph.ops.families.fft import is_power_of_two
from irgraph.ops.op import Op, Tolerance
from irgraph.ops.signals.dft import DFT
from irgraph.ops.signals.idft import IDFT
from irgraph.ops.signals.irdft import IRDFT
from irgraph.ops.signals.rdft import RDFT
from irgraph.ops.signals.stft import STFT
from tests.io.test_onnx_export import onnxruntime_run
from tests.io.test_onnx_export_rules import Case, one_op_model
from tests.ops.differential import CPU_CONFIG, assert_values_close

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(20261127)
ORT = "onnxruntime 1.31.1"
REFERENCE = "onnx 1.23.2 onnx.reference"
CPU = "openvino 2026.4.1 CPU plugin"


def f32(*shape: int, low: float = -3.0, high: float = 3.0) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(np.float32)


def i64(*values: int) -> np.ndarray:
    return np.asarray(values, np.int64)


def naive_lengths(case: Case) -> list[int]:
    """The transform lengths of the case that are not powers of two (the reference's naive DFT, f32 twiddles)."""
    op = case.op
    if isinstance(op, STFT):
        frame = int(case.inputs[2])
        return [] if is_power_of_two(frame) else [frame]
    assert isinstance(op, (DFT, IDFT, RDFT, IRDFT))
    axes, lengths = op.plan(case.inputs)
    return [lengths[axis] for axis in axes if not is_power_of_two(lengths[axis])]


def accurate_twiddles(case: Case) -> Tolerance:
    """The op's row plus the reference's twiddle error against accurate twiddles."""
    own = case.op.tolerance
    return Tolerance(ulp=max(own.ulp, 2), eps=max(own.eps, 1.0),
                     sum_eps=own.sum_eps + sum(8 * length for length in naive_lengths(case)))


def other_implementation(case: Case) -> Tolerance:
    """The op's row, at least 2 ULP or 1 eps (another summation order, another FMA use)."""
    own = case.op.tolerance
    return Tolerance(ulp=max(own.ulp, 2), eps=max(own.eps, 1.0), sum_eps=own.sum_eps)


def _magnitude(op: Op, inputs: list[np.ndarray]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(op.term_magnitudes(inputs)[0], np.float64)


def openvino_cpu(model: ir.Model, feeds: dict[str, np.ndarray], tmp_path) -> np.ndarray:
    """The IR written by irgraph, read and run by OpenVINO's CPU plugin."""
    import openvino as ov

    path = tmp_path / "model.xml"
    ir.write_model(model, path)
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(path)), "CPU", CPU_CONFIG)
    return np.asarray(compiled([feeds[p.name] for p in model.parameters])[0])


def check(case: Case, tmp_path, *, bound: Tolerance, cpu: Tolerance | None) -> None:
    """Export at each opset; onnxruntime and onnx.reference within ``bound`` of irgraph; the plugin within ``cpu``."""
    model, feeds = one_op_model(case)
    ours = ir.run(model, feeds)["out0"]
    extent = _magnitude(case.op, case.inputs)
    for opset in case.opsets:
        proto = ir.export_onnx(model, opset=opset)
        assert "op" in {node.name for node in proto.graph.node}, "the layer name names its ONNX node"
        runs = {ORT: onnxruntime_run(proto, feeds)["out0"], REFERENCE: ReferenceEvaluator(proto).run(None, feeds)[0]}
        for oracle, theirs in runs.items():
            assert_values_close(ours, np.asarray(theirs), bound, f"{case.id} opset {opset}", extent, oracle=oracle)
    if cpu is not None:
        assert_values_close(ours, openvino_cpu(model, feeds, tmp_path), cpu, case.id, extent, oracle=CPU)


# ------------------------------------------------------------------------------------ the Fourier transforms
BOTH = (17, 20)


def fourier_cases() -> list[tuple[Case, bool]]:
    """(case, whether OpenVINO's CPU plugin runs it): axes positive and negative, signal sizes that keep (-1),
    pad and trim, power-of-two and naive lengths."""
    complex_data, real_data = f32(3, 5, 6, 2), f32(3, 5, 6)
    return [
        (Case(DFT(), [complex_data, i64(-1, 0)], constant=(1,), opsets=BOTH, note="axes-1,0"), True),
        (Case(DFT(), [f32(2, 5, 2), i64(1), i64(8)], constant=(1, 2), opsets=BOTH, note="pad-to-8"), True),
        # the plugin returns uninitialised memory (1e35, 4e-41) for a DFT over no axes
        (Case(DFT(), [f32(4, 3, 2), np.zeros(0, np.int64)], constant=(1,), note="no-axes"), False),
        (Case(IDFT(), [complex_data, i64(1, -3), i64(4, -1)], constant=(1, 2), opsets=BOTH, note="trim-keep"), True),
        (Case(IDFT(), [complex_data, i64(0, 1, 2), i64(2, 7, 3)], constant=(1, 2), opsets=BOTH, note="every-axis"),
         True),
        (Case(RDFT(), [real_data, i64(2, 0)], constant=(1,), opsets=BOTH, note="axes2,0"), True),
        (Case(RDFT(), [real_data, i64(-1, 1), i64(4, 3)], constant=(1, 2), opsets=BOTH, note="trim"), True),
        (Case(RDFT(), [real_data, i64(-2, -1), i64(-1, 9)], constant=(1, 2), opsets=BOTH, note="keep-pad"), False),
        (Case(RDFT(), [f32(9), i64(0)], constant=(1,), opsets=BOTH, note="1d"), True),
        (Case(IRDFT(), [complex_data, i64(0, -1)], constant=(1,), opsets=BOTH, note="axes0,-1"), True),
        (Case(IRDFT(), [complex_data, i64(-1, 1), i64(3, 9)], constant=(1, 2), opsets=BOTH, note="sizes"), False),
        (Case(IRDFT(), [complex_data, i64(1), i64(4)], constant=(1, 2), opsets=BOTH, note="trimmed-half"), False),
        (Case(IRDFT(), [complex_data, i64(2), i64(14)], constant=(1, 2), opsets=BOTH, note="short-half"), False),
        (Case(IRDFT(), [complex_data, i64(-2, 2), i64(-1, -1)], constant=(1, 2), opsets=BOTH, note="keep"), False),
        (Case(DFT(), [f32(3, 6, 2).astype(np.float16), i64(0, 1)], constant=(1,), opsets=BOTH, note="f16"), False),
        (Case(IRDFT(), [f32(4, 5, 2).astype(np.float16), i64(1)], constant=(1,), note="f16"), False),
    ]


def stft_cases() -> list[tuple[Case, bool]]:
    """Batched and not, transposed and not, windows shorter than a frame (centred) and as long, frame sizes a power
    of two and not, several frame steps."""
    cases = []
    for signal, window, frame, step, transpose in (
        (f32(2, 30), np.hanning(5), 8, 3, True),
        (f32(30), np.hanning(7), 7, 2, False),
        (f32(1, 40), np.hamming(9), 16, 5, False),
        (f32(40), np.ones(6), 9, 4, True),
        (f32(3, 12), np.hanning(12), 12, 1, False),
    ):
        shape = "x".join(map(str, signal.shape))
        case = Case(STFT(transpose_frames=transpose), [signal, window.astype(np.float32), np.asarray(frame, np.int32),
                                                       np.asarray(step, np.int64)], constant=(2, 3), opsets=BOTH,
                    note=f"{shape}-w{len(window)}-f{frame}-s{step}{'-t' if transpose else ''}")
        cases.append((case, True))
    half = Case(STFT(transpose_frames=True), [f32(2, 20).astype(np.float16), np.hanning(6).astype(np.float16),
                                              np.asarray(8, np.int64), np.asarray(3, np.int64)], constant=(2, 3),
                note="f16")
    return [*cases, (half, False)]


@pytest.mark.parametrize(("case", "plugin_runs"), fourier_cases() + stft_cases(), ids=lambda x: getattr(x, "id", ""))
def test_the_fourier_exports_compute_irgraphs_and_openvinos_values(case: Case, plugin_runs: bool, tmp_path):
    cpu = None
    if plugin_runs:  # its DFT and IDFT share the reference's twiddles, its RDFT, IRDFT and STFT do not
        cpu = other_implementation(case) if isinstance(case.op, (DFT, IDFT)) else accurate_twiddles(case)
    check(case, tmp_path, bound=accurate_twiddles(case), cpu=cpu)


def test_each_axis_is_one_onnx_dft_named_as_each_opset_names_it():
    model, _ = one_op_model(Case(IDFT(), [f32(2, 3, 4, 2), i64(-1, 0), i64(-1, 6)], constant=(1, 2)))
    old, new = ir.export_onnx(model, opset=17), ir.export_onnx(model, opset=20)
    assert [(n.op_type, [a.i for a in n.attribute if a.name == "axis"]) for n in old.graph.node] == [
        ("DFT", [2]), ("DFT", [0])]
    assert [n.op_type for n in new.graph.node] == ["DFT", "DFT"]
    assert [len(n.input) for n in new.graph.node] == [3, 3]  # data, no dft_length (''), the axis input
    assert new.graph.node[0].input[1] == "" and new.graph.node[1].input[1] != ""


def test_irdft_extends_the_half_spectrum_as_openvinos_reference():
    from irgraph.io.onnx.export_rules.signals import hermitian_indices
    from irgraph.ops.families.fft import hermitian_extension

    for length, kept in ((10, 6), (9, 5), (14, 6), (4, 3), (1, 1), (3, 2)):
        values = np.arange(1, kept + 1) + 1j * np.arange(10, 10 + kept)
        table = np.concatenate([values, np.conj(values), [0]])
        expected = hermitian_extension(values[None], 1, length)[0]
        np.testing.assert_array_equal(table[hermitian_indices(length, kept)], expected)


def _refusal(op: Op, inputs: list[np.ndarray], constant: tuple[int, ...], opset: int = 20) -> str:
    model, _ = one_op_model(Case(op, inputs, constant=constant))
    with pytest.raises(ConversionError) as caught:
        ir.export_onnx(model, opset=opset)
    return str(caught.value)


def test_what_onnx_cannot_take_is_refused_with_its_reason():
    data = f32(3, 4, 2)
    assert "ONNX has DFT from opset 17; exporting opset 16" in _refusal(DFT(), [data, i64(0)], (1,), opset=16)
    assert "ONNX has STFT from opset 17; exporting opset 13" in _refusal(
        STFT(transpose_frames=False), [f32(20), f32(4), np.asarray(4), np.asarray(2)], (2, 3), opset=13)
    assert "its axes (input 1) must be computable at export" in _refusal(DFT(), [data, i64(0)], ())
    assert "its signal_size (input 2) must be computable at export" in _refusal(IDFT(), [data, i64(0), i64(3)], (1,))
    assert "its frame_size (input 2) must be computable at export" in _refusal(
        STFT(transpose_frames=False), [f32(20), f32(4), np.asarray(4), np.asarray(2)], (3,))
    assert "ONNX has DeformConv from opset 19; exporting opset 18" in _refusal(
        DeformableConvolution(), [f32(1, 1, 4, 4), f32(1, 8, 3, 3), f32(1, 1, 2, 2)], (), opset=18)


# ------------------------------------------------------------------------------------ the deformable convolutions
def deformable_cases() -> list[Case]:
    """Groups and deformable groups, a mask, explicit and same_upper padding, strides and dilations; offsets of up
    to 3 pixels, so samples fall outside the data and in its last pixel's span (where the versions differ)."""
    def offsets(groups: int, taps: int, height: int, width: int) -> np.ndarray:
        return f32(2, groups * taps * 2, height, width)

    explicit = {"strides": (1, 2), "dilations": (2, 1), "pads_begin": (1, 0), "pads_end": (0, 1)}
    same = {"strides": (2, 1), "dilations": (1, 1), "pads_begin": (0, 0), "pads_end": (0, 0), "auto_pad": "same_upper"}
    data = f32(2, 4, 6, 7)
    return [
        Case(DeformableConvolution8(bilinear_interpolation_pad=True, group=2, deformable_group=2, **explicit),
             [data, offsets(2, 6, 5, 3), f32(6, 2, 2, 3), f32(2, 12, 5, 3, low=0, high=1)], opsets=(19, 22),
             note="zero-pad-mask-groups"),
        Case(DeformableConvolution8(bilinear_interpolation_pad=False, group=1, deformable_group=4, **same),
             [data, offsets(4, 9, 3, 7), f32(3, 4, 3, 3), f32(2, 36, 3, 7, low=0, high=1)], opsets=(19,),
             note="edge-mask-same-upper"),
        Case(DeformableConvolution(group=2, deformable_group=1, **explicit),
             [data, offsets(1, 6, 5, 3), f32(4, 2, 2, 3)], opsets=(19, 22), note="v1-groups"),
        Case(DeformableConvolution(group=1, deformable_group=2, strides=(1, 1), dilations=(1, 1), pads_begin=(2, 2),
                                   pads_end=(2, 2)),
             [data, offsets(2, 4, 9, 10), f32(5, 4, 2, 2)], opsets=(19,), note="v1-deformable-groups"),
        Case(DeformableConvolution8(bilinear_interpolation_pad=True, group=1, deformable_group=1, strides=(1, 1),
                                    dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0)),
             [data.astype(np.float16), offsets(1, 4, 5, 6).astype(np.float16), f32(2, 4, 2, 2).astype(np.float16)],
             opsets=(19,), note="f16-no-mask"),
    ]


@pytest.mark.parametrize("case", deformable_cases(), ids=lambda case: case.id)
def test_the_deformable_convolution_exports_compute_irgraphs_and_openvinos_values(case: Case, tmp_path):
    plugin = case.inputs[0].dtype == np.float32
    check(case, tmp_path, bound=other_implementation(case), cpu=other_implementation(case) if plugin else None)


def test_the_edge_rule_changes_the_values_so_its_rewrite_is_tested():
    """DeformableConvolution-1 and -8 with bilinear_interpolation_pad differ on the cases above: the v1 exports'
    agreement with irgraph is owed to the offsets' rewrite, not to ONNX's rule being the same."""
    case = deformable_cases()[2]
    zero_padded = DeformableConvolution8(bilinear_interpolation_pad=True, **{
        name: getattr(case.op, name) for name in ("strides", "dilations", "pads_begin", "pads_end", "group",
                                                  "deformable_group")})
    (edge,), (zeros,) = case.op.evaluate(case.inputs), zero_padded.evaluate(case.inputs)
    assert np.abs(edge - zeros).max() > 0.1


def test_onnx_deform_conv_imports_with_its_bias_and_mask(tmp_path):
    """ONNX -> IR: DeformableConvolution-8 (bilinear_interpolation_pad) and an Add of the bias, within the op's
    bound of onnxruntime, onnx.reference and OpenVINO's plugin running the converted IR."""
    feeds = {"X": f32(1, 4, 5, 6), "W": f32(4, 2, 2, 2), "offset": f32(1, 16, 5, 3, low=-2, high=2),
             "B": f32(4), "mask": f32(1, 8, 5, 3, low=0, high=1)}
    node = helper.make_node("DeformConv", list(feeds), ["y"], group=2, offset_group=2, pads=[1, 0, 0, 1],
                            strides=[1, 2], dilations=[1, 2])
    graph = helper.make_graph([node], "deform", [helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT,
                                                                               value.shape)
                                                 for name, value in feeds.items()],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    proto.ir_version = 9
    model = ir.convert_onnx(proto)
    (op,) = [node.op for node in model.nodes if isinstance(node.op, DeformableConvolution8)]
    assert op.bilinear_interpolation_pad and op.group == 2 and op.deformable_group == 2
    assert op.pads_begin == (1, 0) and op.pads_end == (0, 1)
    ours = ir.run(model, feeds)["y"]
    inputs = [feeds["X"], feeds["offset"], feeds["W"], feeds["mask"]]
    extent = _magnitude(op, inputs) + np.abs(feeds["B"])[None, :, None, None]
    bound = other_implementation(Case(op, inputs))
    for oracle, theirs in ((ORT, onnxruntime_run(proto, feeds)["y"]),
                           (REFERENCE, ReferenceEvaluator(proto).run(None, feeds)[0]),
                           (CPU, openvino_cpu(model, feeds, tmp_path))):
        assert_values_close(ours, np.asarray(theirs), bound, "DeformConv import", extent, oracle=oracle)


def test_onnx_deform_conv_of_other_ranks_is_refused():
    node = helper.make_node("DeformConv", ["X", "W", "offset"], ["y"])
    graph = helper.make_graph([node], "deform", [
        helper.make_tensor_value_info("X", onnx.TensorProto.FLOAT, [1, 1, 5]),
        helper.make_tensor_value_info("W", onnx.TensorProto.FLOAT, [1, 1, 2]),
        helper.make_tensor_value_info("offset", onnx.TensorProto.FLOAT, [1, 2, 4])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    with pytest.raises(ConversionError, match=r"IR's DeformableConvolution is 2-D \(N, C, H, W\)"):
        ir.convert_onnx(proto)


def test_a_dynamic_batch_exports_and_runs_at_every_batch():
    """The edge rule's rewrite needs static dims past the batch only: one export runs batches of 1 and 3."""
    model = ir.Model("dynamic_batch")
    data = model.parameter("in0", [-1, 2, 5, 5], "f32")
    offsets = model.parameter("in1", [-1, 8, 4, 4], "f32")
    op = DeformableConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0))
    node = model.add_node(op, "op", [data, offsets, model.const(f32(3, 2, 2, 2))])
    model.result(ir.OutputPort(node.id, 0), name="out0")
    proto = ir.export_onnx(model, opset=19)
    for batch in (1, 3):
        feeds = {"in0": f32(batch, 2, 5, 5), "in1": f32(batch, 8, 4, 4)}
        ours = ir.run(model, feeds)["out0"]
        weights = model.constant_value(model.input_sources(node)[2])
        extent = _magnitude(op, [feeds["in0"], feeds["in1"], weights])
        assert_values_close(ours, onnxruntime_run(proto, feeds)["out0"], other_implementation(Case(op, [])),
                            f"batch {batch}", extent, oracle=ORT)


def test_an_irdft_whose_extended_axis_is_dynamic_is_refused():
    model = ir.Model("dynamic_axis")
    data = model.parameter("in0", [3, -1, 2], "f32")
    node = model.add_node(IRDFT(), "op", [data, model.const(i64(1))])
    model.result(ir.OutputPort(node.id, 0), name="out0")
    with pytest.raises(ConversionError, match=r"IRDFT x1 \(layer 2 'op': the Hermitian extension of axis 1 is placed "
                                              r"at export, which needs its length; it is \?\)"):
        ir.export_onnx(model, opset=20)
