"""SIGTERM (what ``timeout`` sends) and SIGHUP (a closed terminal) during ir-convert and ir-run --output end the
command as Ctrl-C does: the temporary file of the output being written is removed, no destination appears, one
``error:`` line, exit 128 + the signal. Each tool runs in its own process on a model with a large Const."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hostile.conftest import const, edge, layer, net, parameter, port

REPO = Path(__file__).resolve().parents[2]
SIGNALS = [signal.SIGTERM, signal.SIGHUP]

# The tool, with os.fsync held until the signal comes: the output's temporary file is then complete but not yet
# renamed, the last moment a killed process would leave it behind. The marker line says the moment has come.
HELD_AT_FSYNC = """
import os, sys, time
def held(descriptor):
    sys.stderr.write("test: fsync\\n")
    sys.stderr.flush()
    time.sleep(60)
os.fsync = held
from irgraph.cli import ir_convert, ir_run
sys.exit({"ir-convert": ir_convert.main, "ir-run": ir_run.main}[sys.argv[1]](sys.argv[2:]))
"""
PLAIN = "import sys\n" + HELD_AT_FSYNC.split("os.fsync = held\n")[1]


def big_model(directory: Path, mebibytes: int) -> Path:
    """x f32[1] -> Result y, and a Const w of ``mebibytes`` MiB of zeros -> Result w (a sparse .bin: made at once)."""
    count = mebibytes * 2**20 // 4
    xml = directory / "model.xml"
    xml.write_text(net(
        [parameter(0, "x", (1,)), const(1, "w", "f32", (count,), 0, count * 4, "FP32"),
         layer(2, "y", "Result", inputs=[port(0, (1,))]), layer(3, "w_out", "Result", inputs=[port(0, (count,))])],
        [edge(0, 0, 2, 0), edge(1, 0, 3, 0)],
    ), "utf-8")
    with open(xml.with_suffix(".bin"), "wb") as weights:
        weights.truncate(count * 4)
    return xml


def _start(script: str, tool: str, argv: list[str], directory: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, "-c", script, tool, *argv], cwd=directory, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


COMMANDS = {"ir-convert": ["model.xml", "out.xml"], "ir-run": ["model.xml", "--output", "out.npz"]}


@pytest.mark.parametrize("tool", ["ir-convert", "ir-run"])
@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_while_the_output_is_written_leaves_no_temporary_file(tool, signum, tmp_path):
    big_model(tmp_path, 64)
    process = _start(HELD_AT_FSYNC, tool, COMMANDS[tool], tmp_path)
    try:
        seen = []
        while (line := process.stderr.readline()) and line != "test: fsync\n":  # type: ignore[union-attr]
            seen.append(line)
        assert line == "test: fsync\n", seen
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")], "no temporary file is being written"
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 128 + signum, err
    error_lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert error_lines == [f"error: stopped by {signal.Signals(signum).name}"]
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.bin", "model.xml"]


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_in_the_middle_of_writing_a_256_mib_model(signum, tmp_path):
    """No test hook: the signal goes out as soon as the .bin's temporary file exists, while 256 MiB are written."""
    big_model(tmp_path, 256)
    process = _start(PLAIN, "ir-convert", COMMANDS["ir-convert"], tmp_path)
    try:
        deadline = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < deadline:
            if any(name.endswith(".tmp") for name in os.listdir(tmp_path)):
                process.send_signal(signum)
                break
            time.sleep(0.001)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    if process.returncode == 0:
        pytest.skip("the conversion finished before the signal arrived (too fast a disk to catch it mid-write)")
    assert process.returncode == 128 + signum, err
    assert [line for line in err.splitlines() if line.startswith("error:")] == [
        f"error: stopped by {signal.Signals(signum).name}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.bin", "model.xml"]


# The tool with a signal sent to itself the moment mkstemp returns. It runs in a process of its own: in the test
# process, a signal to itself after an earlier test had compiled a model on OpenVINO's CPU plugin (whose worker
# threads the kernel may hand the signal to) killed pytest with SIGSEGV (openvino 2026.4.1).
SIGNAL_AT_MKSTEMP = """
import os, sys, tempfile
made = tempfile.mkstemp  # irgraph.io.atomic imports tempfile when it first writes: patch the module itself
def mkstemp_then_signal(*args, **kwargs):
    found = made(*args, **kwargs)
    os.kill(os.getpid(), int(sys.argv[1]))  # the tool's handler raises at the next chance Python gets
    return found
tempfile.mkstemp = mkstemp_then_signal
from irgraph.cli import ir_convert
sys.exit(ir_convert.main(sys.argv[2:]))
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, *SIGNALS], ids=lambda s: signal.Signals(s).name)
def test_a_signal_the_moment_a_temporary_file_is_made_leaves_none(signum, tmp_path):
    """The narrowest window: the signal comes as mkstemp returns, before the file is listed for removal."""
    xml = big_model(tmp_path, 1)
    path = os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", SIGNAL_AT_MKSTEMP, str(int(signum)), str(xml),
                           str(tmp_path / "out.xml")], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": path})
    assert done.returncode == 128 + signum, done.stderr
    assert done.stderr == ("error: interrupted\n" if signum == signal.SIGINT else
                           f"error: stopped by {signal.Signals(signum).name}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.bin", "model.xml"]
