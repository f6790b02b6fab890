"""ir-extract: writes a valid IR of the cut, refuses bad cuts with exit 1 and bad usage with exit 2, --help."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_extract
from tests.cli.helpers import REPO, SAMPLES, files_in


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_extract.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


JOIN = SAMPLES / "dml-join-three" / "model.xml"  # three 1x1x2x2 inputs joined along axis 1, 2 and 3


def test_extract_writes_a_model_that_runs_like_the_whole(tmp_path, capsys):
    whole = ir.read_model(JOIN)
    inputs = {p.name: np.full((1, 1, 2, 2), i, np.float32) for i, p in enumerate(whole.parameters)}
    expected = ir.run(whole, inputs)
    first = whole.parameters[0].name
    output = next(iter(expected))
    code, out, err = run(capsys, JOIN, tmp_path / "part.xml", "--outputs", output)
    assert code == 0, err
    sub = ir.read_model(tmp_path / "part.xml")
    assert out == (f"wrote {tmp_path / 'part.xml'} and {tmp_path / 'part.bin'}: {len(sub)} of {len(whole)} layers, "
                   f"inputs {', '.join(p.name for p in sub.parameters)}, outputs {output}\n")
    got = ir.run(sub, {p.name: inputs[p.name] for p in sub.parameters})
    np.testing.assert_array_equal(got[output], expected[output])
    assert first in {p.name for p in sub.parameters}


def test_json_names_the_inputs_and_outputs_with_their_types(tmp_path, capsys):
    sample = SAMPLES / "dml-split-axis2" / "model.xml"
    code, out, _ = run(capsys, sample, tmp_path / "part.xml", "--inputs", "input", "--outputs", "output0,output2",
                       "--json")
    assert code == 0
    report = json.loads(out)
    assert report["inputs"] == [{"name": "input", "tensor_names": [], "type": "f32[1,1,6,2]"}]
    assert [(o["name"], o["type"]) for o in report["outputs"]] == [("output0", "f32[1,1,2,2]"),
                                                                   ("output2", "f32[1,1,3,2]")]
    assert report["layers"] == 6 and report["file"] == str(tmp_path / "part.xml")


def test_a_bad_cut_exits_1_with_the_reason_and_writes_nothing(tmp_path, capsys):
    sample = SAMPLES / "dml-split-axis2" / "model.xml"
    code, out, err = run(capsys, sample, tmp_path / "part.xml", "--inputs", "input", "--outputs", "outptu0")
    assert (code, out) == (1, "")
    assert err == f"error: {sample}: no tensor is called 'outptu0'; close matches: 'output0', 'output2', 'output1'\n"
    assert files_in(tmp_path) == []


def test_usage_errors_exit_2(tmp_path, capsys):
    sample = SAMPLES / "dml-split-axis2"
    code, _, err = run(capsys, tmp_path / "missing.xml", tmp_path / "part.xml", "--outputs", "y")
    assert code == 2 and err == f"error: {tmp_path / 'missing.xml'}: no such model file\n"
    code, _, err = run(capsys, sample / "model.xml", sample / "model.xml", "--outputs", "output0")
    assert code == 2 and "which this command reads" in err
    code, _, err = run(capsys, sample / "model.xml", tmp_path / "part.onnx", "--outputs", "output0")
    assert code == 2 and "OUT must be an .xml file" in err
    code, _, err = run(capsys, sample / "model.xml", tmp_path / "part.xml", "--outputs", "output0,")
    assert code == 2 and "empty name" in err
    code, _, err = run(capsys, sample / "model.xml", tmp_path / "part.xml")
    assert code == 2 and "--outputs" in err


def test_names_are_comma_separated_with_an_escaped_comma_kept():
    assert ir_extract.split_names(["a,b", "c"]) == ["a", "b", "c"]
    assert ir_extract.split_names(["x\\,y,z"]) == ["x,y", "z"]


def test_help_has_examples(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "examples:\n  ir-extract model.xml block.xml --inputs relu1 --outputs concat\n" in out


def test_the_module_runs_as_a_program():
    # The console script is this module's main (the venv gets it with pip install -e .); here it runs as -m.
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run([sys.executable, "-m", "irgraph.cli.ir_extract", "--version"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("ir-extract (irgraph ")


@pytest.mark.oracle
def test_a_cut_decoder_block_runs_where_openvino_runs_it(tmp_path, capsys):
    """Issue 23: a block cut at a hidden state and fed one row under an 8x8 mask gives 8 rows, as OpenVINO 2026.4.1
    does; the cut input is named after its tensor (x.1), not after the LAYER:PORT it was cut at."""
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    from irgraph.cli import ir_run
    from tests.decoder_block import write_decoder

    decoder = write_decoder(tmp_path)
    model = ir.read_model(decoder)
    hidden, projection = (next(node for node in model if node.name == name) for name in ("hidden", "projection"))
    block = tmp_path / "block0.xml"
    code, out, err = run(capsys, decoder, block, "--inputs", f"{hidden.id}:0,input_ids,attention_mask",
                         "--outputs", f"{projection.id}:0")
    assert code == 0, err
    assert out.endswith(f"inputs x.1, input_ids, attention_mask, outputs {projection.id}:0\n")
    argv = [str(block), "--shape", "x.1[1,1,32],input_ids[1,8],attention_mask[1,8]", "--val-range",
            "attention_mask:[1,1]", "input_ids:[0,99]", "--compare-with", "openvino", "--json"]
    assert ir_run.main(argv) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["outputs"][0]["shape"] == [1, 8, 32]
    assert report["compare_with"]["compared"] == 1 and report["compare_with"]["passed"]
    assert "internal error" not in err
