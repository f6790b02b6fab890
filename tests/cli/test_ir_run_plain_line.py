"""ir-run reads a plain ``MODEL [--inputs FILE]...`` line without argparse (a cold start's cost): it must give the
namespace the parser gives, and leave every other line to the parser."""

from __future__ import annotations

import pytest

from irgraph.cli import ir_run
from irgraph.cli._run_parser import build_parser

PLAIN = [
    ["model.xml"],
    ["model.xml", "--inputs", "in.npz"],
    ["--inputs", "in.npz", "model.xml"],
    ["--inputs", "a.npz", "model.xml", "--inputs", "b.npz"],
    ["dir with spaces/model=1.xml", "--inputs", "in=1.npz"],
    [""],
    ["model.xml", "--inputs", ""],
]


@pytest.mark.parametrize("argv", PLAIN, ids=repr)
def test_a_plain_line_gives_the_parsers_namespace(argv):
    plain = ir_run.plain_arguments(argv)
    assert plain is not None
    assert vars(plain) == vars(build_parser().parse_args(argv))


def test_a_plain_lines_lists_are_its_own():
    """The parser copies its list defaults per parse: so must the plain reader, as a run may append to them."""
    first, second = ir_run.plain_arguments(["m.xml"]), ir_run.plain_arguments(["m.xml"])
    assert first is not None and second is not None
    assert first.mark is not second.mark and first.inputs is not second.inputs


NOT_PLAIN = [
    [],
    ["a.xml", "b.xml"],  # the parser's error
    ["model.xml", "--inputs"],  # the parser's error: no value
    ["model.xml", "--inputs", "-x.npz"],  # an option where the value should be: the parser's error
    ["model.xml", "--inputs=in.npz"],
    ["model.xml", "--inp", "in.npz"],  # argparse takes an unambiguous prefix
    ["model.xml", "-i", "x=a.npy"],
    ["model.xml", "--seed", "1"],
    ["model.xml", "--help"],
    ["--version"],
    ["--", "-model.xml"],
    ["-model.xml"],
    ["model.xml", "--val-range", "[0,1]"],
]


@pytest.mark.parametrize("argv", NOT_PLAIN, ids=repr)
def test_any_other_line_is_left_to_the_parser(argv):
    assert ir_run.plain_arguments(argv) is None


def test_the_parser_still_reads_what_the_plain_reader_declines(capsys):
    assert ir_run.main(["a.xml", "b.xml"]) == 2
    assert "error: unrecognized arguments: b.xml (see ir-run --help)" in capsys.readouterr().err


def test_the_parser_given_no_list_reads_the_command_line_after_the_program_name(monkeypatch):
    """As argparse does: sys.argv[0] is the program, not the model."""
    monkeypatch.setattr("sys.argv", ["ir-run", "model.xml", "--val-range", "[0,1]", "--seed", "3"])
    parsed = build_parser().parse_args()
    assert (parsed.model, parsed.val_range, parsed.seed) == ("model.xml", ["[0,1]"], 3)


def test_steps_are_taken_up_to_the_limit_and_refused_past_it(capsys):
    from irgraph.core.limits import MAX_STEPS

    assert MAX_STEPS == 100_000  # the README's "`--steps` takes at most 100,000 runs"
    assert build_parser().parse_args(["m.xml", "--steps", "100000"]).steps == 100_000
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["m.xml", "--steps", "100001"])
    assert stopped.value.code == 2
    assert "error: argument --steps: expected at most 100000 steps, got 100001" in capsys.readouterr().err
