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
from tests.hostile.conftest import EXIT_FAILURE, expect_error, good_inputs, split_model

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
