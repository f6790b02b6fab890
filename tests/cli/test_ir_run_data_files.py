"""ir-run's data files for other tools: --save-inputs, --val-range, Polygraphy JSON (--load-inputs, --save-outputs,
--compare REF.json).

tests/data/polygraphy holds files Polygraphy 0.53.6 wrote (see its README); the files irgraph writes are read
back with irgraph's reader and, when Polygraphy is importable, with Polygraphy's own.
"""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest

from irgraph.cli import ir_run
from irgraph.io.data import polygraphy_json
from tests.cli.helpers import REPO, load

POLYGRAPHY = REPO / "tests" / "data" / "polygraphy"
X = np.arange(12, dtype=np.float32).reshape(2, 6) / 4


def run(capsys, *argv: object) -> tuple[int, str, str]:
    code = ir_run.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_polygraphy_inputs_feed_the_run_and_its_outputs_are_the_reference(split_model, tmp_path, capsys) -> None:
    out = tmp_path / "out.npz"
    code, stdout, err = run(capsys, split_model.xml, "--load-inputs", POLYGRAPHY / "inputs.json", "--output", out,
                            "--compare", POLYGRAPHY / "outputs.json", "--atol", "0", "--rtol", "0")
    assert code == 0, err
    assert err == f"warning: {POLYGRAPHY / 'inputs.json'} holds 2 iterations of inputs; the first is used\n"
    got = load(out)
    np.testing.assert_array_equal(got["y0"], X[:, :3])
    assert "2 of 2 outputs match" in stdout


def test_save_outputs_is_polygraphy_run_results(split_model, tmp_path, capsys) -> None:
    saved = tmp_path / "out.json"
    assert run(capsys, split_model.xml, "--load-inputs", POLYGRAPHY / "inputs.json", "--save-outputs", saved)[0] == 0
    document = json.loads(saved.read_text())
    assert document["polygraphy_class"] == "RunResults"
    runner, iterations = document["lst"][0]
    assert runner == "irgraph-runner" and iterations[0]["polygraphy_class"] == "IterationResult"
    assert list(iterations[0]["outputs"]) == ["y0", "y1"]
    assert iterations[0]["outputs"]["y1"]["polygraphy_class"] == "LazyArray"
    (arrays,) = polygraphy_json.read_arrays(str(saved), 100)
    np.testing.assert_array_equal(arrays["y1"], X[:, 3:])


def test_save_inputs_writes_the_exact_random_inputs(split_model, tmp_path, capsys) -> None:
    npz_file, json_file, out = tmp_path / "in.npz", tmp_path / "in.json", tmp_path / "out.npz"
    assert run(capsys, split_model.xml, "--seed", "5", "--save-inputs", npz_file, "--output", out)[0] == 0
    assert run(capsys, split_model.xml, "--seed", "5", "--save-inputs", json_file)[0] == 0
    x = load(npz_file)["x"]
    (from_json,) = polygraphy_json.read_arrays(str(json_file), 100)
    np.testing.assert_array_equal(from_json["x"], x)
    np.testing.assert_array_equal(load(out)["y0"], x[:, :3])  # the saved inputs are the ones that ran
    again = tmp_path / "again.npz"
    assert run(capsys, split_model.xml, "--inputs", npz_file, "--output", again)[0] == 0
    np.testing.assert_array_equal(load(again)["y1"], load(out)["y1"])


def test_val_range_for_all_and_per_input(split_model, tmp_path, capsys) -> None:
    saved = tmp_path / "in.npz"
    code, _, err = run(capsys, split_model.xml, "--val-range", "[10,11]", "--save-inputs", saved)
    assert code == 0
    x = load(saved)["x"]
    assert x.min() >= 10 and x.max() < 11
    assert "x f32[2,6] in [10, 11]" in err
    assert run(capsys, split_model.xml, "--val-range", "x:[-3,-2]", "--save-inputs", saved)[0] == 0
    assert load(saved)["x"].max() < -2


@pytest.mark.parametrize(("argv", "message"), [
    (["--val-range", "[2,1]"], "--val-range expects [LOW,HIGH] or NAME:[LOW,HIGH] with LOW <= HIGH, got '[2,1]'"),
    (["--val-range", "z:[0,1]"], "--val-range names 'z', but the model has no such input; inputs: 'x'"),
    (["--val-range", "[0,1]", "--load-inputs", str(POLYGRAPHY / "inputs.json")],
     "--val-range sets the range of random data, but input data is given"),
])
def test_val_range_errors(split_model, argv, message, capsys) -> None:
    code, _, err = run(capsys, split_model.xml, *argv)
    assert code == 2
    assert err.splitlines()[-1] == f"error: {message}"


def _npy(array_bytes: bytes) -> str:
    return base64.b64encode(array_bytes).decode()


def test_hostile_polygraphy_files_are_refused_without_unpickling(split_model, tmp_path, capsys) -> None:
    pickled = io.BytesIO()
    np.save(pickled, np.array([object()], dtype=object), allow_pickle=True)
    cases = {
        "pickle.json": ([{"x": {"array": _npy(pickled.getvalue()), "polygraphy_class": "ndarray"}}],
                        "cannot read the JSON file: it holds Python objects (a pickle); only typed arrays are read"),
        "base64.json": ([{"x": {"array": "not base64!", "polygraphy_class": "ndarray"}}],
                        "cannot read the Polygraphy JSON file: array 'x' is not valid base64"),
        "shape.json": ({"lst": 3, "polygraphy_class": "RunResults"},
                       "cannot read the Polygraphy JSON file: its RunResults holds no runner"),
        "raw.json": ([{"x": [1, 2, 3]}], "cannot read the Polygraphy JSON file: 'x' is not an encoded array "
                                         '({"array": BASE64, "polygraphy_class": "ndarray"})'),
    }
    for name, (document, message) in cases.items():
        path = tmp_path / name
        path.write_text(json.dumps(document))
        code, _, err = run(capsys, split_model.xml, "--load-inputs", path)
        assert code == 2, name
        assert err.splitlines()[-1] == f"error: {path}: {message}", name


def test_feeds_from_json_are_checked_like_npz(split_model, tmp_path, capsys) -> None:
    path = tmp_path / "wrong.json"
    polygraphy_json.write_inputs(str(path), [{"x": np.zeros((2, 6), np.float64)}])
    code, _, err = run(capsys, split_model.xml, "--load-inputs", path)
    assert code == 1
    assert err.splitlines()[-1].endswith("input 'x' must have element type f32 (NumPy float32); got float64")


def test_polygraphy_reads_what_irgraph_writes(split_model, tmp_path, capsys) -> None:
    pytest.importorskip("polygraphy", reason="Polygraphy is not a dependency; this runs where it is installed")
    from polygraphy.comparator import RunResults
    from polygraphy.json import load_json

    inputs, outputs = tmp_path / "in.json", tmp_path / "out.json"
    assert run(capsys, split_model.xml, "--save-inputs", inputs, "--save-outputs", outputs)[0] == 0
    feeds = load_json(str(inputs))
    results = RunResults.load(str(outputs))
    np.testing.assert_array_equal(results["irgraph-runner"][0]["y0"], feeds[0]["x"][:, :3])
