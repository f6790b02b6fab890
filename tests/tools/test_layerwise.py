"""Layer-by-layer comparison with OpenVINO 2026.4.1 and onnxruntime 1.31.1: planted faults are named exactly.

The network is tests/convnet.py's conv net written by openvino 2026.4.1 (fp16-compressed weights). A
fault is planted in a copy (one weight of a Const changed and the model written by irgraph; an
attribute edited in the XML): irgraph runs the faulted copy, OpenVINO the original
(``--reference-model``), and the first divergent layer must be the layer that consumes the fault.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.graph import OutputPort
from irgraph.ops import Const
from irgraph.tools.layerwise import compare_with_onnxruntime, compare_with_openvino, format_report

pytestmark = pytest.mark.oracle

X = np.random.default_rng(7).standard_normal((1, 3, 16, 16)).astype(np.float32)


@pytest.fixture(scope="module")
def convnet(tmp_path_factory) -> Path:
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    pytest.importorskip("onnx", reason="the test extra installs onnx")
    from tests.convnet import write_convnet

    return write_convnet(tmp_path_factory.mktemp("convnet"))


@pytest.fixture(scope="module")
def convnet_f32(tmp_path_factory) -> Path:
    """The same net without fp16 compression, so that its ONNX original computes the same values."""
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    pytest.importorskip("onnx", reason="the test extra installs onnx")
    from tests.convnet import write_convnet

    return write_convnet(tmp_path_factory.mktemp("convnet32"), compress_to_fp16=False)


def changed_weight(original: Path, directory: Path) -> Path:
    """The net with one weight of conv2 (Const 'w2_compressed', element 5) negated and doubled, written by irgraph."""
    model = ir.read_model(original)
    node = next(node for node in model if node.name == "w2_compressed")
    value = np.array(model.constant_value(OutputPort(node.id, 0)))
    value.reshape(-1)[5] *= -2
    node.op = Const.of(value, "f16")
    path = directory / "faulted.xml"
    ir.write_model(model, path)
    return path


def changed_pads(original: Path, directory: Path) -> Path:
    """conv1's padding moved from (1, 1)/(1, 1) to (2, 2)/(0, 0): same output shape, shifted values."""
    text = original.read_text("utf-8")
    old = 'type="Convolution" version="opset1">\n\t\t\t<data strides="1, 1" dilations="1, 1" pads_begin="1, 1" ' \
          'pads_end="1, 1"'
    assert text.count(old) == 2
    text = text.replace(old, old.replace('pads_begin="1, 1" pads_end="1, 1"', 'pads_begin="2, 2" pads_end="0, 0"'), 1)
    path = directory / "pads.xml"
    path.write_text(text, "utf-8")
    path.with_suffix(".bin").write_bytes(original.with_suffix(".bin").read_bytes())
    return path


def line_of_layer(xml: Path, name: str) -> int:
    for number, line in enumerate(xml.read_text("utf-8").splitlines(), 1):
        if f'name="{name}"' in line and "<layer " in line:
            return number
    raise AssertionError(name)


def test_the_same_model_matches_openvino_tensor_by_tensor(convnet) -> None:
    model = ir.read_model(convnet)
    report = compare_with_openvino(ir.Interpreter(model, mark="all"), {"x": X}, atol=1e-4, rtol=1e-4)
    assert report.passed and report.first_divergence is None
    assert [t.key for t in report.tensors] == [
        "conv1/WithoutBiases:0", "c1", "r1", "p1", "pool1:1", "conv2/WithoutBiases:0", "c2", "r2", "a2", "s0", "s1",
        "cat", "gap", "flat", "fc/WithoutBiases:0", "logits", "prob"]
    assert len(report.compared) == 17
    assert report.tensors[4].comparison.max_abs_error == 0.0  # MaxPool's indices: exact
    assert format_report(report)[-1] == "every compared tensor matches openvino 2026.4.1 (CPU, f32)"


