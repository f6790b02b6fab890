"""Signal ops in IR files written by openvino 2026.4.1's serializer, read and run by ``ir-run``.

The values are judged by the ported reference (``fft_reference``) within each op's tolerance, and by the CPU
plugin with the bound ``test_fourier_transforms`` explains (the plugin's RDFT/IRDFT twiddles are not the
reference's).
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset16 as ov16

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.ops.families.fft import FFT_TOLERANCE
from irgraph.ops.signals.dft import DFT
from irgraph.ops.signals.irdft import IRDFT
from irgraph.ops.signals.istft import ISTFT
from irgraph.ops.signals.rdft import RDFT
from irgraph.ops.signals.stft import STFT
from tests.ops.differential import assert_values_close
from tests.ops.signals import fft_reference


def fourier_model(path) -> None:
    """x [3, 8] -> RDFT over axis 1 -> spectrum [3, 5, 2]; DFT of the spectrum over axis 0; IRDFT back to [3, 8]."""
    x = ov16.parameter([3, 8], ov.Type.f32, name="x")
    spectrum = ov16.rdft(x, ov16.constant(np.array([1], np.int64)))
    spectrum.set_friendly_name("spectrum")
    columns = ov16.dft(spectrum, ov16.constant(np.array([-2], np.int32)))
    columns.set_friendly_name("columns")
    back = ov16.irdft(spectrum, ov16.constant(np.array([1], np.int64)))
    back.set_friendly_name("back")
    results = [ov16.result(node) for node in (spectrum, columns, back)]
    for result, name in zip(results, ("spectrum", "columns", "back"), strict=True):
        result.output(0).get_tensor().set_names({name})
    ov.save_model(ov.Model(results, [x], "fourier"), path, compress_to_fp16=False)


def test_ir_run_runs_openvinos_fourier_ir(tmp_path, capsys):
    xml = tmp_path / "fourier.xml"
    fourier_model(xml)
    text = xml.read_text()
    assert 'type="RDFT" version="opset9"' in text and 'type="DFT" version="opset7"' in text
    assert 'type="IRDFT" version="opset9"' in text
    x = np.random.default_rng(4).uniform(-2, 2, (3, 8)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    with np.load(tmp_path / "out.npz") as written:
        got = {name: written[name] for name in written.files}
    assert sorted(got) == ["back", "columns", "spectrum"]

    spectrum = fft_reference.rdft(x, [1], [3, 8])
    columns = fft_reference.fft(spectrum, [0], [3, 5], inverse=False)
    back = fft_reference.irdft(spectrum, [1], [3, 8])
    for name, op, inputs, expected in (
        ("spectrum", RDFT(), [x, np.array([1])], spectrum),
        ("columns", DFT(), [spectrum, np.array([0])], columns),
        ("back", IRDFT(), [spectrum, np.array([1])], back),
    ):
        magnitude = op.term_magnitudes(inputs)[0]
        assert_values_close(got[name], expected, FFT_TOLERANCE, f"{name} vs the ported reference", magnitude)
    np.testing.assert_allclose(got["back"], x, atol=1e-6)  # and IRDFT undoes RDFT

    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    on_cpu = {next(iter(port.get_names())): np.asarray(value) for port, value in compiled({"x": x}).items()}
    for name in got:
        np.testing.assert_allclose(got[name], on_cpu[name], atol=2e-6, err_msg=name)  # lengths 8 and 3, values below 20
    assert ir.validate(ir.read_model(xml)) == []


def test_ir_run_runs_openvinos_stft_ir(tmp_path, capsys):
    """signal [2, 64] -> STFT (frame 16, step 4, Hann window of 15, frames transposed) -> ISTFT (centred) back."""
    signal = ov16.parameter([2, 64], ov.Type.f32, name="signal")
    window = ov16.constant(np.hanning(17)[1:-1].astype(np.float32))
    size, step = ov16.constant(np.array(16, np.int64)), ov16.constant(np.array(4, np.int64))
    spectrum = ov16.stft(signal, window, size, step, True)
    back = ov16.istft(spectrum, window, size, step, False, False)
    results = [ov16.result(spectrum), ov16.result(back)]
    for result, name in zip(results, ("spectrum", "back"), strict=True):
        result.output(0).get_tensor().set_names({name})
    xml = tmp_path / "stft.xml"
    ov.save_model(ov.Model(results, [signal], "stft"), xml, compress_to_fp16=False)
    text = xml.read_text()
    assert 'type="STFT" version="opset15"' in text and 'type="ISTFT" version="opset16"' in text
    x = np.random.default_rng(8).uniform(-1, 1, (2, 64)).astype(np.float32)
    np.savez(tmp_path / "in.npz", signal=x)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    with np.load(tmp_path / "out.npz") as written:
        got = {name: written[name] for name in written.files}
    hann = np.hanning(17)[1:-1].astype(np.float32)
    spectrum_expected = fft_reference.stft(x, hann, 16, 4, True)
    back_expected = fft_reference.istft(spectrum_expected, hann, 16, 4, -1, False, False)
    assert got["spectrum"].shape == (2, 9, 13, 2) and got["back"].shape == (2, 64)
    stft_inputs = [x, hann, np.array(16), np.array(4)]
    assert_values_close(got["spectrum"], spectrum_expected, STFT.tolerance, "STFT vs the ported reference",
                        STFT(transpose_frames=True).term_magnitudes(stft_inputs)[0])
    istft_op = ISTFT(center=False, normalized=False)
    istft_inputs = [spectrum_expected, hann, np.array(16), np.array(4)]
    assert_values_close(got["back"], back_expected, ISTFT.tolerance, "ISTFT vs the ported reference",
                        istft_op.term_magnitudes(istft_inputs)[0])
    np.testing.assert_allclose(got["back"][:, :-1], x[:, :-1], atol=1e-6)
    assert got["back"][:, -1].tolist() == [0.0, 0.0]  # the window (15 in 16) leaves the last sample uncovered
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    on_cpu = {next(iter(port.get_names())): np.asarray(value) for port, value in compiled({"signal": x}).items()}
    for name in got:
        np.testing.assert_allclose(got[name], on_cpu[name], atol=2e-6, err_msg=name)
    assert ir.validate(ir.read_model(xml)) == []
