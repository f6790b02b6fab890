"""Outputs that share a name: two Results with one ``output_names``, two ports with one tensor name. openvino
2026.4.1 returns both outputs; an earlier irgraph keyed both by the name, so ``--output`` and ``--save-outputs``
kept one and exit 0. Every output now gets its own key (README, ir-run: the later Result falls back to its layer
name, then NAME#2...), and nothing written loses one."""

from __future__ import annotations

import json

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_info, ir_run
from irgraph.io.data import polygraphy_json
from tests.hostile.conftest import good_inputs, run_tool, split_model

BASE, BASE_BIN = split_model()  # x f32[2,6] -> Split(axis 1) -> ports y0, y1 -> Results r0, r1
X = np.arange(12, dtype=np.float32).reshape(2, 6)
LEFT, RIGHT = X[:, :3], X[:, 3:]
R0_TAG = '<layer id="3" name="r0" type="Result" version="opset1">'
R1_TAG = '<layer id="4" name="r1" type="Result" version="opset1">'


def both_named(name: str) -> str:
    """The base model with both Results' ``output_names`` set to ``name``."""
    return (BASE.replace(R0_TAG, R0_TAG[:-1] + f' output_names="{name}">')
            .replace(R1_TAG, R1_TAG[:-1] + f' output_names="{name}">'))


THIRD_RESULT = ('\t\t<layer id="5" name="r2" type="Result" version="opset1" output_names="r1">\n'
                '\t\t\t<input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>\n\t\t</layer>\n')
THIRD_EDGE = '\t\t<edge from-layer="2" from-port="2" to-layer="5" to-port="0" />\n'

# name -> (model text, the outputs' keys in Result order, their values)
CASES = {
    "two-results-one-output-name": (both_named("same"), ["same", "r1"], [LEFT, RIGHT]),
    "two-ports-one-tensor-name": (BASE.replace('names="y1"', 'names="y0"'), ["y0", "r1"], [LEFT, RIGHT]),
    "the-fallback-name-is-taken-too": (both_named("r1"), ["r1", "r1#2"], [LEFT, RIGHT]),
    "a-later-output-keeps-its-own-name": (  # r1's fallback (its layer name) is r2's output name: r2 keeps it
        BASE.replace('names="y1"', 'names="y0"').replace("\t</layers>", THIRD_RESULT + "\t</layers>")
        .replace("\t</edges>", THIRD_EDGE + "\t</edges>"),
        ["y0", "r1#2", "r1"], [LEFT, RIGHT, LEFT]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_output_is_kept_under_its_own_key(case, write_ir, capsys):
    text, keys, values = CASES[case]
    files = write_ir(text, BASE_BIN)
    outputs = ir.run(ir.read_model(files.xml), {"x": X})
    assert list(outputs) == keys
    for key, value in zip(keys, values, strict=True):
        np.testing.assert_array_equal(outputs[key], value)

    inputs, npz, saved = good_inputs(files.directory), files.directory / "out.npz", files.directory / "out.json"
    outcome = run_tool(ir_run.main, [files.xml, "--inputs", inputs, "--output", npz, "--save-outputs", saved], capsys)
    assert outcome.code == 0, outcome.err
    assert [line.split()[0] for line in outcome.out.splitlines()[1:]] == keys  # the table
    with np.load(npz) as archive:
        assert archive.files == keys
        for key, value in zip(keys, values, strict=True):
            np.testing.assert_array_equal(archive[key], value)
    (iteration,) = polygraphy_json.read_arrays(str(saved), 100)
    assert list(iteration) == keys
    for key, value in zip(keys, values, strict=True):
        np.testing.assert_array_equal(iteration[key], value)

    outcome = run_tool(ir_run.main, [files.xml, "--inputs", inputs, "--compare", npz], capsys)
    assert outcome.code == 0, outcome.err
    outcome = run_tool(ir_info.main, [files.xml, "--json"], capsys)
    assert [output["name"] for output in json.loads(outcome.out)["outputs"]] == keys
    assert sorted(p.name for p in files.directory.iterdir()) == [
        "inputs.npz", "model.bin", "model.xml", "out.json", "out.npz"]


def test_the_onnx_export_keeps_both_outputs(write_ir):
    onnx = pytest.importorskip("onnx")
    text, keys, _ = CASES["two-results-one-output-name"]
    files = write_ir(text, BASE_BIN)
    proto = ir.export_onnx(ir.read_model(files.xml))
    onnx.checker.check_model(proto, full_check=True)
    assert [output.name for output in proto.graph.output] == keys
