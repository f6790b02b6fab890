"""What OpenVINO 2026.4.1 tolerates and irgraph therefore reads too, with a warning where it is odd:

- a Parameter of dynamic element type reads and validates (a warning) but cannot run;
- a VariadicSplit whose ``split_lengths`` has more entries than the layer's output ports reads,
  runs and re-writes with the declared ports as they were (the extra outputs are unconnected);
- every model-level diagnostic points at a line (the ``<net>``, or line 1 of an unreadable file).
"""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run, ir_validate
from irgraph.core.errors import EvaluationError
from tests.helpers import line_of
from tests.hostile.conftest import EXIT_FAILURE, expect_cli_error, net, parameter, result, run_tool, save_npz
from tests.hostile.test_op_errors import variadic_split

DYNAMIC_INPUT = net([parameter(0, shape=(2, 6), element_type="dynamic"), result(1, "y", (2, 6))],
                    ['<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>']).replace("FP32", "UNSPECIFIED")
DYNAMIC_MESSAGE = ("input 'x' has a dynamic element type, so the model cannot run (OpenVINO refuses to compile it "
                   "too): give the Parameter a concrete element_type")


def test_a_dynamic_element_type_input_is_refused_at_run_time_naming_the_layer(write_ir, capsys):
    files = write_ir(DYNAMIC_INPUT)
    model = ir.read_model(files.xml)
    with pytest.raises(EvaluationError) as caught:
        ir.run(model, {"x": np.zeros((2, 6), np.float32)})
    assert caught.value.message == DYNAMIC_MESSAGE
    assert caught.value.location.layer_name == "x"
    line = line_of(DYNAMIC_INPUT, 'name="x" type="Parameter"')
    outcome = expect_cli_error(ir_run.main, [files.xml], capsys, EXIT_FAILURE, DYNAMIC_MESSAGE)
    assert outcome.error_lines == [f"error: {files.xml}:{line}: layer 0 'x' (Parameter): {DYNAMIC_MESSAGE}"]
    inputs = save_npz(files.directory / "in.npz", x=np.zeros((2, 6), np.float32))
    expect_cli_error(ir_run.main, [files.xml, "--inputs", inputs], capsys, EXIT_FAILURE, DYNAMIC_MESSAGE)


def test_a_dynamic_element_type_input_validates_with_a_warning(write_ir, capsys):
    files = write_ir(DYNAMIC_INPUT)
    found = ir.validate_file(files.xml)
    assert [(d.code, d.severity.value) for d in found] == [("dynamic-input-type", "warning")]
    assert ir_validate.main([str(files.xml)]) == 0
    line = line_of(DYNAMIC_INPUT, 'name="x" type="Parameter"')
    assert f"{files.xml}:{line}: warning: [dynamic-input-type]" in capsys.readouterr().out
    assert ir_validate.main(["--strict", str(files.xml)]) == EXIT_FAILURE


@pytest.fixture
def short_variadic_split(write_ir):
    """lengths [1, 2, 3] on a dim of 6, but the layer declares (and connects) only 2 output ports."""
    xml, weights = variadic_split([1, 2, 3], outputs=2)
    return write_ir(xml, weights)


def test_variadic_split_with_fewer_ports_than_lengths_reads_runs_and_warns(short_variadic_split, capsys):
    model = ir.read_model(short_variadic_split.xml)
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    outputs = ir.run(model, {"x": x})
    assert list(outputs) == ["r0", "r1"]
    np.testing.assert_array_equal(outputs["r0"], x[:, :1])
    np.testing.assert_array_equal(outputs["r1"], x[:, 1:3])
    found = [d for d in ir.validate(model) if d.code != "declared-shape"]  # the helper's ports declare no dims
    assert [(d.code, d.message) for d in found] == [(
        "undeclared-outputs", "VariadicSplit-1 produces 3 outputs here but "
        "the layer declares 2 output ports: the other 1 are left unconnected (as OpenVINO does)")]
    assert ir_validate.main([str(short_variadic_split.xml)]) == 0
    assert "warning: [undeclared-outputs]" in capsys.readouterr().out


def test_variadic_split_with_fewer_ports_rewrites_with_the_declared_ports(short_variadic_split, tmp_path):
    model = ir.read_model(short_variadic_split.xml)
    ir.write_model(model, tmp_path / "copy.xml")
    again = ir.read_model(tmp_path / "copy.xml")
    ir.infer_shapes(again)
    (split,) = [node for node in again if node.op.type_name == "VariadicSplit"]
    assert split.num_outputs == 2
    assert [str(output.type.shape) for output in split.outputs] == ["[2,1]", "[2,2]"]
    ir.write_model(again, tmp_path / "twice.xml")
    assert (tmp_path / "twice.xml").read_bytes() == (tmp_path / "copy.xml").read_bytes()


@pytest.mark.oracle
def test_openvino_2026_4_1_runs_the_short_variadic_split_and_its_rewrite_alike(short_variadic_split, tmp_path):
    import openvino as ov

    model = ir.read_model(short_variadic_split.xml)
    ir.write_model(model, tmp_path / "copy.xml")
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    ours = ir.run(model, {"x": x})
    for path in (short_variadic_split.xml, tmp_path / "copy.xml"):
        compiled = ov.Core().compile_model(str(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        theirs = compiled({"x": x})
        assert len(compiled.outputs) == 2
        for key, port in zip(("r0", "r1"), compiled.outputs, strict=True):
            np.testing.assert_array_equal(theirs[port], ours[key])


EMPTY_LAYERS = '<?xml version="1.0"?>\n<net name="e" version="11">\n\t<layers/>\n\t<edges/>\n</net>\n'


@pytest.mark.parametrize(("text", "code", "line"), [
    ("", "parse", 1),
    ("\n\n", "parse", 1),
    (EMPTY_LAYERS, "no-results", 2),
    (net([parameter(0)], []), "no-results", 2),
], ids=["empty-file", "blank-file", "empty-layers", "no-result"])
def test_every_model_level_diagnostic_has_a_line(write_ir, capsys, text, code, line):
    files = write_ir(text)
    found = [d for d in ir.validate_file(files.xml) if d.is_error]
    assert [(d.code, d.location.line) for d in found] == [(code, line)]
    assert run_tool(ir_validate.main, [files.xml], capsys).out.startswith(f"{files.xml}:{line}: error: [{code}]")



def test_the_net_line_is_where_openvino_writes_it():
    from tests.cli.helpers import SAMPLES

    assert ir.read_model(SAMPLES / "openvino-split" / "model.xml").source_line == 2


@pytest.mark.oracle
def test_the_short_variadic_split_exports_to_onnx_with_its_unread_outputs(short_variadic_split, tmp_path):
    import onnx
    import onnxruntime

    model = ir.read_model(short_variadic_split.xml)
    ir.export_onnx(model, tmp_path / "m.onnx")
    proto = onnx.load(tmp_path / "m.onnx")
    onnx.checker.check_model(proto, full_check=True)  # onnx 1.23.2 wants every Split output listed
    (split,) = [n for n in proto.graph.node if n.op_type == "Split"]
    assert len(split.output) == 3
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    session = onnxruntime.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    theirs = session.run(None, {"x": x})  # onnxruntime 1.31.1
    ours = ir.run(model, {"x": x})
    assert [o.name for o in session.get_outputs()] == ["r0", "r1"]
    for key, array in zip(("r0", "r1"), theirs, strict=True):
        np.testing.assert_array_equal(array, ours[key])
