"""ir-run on stateful models: one run from the initial values, --steps N keeps every step's outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.runtime.state import step_key
from tests.runtime.test_state import kv_model

X = np.full((1, 2, 4), 3, np.float32)


@pytest.fixture
def kv_files(tmp_path: Path) -> Path:
    path = tmp_path / "kv.xml"
    ir.write_model(kv_model(), path)
    np.savez(tmp_path / "in.npz", x=X)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_run.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_one_run_starts_from_the_initial_values(kv_files, capsys):
    code, out, _ = run(capsys, kv_files, "--inputs", kv_files.parent / "in.npz")
    assert code == 0
    assert out.splitlines()[1].split()[:3] == ["present", "f32", "[1,2,4]"]


def test_steps_keep_every_steps_outputs(kv_files, capsys, tmp_path):
    out_file = tmp_path / "out.npz"
    code, out, _ = run(capsys, kv_files, "--inputs", tmp_path / "in.npz", "--steps", 3, "--output", out_file)
    assert code == 0
    assert [line.split()[:3] for line in out.splitlines()[1:]] == [
        ["step1/present", "f32", "[1,2,4]"], ["step2/present", "f32", "[1,4,4]"], ["step3/present", "f32", "[1,6,4]"]]
    with np.load(out_file) as saved:
        assert list(saved) == ["step1/present", "step2/present", "step3/present"]
        np.testing.assert_array_equal(saved["step3/present"], np.concatenate([X, X, X], axis=1))
    code, out, _ = run(capsys, kv_files, "--inputs", tmp_path / "in.npz", "--steps", 3, "--compare", out_file, "--json")
    summary = json.loads(out)
    assert code == 0 and summary["ok"]
    assert [item["name"] for item in summary["outputs"]] == ["step1/present", "step2/present", "step3/present"]
    code, _, err = run(capsys, kv_files, "--inputs", tmp_path / "in.npz", "--steps", 2, "--compare", out_file)
    assert code == 1 and "step3/present" in err


def test_steps_must_be_positive_and_are_documented(kv_files, capsys):
    code, _, err = run(capsys, kv_files, "--steps", 0)
    assert code == 2 and "error: argument --steps: expected an integer >= 1, got 0" in err
    assert ir_run.main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "stepK/NAME (K = 1..N)" in text and "--steps N" in text


def test_all_steps_count_against_the_element_limit(kv_files, capsys, tmp_path):
    code, _, err = run(capsys, kv_files, "--inputs", tmp_path / "in.npz", "--steps", 3, "--max-elements", 40)
    assert code == 1
    assert "the outputs of steps 1 to 3 have 48 elements together, above the limit of 40" in err


# ------------------------------------------------------------------------------------ per-step feeds
def steps_of(*values: float) -> dict[str, np.ndarray]:
    return {step_key(number, "x"): np.full((1, 2, 4), value, np.float32) for number, value in enumerate(values, 1)}


def test_an_npz_keyed_by_step_gives_each_step_its_own_inputs_and_the_step_count(kv_files, capsys, tmp_path):
    np.savez(tmp_path / "steps.npz", **steps_of(1, 2, 5))
    out_file = tmp_path / "out.npz"
    code, out, err = run(capsys, kv_files, "--inputs", tmp_path / "steps.npz", "--output", out_file)
    assert code == 0, err
    with np.load(out_file) as saved:
        assert list(saved) == ["step1/present", "step2/present", "step3/present"]
        assert saved["step3/present"][0, :, 0].tolist() == [1, 1, 2, 2, 5, 5]
    code, _, err = run(capsys, kv_files, "--inputs", tmp_path / "steps.npz", "--steps", 2)
    assert code == 2
    assert "--steps 2, but the inputs give 3 steps (step1/ to step3/)" in err


def test_a_folder_holds_one_npz_per_step_in_the_order_of_their_numbers(kv_files, capsys, tmp_path):
    folder = tmp_path / "steps"
    folder.mkdir()
    for number, value in ((1, 1), (2, 2), (10, 3)):  # step10 after step2: numbers, not letters, order them
        np.savez(folder / f"step{number}.npz", x=np.full((1, 2, 4), value, np.float32))
    (folder / "notes.txt").write_text("not an input")
    out_file = tmp_path / "out.npz"
    code, _, err = run(capsys, kv_files, "--inputs", folder, "--output", out_file, "--save-inputs",
                       tmp_path / "saved.npz")
    assert code == 0, err
    assert "no input read from what is no .npz file: notes.txt" in err
    with np.load(out_file) as saved:
        assert saved["step3/present"][0, :, 0].tolist() == [1, 1, 2, 2, 3, 3]
    with np.load(tmp_path / "saved.npz") as saved:  # --save-inputs writes them as one .npz keyed by step
        assert list(saved) == ["step1/x", "step2/x", "step3/x"]
        assert saved["step3/x"][0, 0, 0] == 3
    code, _, err = run(capsys, kv_files, "--inputs", folder, "--save-inputs", tmp_path / "saved.json")
    assert code == 2 and "Polygraphy's JSON holds no per-step inputs; save them as .npz" in err


@pytest.mark.parametrize(("arrays", "message"), [
    ({"step1/x": X, "step3/x": X}, "the inputs give steps 1, 3; steps are numbered from 1 without a gap "
                                   "(step1/NAME, step2/NAME, ...): step 2 is missing"),
    ({"step0/x": X}, "the inputs give steps 0; steps are numbered from 1"),
    # a huge step number is refused at once: no list of that many step numbers, no int() of 4,300 digits
    ({"step99999999999/x": X}, "the inputs give steps 99999999999; steps are numbered from 1 without a gap "
                               "(step1/NAME, step2/NAME, ...): step 1 is missing"),
    ({"step" + "9" * 5000 + "/x": X}, "the inputs give step 999999999999999999... (5000 digits); steps are "
                                      "numbered from 1"),
    ({"x": X, "step1/x": X}, "input 'x' is given for every step and for step 1 (step1/x): give it one way"),
])
def test_per_step_inputs_that_do_not_make_steps_are_refused(kv_files, capsys, tmp_path, arrays, message):
    np.savez(tmp_path / "bad.npz", **arrays)
    code, _, err = run(capsys, kv_files, "--inputs", tmp_path / "bad.npz")
    assert code == 2 and message in err


def test_every_step_needs_the_same_inputs(capsys, tmp_path):
    model = kv_model()
    model.result(model.parameter("y", [1]), name="echo")
    ir.write_model(model, tmp_path / "two.xml")
    y = np.ones(1, np.float32)
    np.savez(tmp_path / "bad.npz", **{"step1/x": X, "step1/y": y, "step2/x": X})
    code, _, err = run(capsys, tmp_path / "two.xml", "--inputs", tmp_path / "bad.npz")
    assert code == 2 and "step 2 gives no data for input 'y', which step 1 gives: every step needs the same" in err
    np.savez(tmp_path / "good.npz", **{"step1/x": X, "step2/x": 2 * X, "y": y})  # y: the same every step
    code, out, err = run(capsys, tmp_path / "two.xml", "--inputs", tmp_path / "good.npz", "--json")
    assert code == 0, err
    assert [item["name"] for item in json.loads(out)["inputs"]] == ["y", "step1/x", "step2/x"]


def test_the_help_documents_both_layouts_of_per_step_inputs(capsys):
    assert ir_run.main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "an .npz keyed stepK/NAME (a key without stepK/ serves every step)" in text
    assert "a folder of .npz files, one per step, in the order of the number in their names" in text
    assert "InferRequest.query_state" in text


def test_several_steps_compare_with_openvino_only(kv_files, capsys, tmp_path):
    np.savez(tmp_path / "steps.npz", **steps_of(1, 2))
    for data in (["--inputs", tmp_path / "steps.npz"], ["--inputs", tmp_path / "in.npz", "--steps", 2]):
        code, _, err = run(capsys, kv_files, *data, "--compare-with", "onnxruntime", "--onnx", kv_files)
        assert code == 2
        assert err.splitlines()[-1] == ("error: several steps (--steps, per-step inputs) compare with openvino only: "
                                        "onnxruntime keeps no variables from run to run")


def test_one_steps_data_for_one_input_from_a_npy_file(kv_files, capsys, tmp_path):
    np.save(tmp_path / "one.npy", X)
    np.save(tmp_path / "two.npy", 2 * X)
    out_file = tmp_path / "out.npz"
    code, _, err = run(capsys, kv_files, "-i", f"step1/x={tmp_path / 'one.npy'}", "-i",
                       f"step2/x={tmp_path / 'two.npy'}", "--output", out_file)
    assert code == 0, err
    with np.load(out_file) as saved:
        assert saved["step2/present"][0, :, 0].tolist() == [3, 3, 6, 6]


@pytest.mark.oracle
def test_one_step_of_a_stateful_model_compares_as_a_plain_run_its_variables_among_the_tensors(kv_files, capsys):
    """The step-by-step comparison with openvino 2026.4.1, reported as one run (no per-step list)."""
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    code, out, err = run(capsys, kv_files, "--inputs", kv_files.parent / "in.npz", "--compare-with", "openvino",
                         "--json")
    assert code == 0, err
    report = json.loads(out)["compare_with"]
    assert sorted(report) == ["atol", "compared", "first_divergence", "first_local_divergence", "not_compared",
                              "passed", "reference", "rtol", "tensors"]
    assert [tensor["key"] for tensor in report["tensors"]] == ["present", "variable:kv"]
    assert (report["passed"], report["compared"]) == (True, 2)