def test_a_changed_weight_names_the_convolution_that_reads_it(convnet, tmp_path) -> None:
    faulted = changed_weight(convnet, tmp_path)
    report = compare_with_openvino(ir.Interpreter(ir.read_model(faulted), mark="all"), {"x": X}, xml=convnet,
                                   atol=1e-4, rtol=1e-4)
    first = report.first_divergence
    assert first is not None
    assert (first.node.name, first.node.type_name, first.index, first.key) == (
        "conv2/WithoutBiases", "Convolution", 0, "conv2/WithoutBiases:0")
    assert first.where() == f"{faulted}:{line_of_layer(faulted, 'conv2/WithoutBiases')}"
    before = [t for t in report.tensors if t is not first][:5]
    assert all(t.comparison.passed for t in before)  # conv1 .. pool1 still agree
    item = first.comparison
    # The changed weight (w2[0, 0, 1, 2]) reaches one output channel: at most 8 x 8 elements change.
    assert 0 < item.mismatches <= 64 and item.size == 512
    # The histogram bins every element that is not bit-equal (rounding noise included) up to the largest error.
    assert len(item.histogram) == 8 and item.histogram[-1][1] == item.max_abs_error and item.histogram[-1][2] >= 1


def test_a_changed_attribute_is_found_through_ir_run(convnet, tmp_path, capsys) -> None:
    faulted = changed_pads(convnet, tmp_path)
    code = ir_run.main([str(faulted), "--compare-with", "openvino", "--reference-model", str(convnet), "--mark", "all",
                        "--atol", "1e-4", "--rtol", "1e-4", "--seed", "3"])
    out, err = capsys.readouterr()
    assert code == 1
    line = line_of_layer(faulted, "conv1/WithoutBiases")
    error = err.splitlines()[-1]
    assert error.startswith(f"error: {faulted}:{line}: layer 'conv1/WithoutBiases' (Convolution) is the first whose "
                            "output differs from openvino 2026.4.1 (CPU, f32): output 0 (conv1/WithoutBiases:0): ")
    assert "Traceback" not in err
    assert "first divergent layer: 'conv1/WithoutBiases' (Convolution, id " in out
    assert re.search(r"mismatches: \d+ of 2048 \(\d+\.\d%\)", out)
    assert "|error| histogram of the elements that differ:" in out


def test_per_tensor_tolerance_lets_a_tensor_through(convnet, tmp_path, capsys) -> None:
    faulted = changed_weight(convnet, tmp_path)
    argv = [str(faulted), "--compare-with", "openvino", "--reference-model", str(convnet), "--atol", "1e-4",
            "--rtol", "1e-4"]
    assert ir_run.main(argv) == 1  # the output (prob) differs too
    assert ir_run.main([*argv, "--atol", "prob:1"]) == 0
    capsys.readouterr()
    assert ir_run.main([*argv, "--atol", "porb:1"]) == 1
    assert "warning: --atol/--rtol name 'porb', which is no tensor or layer of this run\n" in capsys.readouterr().err


def test_onnxruntime_matches_tensors_by_name(convnet_f32, capsys) -> None:
    model = ir.read_model(convnet_f32)
    report = compare_with_onnxruntime(ir.Interpreter(model, mark="all"), {"x": X},
                                      convnet_f32.with_suffix(".onnx"), atol=1e-4, rtol=1e-4)
    assert report.passed
    compared = [t.key for t in report.compared]
    assert compared == ["c1", "r1", "p1", "c2", "r2", "a2", "s0", "s1", "cat", "gap", "flat", "logits", "prob"]
    code = ir_run.main([str(convnet_f32), "--compare-with", "onnxruntime", "--onnx",
                        str(convnet_f32.with_suffix(".onnx")), "--mark", "all", "--atol", "1e-4", "--json"])
    assert code == 0
    out = capsys.readouterr().out
    assert '"reference": "onnxruntime 1.31.1 (CPU)"' in out and '"not_compared": 4' in out


def test_onnxruntime_finds_the_fp16_weights_of_the_compressed_ir(convnet, capsys) -> None:
    code = ir_run.main([str(convnet), "--compare-with", "onnxruntime", "--onnx", str(convnet.with_suffix(".onnx")),
                        "--mark", "all", "--atol", "1e-4", "--rtol", "1e-4"])
    assert code == 1
    err = capsys.readouterr().err.splitlines()[-1]
    assert re.fullmatch(rf"error: {re.escape(str(convnet))}:\d+: layer 'conv1' \(Add\) is the first whose output "
                        r"differs from onnxruntime 1.31.1 \(CPU\): output 0 \(c1\): .*", err)


