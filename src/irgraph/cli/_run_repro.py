"""ir-run's --truth and --save-repro around a comparison with another runtime (irgraph.tools.local_error and
irgraph.tools.repro): the checks of the arguments, the bundle written on a mismatch, the notes on a match."""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgraph.cli import _common as common
from irgraph.cli._common import CliError
from irgraph.core.errors import InputError, IrError

# Every run checks its arguments here; the comparison tools load only when a comparison is asked for.
if TYPE_CHECKING:
    import argparse

    from irgraph.tools.layerwise import LayerwiseReport
    from irgraph.tools.stepwise import SteppedReport


def check_debug_arguments(args: argparse.Namespace) -> None:
    """--truth and --save-repro need --compare-with; the bundle's directory must be new or empty (exit 2)."""
    if (args.truth or args.save_repro) and args.compare_with is None:
        raise CliError(f"{'--truth' if args.truth else '--save-repro'} needs --compare-with")
    if args.save_repro is not None:
        from irgraph.tools.repro import check_repro_directory

        try:
            check_repro_directory(args.save_repro)
        except InputError as err:
            raise CliError(err.message) from None


def save_bundle(report: LayerwiseReport | SteppedReport, directory: str) -> None:
    """Write the repro bundle of a mismatch and say how to run it; a bundle that cannot be written is a warning,
    the mismatch stays the verdict."""
    from irgraph.tools.layerwise import LayerwiseReport
    from irgraph.tools.repro import save_repro

    if not isinstance(report, LayerwiseReport):
        common.warn(f"no repro bundle written to {directory}: a comparison of several steps is not cut into one")
        return
    try:
        repro = save_repro(report, directory)
    except (IrError, OSError) as err:
        common.warn(f"no repro bundle written to {directory}: {getattr(err, 'message', None) or err}")
        return
    import shlex  # only when a bundle is written: a plain run never needs it (tests/test_lazy_import.py)

    # Quoted: the line is meant to be pasted into a shell, and a directory named '$(...)' must stay a name.
    written = f"repro bundle written: cd {shlex.quote(directory)} && {repro.command} (see its README.md)"
    if repro.reproduces:
        common.note(written)
    else:
        common.warn(f"{written}, but it does not fail by itself: the difference needs more of the model around it")


def note_a_match(report: LayerwiseReport | SteppedReport, directory: str | None) -> None:
    """On a comparison that passed: a layer whose own error still exceeds its class, and no bundle written."""
    from irgraph.tools.layerwise import LayerwiseReport, own_error_warning

    if isinstance(report, LayerwiseReport) and (warning := own_error_warning(report)) is not None:
        common.warn(warning)
    if directory is not None:
        common.note(f"every compared tensor matches: nothing to reproduce, {directory} not written")
