"""ir-run's comparisons with a reference file, the command-line side: --atol/--rtol as given, --compare's file
opened, its errors and warnings worded. What judges each tensor lives in :mod:`irgraph.tools.tolerances`.

The reference is an .npz read member by member as they are compared, or Polygraphy's run results (.json).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from irgraph.cli import _common as common
from irgraph.graph import Model
from irgraph.io.data.reference import Reference
from irgraph.runtime.interpreter import Interpreter
from irgraph.tools import tolerances as tolerances_lib

# ir-run imports this module for every run, and most runs compare nothing: the comparison is imported where
# it is done, so that start-up pays for none of it.
if TYPE_CHECKING:
    import argparse

    from irgraph.tools.compare import ComparisonReport, ToleranceOverride
    from irgraph.tools.layerwise import LayerwiseReport
    from irgraph.tools.stepwise import SteppedReport

__all__ = [
    "compare_with_reference", "open_reference", "tolerance_arg", "tolerances", "warn_unused_tolerances",
]


def compare_with_reference(model: Model, interpreter: Interpreter, stored: Mapping[str, np.ndarray], steps: int,
                           reference: Reference, atol: float | None, rtol: float | None,
                           overrides: Mapping[str, ToleranceOverride], precision: str | None, marked: set[str]
                           ) -> ComparisonReport:
    """Compare the run's outputs, and the ``marked`` tensors the reference has (under any of their names), with it.
    A reference member that cannot be read exits 2."""
    with common.data_file():
        return tolerances_lib.compare_with_reference(model, interpreter, stored, steps, reference, atol, rtol,
                                                     overrides, precision, marked)


def open_reference(path: str, element_limit: int) -> Reference:
    """The reference of --compare: an .npz read member by member, or Polygraphy's run results (.json)."""
    if path.lower().endswith(".json"):
        from irgraph.io.data import polygraphy_json  # a Polygraphy reference only

        iterations = polygraphy_json.read_arrays(path, element_limit)
        return Reference(None, iterations[0] if iterations else {})
    return Reference(common.open_npz(path, element_limit))


def tolerance_arg(text: str) -> tuple[str | None, float]:
    """argparse type of --atol/--rtol: ``A`` (the default) or ``NAME:A`` (one tensor; NAME may hold colons)."""
    name, colon, value = text.rpartition(":")
    if colon and not name:  # ":1" names no tensor: a typo, refused like any malformed value
        import argparse  # only the parser calls this, and argparse has then been imported

        raise argparse.ArgumentTypeError(f"expected A or NAME:A, got {text!r} (no NAME before the colon)")
    return (name if colon else None), common.non_negative_float(value if colon else text)


def tolerances(args: argparse.Namespace) -> tuple[float | None, float | None, dict[str, ToleranceOverride]]:
    """The atol and rtol given for every tensor (the last bare value; None: the precision default's part) and
    the parts given per tensor."""
    return tolerances_lib.split_tolerances(args.atol, args.rtol)


def warn_unused_tolerances(overrides: Mapping[str, ToleranceOverride], stored: Mapping[str, np.ndarray],
                            layerwise: LayerwiseReport | SteppedReport | None) -> None:
    """A NAME:VALUE tolerance that names no compared tensor is most likely a typo: say so."""
    for name in tolerances_lib.unused_tolerance_names(overrides, stored, layerwise):
        common.warn(f"--atol/--rtol name {name!r}, which is no tensor or layer of this run")
