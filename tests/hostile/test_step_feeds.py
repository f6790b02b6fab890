"""Per-step inputs to ir-run (``--inputs`` keys ``stepK/NAME``, irgraph.tools.step_feeds): a step number from the
file decides how much is listed or converted, so an absurd one must be refused in one line, at once."""

from __future__ import annotations

import numpy as np

from irgraph.cli import ir_run
from irgraph.io.data import npz
from irgraph.tools import step_feeds
from tests.hostile.conftest import EXIT_USAGE, expect_cli_error, split_model

X = np.zeros((2, 6), np.float32)


def test_a_step_a_billion_on_is_a_gap_named_without_listing_the_steps_before_it(write_ir, capsys):
    # Before: the missing steps 2..999999998 were listed first (a MemoryError under a 4 GB limit, minutes without).
    files = write_ir(*split_model())
    feeds = files.directory / "steps.npz"
    npz.write_npz(str(feeds), {"step1/x": X, "step999999999/x": X})
    expect_cli_error(ir_run.main, [files.xml, "--inputs", feeds], capsys, EXIT_USAGE,
                     "the inputs give steps 1, 999999999; steps are numbered from 1 without a gap "
                     "(step1/NAME, step2/NAME, ...): step 2 is missing")


def test_a_step_number_of_5000_digits_is_refused_not_an_internal_error(write_ir, capsys):
    # Before: "error: internal error: ValueError: Exceeds the limit (4300 digits) for integer string conversion".
    files = write_ir(*split_model())
    feeds = files.directory / "steps.npz"
    npz.write_npz(str(feeds), {"step" + "9" * 5000 + "/x": X})
    outcome = expect_cli_error(ir_run.main, [files.xml, "--inputs", feeds], capsys, EXIT_USAGE,
                               "the inputs give step 999999999999999999... (5000 digits); steps are numbered from 1 "
                               "without a gap")
    assert len(outcome.err) < 400


def test_a_step_number_of_18_digits_is_still_read_as_a_number(write_ir, capsys):
    """18 digits always fit an int64; the refusal by length starts at 19."""
    files = write_ir(*split_model())
    feeds = files.directory / "steps.npz"
    npz.write_npz(str(feeds), {"step1/x": X, "step" + "9" * 18 + "/x": X})
    expect_cli_error(ir_run.main, [files.xml, "--inputs", feeds], capsys, EXIT_USAGE,
                     "the inputs give steps 1, 999999999999999999; steps are numbered from 1 without a gap "
                     "(step1/NAME, step2/NAME, ...): step 2 is missing")


def test_a_folder_of_steps_notes_the_files_it_reads_nothing_from(tmp_path):
    from irgraph.tools.step_feeds import _step_files

    for name in ("step2.npz", "step1.npz"):
        npz.write_npz(str(tmp_path / name), {"x": X})
    (tmp_path / "README.txt").write_text("how these were made")
    notes: list[str] = []
    assert _step_files(str(tmp_path), notes) == [str(tmp_path / "step1.npz"), str(tmp_path / "step2.npz")]
    assert notes == [f"{tmp_path}: no input read from what is no .npz file: README.txt"]
    quiet: list[str] = []
    _step_files(str(tmp_path), None)
    (tmp_path / "README.txt").unlink()
    assert _step_files(str(tmp_path), quiet) and quiet == []


def test_more_steps_than_a_run_may_take_are_refused_before_any_is_read(write_ir, capsys, monkeypatch):
    # --steps stops at MAX_STEPS; per-step inputs must not give more (100,001 tiny members make a 20 MB file).
    monkeypatch.setattr(step_feeds, "MAX_STEPS", 3)
    files = write_ir(*split_model())
    feeds = files.directory / "steps.npz"
    npz.write_npz(str(feeds), {f"step{number}/x": X for number in range(1, 5)})
    read: list[str] = []
    real = npz.read_npy

    def counted(stream, available, what, *args, **kwargs):
        read.append(what)
        return real(stream, available, what, *args, **kwargs)

    monkeypatch.setattr(npz, "read_npy", counted)
    expect_cli_error(ir_run.main, [files.xml, "--inputs", feeds], capsys, EXIT_USAGE,
                     "the inputs give 4 steps, more than the 3 a run may take")
    assert read == []  # refused from the members' names: not one array read (the message alone could not say)
    monkeypatch.setattr(step_feeds, "MAX_STEPS", 4)  # and the counter sees the reads when the steps are taken
    assert ir_run.main([str(files.xml), "--inputs", str(feeds)]) == 0
    assert sorted(read) == [f"array 'step{number}/x'" for number in range(1, 5)]
