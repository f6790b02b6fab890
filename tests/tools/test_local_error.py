"""The layer's own error and the repro bundle, end to end through ir-run, against openvino 2026.4.1 and
onnxruntime 1.31.1.

A fault is planted deep in a real network (tests/data/models/whisper-tiny-encoder, 116 layers): in a process of its
own (tests/tools/planted.py), irgraph's second-block Gelu multiplies its f32 output by 1.001. With a tolerance
tighter than the f32 rounding the encoder accumulates (atol 0, rtol 1e-6), the first tensor beyond tolerance is
the first convolution's: only rounding. Run on OpenVINO's own inputs, every layer before the Gelu stays within
its tolerance class, and the Gelu alone exceeds it: the verdict must name the Gelu.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.tools.repro import FILES
from tests.tools.test_layerwise import changed_weight, line_of_layer

pytestmark = pytest.mark.oracle

ROOT = Path(__file__).resolve().parents[2]
WHISPER = ROOT / "tests" / "data" / "models" / "whisper-tiny-encoder" / "model.xml"
GELU = "__module.layers.1.activation_fn/aten::gelu/Gelu"
"""The planted layer: the 107th of 116, the second encoder block's activation (output key 210)."""
CONV1 = "__module.conv1/aten::_convolution/Convolution"
TIGHT = ["--atol", "0", "--rtol", "1e-6"]
"""Tighter than the f32 rounding the encoder accumulates from its first layer on."""
OPENVINO = "openvino 2026.4.1 (CPU, f32)"


@pytest.fixture(autouse=True)
def _openvino() -> None:
    pytest.importorskip("openvino", reason="the test extra installs openvino")


