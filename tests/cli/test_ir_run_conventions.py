"""ir-run's conventions and papercuts (issue 27, item 10), end to end through the command line: benchmark_app's
unnamed --shape, --val-range before the model path, random integers chosen from the graph, every layer that
cannot run named at once, exit 2 for a missing optional package, OpenVINO's devices, --mark all summarised."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_convert, ir_info, ir_run
from irgraph.ops.arithmetic.sqrt import Sqrt
from tests.cli.helpers import REPO, SAMPLES, load, split_xml
from tests.helpers import unimplemented_standard_op

MODELS = REPO / "tests" / "data" / "models"


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_run.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ------------------------------------------------------------------------------------ an unnamed --shape
def test_an_unnamed_shape_sets_the_one_input(write_ir, tmp_path: Path, capsys) -> None:
    files = write_ir(*split_xml(shape=[2, 6], parameter_shape="?,2..8"))
    code, _, err = run(capsys, files.xml, "--shape", "[3,6]", "--save-inputs", tmp_path / "in.npz")
    assert code == 0, err
    assert load(tmp_path / "in.npz")["x"].shape == (3, 6)
    assert "x f32[3,6]" in err


def test_an_unnamed_shape_is_refused_for_several_inputs(capsys) -> None:
    code, out, err = run(capsys, SAMPLES / "dml-join-three" / "model.xml", "--shape", "[1,1,2,2]")
    assert code == 2 and out == ""
    assert err == ("error: --shape [1,1,2,2] names no input, which only a model of one input allows; this one has 3 "
                   "('input0', 'input1', 'input2'): name it, as in --shape \"input0[1,1,2,2]\"\n")


# ------------------------------------------------------------------------------------ --val-range before the model
def test_val_range_before_the_model_path_leaves_the_path_alone(split_model, tmp_path: Path, capsys) -> None:
    saved = tmp_path / "in.npz"
    code, _, err = run(capsys, "--val-range", "[10,11]", split_model.xml, "--save-inputs", saved)
    assert code == 0, err
    x = load(saved)["x"]
    assert x.min() >= 10 and x.max() < 11
    code, _, err = run(capsys, "--val-range", "[0,1]", "x:[5,6]", split_model.xml, "--save-inputs", saved)
    assert code == 0, err
    assert load(saved)["x"].min() >= 5


# ------------------------------------------------------------------------------------ random integers
def test_random_token_ids_stay_within_the_embedding_table(tmp_path: Path, capsys) -> None:
    saved = tmp_path / "in.npz"
    code, _, err = run(capsys, MODELS / "gpt2-tiny" / "model.xml", "--shape", "input_ids[2,40]", "--save-inputs",
                       saved)
    assert code == 0, err
    expected = np.random.default_rng(0).integers(0, 100, size=(2, 40)).astype(np.int64)  # a 100-row table
    np.testing.assert_array_equal(load(saved)["input_ids"], expected)
    assert ("input_ids i64[2,40] in [0, 99] (indices of Gather '__module.wte/aten::embedding/Gather', 100 entries)"
            in err)


def test_random_masks_are_0_or_1_and_other_integers_small_and_non_negative(write_ir, tmp_path: Path, capsys) -> None:
    saved = tmp_path / "in.npz"
    code, _, err = run(capsys, MODELS / "bert-tiny" / "model.xml", "--shape",
                       "input_ids[1,64],attention_mask[1,64],token_type_ids[1,64]", "--save-inputs", saved)
    assert code == 0, err
    rng = np.random.default_rng(0)
    ids, mask, types = (rng.integers(0, high, size=(1, 64)) for high in (100, 2, 2))
    got = load(saved)
    np.testing.assert_array_equal(got["input_ids"], ids)
    np.testing.assert_array_equal(got["attention_mask"], mask)  # named a mask
    np.testing.assert_array_equal(got["token_type_ids"], types)  # indexes a 2-row table
    assert "attention_mask i64[1,64] in [0, 1] (a mask)" in err
    # An integer input the graph says nothing about: [0, 9], not [-5, 5]
    files = write_ir(*split_xml(element_type="i64", precision="I64", shape=[2, 6]))
    code, _, err = run(capsys, files.xml, "--save-inputs", saved)
    assert code == 0, err
    np.testing.assert_array_equal(load(saved)["x"], np.random.default_rng(0).integers(0, 10, size=(2, 6)))
    assert "x i64[2,6] in [0, 9]" in err
    assert "stays within the table it indexes" in run(capsys, "--help")[1]


# ------------------------------------------------------------------------------------ layers that cannot run
def _chain(types: list[tuple[str, str]]) -> str:
    """An IR v11 model x f32[2] -> one layer per (type, version) in a chain -> Result."""
    layers = ['<layer id="0" name="x" type="Parameter" version="opset1"><data shape="2" element_type="f32"/>'
              '<output><port id="0" precision="FP32"><dim>2</dim></port></output></layer>']
    edges = []
    for position, (op_type, version) in enumerate(types, 1):
        layers.append(f'<layer id="{position}" name="l{position}" type="{op_type}" version="{version}">'
                      '<input><port id="0" precision="FP32"><dim>2</dim></port></input>'
                      '<output><port id="1" precision="FP32"><dim>2</dim></port></output></layer>')
        edges.append(f'<edge from-layer="{position - 1}" from-port="{0 if position == 1 else 1}" '
                     f'to-layer="{position}" to-port="0"/>')
    last = len(types) + 1
    layers.append(f'<layer id="{last}" name="y" type="Result" version="opset1">'
                  '<input><port id="0" precision="FP32"><dim>2</dim></port></input></layer>')
    edges.append(f'<edge from-layer="{last - 1}" from-port="1" to-layer="{last}" to-port="0"/>')
    return ('<?xml version="1.0"?>\n<net name="blocked" version="11">\n<layers>\n' + "\n".join(layers)
            + "\n</layers>\n<edges>\n" + "\n".join(edges) + "\n</edges>\n</net>\n")


def test_every_layer_that_cannot_run_is_named_with_the_closest_type(write_ir, capsys, monkeypatch) -> None:
    standard = unimplemented_standard_op(monkeypatch)
    files = write_ir(_chain([("Relu", "opset1"), ("Concatt", "opset1"), (standard.ir_name, standard.version),
                             (standard.ir_name, standard.version), ("MyOp", "my_extension")]))
    code, out, err = run(capsys, files.xml)
    assert code == 1 and out == ""
    assert err == (
        f"error: {files.xml}:6: layer 2 'l2' (Concatt): 3 kinds of layers in this model cannot run: "
        "1) op Concatt (version opset1) has no NumPy implementation: Opset opset1 doesn't contain the operation with "
        "type: Concatt (no OpenVINO opset 1-16 has this type); OpenVINO refuses it too; did you mean 'Concat'? "
        "(layer 'l2' at line 6). "
        f"2) op {standard.ir_name} (version {standard.version}) has no NumPy implementation: {standard.title} is a "
        "standard OpenVINO op irgraph does not implement yet (2 layers, at lines 7, 8). "
        "3) op MyOp (version my_extension) has no NumPy implementation: a custom op (an extension's: no OpenVINO "
        "opset 1-16 has this version) (layer 'l5' at line 9).\n")


# ------------------------------------------------------------------------------------ missing packages: exit 2
def test_a_missing_onnx_exits_2_like_a_missing_openvino(tmp_path: Path, monkeypatch, capsys) -> None:
    onnx_file = MODELS / "onnx" / "gpt2-tiny.onnx"
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    assert ir_convert.main([str(onnx_file), str(tmp_path / "m.xml")]) == 2
    hint = "pip install onnx (in a clone of irgraph: pip install -e '.[onnx]')"
    assert capsys.readouterr().err == (f"error: {onnx_file}: ONNX support needs the onnx package, which is not "
                                       f"installed: {hint}\n")
    shutil.copy(MODELS / "gpt2-tiny" / "model.xml", tmp_path / "m.xml")
    shutil.copy(MODELS / "gpt2-tiny" / "model.bin", tmp_path / "m.bin")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    code, _, err = run(capsys, tmp_path / "m.xml", "--compare-with", "onnxruntime", "--onnx", onnx_file)
    assert code == 2
    assert err.splitlines()[-1] == ("error: comparing with onnxruntime needs the onnxruntime package, which is not "
                                    "installed: pip install onnxruntime (in a clone of irgraph: pip install -e "
                                    "'.[oracle]')")


@pytest.mark.oracle
@pytest.mark.skipif(importlib.util.find_spec("openvino") is None, reason="the test extra installs openvino")
def test_a_device_openvino_does_not_have_is_named_with_those_it_has(capsys) -> None:
    import openvino as ov

    devices = ov.Core().available_devices
    missing = next(name for name in ("GPU", "NPU", "FPGA") if name not in devices)
    code, out, err = run(capsys, SAMPLES / "dml-split-axis2" / "model.xml", "--compare-with", "openvino",
                         "--device", missing)
    assert code == 2 and out == ""
    assert err.splitlines()[-1] == (f"error: openvino has no device {missing!r} on this machine; its devices: "
                                    f"{', '.join(devices)} (--device)")


# ------------------------------------------------------------------------------------ --mark all
def _sqrt_chain(path: Path, length: int) -> Path:
    """x f32[4] -> Sqrt -> ... (length layers) -> y: NaN from the first Sqrt on for negative x."""
    m = ir.Model("roots")
    x = m.parameter("x", [4])
    for position in range(length):
        x = ir.OutputPort(m.add_node(Sqrt(), f"sqrt{position}", [x]).id, 0)
    m.result(x, name="y")
    ir.write_model(m, path)
    return path


def test_many_marked_tensors_are_summarised_after_the_outputs(tmp_path: Path, capsys) -> None:
    xml = _sqrt_chain(tmp_path / "roots.xml", 30)
    np.savez(tmp_path / "in.npz", x=np.array([4.0, 1.0, 0.0, 16.0], np.float32))
    code, out, err = run(capsys, xml, "--inputs", tmp_path / "in.npz", "--mark", "all")
    assert code == 0, err
    assert out.splitlines()[2:] == ["marked: 29 tensors (their statistics: --json, their values: --output OUT.npz)"]
    np.savez(tmp_path / "in.npz", x=np.array([4.0, -1.0, 0.0, 16.0], np.float32))
    code, out, _ = run(capsys, xml, "--inputs", tmp_path / "in.npz", "--mark", "all")
    assert out.splitlines()[2:] == [
        "marked: 29 tensors (their statistics: --json, their values: --output OUT.npz)",
        "  29 hold NaN or infinity: sqrt0:0, sqrt1:0, sqrt2:0, sqrt3:0, sqrt4:0, sqrt5:0, sqrt6:0, sqrt7:0, sqrt8:0, "
        "sqrt9:0, sqrt10:0, sqrt11:0, sqrt12:0, sqrt13:0, sqrt14:0, sqrt15:0, sqrt16:0, sqrt17:0, sqrt18:0, sqrt19:0, "
        "... (29 in all)"]
    code, out, _ = run(capsys, xml, "--inputs", tmp_path / "in.npz", "--mark", "all", "--json")
    assert len(json.loads(out)["marked"]) == 29
    # A few marks stay in the table
    code, out, _ = run(capsys, xml, "--inputs", tmp_path / "in.npz", "--mark", "sqrt3")
    assert [line.split()[0] for line in out.splitlines()] == ["output", "y", "sqrt3:0"]


# ------------------------------------------------------------------------------------ ir-info's counts agree
def test_the_missing_bin_warning_and_the_consts_line_count_the_same_layers(tmp_path: Path, capsys) -> None:
    shutil.copy(MODELS / "bert-tiny" / "model.xml", tmp_path / "model.xml")  # no .bin: OpenVINO shares equal Consts
    assert ir_info.main([str(tmp_path / "model.xml")]) == 0
    out, err = capsys.readouterr()
    (consts,) = [line for line in out.splitlines() if line.startswith("consts")]
    assert consts == "consts     21 i64, 17 f16, 16 i32, 1 f32; 55 without data"
    assert err.rstrip().endswith("so 55 Const layers have no data (the topology needs none)")
