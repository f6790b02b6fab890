"""ir-info: text, --json and --dot views of a model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from irgraph.cli import ir_info
from tests.cli.helpers import REPO, SAMPLES, split_xml

DATA = REPO / "tests" / "data"


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_info.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_text_report(capsys) -> None:
    model = SAMPLES / "dml-split-axis2" / "model.xml"
    code, out, err = run(capsys, model)
    assert code == 0, err
    assert "IR version 11" in out
    assert "layers     7 (6 edges)" in out
    assert "(32 bytes)" in out
    lines = out.splitlines()
    assert lines[lines.index("inputs:") + 1].split() == ["input", "f32", "[1,1,6,2]"]
    outputs = lines[lines.index("outputs:") + 1:lines.index("outputs:") + 4]
    assert [line.split()[:3] for line in outputs] == [
        ["output0", "f32", "[1,1,2,2]"], ["output1", "f32", "[1,1,1,2]"], ["output2", "f32", "[1,1,3,2]"]]
    assert "VariadicSplit-1" in out and "Const-1" in out


def test_json_report_with_intervals(write_ir, capsys) -> None:
    files = write_ir(*split_xml(parameter_shape="?,2..8"))
    code, out, err = run(capsys, files.xml, "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["ir_version"] == 11 and info["layers"] == 5 and info["edges"] == 4
    assert info["weights"] == {"file": str(files.bin), "bytes": 8, "consts": {"i64": 1}, "without_data": 0,
                               "decompression": 0}
    assert info["inputs"] == [{"name": "x", "tensor_names": [], "element_type": "f32", "shape": [-1, "2..8"]}]
    assert [o["name"] for o in info["outputs"]] == ["y0", "y1"]
    assert info["outputs"][0]["shape"] == [-1, "1..4"]
    assert info["ops"] == {"Result-1": 2, "Const-1": 1, "Parameter-1": 1, "Split-1": 1}


def test_dot_graph_folds_the_axis_constant_into_the_split(split_model, capsys) -> None:
    code, out, _ = run(capsys, split_model.xml, "--dot")
    assert code == 0
    assert out.splitlines() == [
        'digraph "split" {',
        "  rankdir=TB;",
        '  node [shape=box, fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
        '  n0 [label="x\\nParameter-1", shape=ellipse];',
        '  n2 [label="split\\nSplit-1\\nnum_splits=2\\nin1: axis i64[] = [1]"];',
        '  n3 [label="r0\\nResult-1", shape=ellipse];',
        '  n4 [label="r1\\nResult-1", shape=ellipse];',
        '  n0 -> n2 [label="f32[2,6]"];',
        '  n2 -> n3 [label="f32[2,3]"];',
        '  n2 -> n4 [label="f32[2,3]"];',
        "}",
    ]


def test_dot_graph_with_const_layers(split_model, capsys) -> None:
    code, out, _ = run(capsys, split_model.xml, "--dot", "--const-layers")
    assert code == 0
    assert '  n1 [label="axis\\nConst-1\\ni64[] = [1]", style=dashed];' in out.splitlines()
    assert '  n2 [label="split\\nSplit-1\\nnum_splits=2"];' in out.splitlines()
    assert '  n1 -> n2 [label="i64[]"];' in out.splitlines()


def test_unknown_op_is_shown_with_its_declared_types(write_ir, capsys) -> None:
    files = write_ir(*split_xml(op_type="Frobnicate"))
    code, out, err = run(capsys, files.xml)
    assert code == 0, err
    assert "Frobnicate-1" in out


def test_failed_inference_warns_and_shows_declared_types(write_ir, capsys) -> None:
    files = write_ir(*split_xml(num_splits=4))
    code, out, err = run(capsys, files.xml)
    assert code == 0
    assert err.startswith("warning: shape inference failed") and "divisible" in err
    assert "y0" in out


def test_missing_weights_are_a_warning_and_the_topology_is_shown(split_model, capsys) -> None:
    split_model.bin.unlink()
    code, out, err = run(capsys, split_model.xml)
    assert code == 0
    assert err == (f"warning: {split_model.xml}: the model has Const layers but there is no weights file: "
                   f"'{split_model.bin}' does not exist (pass the .bin path explicitly); so 1 Const layer has no "
                   "data (the topology needs none)\n")
    assert f"weights    {split_model.bin} (missing)" in out and "consts     1 i64; 1 without data" in out


def test_errors_and_usage(tmp_path: Path, split_model, capsys) -> None:
    code, _, err = run(capsys, tmp_path / "nope.xml")
    assert code == 2 and err.startswith("error: ") and "nope.xml" in err
    code, _, err = run(capsys, split_model.xml, "--json", "--dot")
    assert code == 2 and "not allowed with" in err
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "examples:" in out and "--dot" in out


def test_invalid_model_is_exit_1(write_ir, capsys) -> None:
    files = write_ir('<?xml version="1.0"?>\n<net name="x" version="11">\n<layers>\n')
    code, _, err = run(capsys, files.xml)
    assert code == 1
    assert err.startswith(f"error: {files.xml}") and len(err.splitlines()) == 1


def test_weights_option(split_model, tmp_path: Path, capsys) -> None:
    moved = tmp_path / "w.bin"
    split_model.bin.rename(moved)
    code, out, err = run(capsys, split_model.xml, "--weights", moved, "--json")
    assert code == 0, err
    assert json.loads(out)["weights"] == {"file": str(moved), "bytes": 8, "consts": {"i64": 1}, "without_data": 0,
                                          "decompression": 0}


def test_a_stateful_models_variables_are_listed(capsys) -> None:
    """The stateful GPT-2 of the model corpus: its four KV-cache variables, their declared types, their ReadValue."""
    xml = Path(__file__).resolve().parents[1] / "data" / "models" / "gpt2-tiny-stateful" / "model.xml"
    assert ir_info.main([str(xml)]) == 0
    out = capsys.readouterr().out
    assert "variables (state kept between runs: ReadValue/Assign):" in out
    assert "  past.0.keypresent.0.key      f32  [1,2,?,16]  (ReadValue ReadValue_15414)" in out
    assert ir_info.main([str(xml), "--json"]) == 0
    variables = json.loads(capsys.readouterr().out)["variables"]
    assert sorted(v["variable_id"] for v in variables) == sorted(
        f"past.{layer}.{kind}present.{layer}.{kind}" for layer in (0, 1) for kind in ("key", "value"))
    assert all(v["assigned"] and v["shape"] == [1, 2, -1, 16] for v in variables)


# ------------------------------------------------------------------------------------ layers
def test_layers_show_tensor_names_and_attributes(capsys) -> None:
    code, out, err = run(capsys, "--layers", SAMPLES / "dml-split-axis2" / "model.xml")
    assert code == 0, err
    assert out.splitlines() == [
        "id  name           type             inputs                       outputs                                   "
        "tensor names               attributes",
        "0   input          Parameter-1      -                            f32[1,1,6,2]                              "
        "input",
        "1   axis           Const-1          -                            i64[]                                     "
        "                           = [2]",
        "2   split_lengths  Const-1          -                            i64[3]                                    "
        "                           = [2, 1, 3]",
        "3   split          VariadicSplit-1  f32[1,1,6,2], i64[], i64[3]  f32[1,1,2,2], f32[1,1,1,2], f32[1,1,3,2]  "
        "output0; output1; output2",
        "4   output0        Result-1         f32[1,1,2,2]                 -",
        "5   output1        Result-1         f32[1,1,1,2]                 -",
        "6   output2        Result-1         f32[1,1,3,2]                 -",
    ]


def test_layers_show_attributes_of_every_op(capsys) -> None:
    code, out, _ = run(capsys, "--layers", DATA / "ov-subgraphs" / "nested-if-loop-ti" / "model.xml")
    assert code == 0
    assert out.splitlines()[3].split() == ["2", "TensorIterator_409", "TensorIterator-1", "f32[2,5,3],", "f32[2,3]",
                                           "f32[2,3]", "Result_412"]
    code, out, _ = run(capsys, "--layers", DATA / "models" / "gpt2-tiny" / "model.xml")
    gather = next(line for line in out.splitlines() if "__module.wte/aten::embedding/Gather " in line)
    assert gather.split()[2:] == ["Gather-8", "f32[100,32],", "i32[?,?],", "i32[]", "f32[?,?,32]", "38",
                                  "batch_dims=0"]


def test_one_layer_in_detail(capsys) -> None:
    model = SAMPLES / "dml-split-axis2" / "model.xml"
    code, out, err = run(capsys, model, "--layer", "split")
    assert code == 0, err
    assert out.splitlines() == [
        f"layer 3 'split' (VariadicSplit-1) at {model}:29",
        "inputs:",
        "  0  f32[1,1,6,2]  from input:0 (Parameter, id 0)      names input",
        "  1  i64[]         from axis:0 (Const, id 1)",
        "  2  i64[3]        from split_lengths:0 (Const, id 2)",
        "  input 1 is a Const: i64[]  min 2  max 2  mean 2  values [2]",
        "  input 2 is a Const: i64[3]  min 1  max 3  mean 2  values [2, 1, 3]",
        "outputs:",
        "  0  f32[1,1,2,2]  names output0  to output0:0 (Result, id 4)",
        "  1  f32[1,1,1,2]  names output1  to output1:0 (Result, id 5)",
        "  2  f32[1,1,3,2]  names output2  to output2:0 (Result, id 6)",
    ]
    # by id and by tensor name: the same layer
    assert run(capsys, model, "--layer", "3")[1] == out
    assert run(capsys, model, "--layer", "output2")[1].startswith("layer 6 'output2' (Result-1)")


def test_one_layer_as_json_with_attributes_rt_info_and_const_values(capsys) -> None:
    model = DATA / "models" / "gpt2-tiny" / "model.xml"
    code, out, err = run(capsys, model, "--layer", "self.wte.weight", "--json")
    assert code == 0, err
    layer = json.loads(out)
    assert {key: layer[key] for key in ("id", "name", "type", "version", "line", "within", "attributes", "rt_info")
            } == {"id": 2, "name": "self.wte.weight", "type": "Convert", "version": "opset1", "line": 22,
                  "within": [], "attributes": {"destination_type": "f32"},
                  "rt_info": {"decompression": {"version": "0"}}}
    (weights,) = layer["inputs"]
    assert weights["from"] == {"layer": "self.wte.weight_compressed", "id": 1, "type": "Const", "port": 0}
    assert (weights["element_type"], weights["shape"], weights["tensor_names"]) == ("f16", [100, 32],
                                                                                    ["self.wte.weight"])
    table = np.fromfile(model.with_suffix(".bin"), np.float16, 3200).astype(np.float64)  # the Const at offset 0
    value = weights["value"]
    assert value["elements"] == 3200 and value["shape"] == [100, 32] and value["element_type"] == "f16"
    assert value["min"] == table.min() and value["max"] == table.max() and value["mean"] == pytest.approx(table.mean())
    assert value["first"] == [float(f"{v:.4g}") for v in table[:8]]
    (output,) = layer["outputs"]
    assert output["shape"] == [100, 32] and [reader["layer"] for reader in output["to"]] == [
        "__module.wte/aten::embedding/Gather", "aten::matmul/MatMul"]


def test_a_layer_inside_a_body_says_where(capsys) -> None:
    code, out, err = run(capsys, DATA / "ov-subgraphs" / "nested-if-loop-ti" / "model.xml", "--layer", "Add_382")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1] == "in the body of TensorIterator_409 body 0 > Loop_404 body 0 > If_388 body 0"
    assert "  input 1 is a Const: f32[2,3]  min 0.25  max 0.25  mean 0.25  values [0.25, 0.25, 0.25, 0.25, 0.25, " \
           "0.25]" in lines


def test_an_unknown_layer_is_a_usage_error_with_the_closest_names(capsys) -> None:
    code, out, err = run(capsys, SAMPLES / "dml-split-axis2" / "model.xml", "--layer", "splt")
    assert code == 2 and out == ""
    assert err == "error: the model has no layer (nor layer id or tensor name) 'splt'; closest: 'split'\n"
    code, _, err = run(capsys, SAMPLES / "dml-split-axis2" / "model.xml", "--layer", "split", "--dot")
    assert code == 2 and "cannot be combined" in err


# ------------------------------------------------------------------------------------ one JSON form of shapes
def test_shapes_have_one_json_form_in_ir_info_and_ir_run(write_ir, capsys) -> None:
    from irgraph.cli import ir_run

    files = write_ir(*split_xml(parameter_shape="?,2..8"))
    assert run(capsys, files.xml, "--json")[0] == 0
    code, out, err = run(capsys, files.xml, "--layer", "split", "--json")
    assert code == 0, err
    assert json.loads(out)["inputs"][0]["shape"] == [-1, "2..8"]
    assert ir_run.main([str(files.xml), "--shape", "x[3,4]", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["inputs"][0]["shape"] == [3, 4] and summary["outputs"][0]["shape"] == [3, 2]
    dynamic_rank = write_ir(*split_xml(parameter_shape="..."))
    code, out, err = run(capsys, dynamic_rank.xml, "--json")
    assert json.loads(out)["inputs"][0]["shape"] is None


# ------------------------------------------------------------------------------------ ONNX given for IR
@pytest.mark.parametrize("tool", ["ir-info", "ir-run", "ir-validate"])
def test_an_onnx_file_is_named_as_such_with_the_command_to_convert_it(tool: str, tmp_path: Path, capsys) -> None:
    from irgraph.cli import ir_run, ir_validate

    main = {"ir-info": ir_info.main, "ir-run": ir_run.main, "ir-validate": ir_validate.main}[tool]
    onnx_file = DATA / "models" / "onnx" / "bert-tiny.onnx"
    assert main([str(onnx_file)]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: {onnx_file}: this is an ONNX model, not OpenVINO IR (.xml); convert it first: "
                   f"ir-convert {onnx_file} {onnx_file.with_suffix('.xml')}\n")
    # Told by its bytes when the name does not say it
    renamed = tmp_path / "model.bin"
    renamed.write_bytes(onnx_file.read_bytes())
    assert main([str(renamed)]) == 2
    assert capsys.readouterr().err == (
        f"error: {renamed}: this is an ONNX model, not OpenVINO IR (.xml); name it {tmp_path / 'model.onnx'} and "
        f"convert it first: ir-convert {tmp_path / 'model.onnx'} {tmp_path / 'model.xml'}\n")


def test_the_layer_view_escapes_names_from_the_file(tmp_path: Path, capsys) -> None:
    sample = SAMPLES / "dml-split-axis2"
    xml = (sample / "model.xml").read_text().replace('name="split" type=', 'name="sp&#x202E;lit&#x1b;[31m" type=')
    (tmp_path / "model.xml").write_text(xml)
    (tmp_path / "model.bin").write_bytes((sample / "model.bin").read_bytes())
    code, out, _ = run(capsys, tmp_path / "model.xml", "--layer", "3")
    assert code == 0 and "\x1b" not in out and "\u202e" not in out
    assert out.startswith(f"layer 3 'sp\\u202elit\\x1b[31m' (VariadicSplit-1) at {tmp_path / 'model.xml'}:29\n")


def test_layers_show_the_values_of_a_const_of_up_to_eight_elements(capsys, tmp_path) -> None:
    import irgraph as ir

    model = ir.Model("consts")
    x = model.parameter("x", [9], np.float32)
    eight = ir.ops.constant(np.arange(8, dtype=np.float32), model=model, name="eight")
    nine = ir.ops.constant(np.arange(9, dtype=np.float32), model=model, name="nine")
    ir.ops.result(ir.ops.add(x, nine), name="y")
    ir.ops.result(ir.ops.add(ir.ops.slice(x, [0], [8], [1]), eight), name="z")
    ir.write_model(model, tmp_path / "model.xml")
    code, out, err = run(capsys, "--layers", tmp_path / "model.xml")
    assert code == 0, err
    rows = {line.split()[1]: line.split()[2:] for line in out.splitlines()[1:]}
    assert rows["eight"] == ["Const-1", "-", "f32[8]", "=", "[0,", "1,", "2,", "3,", "4,", "5,", "6,", "7]"]
    assert rows["nine"] == ["Const-1", "-", "f32[9]"]
