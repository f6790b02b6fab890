"""ir-run: every option through main(argv), exit codes, messages and output files."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from irgraph.cli import ir_run
from tests.cli.helpers import SAMPLE_NAMES, SAMPLES, files_in, identity_xml, load, split_xml

X = np.arange(12, dtype=np.float32).reshape(2, 6)


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = ir_run.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# ------------------------------------------------------------------------------------ samples
@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_every_sample_matches_its_expected_outputs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    sample = SAMPLES / name
    code, out, err = run(capsys, sample / "model.xml", "--inputs", sample / "inputs.npz",
                         "--compare", sample / "expected.npz")
    assert code == 0, err
    assert "MISMATCH" not in out
    assert f"{len(load(sample / 'expected.npz'))} of {len(load(sample / 'expected.npz'))} outputs match" in out


def test_samples_cover_every_seed_example() -> None:
    assert SAMPLE_NAMES == ["dml-join-axis3", "dml-join-three", "dml-split-axis2", "dml-split-axis3",
                            "openvino-split"]


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_sample_output_file_is_exactly_expected(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = SAMPLES / name
    out_file = tmp_path / "out.npz"
    code, _, err = run(capsys, sample / "model.xml", "--inputs", sample / "inputs.npz", "--output", out_file)
    assert code == 0, err
    got, expected = load(out_file), load(sample / "expected.npz")
    assert list(got) == list(expected)
    for key in expected:
        assert got[key].dtype == expected[key].dtype and got[key].shape == expected[key].shape
        assert got[key].tobytes() == expected[key].tobytes()


def test_table_lists_name_type_shape_min_max_mean(capsys: pytest.CaptureFixture[str]) -> None:
    sample = SAMPLES / "dml-split-axis2"
    code, out, _ = run(capsys, sample / "model.xml", "--inputs", sample / "inputs.npz")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["output", "type", "shape", "min", "max", "mean"]
    assert lines[1].split() == ["output0", "f32", "[1,1,2,2]", "1", "4", "2.5"]
    assert lines[2].split() == ["output1", "f32", "[1,1,1,2]", "5", "6", "5.5"]
    assert lines[3].split() == ["output2", "f32", "[1,1,3,2]", "7", "12", "9.5"]


# ------------------------------------------------------------------------------------ inputs
def test_input_from_npy_file(split_model, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    np.save(tmp_path / "x.npy", X)
    out_file = tmp_path / "out.npz"
    code, _, err = run(capsys, split_model.xml, "-i", f"x={tmp_path / 'x.npy'}", "--output", out_file)
    assert code == 0, err
    assert "warning" not in err
    got = load(out_file)
    np.testing.assert_array_equal(got["y0"], X[:, :3])
    np.testing.assert_array_equal(got["y1"], X[:, 3:])


def test_bare_npz_after_dash_i_works_like_inputs(split_model, tmp_path: Path, capsys) -> None:
    np.savez(tmp_path / "in.npz", x=X)
    code, _, err = run(capsys, split_model.xml, "-i", tmp_path / "in.npz")
    assert code == 0, err


def test_input_by_tensor_name_and_weights_option(write_ir, tmp_path: Path, capsys) -> None:
    xml, weights = split_xml()
    files = write_ir(xml.replace('names="x"', 'names="x_tensor"'), weights)
    moved = tmp_path / "elsewhere.bin"
    files.bin.rename(moved)
    np.savez(tmp_path / "in.npz", x_tensor=X)
    code, _, err = run(capsys, files.xml, "--weights", moved, "--inputs", tmp_path / "in.npz")
    assert code == 0, err


def test_no_input_data_fills_random_with_warning(split_model, tmp_path: Path, capsys) -> None:
    code, _, err = run(capsys, split_model.xml, "--output", tmp_path / "a.npz")
    assert code == 0
    assert err.startswith("warning: no input data given") and "seed 0" in err and "x f32[2,6]" in err
    code, _, _ = run(capsys, split_model.xml, "--output", tmp_path / "b.npz", "--seed", "0")
    code, _, err = run(capsys, split_model.xml, "--output", tmp_path / "c.npz", "--seed", "5")
    assert "seed 5" in err
    a, b, c = load(tmp_path / "a.npz"), load(tmp_path / "b.npz"), load(tmp_path / "c.npz")
    assert a["y0"].tobytes() == b["y0"].tobytes()
    assert a["y0"].tobytes() != c["y0"].tobytes()


@pytest.mark.parametrize(
    ("element_type", "precision", "dtype"),
    [("f32", "FP32", np.float32), ("bf16", "BF16", ml_dtypes.bfloat16), ("boolean", "BOOL", np.bool_),
     ("i8", "I8", np.int8), ("u8", "U8", np.uint8), ("i64", "I64", np.int64), ("f16", "FP16", np.float16),
     ("i4", "I4", ml_dtypes.int4)],
)
def test_random_data_for_each_element_type(write_ir, tmp_path, capsys, element_type, precision, dtype) -> None:
    files = write_ir(identity_xml(element_type, precision, [3, 4]))
    code, out, err = run(capsys, files.xml, "--output", tmp_path / "o.npz")
    assert code == 0, err
    assert f"x {element_type}[3,4]" in err
    stored = load(tmp_path / "o.npz")["x"]  # the Result is keyed by its producer's tensor name
    assert stored.shape == (3, 4)
    if np.dtype(dtype).kind == "V":
        assert stored.dtype == np.dtype(f"V{np.dtype(dtype).itemsize}")
    else:
        assert stored.dtype == np.dtype(dtype)
    assert out.splitlines()[1].split()[:3] == ["x", element_type, "[3,4]"]


def test_bf16_inputs_stored_as_raw_bits_round_trip(write_ir, tmp_path: Path, capsys) -> None:
    files = write_ir(identity_xml("bf16", "BF16", [2, 3]))
    x = np.array([[1.5, -2, 0], [np.inf, -0.0, 3.25]], dtype=ml_dtypes.bfloat16)
    np.savez(tmp_path / "in.npz", x=x)  # written as |V2
    assert load(tmp_path / "in.npz")["x"].dtype == np.dtype("V2")
    code, out, err = run(capsys, files.xml, "--inputs", tmp_path / "in.npz", "--output", tmp_path / "o.npz",
                         "--compare", tmp_path / "in.npz")
    assert code == 0, err
    got = load(tmp_path / "o.npz")["x"]
    assert got.dtype == np.dtype("V2") and got.tobytes() == x.tobytes()
    assert "bf16" in out and "inf" in out


def test_string_model_round_trips(write_ir, tmp_path: Path, capsys) -> None:
    files = write_ir(identity_xml("string", "STRING", [2]))
    np.savez(tmp_path / "in.npz", x=np.array(["a,b", "ünï"]))
    code, out, err = run(capsys, files.xml, "--inputs", tmp_path / "in.npz", "--output", tmp_path / "o.npz")
    assert code == 0, err
    got = load(tmp_path / "o.npz")["x"]
    assert got.dtype.kind == "U" and got.tolist() == ["a,b", "ünï"]
    assert out.splitlines()[1].split() == ["x", "string", "[2]", "a,b", "ünï", "-"]


def test_once_data_is_given_every_input_must_be_given(write_ir, tmp_path: Path, capsys) -> None:
    xml, weights = split_xml()
    two_inputs = xml.replace('<layer id="0" name="x"', '<layer id="9" name="unused" type="Parameter" '
                             'version="opset1"><data shape="1" element_type="f32"/><output><port id="0" '
                             'precision="FP32"><dim>1</dim></port></output></layer>\n<layer id="0" name="x"')
    files = write_ir(two_inputs, weights)
    np.savez(tmp_path / "in.npz", x=X)
    code, _, err = run(capsys, files.xml, "--inputs", tmp_path / "in.npz")
    assert code == 1
    assert "unused" in assert_one_error_line(err)


def test_unknown_input_name_is_an_error(split_model, tmp_path: Path, capsys) -> None:
    np.savez(tmp_path / "in.npz", x=X, z=X)
    code, _, err = run(capsys, split_model.xml, "--inputs", tmp_path / "in.npz")
    assert code == 1
    line = assert_one_error_line(err)
    assert "no input named 'z'" in line and "inputs: x" in line


def test_input_given_twice_is_a_usage_error(split_model, tmp_path: Path, capsys) -> None:
    np.savez(tmp_path / "in.npz", x=X)
    np.save(tmp_path / "x.npy", X)
    code, _, err = run(capsys, split_model.xml, "--inputs", tmp_path / "in.npz", "-i", f"x={tmp_path / 'x.npy'}")
    assert code == 2
    assert "given twice" in assert_one_error_line(err)


def test_element_type_must_match_exactly(split_model, tmp_path: Path, capsys) -> None:
    np.savez(tmp_path / "in.npz", x=X.astype(np.float64))
    code, _, err = run(capsys, split_model.xml, "--inputs", tmp_path / "in.npz")
    assert code == 1
    line = assert_one_error_line(err)
    assert "f32" in line and "float64" in line


def test_shape_must_fit_the_parameter(split_model, tmp_path: Path, capsys) -> None:
    np.savez(tmp_path / "in.npz", x=np.zeros((2, 7), np.float32))
    code, _, err = run(capsys, split_model.xml, "--inputs", tmp_path / "in.npz")
    assert code == 1
    assert "[2,7]" in assert_one_error_line(err)


@pytest.mark.parametrize("bad", ["x", "=x.npy", "x:x.npy"])
def test_dash_i_syntax(split_model, capsys, bad: str) -> None:
    code, _, err = run(capsys, split_model.xml, "-i", bad)
    assert code == 2
    assert "NAME=FILE.npy" in assert_one_error_line(err)


# ------------------------------------------------------------------------------------ --shape
@pytest.fixture
def dynamic_model(write_ir):
    xml, weights = split_xml(shape=[2, 6], parameter_shape="?,2..8", num_splits=2)
    return write_ir(xml, weights)


@pytest.mark.parametrize("spec", ["x[3,6]", "x:[3,6]", "x: [3, 6]", "x[3,6..6]", "x[-1,6]"])
def test_shape_resolves_dynamic_dims_for_random_data(dynamic_model, tmp_path, capsys, spec) -> None:
    code, _, err = run(capsys, dynamic_model.xml, "--shape", spec, "--output", tmp_path / "o.npz")
    assert code == 0, err
    rows = 1 if spec == "x[-1,6]" else 3
    assert f"x f32[{rows},6]" in err
    assert load(tmp_path / "o.npz")["y0"].shape == (rows, 3)


def test_dynamic_dims_default_to_their_smallest_size(dynamic_model, tmp_path, capsys) -> None:
    code, _, err = run(capsys, dynamic_model.xml, "--output", tmp_path / "o.npz")
    assert code == 0, err
    assert "x f32[1,2]" in err and "--shape" in err
    assert load(tmp_path / "o.npz")["y0"].shape == (1, 1)


def test_shape_with_interval_checks_given_data(dynamic_model, tmp_path, capsys) -> None:
    np.savez(tmp_path / "in.npz", x=np.zeros((2, 6), np.float32))
    code, _, err = run(capsys, dynamic_model.xml, "--inputs", tmp_path / "in.npz", "--shape", "x[2,4..6]")
    assert code == 0, err
    code, _, err = run(capsys, dynamic_model.xml, "--inputs", tmp_path / "in.npz", "--shape", "x[2,2..4]")
    assert code == 1
    assert "does not fit --shape [2,2..4]" in assert_one_error_line(err)


@pytest.mark.parametrize(
    ("spec", "message"),
    [("nope[1,2]", "no such input"), ("x[1,9]", "does not fit input"), ("x[1,2,3]", "does not fit input"),
     ("x", "expects NAME["), ("x[1,a]", "cannot parse dimension"), ("x[1,2],x[1,2]", "twice")],
)
def test_bad_shape_options_are_usage_errors(dynamic_model, capsys, spec: str, message: str) -> None:
    code, _, err = run(capsys, dynamic_model.xml, "--shape", spec)
    assert code == 2
    assert message in assert_one_error_line(err)


def test_dynamic_rank_needs_a_shape(write_ir, capsys) -> None:
    xml, weights = split_xml(parameter_shape="...")
    files = write_ir(xml, weights)
    code, _, err = run(capsys, files.xml)
    assert code == 2
    assert "dynamic rank" in assert_one_error_line(err)
    code, _, err = run(capsys, files.xml, "--shape", "x[4,2]")
    assert code == 0, err


# ------------------------------------------------------------------------------------ output files
def test_failed_run_leaves_no_output_and_keeps_an_existing_one(split_model, tmp_path: Path, capsys) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    existing = out_dir / "out.npz"
    existing.write_bytes(b"precious")
    np.savez(tmp_path / "in.npz", x=X.astype(np.float64))
    code, _, _ = run(capsys, split_model.xml, "--inputs", tmp_path / "in.npz", "--output", existing)
    assert code == 1
    assert existing.read_bytes() == b"precious"
    assert files_in(out_dir) == ["out.npz"]
    fresh = out_dir / "fresh.npz"
    code, _, _ = run(capsys, split_model.xml, "--inputs", tmp_path / "in.npz", "--output", fresh)
    assert code == 1 and not fresh.exists()
    assert files_in(out_dir) == ["out.npz"]


def test_successful_run_replaces_the_output(split_model, tmp_path: Path, capsys) -> None:
    existing = tmp_path / "out.npz"
    existing.write_bytes(b"old")
    np.savez(tmp_path / "in.npz", x=X)
    code, _, _ = run(capsys, split_model.xml, "--inputs", tmp_path / "in.npz", "--output", existing)
    assert code == 0
    assert sorted(load(existing)) == ["y0", "y1"]
    assert [name for name in files_in(tmp_path) if name.endswith(".tmp")] == []


def test_output_keys_may_hold_any_character(write_ir, tmp_path: Path, capsys) -> None:
    xml, weights = split_xml()
    files = write_ir(xml.replace('names="y0"', 'names="a\\,b/c:0"'), weights)
    code, _, err = run(capsys, files.xml, "--output", tmp_path / "o.npz")
    assert code == 0, err
    assert sorted(load(tmp_path / "o.npz")) == ["a,b/c:0", "y1"]


def test_output_directory_must_exist(split_model, tmp_path: Path, capsys) -> None:
    code, _, err = run(capsys, split_model.xml, "--output", tmp_path / "missing" / "o.npz")
    assert code == 2
    assert "does not exist" in assert_one_error_line(err)


# ------------------------------------------------------------------------------------ hostile input files
class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (open, (str(self.marker), "w"))


def test_pickled_npz_member_is_refused_without_running_it(split_model, tmp_path: Path, capsys) -> None:
    marker = tmp_path / "PICKLE_EXECUTED"
    array = np.empty(1, dtype=object)
    array[0] = _Payload(marker)
    np.savez(tmp_path / "in.npz", x=array)
    pickle.dumps(array)  # the payload is picklable, so the file really holds it
    code, _, err = run(capsys, split_model.xml, "--inputs", tmp_path / "in.npz", "--output", tmp_path / "o.npz")
    assert code == 2
    assert "pickle" in assert_one_error_line(err)
    assert not marker.exists() and not (tmp_path / "o.npz").exists()


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04garbage", b"not a zip at all"])
def test_corrupt_npz_is_an_io_error(split_model, tmp_path: Path, capsys, content: bytes) -> None:
    (tmp_path / "in.npz").write_bytes(content)
    code, _, err = run(capsys, split_model.xml, "--inputs", tmp_path / "in.npz")
    assert code == 2
    assert "cannot read the .npz" in assert_one_error_line(err)


def test_truncated_npy_header_is_checked_before_allocating(split_model, tmp_path: Path, capsys) -> None:
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1000, 1000), }"
    header += b" " * (127 - 10 - len(header)) + b"\n"
    (tmp_path / "x.npy").write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\0" * 8)
    code, _, err = run(capsys, split_model.xml, "-i", f"x={tmp_path / 'x.npy'}")
    assert code == 2
    assert "bytes of data but only" in assert_one_error_line(err)


def test_element_budget(split_model, tmp_path: Path, capsys) -> None:
    np.savez(tmp_path / "in.npz", x=X)
    code, _, err = run(capsys, split_model.xml, "--inputs", tmp_path / "in.npz", "--max-elements", "4")
    assert code == 1
    assert "above the limit of 4" in assert_one_error_line(err)
    code, _, err = run(capsys, split_model.xml, "--max-elements", "4")
    assert code == 1
    assert "above the limit of 4" in assert_one_error_line(err)


# ------------------------------------------------------------------------------------ --compare
@pytest.fixture
def ran(split_model, tmp_path: Path, capsys):
    np.savez(tmp_path / "in.npz", x=X)
    assert run(capsys, split_model.xml, "--inputs", tmp_path / "in.npz", "--output", tmp_path / "ref.npz")[0] == 0
    return split_model, tmp_path


def test_compare_mismatch_exits_1_with_errors_per_output(ran, capsys) -> None:
    model, tmp_path = ran
    ref = load(tmp_path / "ref.npz")
    ref["y1"] = ref["y1"] + np.float32(0.5)
    np.savez(tmp_path / "bad.npz", **ref)
    code, out, err = run(capsys, model.xml, "--inputs", tmp_path / "in.npz", "--compare", tmp_path / "bad.npz")
    assert code == 1
    assert "ok        y0  max abs error 0  max rel error 0" in out
    assert "MISMATCH  y1  max abs error 0.5  max rel error 0.143" in out  # 0.5 / |3.5|
    assert "1 of 2 outputs match" in out
    assert "y1" in assert_one_error_line(err)


def test_compare_tolerances(ran, capsys) -> None:
    model, tmp_path = ran
    ref = load(tmp_path / "ref.npz")
    ref["y1"] = ref["y1"] + np.float32(1e-3)
    np.savez(tmp_path / "near.npz", **ref)
    args = [model.xml, "--inputs", tmp_path / "in.npz", "--compare", tmp_path / "near.npz"]
    assert run(capsys, *args)[0] == 1
    assert run(capsys, *args, "--atol", "2e-3")[0] == 0
    assert run(capsys, *args, "--rtol", "1e-3")[0] == 0  # |ref| >= 3 for y1
    assert run(capsys, *args, "--atol", "-1")[0] == 2
    code, _, err = run(capsys, *args, "--atol", ":2e-3")  # NAME:A without a NAME: a usage error, not a warning
    assert code == 2 and "argument --atol: expected A or NAME:A, got ':2e-3' (no NAME before the colon)" in err


@pytest.mark.parametrize(
    ("change", "reason"),
    [(lambda r: r.update(y0=r["y0"].astype(np.float64)), "dtype <f4 but the reference has <f8"),
     (lambda r: r.update(y0=r["y0"].reshape(3, 2)), "shape [2,3] but the reference has [3,2]"),
     (lambda r: r.pop("y0"), "missing from the reference"),
     (lambda r: r.update(extra=r["y0"]), "not an output of the model")],
)
def test_compare_is_exact_about_dtype_shape_and_keys(ran, capsys, change, reason: str) -> None:
    model, tmp_path = ran
    ref = load(tmp_path / "ref.npz")
    change(ref)
    np.savez(tmp_path / "changed.npz", **ref)
    code, out, _ = run(capsys, model.xml, "--inputs", tmp_path / "in.npz", "--compare", tmp_path / "changed.npz",
                       "--atol", "100")
    assert code == 1
    assert reason in out


def test_compare_finds_an_output_under_any_of_its_tensor_names(write_ir, tmp_path: Path, capsys) -> None:
    """Issue 23: a reference keyed by another name of the port (BERT's output 322 is also last_hidden_state) is
    the same tensor, and the report says which name matched."""
    xml, weights = split_xml()
    files = write_ir(xml.replace('names="y0"', 'names="y0,last_hidden_state"'), weights)
    np.savez(tmp_path / "in.npz", x=X)
    np.savez(tmp_path / "ref.npz", last_hidden_state=X[:, :3], y1=X[:, 3:])
    code, out, err = run(capsys, files.xml, "--inputs", tmp_path / "in.npz", "--compare", tmp_path / "ref.npz")
    assert code == 0, err
    assert "ok        y0  max abs error 0  max rel error 0  (as 'last_hidden_state' in the reference)" in out
    assert "2 of 2 outputs match" in out


def _marked_model(tmp_path: Path) -> Path:
    """x f32[2,6] -> Concat(x, x) 'join' (tensor 'joined') -> Split 'halves' -> y0, y1."""
    import irgraph as ir

    m = ir.Model("marked")
    x = m.parameter("x", [2, 6])
    joined = m.concat([x, x], axis=1, name="join")
    m.node(joined.node_id).outputs[0].tensor_names = ["joined"]
    y0, y1 = m.split(joined, axis=1, num_splits=2, name="halves")
    m.result(y0, name="y0")
    m.result(y1, name="y1")
    ir.write_model(m, tmp_path / "marked.xml")
    return tmp_path / "marked.xml"


def test_compare_finds_a_marked_tensor_under_polygraphys_name_0(tmp_path: Path, capsys) -> None:
    """Issue 23: Polygraphy keys a marked tensor 'joined:0'; irgraph keys it 'joined'. Both name one tensor: it is
    compared (a wrong value there fails), not listed as a stray reference key."""
    model = _marked_model(tmp_path)
    np.savez(tmp_path / "in.npz", x=X)
    joined = np.concatenate([X, X], axis=1)
    np.savez(tmp_path / "ref.npz", **{"joined:0": joined, "y0:0": X, "y1:0": X})
    args = [model, "--inputs", tmp_path / "in.npz", "--mark", "join", "--compare", tmp_path / "ref.npz"]
    code, out, err = run(capsys, *args)
    assert code == 0, out + err
    assert "ok        joined  max abs error 0  max rel error 0  (as 'joined:0' in the reference)" in out
    assert "3 of 3 outputs match" in out
    np.savez(tmp_path / "ref.npz", **{"joined:0": joined + 1, "y0:0": X, "y1:0": X})
    code, out, err = run(capsys, *args)
    assert code == 1 and "MISMATCH  joined  max abs error 1" in out


def test_compare_with_a_reference_that_holds_no_output_fails_naming_the_closest(ran, capsys) -> None:
    model, tmp_path = ran
    np.savez(tmp_path / "other.npz", why0=X[:, :3])
    code, out, err = run(capsys, model.xml, "--inputs", tmp_path / "in.npz", "--compare", tmp_path / "other.npz")
    assert code == 1
    assert "MISMATCH  y0    (missing from the reference; closest reference names: 'why0')" in out
    assert "MISMATCH  why0  (in the reference but not an output of the model; closest outputs: 'y0')" in out
    assert "0 of 3 outputs match" in out


def _large_sum_model(tmp_path: Path) -> Path:
    """x f32[1,4] -> MatMul(w) -> y f32[1,3]: y[0,2] = x0 - x1 + x2, a sum of 1e8-sized terms near zero."""
    import irgraph as ir
    from irgraph.graph import OutputPort
    from irgraph.ops.matrix.mat_mul import MatMul

    m = ir.Model("sum")
    x = m.parameter("x", [1, 4])
    w = np.array([[1, 0, 1], [0, 1, -1], [0, 0, 1], [0, 0, 0]], np.float32)
    product = m.add_node(MatMul(), "sum", [x, m.const(w)])
    m.result(OutputPort(product.id, 0), name="y")
    ir.write_model(m, tmp_path / "sum.xml")
    return tmp_path / "sum.xml"


def test_default_tolerances_scale_with_the_precision_and_say_so(tmp_path: Path, capsys) -> None:
    """Issue 23: y[0,2] = 1e8 - 1e8 + 1.5 loses the digits of 1e8-sized terms in f32 (their spacing is 8), so a
    reference summed in another order may give 17.5: within f32 rounding (80 eps x max|ref| here, one MatMul), not
    a divergence as atol = rtol = 1e-5 called it; 1e-3 of the largest magnitude is a mismatch; --precision bf16
    (the reference ran in bf16) allows more; a given --atol/--rtol still decides, and the report says the
    difference is within what f32 allows."""
    model = _large_sum_model(tmp_path)
    x = np.array([[1e8, 1e8, 1.5, 0.0]], np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    ours = np.array([[1e8, 1e8, 1.5]], np.float32)
    args = [model, "--inputs", tmp_path / "in.npz", "--compare", tmp_path / "ref.npz"]

    np.savez(tmp_path / "ref.npz", y=ours + np.array([[0, 8, 16]], np.float32))
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert "compare with" in out and "(tolerance: what each tensor's precision allows, docs/tolerances.md):" in out
    assert "ok        y  max abs error 16  max rel error 0.914  (within f32 rounding)" in out
    code, out, err = run(capsys, *args, "--atol", "1e-5", "--rtol", "1e-5")
    assert code == 1
    assert ("MISMATCH  y  max abs error 16  max rel error 0.914  (1 of 3 elements differ beyond the tolerance; first "
            "at flat index 2: 1.5 vs 17.5; within f32 rounding: atol 9.54e-06 x max|ref|, rtol 4.77e-07: the given "
            "tolerance is tighter)") in out
    assert "(atol 1e-05, rtol 1e-05): y" in assert_one_error_line(err)

    np.savez(tmp_path / "ref.npz", y=ours + np.array([[0, 0, 1e5]], np.float32))
    assert run(capsys, *args)[0] == 1  # 1e-3 of max|ref|: no f32 rounding of one MatMul does that
    code, out, _ = run(capsys, *args, "--precision", "bf16")
    assert code == 0 and "(within bf16 rounding)" in out  # 16 bf16 eps x max|ref| = 1.25e7


def test_compare_treats_nan_as_equal(write_ir, tmp_path: Path, capsys) -> None:
    files = write_ir(identity_xml("f32", "FP32", [3]))
    x = np.array([np.nan, np.inf, 1], np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    assert run(capsys, files.xml, "--inputs", tmp_path / "in.npz", "--compare", tmp_path / "in.npz")[0] == 0
    np.savez(tmp_path / "ref2.npz", x=np.array([1, np.inf, 1], np.float32))
    code, out, _ = run(capsys, files.xml, "--inputs", tmp_path / "in.npz", "--compare", tmp_path / "ref2.npz")
    assert code == 1 and "max abs error inf" in out


def test_missing_reference_is_an_io_error(split_model, tmp_path: Path, capsys) -> None:
    code, _, err = run(capsys, split_model.xml, "--compare", tmp_path / "nope.npz")
    assert code == 2
    assert "nope.npz: no such file" in assert_one_error_line(err)


# ------------------------------------------------------------------------------------ --json
def test_json_summary(ran, capsys) -> None:
    model, tmp_path = ran
    code, out, _ = run(capsys, model.xml, "--inputs", tmp_path / "in.npz", "--compare", tmp_path / "ref.npz",
                       "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["ok"] is True
    assert summary["inputs"] == [{"name": "x", "element_type": "f32", "shape": [2, 6], "source": str(tmp_path /
                                                                                                       "in.npz")}]
    assert summary["outputs"][0] == {"name": "y0", "element_type": "f32", "shape": [2, 3], "min": 0.0, "max": 8.0,
                                     "mean": 4.0}
    assert summary["compare"]["passed"] is True
    assert summary["compare"]["outputs"][1]["max_abs_error"] == 0.0


def test_table_handles_empty_outputs(write_ir, tmp_path: Path, capsys) -> None:
    files = write_ir(identity_xml("f32", "FP32", [0, 3]))
    code, out, err = run(capsys, files.xml)
    assert code == 0, err
    assert out.splitlines()[1].split() == ["x", "f32", "[0,3]", "-", "-", "-"]


# ------------------------------------------------------------------------------------ errors
def test_op_without_numpy_implementation(write_ir, capsys) -> None:
    files = write_ir(*split_xml(op_type="Frobnicate", op_version="opset1"))
    code, out, err = run(capsys, files.xml)
    assert code == 1
    line = assert_one_error_line(err)
    assert line.startswith(f"error: {files.xml}:")
    assert line.endswith("(Frobnicate): op Frobnicate (version opset1) has no NumPy implementation: Opset opset1 "
                         "doesn't contain the operation with type: Frobnicate (no OpenVINO opset 1-16 has this type); "
                         "OpenVINO refuses it too")


def test_split_that_does_not_divide_its_axis(write_ir, capsys) -> None:
    files = write_ir(*split_xml(num_splits=4))
    code, _, err = run(capsys, files.xml)
    assert code == 1
    line = assert_one_error_line(err)
    assert re.match(rf"error: {re.escape(str(files.xml))}:1[23]: layer 2 'split' \(Split\): ", line), line
    assert "6" in line and "4" in line and "divisible" in line


def test_missing_model_and_weights_are_io_errors(split_model, tmp_path: Path, capsys) -> None:
    code, _, err = run(capsys, tmp_path / "nope.xml")
    assert code == 2
    assert "nope.xml: no such model file" in assert_one_error_line(err)
    code, _, err = run(capsys, split_model.xml, "--weights", tmp_path / "nope.bin")
    assert code == 2
    split_model.bin.unlink()
    code, _, err = run(capsys, split_model.xml)
    assert code in (1, 2), err  # the reader decides whether a missing default .bin is an I/O error
    assert "model.bin" in assert_one_error_line(err)


def test_help_has_examples(capsys) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "examples:" in out and "--compare" in out and "exit codes" in out


def test_usage_error_exit_2(capsys) -> None:
    code, _, err = run(capsys)
    assert code == 2
    assert "error:" in err


def test_internal_errors_are_one_line_unless_debug(split_model, monkeypatch, capsys) -> None:
    def boom(self, feeds):  # type: ignore[no-untyped-def]
        raise RuntimeError("first line\nsecond line")

    monkeypatch.setattr("irgraph.runtime.interpreter.Interpreter.run", boom)
    code, _, err = run(capsys, split_model.xml)
    assert code == 1
    assert assert_one_error_line(err) == "error: internal error: RuntimeError: first line\\nsecond line"
    code, _, err = run(capsys, split_model.xml, "--debug")
    assert code == 1
    assert "Traceback" in err


def test_running_out_of_memory_is_one_line_and_a_traceback_only_with_debug(split_model, monkeypatch,
                                                                            capsys) -> None:
    def exhausted(self, feeds):  # type: ignore[no-untyped-def]
        raise MemoryError

    monkeypatch.setattr("irgraph.runtime.interpreter.Interpreter.run", exhausted)
    message = "error: the data does not fit in the memory available to this process (see --max-elements)"
    code, _, err = run(capsys, split_model.xml)
    assert (code, assert_one_error_line(err)) == (1, message)
    code, _, err = run(capsys, split_model.xml, "--debug")
    lines = err.splitlines()  # after the warning that the inputs are random
    assert code == 1 and lines[1] == "Traceback (most recent call last):" and lines[-2:] == ["MemoryError", message]


def test_a_report_that_cannot_be_written_is_a_warning_and_the_comparison_stays_the_verdict(split_model, tmp_path,
                                                                                         monkeypatch, capsys) -> None:
    pytest.importorskip("openvino", reason="the test extra installs openvino")

    def no_space(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("irgraph.tools.report.write_report", no_space)
    page = tmp_path / "report.html"
    code, _, err = run(capsys, split_model.xml, "--compare-with", "openvino", "--report", page)
    assert code == 0
    assert f"warning: {page}: the report could not be written: No space left on device" in err.splitlines()
    assert not page.exists()


def test_a_repro_bundle_directory_must_be_new_or_empty_before_anything_runs(split_model, tmp_path, monkeypatch,
                                                                              capsys) -> None:
    def never(self, feeds):  # type: ignore[no-untyped-def]
        raise AssertionError("the model ran")

    monkeypatch.setattr("irgraph.runtime.interpreter.Interpreter.run", never)
    full, plain_file = tmp_path / "full", tmp_path / "file"
    full.mkdir()
    (full / "model.xml").write_text("mine")
    plain_file.write_text("mine")
    for bundle, message in ((full, f"--save-repro '{full}' is not empty: give a new or empty directory"),
                            (plain_file, f"--save-repro '{plain_file}' is not a directory")):
        code, _, err = run(capsys, split_model.xml, "--compare-with", "openvino", "--save-repro", bundle)
        assert (code, assert_one_error_line(err)) == (2, f"error: {message}")
    assert (full / "model.xml").read_text() == "mine" and plain_file.read_text() == "mine"


def test_two_options_writing_one_file_are_refused_before_the_run(split_model, tmp_path, capsys) -> None:
    target = tmp_path / "both.npz"
    code, _, err = run(capsys, split_model.xml, "--output", target, "--save-inputs", target)
    assert (code, assert_one_error_line(err)) == (
        2, f"error: {target}: --save-inputs names the file --output writes; give each its own file")
    assert not target.exists()


def test_no_decompression_note_for_a_model_without_decompression_chains(split_model, capsys) -> None:
    """tests/runtime/test_decompression.py has the note for a model with chains (15 layers)."""
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    code, _, err = run(capsys, split_model.xml, "--compare-with", "openvino")
    assert code == 0 and "decompression" not in err and "note:" not in err


def test_keyboard_interrupt_exits_130(split_model, monkeypatch, capsys) -> None:
    def stop(self, feeds):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr("irgraph.runtime.interpreter.Interpreter.run", stop)
    code, _, err = run(capsys, split_model.xml)
    assert code == 130
    assert err.endswith("error: interrupted\n")


def test_version(capsys) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("ir-run (irgraph ")


def test_model_without_inputs_runs_without_a_warning(write_ir, capsys) -> None:
    xml, weights = split_xml()
    xml = xml.replace('<layer id="0" name="x" type="Parameter" version="opset1">\n\t\t\t<data shape="2,6" '
                      'element_type="f32"/>', '<layer id="0" name="x" type="Const" version="opset1">\n\t\t\t<data '
                      'shape="2,6" element_type="f32" offset="8" size="48"/>')
    files = write_ir(xml, weights + X.tobytes())
    code, out, err = run(capsys, files.xml)
    assert code == 0, err
    assert err == ""
    assert out.splitlines()[1].split() == ["y0", "f32", "[2,3]", "0", "8", "4"]


def test_every_ml_dtype_output_is_stored_as_raw_bits_that_np_load_reads(tmp_path):
    """float8_e5m2 saves as '<f1' by default, which np.load refuses; outputs are stored as |V1."""
    import irgraph as ir

    for element_type, dtype in (("f8e5m2", ml_dtypes.float8_e5m2), ("bf16", ml_dtypes.bfloat16),
                                ("i4", ml_dtypes.int4)):
        model = ir.Model("m")
        x = model.parameter("x", [2, 2], element_type)
        model.result(model.concat([x, x], axis=0), name="y")
        model_path = tmp_path / f"{element_type}.xml"
        ir.write_model(model, model_path)
        values = np.array([[1, 2], [-1, 0]], np.float32).astype(dtype)
        np.savez(tmp_path / "in.npz", x=values.view(f"V{values.dtype.itemsize}"))
        out = tmp_path / f"{element_type}.npz"
        assert ir_run.main([str(model_path), "--inputs", str(tmp_path / "in.npz"), "--output", str(out)]) == 0
        with np.load(out, allow_pickle=False) as stored:
            raw = stored["y"]
        assert raw.dtype == np.dtype(f"V{values.dtype.itemsize}")
        assert raw.view(dtype).astype(np.float32).tolist() == [[1, 2], [-1, 0], [1, 2], [-1, 0]]
