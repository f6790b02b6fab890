"""ir-convert: IR -> IR re-write and version change, ONNX both ways, and never damaging DST."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from irgraph.cli import ir_convert, ir_run
from tests.cli.helpers import SAMPLE_NAMES, SAMPLES, files_in, load

needs_onnx = pytest.mark.skipif(importlib.util.find_spec("onnx") is None, reason="needs the onnx extra")


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_convert.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def outputs_of(capsys, model: Path, inputs: Path, tmp_path: Path) -> dict[str, np.ndarray]:
    out_file = tmp_path / f"{model.stem}-outputs.npz"
    assert ir_run.main([str(model), "--inputs", str(inputs), "--output", str(out_file)]) == 0
    capsys.readouterr()
    return load(out_file)


@pytest.mark.parametrize("name", SAMPLE_NAMES)
@pytest.mark.parametrize("version", [None, 10, 11])
def test_ir_rewrite_keeps_every_output(name: str, version: int | None, tmp_path: Path, capsys) -> None:
    sample = SAMPLES / name
    destination = tmp_path / "copy.xml"
    args = [sample / "model.xml", destination] + (["--ir-version", version] if version else [])
    code, out, err = run(capsys, *args)
    assert code == 0, err
    assert f"wrote {destination} and {tmp_path / 'copy.bin'}" in out
    assert (tmp_path / "copy.bin").exists()
    if version:
        assert f'version="{version}"' in destination.read_text()[:200]
    got = outputs_of(capsys, destination, sample / "inputs.npz", tmp_path)
    expected = load(sample / "expected.npz")
    assert list(got) == list(expected)
    for key in expected:
        assert got[key].dtype == expected[key].dtype and np.array_equal(got[key], expected[key])


def test_failed_conversion_leaves_destination_untouched(tmp_path: Path, capsys) -> None:
    source = tmp_path / "model.xml"
    source.write_text((SAMPLES / "dml-split-axis2" / "model.xml").read_text()[:900])  # truncated XML
    (tmp_path / "model.bin").write_bytes((SAMPLES / "dml-split-axis2" / "model.bin").read_bytes())
    (tmp_path / "existing.xml").write_text("old xml")
    (tmp_path / "existing.bin").write_bytes(b"old bin")
    before = files_in(tmp_path)
    code, _, err = run(capsys, source, tmp_path / "existing.xml")
    assert code == 1
    assert err.startswith(f"error: {source}") and len(err.splitlines()) == 1
    assert (tmp_path / "existing.xml").read_text() == "old xml"
    assert (tmp_path / "existing.bin").read_bytes() == b"old bin"
    assert files_in(tmp_path) == before


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["a.txt", "b.xml"], "cannot tell the SRC format"),
     (["a.xml", "b"], "cannot tell the DST format"),
     (["a.onnx", "b.onnx"], "not a conversion"),
     (["a.xml", "b.onnx", "--ir-version", "11"], "--ir-version applies"),
     (["a.xml", "b.xml", "--opset", "18"], "--opset applies"),
     (["a.onnx", "b.xml", "--weights", "w.bin"], "--weights applies"),
     (["a.xml", "b.xml", "--explain"], "--explain applies"),
     (["a.xml", "b.xml", "--fold-decompression"], "--fold-decompression applies"),
     (["a.xml", "b.xml", "--stateless"], "--stateless applies to an ONNX DST (.onnx)"),
     (["a.xml", "b.xml", "--ir-version", "9"], "invalid choice"),
     (["a.xml", "missing-dir/b.xml"], "does not exist")],
)
def test_usage_errors(tmp_path: Path, monkeypatch, capsys, argv: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err


def test_missing_source_is_exit_2(tmp_path: Path, capsys) -> None:
    code, _, err = run(capsys, tmp_path / "nope.xml", tmp_path / "out.xml")
    assert code == 2
    assert err == f"error: {tmp_path / 'nope.xml'}: no such model file\n"
    assert files_in(tmp_path) == []


def test_help(capsys) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "examples:" in out and "--ir-version" in out and "--explain" in out


# ------------------------------------------------------------------------------------ ONNX
def _onnx_split_model(path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper

    node = helper.make_node("Split", ["x"], ["a", "b"], axis=1, num_outputs=2)
    graph = helper.make_graph(
        [node], "split",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])],
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3])],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)


@needs_onnx
def test_onnx_to_ir_with_explain(tmp_path: Path, capsys) -> None:
    _onnx_split_model(tmp_path / "m.onnx")
    code, out, err = run(capsys, tmp_path / "m.onnx", tmp_path / "m.xml", "--explain")
    assert code == 0, err
    assert "opset: ai.onnx 18" in out
    assert f"wrote {tmp_path / 'm.xml'}" in out
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    np.savez(tmp_path / "in.npz", x=x)
    got = outputs_of(capsys, tmp_path / "m.xml", tmp_path / "in.npz", tmp_path)
    np.testing.assert_array_equal(got["a"], x[:, :3])
    np.testing.assert_array_equal(got["b"], x[:, 3:])


@needs_onnx
def test_bad_onnx_is_exit_1_and_leaves_no_destination(tmp_path: Path, capsys) -> None:
    (tmp_path / "m.onnx").write_bytes(b"\x08\x07garbage")
    code, _, err = run(capsys, tmp_path / "m.onnx", tmp_path / "m.xml")
    assert code in (1, 2)
    assert err.startswith("error: ") and len(err.splitlines()) == 1
    assert files_in(tmp_path) == ["m.onnx"]


@needs_onnx
@pytest.mark.parametrize("opset", [None, 13, 18])
def test_ir_to_onnx_runs_in_onnxruntime(tmp_path: Path, capsys, opset: int | None) -> None:
    onnxruntime = pytest.importorskip("onnxruntime")
    sample = SAMPLES / "dml-split-axis2"
    destination = tmp_path / "m.onnx"
    code, out, err = run(capsys, sample / "model.xml", destination, *(["--opset", opset] if opset else []))
    assert code == 0, err
    assert f"wrote {destination}" in out
    assert files_in(tmp_path) == ["m.onnx"]
    session = onnxruntime.InferenceSession(str(destination))
    inputs = load(sample / "inputs.npz")
    got = dict(zip([o.name for o in session.get_outputs()], session.run(None, inputs), strict=True))
    for key, value in load(sample / "expected.npz").items():
        np.testing.assert_array_equal(got[key], value)


@needs_onnx
@pytest.mark.parametrize("fold", [False, True])
def test_ir_to_onnx_keeps_or_folds_fp16_weights(tmp_path: Path, capsys, fold: bool) -> None:
    import onnx

    import irgraph as ir
    from irgraph.core.element_types import ElementType
    from irgraph.ops.arithmetic.add import Add
    from irgraph.ops.type.convert import Convert

    m = ir.Model("compressed")
    x = m.parameter("x", [3], "f32")
    weights = m.const(np.array([0.5, 1.5, -2.0], np.float16), name="weights")
    decompressed = ir.OutputPort(m.add_node(Convert(destination_type=ElementType.F32), "decompress",
                                            [weights]).id, 0)
    m.result(ir.OutputPort(m.add_node(Add(), "add", [x, decompressed]).id, 0), name="y")
    ir.write_model(m, tmp_path / "m.xml")
    code, out, err = run(capsys, tmp_path / "m.xml", tmp_path / "m.onnx", "--explain",
                         *(["--fold-decompression"] if fold else []))
    assert code == 0, err
    assert "layer 2 'decompress' Convert-1 -> ONNX " + ("an initializer (folded)" if fold else "Cast") in out
    proto = onnx.load(tmp_path / "m.onnx")
    assert [n.op_type for n in proto.graph.node] == (["Add"] if fold else ["Cast", "Add"])
    (initializer,) = proto.graph.initializer
    value = onnx.numpy_helper.to_array(initializer)
    assert value.dtype == (np.float32 if fold else np.float16)
    assert value.tolist() == [0.5, 1.5, -2.0]


@needs_onnx
def test_failed_onnx_export_keeps_the_destination(write_ir, tmp_path: Path, capsys) -> None:
    from tests.cli.helpers import split_xml

    files = write_ir(*split_xml(op_type="Frobnicate"))
    destination = tmp_path / "keep.onnx"
    destination.write_bytes(b"old")
    code, _, err = run(capsys, files.xml, destination)
    assert code == 1
    assert err.startswith("error: ")
    assert destination.read_bytes() == b"old"
    assert files_in(tmp_path) == sorted(["keep.onnx", files.xml.parent.name])


STATEFUL = Path(__file__).resolve().parents[1] / "data" / "models" / "gpt2-tiny-stateful" / "model.xml"


@needs_onnx
def test_a_stateful_model_is_refused_in_one_line_that_names_stateless(tmp_path: Path, capsys) -> None:
    code, out, err = run(capsys, STATEFUL, tmp_path / "m.onnx")
    assert code == 1 and out == ""
    assert err.startswith(f"error: {STATEFUL}: 8 layers cannot be exported to ONNX: Assign x4, ReadValue x4 ")
    assert "export it stateless (ir-convert --stateless, " in err and len(err.splitlines()) == 1
    assert files_in(tmp_path) == []


@needs_onnx
def test_stateless_exports_each_variable_as_an_input_and_an_output(tmp_path: Path, capsys) -> None:
    import onnx

    code, out, err = run(capsys, STATEFUL, tmp_path / "m.onnx", "--stateless")
    assert code == 0, err
    layers = [f"{n}.{kind}" for n in range(2) for kind in ("key", "value")]
    assert out.splitlines() == [
        "stateless: 4 variables of the stateful model become graph inputs and outputs (feed each step's outputs "
        "back as the next step's inputs; at the first step, each ReadValue's initial value)",
        *(f"stateless: variable 'past.{k}present.{k}' -> input 'past_key_values.{k}', output 'present.{k}'"
          for k in layers),
        f"wrote {tmp_path / 'm.onnx'}: 207 layers"]
    proto = onnx.load(tmp_path / "m.onnx")
    assert [i.name for i in proto.graph.input] == ["input_ids", *(f"past_key_values.{k}" for k in layers)]
    assert [o.name for o in proto.graph.output] == ["logits", *(f"present.{k}" for k in layers)]
    code, out, err = run(capsys, SAMPLES / "dml-split-axis2" / "model.xml", tmp_path / "plain.onnx", "--stateless")
    assert code == 0, err
    assert out.splitlines()[0] == "stateless: the model has no variables (ReadValue/Assign); its inputs and " \
                                  "outputs stay"


def test_weights_and_element_budget_options(split_model, tmp_path: Path, capsys) -> None:
    moved = tmp_path / "w.bin"
    split_model.bin.rename(moved)
    code, _, err = run(capsys, split_model.xml, tmp_path / "copy.xml", "--weights", moved)
    assert code == 0, err
    assert (tmp_path / "copy.bin").read_bytes() == moved.read_bytes()
    code, _, err = run(capsys, split_model.xml, tmp_path / "small.xml", "--weights", moved, "--max-elements", "1")
    assert code == 0, err  # the axis Const has 1 element
    code, _, err = run(capsys, SAMPLES / "dml-split-axis2" / "model.xml", tmp_path / "s.xml", "--max-elements", "2")
    assert code == 1 and "split_lengths" in err and "2" in err  # split_lengths has 3 elements
    assert not (tmp_path / "s.xml").exists()
    code, _, err = run(capsys, split_model.xml, tmp_path / "x.xml", "--weights", moved, "--max-elements", "0")
    assert code == 2 and "expected an integer >= 1" in err


def test_a_model_whose_names_collide_in_ir_v10_is_not_written_and_the_other_collisions_are_counted(
        tmp_path: Path, capsys) -> None:
    """Two collisions (as tests/analysis/test_v10_names.py finds them): the first is named, the other counted."""
    import irgraph as ir

    model = ir.Model()
    x = model.parameter("x", [4])
    model.node(x.node_id).outputs[0].tensor_names = ["sp.1"]
    first, second = model.split(x, 0, 2, name="sp")
    model.result(first, name="o0")
    model.result(second, name="o1")
    model.result(model.concat([first], axis=0, name="c"), name="o2")
    y = model.parameter("y", [4])
    model.node(y.node_id).outputs[0].tensor_names = ["c"]
    model.result(model.concat([y], axis=0, name="d"), name="o3")
    ir.write_model(model, tmp_path / "model.xml")
    destination = tmp_path / "v10.xml"
    code, _, err = run(capsys, tmp_path / "model.xml", destination, "--ir-version", "10")
    assert code == 1
    assert err.endswith("IR v10: output name 'sp.1' is also the name of another input or output tensor, so OpenVINO "
                        "refuses the model (\"Model operation names have collisions with tensor names\"); write it "
                        "as IR v11 (1 more like it)\n")
    assert err.count("\n") == 1 and not destination.exists()
