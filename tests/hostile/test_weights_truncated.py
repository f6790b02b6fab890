"""Weights that change under a run: a .bin truncated after it was mapped killed ir-run with SIGBUS (signal 7) as soon
as a Const was read. The size of every mapped weights file is checked again before each run (and before constant
folding), so the run stops with one line naming the .bin. The window left is a truncation during a run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import irgraph as ir
from irgraph.core.errors import WeightsError
from tests.hostile.conftest import (
    EXIT_FAILURE,
    const,
    edge,
    expect_error,
    good_inputs,
    layer,
    net,
    parameter,
    port,
    result,
    split_model,
)

REPO = Path(__file__).resolve().parents[2]

# ir-run with the model's .bin truncated to nothing just before the run (after reading and preparing).
TRUNCATED_BEFORE_THE_RUN = """
import os, sys
import irgraph as ir
from irgraph.cli import ir_run
real_run = ir.Interpreter.run
def run(self, feeds):
    os.truncate(sys.argv[1][:-len(".xml")] + ".bin", 0)
    return real_run(self, feeds)
ir.Interpreter.run = run
sys.exit(ir_run.main(sys.argv[1:]))
"""


def test_a_bin_truncated_before_the_run_is_one_error_not_a_crash(write_ir):
    files = write_ir(*split_model())
    inputs = good_inputs(files.directory)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", TRUNCATED_BEFORE_THE_RUN, str(files.xml), "--inputs", str(inputs),
                           "--output", str(files.directory / "out.npz")], env=env, text=True, capture_output=True,
                          timeout=120)
    assert done.returncode == EXIT_FAILURE, (done.returncode, done.stderr)  # -7 was SIGBUS
    assert [line for line in done.stderr.splitlines() if line.startswith("error:")] == [
        f"error: {files.bin}: the weights file shrank to 0 bytes while in use (irgraph maps its first 8); irgraph "
        "stops rather than read past its end (which would kill the process with SIGBUS)"]
    assert sorted(p.name for p in files.directory.iterdir()) == ["inputs.npz", "model.bin", "model.xml"]


def test_every_run_checks_and_a_restored_file_runs_again(write_ir):
    xml, weights = split_model()
    files = write_ir(xml, weights)
    runner = ir.Interpreter(ir.read_model(files.xml))
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    np.testing.assert_array_equal(runner.run({"x": x})["y1"], x[:, 3:])
    os.truncate(files.bin, 4)
    expect_error(lambda: runner.run({"x": x}), WeightsError, "the weights file shrank to 4 bytes while in use",
                 file=files.bin)
    files.bin.write_bytes(weights)  # the same inode, its bytes back
    np.testing.assert_array_equal(runner.run({"x": x})["y1"], x[:, 3:])


def test_preparing_a_run_checks_before_folding_constants(write_ir):
    files = write_ir(*split_model())
    model = ir.read_model(files.xml)
    os.truncate(files.bin, 0)
    expect_error(lambda: ir.Interpreter(model), WeightsError, "shrank to 0 bytes while in use", file=files.bin)


def u4_model() -> tuple[str, bytes]:
    """x f32[8] + Convert(Const u4[8]) -> y: the u4 Const is one the fast reader keeps packed until first read."""
    xml = net(
        [
            parameter(0, shape=(8,)),
            const(1, "codes", "u4", (8,), 0, 4, "U4"),
            layer(2, "widen", "Convert", data={"destination_type": "f32"}, inputs=[port(0, (8,), "U4")],
                  outputs=[port(1, (8,))]),
            layer(3, "add", "Add", inputs=[port(0, (8,)), port(1, (8,))], outputs=[port(2, (8,), names="y")]),
            result(4, "out", (8,)),
        ],
        [edge(0, 0, 3, 0), edge(1, 0, 2, 0), edge(2, 1, 3, 1), edge(3, 2, 4, 0)],
    )
    return xml, bytes([0x21, 0x43, 0x65, 0x87])


# Read the model, truncate its .bin, then prepare a run: the packed Const is unpacked (its mapped bytes read) then.
TRUNCATED_BEFORE_UNPACKING = """
import os, sys
import irgraph as ir
model = ir.read_model(sys.argv[1])
os.truncate(sys.argv[1][:-len(".xml")] + ".bin", 0)
try:
    ir.Interpreter(model)
except ir.IrError as err:
    print(err)
"""


def test_a_packed_const_checks_its_mapping_before_it_is_unpacked(write_ir):
    files = write_ir(*u4_model())
    runner = ir.Interpreter(ir.read_model(files.xml))
    np.testing.assert_array_equal(runner.run({"x": np.zeros(8, np.float32)})["y"], np.arange(1, 9, dtype=np.float32))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", TRUNCATED_BEFORE_UNPACKING, str(files.xml)], env=env, text=True,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr)  # -7 was SIGBUS: the codes read from a truncated map
    assert done.stdout == (f"{files.bin}: the weights file shrank to 0 bytes while in use (irgraph maps its first 4); "
                           "irgraph stops rather than read past its end (which would kill the process with SIGBUS)\n")
