"""Polygraphy JSON given to --load-inputs or --compare: a large file that is not JSON was read whole (1.5 GiB:
1952 MiB peak, 10.5 s) before being refused, and an object with a key twice silently kept the last value. The
start of the file and its size are checked before anything is read, and keys must be unique."""

from __future__ import annotations

import base64
import io
import json
import resource

import numpy as np
import pytest

from irgraph.cli import ir_run
from irgraph.core.errors import IrIOError
from irgraph.io.data import polygraphy_json
from tests.hostile.conftest import EXIT_USAGE, expect_cli_error, expect_error, split_model


def _array(value: np.ndarray) -> str:
    buffer = io.BytesIO()
    np.save(buffer, value, allow_pickle=False)
    return json.dumps({"array": base64.b64encode(buffer.getvalue()).decode("ascii"), "polygraphy_class": "ndarray"})


X = np.arange(12, dtype=np.float32).reshape(2, 6)


@pytest.fixture
def model(write_ir):
    return write_ir(*split_model())


def test_a_large_file_that_is_not_json_is_refused_before_it_is_read(model, capsys):
    """A sparse 1.5 GiB file: refused from its first bytes, so the process never holds it (peak RSS grows by far
    less than its size)."""
    data = model.directory / "in.json"
    with open(data, "wb") as file:
        file.write(b"PK\x03\x04 not json at all")
        file.truncate(3 * 2**29)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    outcome = expect_cli_error(ir_run.main, [model.xml, "--load-inputs", data], capsys, EXIT_USAGE,
                               "cannot read the Polygraphy JSON file: it does not start as one does")
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # KiB on Linux
    assert grown < 256 * 1024, f"peak RSS grew by {grown} KiB"
    assert outcome.error_lines[0].startswith(f"error: {data}: ")


def test_a_json_file_over_the_size_bound_is_refused_before_it_is_read(model, capsys, monkeypatch):
    monkeypatch.setattr(polygraphy_json, "MAX_JSON_BYTES", 100)
    data = model.directory / "in.json"
    data.write_text(json.dumps([{"x": json.loads(_array(X))}]), "utf-8")
    expect_cli_error(ir_run.main, [model.xml, "--load-inputs", data], capsys, EXIT_USAGE,
                     "bytes; irgraph reads Polygraphy JSON files of at most 100 bytes")


@pytest.mark.parametrize("where", ["feeds", "after another key", "array"])
def test_a_key_twice_in_one_object_is_refused(where, model, capsys):
    data = model.directory / "in.json"
    if where == "feeds":  # two feeds for x: json would keep the second
        text = '[{"x": ' + _array(X) + ', "x": ' + _array(X + 1) + "}]"
    elif where == "after another key":  # the repeated key is named, not the object's first
        text = '[{"w": ' + _array(X) + ', "x": ' + _array(X) + ', "x": ' + _array(X + 1) + "}]"
    else:  # two encodings inside one array object
        text = '[{"x": ' + _array(X)[:-1] + ', "array": "AAAA"}}]'
    data.write_text(text, "utf-8")
    message = ("cannot read the JSON file: the key 'x' appears twice in one object" if where != "array" else
               "cannot read the JSON file: the key 'array' appears twice in one object")
    expect_error(lambda: polygraphy_json.read_iterations(str(data)), IrIOError, message, file=data)
    expect_cli_error(ir_run.main, [model.xml, "--load-inputs", data], capsys, EXIT_USAGE, message)
    expect_cli_error(ir_run.main, [model.xml, "--compare", data], capsys, EXIT_USAGE, message)


def test_a_well_formed_file_still_loads(model, capsys):
    data = model.directory / "in.json"
    data.write_text("\n  [ " + json.dumps({"x": json.loads(_array(X))}) + "]", "utf-8")
    (iteration,) = polygraphy_json.read_arrays(str(data), 100)
    np.testing.assert_array_equal(iteration["x"], X)
    assert ir_run.main([str(model.xml), "--load-inputs", str(data)]) == 0


def test_an_array_with_characters_outside_base64_is_refused_not_read_without_them(model):
    data = model.directory / "in.json"
    encoded = json.loads(_array(X))
    encoded["array"] = encoded["array"][:8] + "*" + encoded["array"][8:]  # base64 without validation skips the '*'
    data.write_text(json.dumps([{"x": encoded}]), "utf-8")
    expect_error(lambda: polygraphy_json.read_iterations(str(data)), IrIOError,
                 "cannot read the Polygraphy JSON file: array 'x' is not valid base64", file=data)
