"""SparseFillEmptyRows-16: the spec's example, generated configurations against OpenVINO (its evaluate or CPU
plugin), shapes and refusals, strings, and an IR written by OpenVINO run through ir-run."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset16 as ov16
import pytest

import irgraph as ir
from irgraph.cli import ir_run
from irgraph.core.errors import IrError
from irgraph.ops.sparse.sparse_fill_empty_rows import SparseFillEmptyRows
from tests.ops.differential import check_op, check_types, port, same_op
from tests.ops.helpers import tt

OP = SparseFillEmptyRows()


def test_the_spec_example():
    # a [5, 6] tensor with a, b in row 0, c in row 2, d in row 3: rows 1 and 4 get the default at column 0
    values = np.array([1, 2, 3, 4], np.float32)
    indices = np.array([[0, 1], [0, 3], [2, 0], [3, 1]], np.int64)
    out_indices, out_values, empty = OP.evaluate([values, np.array([5, 6], np.int64), indices, np.float32(-1)])
    assert out_indices.tolist() == [[0, 1], [0, 3], [1, 0], [2, 0], [3, 1], [4, 0]]
    assert out_values.tolist() == [1, 2, -1, 3, 4, -1] and out_values.dtype == np.float32
    assert empty.tolist() == [False, True, False, False, True, False][:5]


def test_unsorted_indices_come_out_sorted_by_row_then_column():
    values = np.array([10, 20, 30], np.int32)
    indices = np.array([[2, 1], [0, 2], [2, 0]], np.int32)
    out_indices, out_values, empty = OP.evaluate([values, np.array([3, 3], np.int32), indices, np.int32(0)])
    assert out_indices.tolist() == [[0, 2], [1, 0], [2, 0], [2, 1]] and out_indices.dtype == np.int32
    assert out_values.tolist() == [20, 0, 30, 10] and empty.tolist() == [False, True, False]


def test_strings_are_filled_too():
    values = np.array(["a", "bc"], object)
    out = OP.evaluate([values, np.array([3, 2], np.int64), np.array([[2, 1], [0, 0]], np.int64), np.array("-", object)])
    assert out[0].tolist() == [[0, 0], [1, 0], [2, 1]] and out[1].tolist() == ["bc", "-", "a"]


# ------------------------------------------------------------------------------------ generated configurations
def configurations(count: int = 30) -> list[dict]:
    rng = np.random.default_rng(16)
    found = []
    for number in range(count):
        rows, columns = int(rng.integers(1, 7)), int(rng.integers(1, 5))
        entries = int(rng.integers(0, rows * columns + 1))
        positions = rng.choice(rows * columns, entries, replace=False)  # distinct: OpenVINO's sort is unstable
        found.append(dict(rows=rows, columns=columns, positions=positions.tolist(),
                          dtype=np.dtype([np.float32, np.int32, np.int64, np.float16, np.uint8, np.int8][number % 6]),
                          index=np.dtype([np.int32, np.int64][number % 2]), seed=int(rng.integers(1 << 30))))
    return found


def ported(values, dense_shape, indices, default):
    """OpenVINO's reference (reference/sparse_fill_empty_rows.hpp, 2026.4.1) in plain Python: the entries and
    (row, 0) of each empty row, sorted by (row, column)."""
    rows = int(dense_shape[0])
    existing = {int(row) for row, _ in indices.tolist()}
    empty = [row for row in range(rows) if row not in existing]
    entries = [((int(r), int(c)), v) for (r, c), v in zip(indices.tolist(), values.tolist(), strict=True)]
    entries += [((row, 0), default.item()) for row in empty]
    entries.sort(key=lambda entry: entry[0])
    return ([list(position) for position, _ in entries], [value for _, value in entries],
            [row in empty for row in range(rows)])


@pytest.mark.parametrize("config", configurations(), ids=lambda c: f"{c['dtype'].name}-{c['index'].name}-"
                         f"{c['rows']}x{c['columns']}-{len(c['positions'])}")
def test_generated_configurations_match_openvino(config):
    rng = np.random.default_rng(config["seed"])
    positions = np.array(config["positions"], np.int64)
    indices = np.stack([positions // config["columns"], positions % config["columns"]], axis=1)
    indices = indices.reshape(-1, 2).astype(config["index"])
    values = (rng.integers(1, 100, len(positions))).astype(config["dtype"])
    inputs = [values, np.array([config["rows"], config["columns"]], config["index"]), indices,
              np.array(7, config["dtype"])]
    # openvino 2026.4.1's CPU plugin fills the default of an empty sparse tensor with garbage (1.05e12 for 7.0)
    # the port judges every configuration, the CPU plugin those it runs
    outcome = check_op(OP, inputs, same_op(OP), constant=(1, 2), cpu=len(values) > 0,
                       independent=port(by_the_port))
    assert not outcome.refused and outcome.judge in ("cpu", "port", "empty")
    if len(values) and config["index"] == np.int32 and config["dtype"] in (np.float32, np.int32, np.float16, np.uint8,
                                                                           np.int8):
        assert outcome.cpu  # the types the plugin computes: it ran them


def by_the_port(op, arrays, types):
    values, dense_shape, indices, default = arrays
    positions, kept, empty = ported(values, dense_shape, indices, default)
    return [np.array(positions, types[0].element_type.numpy_dtype).reshape(-1, 2),
            np.array(kept, values.dtype).reshape(-1), np.array(empty, bool)]


# ------------------------------------------------------------------------------------ shapes and refusals
@pytest.mark.parametrize("types", [
    [tt("?"), tt("2", "i64"), tt("?,2", "i64"), tt("")],
    [tt("..."), tt("...", "i32"), tt("...", "i32"), tt("...")],
    [tt("3..5", "i8"), tt("2", "i32"), tt("?,?", "i32"), tt("", "i8")],
])
def test_partial_shapes_follow_openvino(types):
    check_types(OP, types, same_op(OP))


def test_known_dense_shape_and_indices_give_static_shapes():
    types = [tt("3"), tt("2", "i64"), tt("3,2", "i64"), tt("")]
    values = [None, np.array([4, 3], np.int64), np.array([[0, 0], [0, 2], [3, 1]], np.int64), None]
    check_types(OP, types, same_op(OP), values)
    assert [str(t) for t in OP.infer(types, values)] == ["i64[5,2]", "f32[5]", "boolean[4]"]


@pytest.mark.parametrize("types, values", [
    ([tt("3,1"), tt("2", "i64"), tt("3,2", "i64"), tt("")], None),  # values not 1D
    ([tt("3"), tt("3", "i64"), tt("3,2", "i64"), tt("")], None),  # dense_shape of 3
    ([tt("3"), tt("2", "i64"), tt("3,3", "i64"), tt("")], None),  # indices of 3 columns
    ([tt("3"), tt("2", "i64"), tt("4,2", "i64"), tt("")], None),  # indices not one per value
    ([tt("3"), tt("2", "i64"), tt("3,2", "i64"), tt("1")], None),  # default not a scalar
    ([tt("3"), tt("2", "i32"), tt("3,2", "i64"), tt("")], None),  # index types differ
    ([tt("3"), tt("2", "f32"), tt("3,2", "f32"), tt("")], None),  # float indices
    ([tt("2"), tt("2", "i64"), tt("2,2", "i64"), tt("")],
     [None, np.array([2, 2], np.int64), np.array([[0, 0], [2, 0]], np.int64), None]),  # a row out of range
    ([tt("2"), tt("2", "i64"), tt("2,2", "i64"), tt("")],
     [None, np.array([2, 2], np.int64), np.array([[0, 0], [1, -1]], np.int64), None]),  # a negative column
])
def test_what_openvino_refuses_irgraph_refuses(types, values):
    assert check_types(OP, types, same_op(OP), values).refused


def test_out_of_range_indices_are_refused_at_run_time():
    with pytest.raises(IrError, match="row 5 is outside the valid range"):
        OP.evaluate([np.ones(1, np.float32), np.array([2, 2], np.int64), np.array([[5, 0]], np.int64), np.float32(0)])


# ------------------------------------------------------------------------------------ an IR written by OpenVINO
def test_ir_run_runs_openvinos_sparse_fill_empty_rows_ir(tmp_path, capsys):
    values = ov16.parameter([4], ov.Type.f32, name="values")
    node = ov16.sparse_fill_empty_rows(values, ov16.constant(np.array([6, 3], np.int64)),
                                       ov16.constant(np.array([[4, 1], [0, 2], [4, 0], [1, 1]], np.int64)),
                                       ov16.constant(np.array(-5, np.float32)))
    results = [ov16.result(node.output(i)) for i in range(3)]
    for result, name in zip(results, ("indices", "filled", "empty"), strict=True):
        result.output(0).get_tensor().set_names({name})
    xml = tmp_path / "sparse.xml"
    ov.save_model(ov.Model(results, [values], "sparse"), xml)
    assert 'type="SparseFillEmptyRows" version="opset16"' in xml.read_text()
    feed = np.array([1.5, 2.5, 3.5, 4.5], np.float32)
    np.savez(tmp_path / "in.npz", values=feed)
    code = ir_run.main([str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    with np.load(tmp_path / "out.npz") as written:
        got = {name: written[name] for name in written.files}
    assert got["indices"].tolist() == [[0, 2], [1, 1], [2, 0], [3, 0], [4, 0], [4, 1], [5, 0]]
    assert got["filled"].tolist() == [2.5, 4.5, -5, -5, 3.5, 1.5, -5]
    assert got["empty"].tolist() == [False, False, True, True, False, True]
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    on_cpu = {next(iter(port.get_names())): np.asarray(value) for port, value in compiled({"values": feed}).items()}
    for name, value in got.items():
        np.testing.assert_array_equal(value, on_cpu[name], err_msg=name)
    assert ir.validate(ir.read_model(xml)) == []
    ir.write_model(ir.read_model(xml), tmp_path / "again.xml", version=11)  # written back byte for byte
    assert (tmp_path / "again.xml").read_bytes() == xml.read_bytes()
    assert (tmp_path / "again.bin").read_bytes() == xml.with_suffix(".bin").read_bytes()