def test_missing_openvino_is_one_error_line_exit_2(convnet, monkeypatch, capsys) -> None:
    monkeypatch.setitem(sys.modules, "openvino", None)  # import openvino raises ImportError
    assert ir_run.main([str(convnet), "--compare-with", "openvino"]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == ("error: comparing with openvino needs the openvino package, which is not installed: pip install "
                   "openvino (in a clone of irgraph: pip install -e '.[oracle]')")


@pytest.mark.parametrize(("argv", "message"), [
    (["--compare-with", "onnxruntime"], "--compare-with onnxruntime needs the ONNX model: --onnx MODEL.onnx"),
    (["--onnx", "m.onnx"], "--onnx is the model of --compare-with onnxruntime"),
    (["--compare-with", "openvino", "--compare", "r.npz"],
     "--compare and --compare-with cannot be combined: compare with one reference at a time"),
])
def test_usage_errors(convnet, argv, message, capsys) -> None:
    assert ir_run.main([str(convnet), *argv]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"error: {message}"


# ------------------------------------------------------------------------------------ issue 23
def run_cli(capsys, *argv: object) -> tuple[int, str, str]:
    code = ir_run.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err
    return code, out, err


def test_a_comparison_that_compared_nothing_fails_naming_both_sides(tmp_path, capsys) -> None:
    """Two models with the same input and nothing else in common: 0 tensors compared is a failure (it passed with
    'every compared tensor matches'), naming what each side has and the closest names."""
    from tests.cli.helpers import split_xml

    xml, weights = split_xml()
    (tmp_path / "a.xml").write_text(xml)
    renamed = xml.replace('names="y0"', 'names="out_0"').replace('names="y1"', 'names="out_1"')
    (tmp_path / "b.xml").write_text(renamed.replace('name="split"', 'name="cut"'))
    for name in ("a", "b"):
        (tmp_path / f"{name}.bin").write_bytes(weights)
    code, out, err = run_cli(capsys, tmp_path / "a.xml", "--compare-with", "openvino", "--reference-model",
                             tmp_path / "b.xml")
    assert code == 1
    assert "0 tensors compared, 2 not exposed by the reference" in out
    assert ("nothing was compared: openvino 2026.4.1 (CPU, f32) exposes none of these tensors under any of their "
            "names\n  irgraph:   y0, y1\n  reference: x, out_0, out_1, x:0, cut:0, cut:1, axis:0\n  closest:\n"
            "    y0: x:0, cut:0\n    y1: x:0, cut:1\n") in out
    assert err.splitlines()[-1] == (
        f"error: {tmp_path / 'a.xml'}: nothing was compared: openvino 2026.4.1 (CPU, f32) exposes none of the 2 "
        "tensors of this run (y0, y1) under any of their names; it has x, out_0, out_1, x:0, cut:0, cut:1, axis:0")
    code, out, _ = run_cli(capsys, tmp_path / "a.xml", "--compare-with", "openvino", "--reference-model",
                           tmp_path / "b.xml", "--json")
    assert code == 1
    assert json.loads(out)["compare_with"]["closest_reference_names"] == {"y0": ["x:0", "cut:0"],
                                                                          "y1": ["x:0", "cut:1"]}


def test_two_conversions_of_one_network_compare_by_tensor_names(convnet_f32, tmp_path, capsys) -> None:
    """Issue 23's case: irgraph's conversion of the ONNX file against OpenVINO's (layer names differ: irgraph's
    'conv1/convolution' is OpenVINO's 'conv1/WithoutBiases'); tensors are found by their ONNX names."""
    ir.write_model(ir.convert_onnx(convnet_f32.with_suffix(".onnx")), tmp_path / "mine.xml")
    code, out, err = run_cli(capsys, tmp_path / "mine.xml", "--compare-with", "openvino", "--reference-model",
                             convnet_f32, "--mark", "all", "--json")
    assert code == 0, err
    report = json.loads(out)["compare_with"]
    compared = [t["key"] for t in report["tensors"] if t["comparison"] is not None]
    assert compared == ["c1", "r1", "p1", "c2", "r2", "a2", "s0", "s1", "cat", "gap", "flat", "logits", "prob"]
    assert report["passed"] and report["not_compared"] == 3  # the convolutions' and Gemm's products before the bias


def test_a_bf16_model_compares_with_openvino(capsys) -> None:
    """OpenVINO's Python API hands bf16 data out as float16-typed bits (and misreads a bfloat16 array fed to an
    infer request): irgraph compared |V2 with <f2 and named the first Split divergent. Data movement only, with
    inf and NaN in the input, so no CPU's instruction set changes a bit."""
    case = Path(__file__).resolve().parents[1] / "data" / "ov" / "type-bf16"
    code, out, err = run_cli(capsys, case / "model.xml", "--inputs", case / "inputs.npz", "--compare-with",
                             "openvino", "--mark", "all")
    assert code == 0, err
    assert "7 tensors compared, 0 not exposed by the reference" in out
    assert out.count("max abs error 0  max rel error 0") == 7
    assert "every compared tensor matches openvino 2026.4.1 (CPU, f32)" in out


def test_bf16_f8_and_4_bit_outputs_are_read_by_their_port_type(tmp_path, capsys) -> None:
    """Converts of one f32 input to bf16, f8e4m3, f8e5m2, i4 and u4: OpenVINO returns them as float16 bits, uint8
    bits and nibbles packed two to a byte; each is decoded by its port's type and equals irgraph's bit for bit."""
    import openvino as ov
    import openvino.opset13 as ops

    x = ops.parameter([7], ov.Type.f32, name="x")
    x.output(0).set_names({"x"})
    results = []
    for name in ("bf16", "f8e4m3", "f8e5m2", "i4", "u4"):
        convert = ops.convert(x, getattr(ov.Type, name), name=name)
        convert.output(0).set_names({name})
        results.append(ops.result(convert))
    ov.save_model(ov.Model(results, [x], "converts"), str(tmp_path / "converts.xml"), compress_to_fp16=False)
    np.save(tmp_path / "x.npy", np.array([1.0, -2.0, 3.0, 0.5, 7.0, 15.0, 0.0], np.float32))
    code, out, err = run_cli(capsys, tmp_path / "converts.xml", "-i", f"x={tmp_path / 'x.npy'}", "--compare-with",
                             "openvino")
    assert code == 0, out + err
    assert "5 tensors compared" in out and out.count("max abs error 0  max rel error 0") == 5


def test_a_large_convolution_passes_within_f32_rounding(tmp_path, capsys) -> None:
    """A convolution of 1e4-sized inputs with 1e4-sized weights (1e8-sized sums, f32 spacing 8): irgraph's BLAS
    and OpenVINO's kernels round in their own order, which atol = rtol = 1e-5 called divergent; by default the
    verdict follows f32 rounding of the sum (80 eps x max|ref|). Positive terms: no cancellation, so any CPU's
    summation order stays far inside the bound."""
    import openvino as ov
    import openvino.opset13 as ops

    rng = np.random.default_rng(11)
    x = ops.parameter([1, 16, 8, 8], ov.Type.f32, name="x")
    x.output(0).set_names({"x"})
    filters = ops.constant(rng.uniform(0, 1e4, (8, 16, 3, 3)).astype(np.float32))
    conv = ops.convolution(x, filters, [1, 1], [1, 1], [1, 1], [1, 1], name="conv")
    conv.output(0).set_names({"y"})
    ov.save_model(ov.Model([ops.result(conv)], [x], "large"), str(tmp_path / "large.xml"), compress_to_fp16=False)
    np.save(tmp_path / "x.npy", rng.uniform(0, 1e4, (1, 16, 8, 8)).astype(np.float32))
    code, out, err = run_cli(capsys, tmp_path / "large.xml", "-i", f"x={tmp_path / 'x.npy'}", "--compare-with",
                             "openvino")
    assert code == 0, out + err
    assert "(tolerance: what each tensor's precision allows, docs/tolerances.md): 1 tensor compared" in out
    row = next(line for line in out.splitlines() if line.startswith("  ok        y"))
    verdict, _, own = row.partition("  own ")  # its own error: the same, as its input is the model's
    assert verdict.endswith("max rel error 0") or verdict.endswith("(within f32 rounding)")
    assert own == verdict.split("max abs error ")[1].split()[0]


def test_the_comparison_reports_its_stages_in_order(convnet) -> None:
    from irgraph.tools.progress import Progress

    class Stages(Progress):
        def __init__(self) -> None:
            super().__init__(enabled=False)
            self.labels: list[str] = []

        def stage(self, label: str, total: int | None = None) -> None:
            self.labels.append(label)

    stages = Stages()
    compare_with_openvino(ir.Interpreter(ir.read_model(convnet), mark="all"), {"x": X}, progress=stages)
    assert stages.labels == ["irgraph: running", "openvino: compiling and running (CPU, f32)", "comparing tensors",
                             "irgraph: each layer on the reference's inputs"]