def run(argv: list[str], cwd: Path = ROOT, planted: bool = True) -> subprocess.CompletedProcess[str]:
    """ir-run in a process of its own, with the Gelu planted (tests/tools/planted.py) or as it is."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    command = ["-m", "tests.tools.planted", GELU, "1.001"] if planted else ["-m", "irgraph.cli.ir_run"]
    return subprocess.run([sys.executable, *command, *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def compare_argv(*extra: str) -> list[str]:
    return [str(WHISPER), "--compare-with", "openvino", "--mark", "all", *TIGHT, *extra]


def test_the_planted_layer_is_named_by_its_own_error_and_the_rounding_before_it_is_not() -> None:
    done = run(compare_argv("--json", "--truth", "f64"))
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)["compare_with"]
    assert report["first_divergence"]["layer"] == CONV1  # what the accumulated error alone would blame
    assert report["first_local_divergence"]["layer"] == GELU
    keys = [tensor["key"] for tensor in report["tensors"]]
    planted = keys.index("210")
    before = report["tensors"][:planted]
    assert len(before) > 40
    failing = [tensor["key"] for tensor in before if not tensor["comparison"]["passed"]]
    assert len(failing) > 10  # the accumulated noise that crosses the tight line
    assert all(tensor["local"]["passed"] for tensor in before)  # none of which is any layer's own error
    own = report["tensors"][planted]["local"]
    assert not own["passed"] and own["max_rel_error"] > 5e-4
    # The layer in f64 (the fault only touches f32): OpenVINO is the closer to exact.
    assert own["f64"]["closer"] == "the reference"
    assert own["f64"]["irgraph"] > 100 * own["f64"]["reference"]
    error = done.stderr.splitlines()[-1]
    assert error.startswith(f"error: {WHISPER}:{line_of_layer(WHISPER, GELU)}: layer '{GELU}' (Gelu) is the first "
                            f"whose own error exceeds its tolerance class: output 0 (210) on {OPENVINO}'s own inputs: ")
    assert error.endswith(f"; the first output beyond tolerance, 48 of layer '{CONV1}', differs only by rounding: on "
                          f"the reference's own inputs it is within its tolerance class (max abs error "
                          f"{report['tensors'][0]['local']['max_abs_error']:.3g})")


def test_the_text_report_flags_only_the_planted_layer() -> None:
    done = run(compare_argv())
    assert done.returncode == 1, done.stderr
    flagged = [line.split()[1] for line in done.stdout.splitlines() if "OWN ERROR BEYOND ITS CLASS" in line]
    assert flagged == ["210"]
    assert f"  first layer whose own error exceeds its class: '{GELU}' (Gelu, id 107) at {WHISPER}:" in done.stdout


def test_without_a_fault_the_mismatch_is_only_rounding(capsys) -> None:
    assert ir_run.main(compare_argv()) == 1
    out, err = capsys.readouterr()
    assert "OWN ERROR" not in out
    assert "  none exceeds its class: the mismatch is only inherited rounding" in out
    assert err.splitlines()[-1].startswith(f"error: {WHISPER}:{line_of_layer(WHISPER, CONV1)}: layer '{CONV1}' "
                                           f"(Convolution) is the first whose output differs from {OPENVINO}: ")
    assert "; only rounding: on the reference's own inputs it is within its tolerance class (max abs error " in err


def readme_command(directory: Path) -> list[str]:
    """The command line README.md gives, split."""
    line = next(line for line in (directory / "README.md").read_text("utf-8").splitlines()
                if line.startswith("    ir-run "))
    return shlex.split(line)


def test_the_repro_bundle_reproduces_the_planted_mismatch_by_itself(tmp_path) -> None:
    bundle = tmp_path / "repro"
    done = run(compare_argv("--save-repro", str(bundle)))
    assert done.returncode == 1, done.stderr
    assert sorted(path.name for path in bundle.iterdir()) == sorted(FILES)
    command = readme_command(bundle)
    assert command == ["ir-run", "model.xml", "--inputs", "inputs.npz", "--compare", "reference.npz", "--precision",
                       "f32", "--decompression", "f32"]
    assert f"note: repro bundle written: cd {bundle} && {shlex.join(command)} (see its README.md)" in done.stderr
    assert "(in this directory; exits 1 naming the mismatch, checked when this was written)" in (
        bundle / "README.md").read_text("utf-8")
    model = ir.read_model(bundle / "model.xml")
    assert [node.type_name for node in model] == ["Parameter", "Gelu", "Result"]
    assert np.load(bundle / "inputs.npz")[model.parameters[0].name].shape == (1, 16, 64)

    again = run(command[1:], cwd=bundle)  # the planted irgraph, on the bundle alone
    assert again.returncode == 1, again.stderr
    assert "  MISMATCH  210  max abs error " in again.stdout
    assert again.stderr.splitlines()[-1].startswith("error: reference.npz: outputs do not match the reference")
    assert run(command[1:], cwd=bundle, planted=False).returncode == 0  # irgraph as it is: the bundle holds the fault
    # The bundle is an IR OpenVINO runs: its Gelu on the same inputs agrees with irgraph's (unplanted).
    assert run(["model.xml", "--inputs", "inputs.npz", "--compare-with", "openvino"], cwd=bundle,
               planted=False).returncode == 0


def test_a_repro_of_inherited_rounding_is_the_model_up_to_the_divergence(tmp_path) -> None:
    bundle = tmp_path / "repro"
    assert ir_run.main(compare_argv("--save-repro", str(bundle))) == 1
    command = readme_command(bundle)
    assert {"--atol=0", "--rtol=1e-06"} <= set(command)  # judged by the tolerance the run was given
    assert "no layer's own error exceeds its tolerance class" in (bundle / "README.md").read_text("utf-8")
    model = ir.read_model(bundle / "model.xml")
    assert [node.type_name for node in model if node.type_name not in ("Const", "Convert")] == [
        "Parameter", "Convolution", "Result"]  # from the input up to conv1's output (48)
    done = run(command[1:], cwd=bundle, planted=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "  MISMATCH  48  max abs error " in done.stdout


@pytest.fixture(scope="module")
def convnet(tmp_path_factory) -> Path:
    pytest.importorskip("onnx", reason="the test extra installs onnx")
    from tests.convnet import write_convnet

    return write_convnet(tmp_path_factory.mktemp("convnet"))


@pytest.fixture(scope="module")
def convnet_f32(tmp_path_factory) -> Path:
    """Without fp16 compression, so that its ONNX original computes the same values."""
    pytest.importorskip("onnx", reason="the test extra installs onnx")
    from tests.convnet import write_convnet

    return write_convnet(tmp_path_factory.mktemp("convnet32"), compress_to_fp16=False)


def test_a_changed_weight_is_reproduced_by_plain_ir_run(convnet, tmp_path, capsys) -> None:
    faulted = changed_weight(convnet, tmp_path)
    bundle = tmp_path / "repro"
    assert ir_run.main([str(faulted), "--compare-with", "openvino", "--reference-model", str(convnet), "--mark",
                        "conv2/WithoutBiases", "--save-repro", str(bundle)]) == 1
    err = capsys.readouterr().err
    assert "layer 'conv2/WithoutBiases' (Convolution) is the first whose output differs from " in err
    assert "; on the reference's own inputs it differs too (max abs error " in err
    model = ir.read_model(bundle / "model.xml")
    assert [node.type_name for node in model] == ["Parameter", "Const", "Convert", "Convolution", "Result"]
    done = run(readme_command(bundle)[1:], cwd=bundle, planted=False)  # no monkeypatch: the weight is the fault
    assert done.returncode == 1, done.stdout + done.stderr


def test_onnxruntime_gives_the_inputs_of_a_marked_layer(convnet_f32, capsys) -> None:
    onnx = convnet_f32.with_suffix(".onnx")
    assert ir_run.main([str(convnet_f32), "--compare-with", "onnxruntime", "--onnx", str(onnx), "--mark", "r2",
                        "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["compare_with"]
    local = {tensor["key"]: tensor["local"] for tensor in report["tensors"]}
    assert sorted(local) == ["prob", "r2"]  # relu2 on onnxruntime's c2, softmax on its logits: asked for too
    assert all(item["passed"] and item["max_abs_error"] is not None for item in local.values())


@pytest.mark.parametrize(("argv", "message"), [
    (["--truth", "f64"], "--truth needs --compare-with"),
    (["--save-repro", "r"], "--save-repro needs --compare-with"),
    (["--compare-with", "openvino", "--save-repro", "{full}"], "--save-repro '{full}' is not empty: give a new or "
     "empty directory"),
])
def test_usage_errors(tmp_path, argv, message, capsys) -> None:
    full = tmp_path / "full"
    full.mkdir()
    (full / "model.xml").write_text("mine")
    argv = [item.format(full=full) for item in argv]
    assert ir_run.main([str(WHISPER), *argv]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"error: {message.format(full=full)}"


def test_a_bundle_that_cannot_be_written_is_a_warning_and_the_mismatch_stays_the_verdict(tmp_path, capsys) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert ir_run.main(compare_argv("--save-repro", str(blocker / "repro"))) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-2].startswith(f"warning: no repro bundle written to {blocker / 'repro'}: ")
    assert err[-1].startswith(f"error: {WHISPER}:")
    assert blocker.read_text() == "not a directory"


def test_a_match_writes_no_bundle_and_says_so(tmp_path, capsys) -> None:
    bundle = tmp_path / "repro"
    assert ir_run.main([str(WHISPER), "--compare-with", "openvino", "--save-repro", str(bundle)]) == 0
    assert capsys.readouterr().err.splitlines()[-1] == (f"note: every compared tensor matches: nothing to reproduce, "
                                                        f"{bundle} not written")
    assert not bundle.exists()


LOOSE = ["--atol", "1e-3", "--rtol", "0"]
"""Looser than the planted fault (its largest difference is 2e-4)."""


def test_a_fault_a_loose_tolerance_lets_through_is_still_named() -> None:
    done = run([str(WHISPER), "--compare-with", "openvino", "--mark", "all", *LOOSE])
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1].startswith(
        f"warning: {WHISPER}:{line_of_layer(WHISPER, GELU)}: every compared tensor is within its tolerance, but the "
        f"own error of layer '{GELU}' (Gelu) on {OPENVINO}'s inputs exceeds its tolerance class: output 0 (210): ")


def test_an_output_that_only_inherits_the_fault_is_not_blamed() -> None:
    done = run([str(WHISPER), "--compare-with", "openvino", "--mark", "all", *LOOSE,
                "--atol", "last_hidden_state:1e-6"])
    assert done.returncode == 1, done.stderr
    error = done.stderr.splitlines()[-1]
    assert error.startswith(f"error: {WHISPER}:{line_of_layer(WHISPER, GELU)}: layer '{GELU}' (Gelu) is the first "
                            "whose own error exceeds its tolerance class: ")
    assert ("; the first output beyond tolerance, last_hidden_state of layer "
            "'__module.layer_norm/aten::layer_norm/Add', differs only by inherited rounding: on the reference's own "
            "inputs it is within its tolerance class") in error
