"""ir-run's comparisons: the tolerances given (--atol/--rtol), and --compare, the outputs (and marked tensors,
every step's with --steps) against a reference file.

The reference is an .npz read member by member as they are compared, or Polygraphy's run results (.json).
Each tensor is looked up under its key or any other name it may have there, and judged by its precision
default (its element type, the ops on its way, the reference's precision) unless tolerances are given.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

import numpy as np

from irgraph.cli import _common as common
from irgraph.core.element_types import ElementType
from irgraph.graph import InputPort, Model, OutputPort
from irgraph.io.data import polygraphy_json
from irgraph.io.data.npz import NpzArchive
from irgraph.runtime.interpreter import Interpreter
from irgraph.runtime.marking import reference_names
from irgraph.runtime.state import step_key

# ir-run imports this module for every run, and most runs compare nothing: the comparison is imported where
# it is done, so that start-up pays for none of it.
if TYPE_CHECKING:
    from irgraph.tools.compare import ComparisonReport, TensorTolerance, ToleranceOverride
    from irgraph.tools.layerwise import LayerwiseReport
    from irgraph.tools.stepwise import SteppedReport

__all__ = [
    "Reference", "compare_with_reference", "open_reference", "tolerance_arg", "tolerances", "warn_unused_tolerances",
]


def compare_with_reference(model: Model, interpreter: Interpreter, stored: Mapping[str, np.ndarray], steps: int,
                           reference: Reference, atol: float | None, rtol: float | None,
                           overrides: Mapping[str, ToleranceOverride], precision: str | None, marked: set[str]
                           ) -> ComparisonReport:
    """Compare the run's outputs, and the ``marked`` tensors the reference has (under any of their names), with it."""
    from irgraph.tools.compare import compare_outputs

    ports = _ports(model, interpreter, stored, steps)
    names = _stepped(reference_names(model, {key: port for key, (port, _) in ports.items()}), stored, steps)
    compared = {key: array for key, array in stored.items()
                if key not in marked or any(name in reference for name in (key, *names.get(key, ())))}
    element_type = ElementType.from_ir_name(precision) if precision is not None else None
    defaults = _defaults(model, ports, stored, element_type)
    return compare_outputs(compared, reference, atol, rtol, _per_key(overrides, model, ports), defaults=defaults,
                           names=names)


def open_reference(path: str, element_limit: int) -> Reference:
    """The reference of --compare: an .npz read member by member, or Polygraphy's run results (.json)."""
    if path.lower().endswith(".json"):
        iterations = polygraphy_json.read_arrays(path, element_limit)
        return Reference(None, iterations[0] if iterations else {})
    return Reference(common.open_npz(path, element_limit))


def _ports(model: Model, interpreter: Interpreter, stored: Mapping[str, np.ndarray], steps: int
           ) -> dict[str, tuple[OutputPort, str]]:
    """Per key of the run (outputs, marked tensors; each step's with --steps), its port and unstepped key."""
    plain: dict[str, OutputPort] = {}
    output_keys = model.output_keys()
    for result in model.results:
        source = model.producer(InputPort(result.id, 0))
        if source is not None:
            plain[output_keys[result.id]] = source
    plain.update({mark.key: mark.port for mark in interpreter.marks})
    if steps == 1:
        return {key: (port, key) for key, port in plain.items() if key in stored}
    return {step_key(step, key): (port, key) for step in range(1, steps + 1) for key, port in plain.items()
            if step_key(step, key) in stored}


def _stepped(names: Mapping[str, list[str]], stored: Mapping[str, np.ndarray], steps: int) -> dict[str, list[str]]:
    """The other names of each key; with --steps, of each step's key (``stepK/`` before each name)."""
    if steps == 1:
        return dict(names)
    found = {}
    for key in stored:
        prefix, _, plain = key.partition("/")
        found[key] = [f"{prefix}/{name}" for name in names.get(plain, ())]
    return found


def _defaults(model: Model, ports: Mapping[str, tuple[OutputPort, str]], stored: Mapping[str, np.ndarray],
              precision: ElementType | None) -> dict[str, TensorTolerance]:
    """Each compared tensor's precision default: its element type, the ops on its way, the reference's precision."""
    from irgraph.tools.compare import ErrorBound, error_bounds, precision_tolerance
    from irgraph.tools.stats import array_element_type

    bounds = error_bounds(model)
    defaults = {}
    for key, array in stored.items():
        port = ports.get(key)
        bound = bounds.get(port[0].node_id, ErrorBound()) if port is not None else ErrorBound()
        defaults[key] = precision_tolerance(array_element_type(array), bound, precision)
    return defaults


def _per_key(overrides: Mapping[str, ToleranceOverride], model: Model, ports: Mapping[str, tuple[OutputPort, str]]
             ) -> dict[str, ToleranceOverride]:
    """The per-tensor tolerances given, by key: a NAME:A names a key, a tensor name or a layer name."""
    if not overrides:
        return {}
    found = {}
    for key, (port, plain) in ports.items():
        node = model.node(port.node_id)
        names = [key, plain, *node.tensor_names[port.index], node.name]
        given = next((overrides[name] for name in names if name in overrides), None)
        if given is not None:
            found[key] = given
    return found


class Reference(Mapping[str, np.ndarray]):
    """A reference .npz whose members are read only when compared (names known up front), or arrays read."""

    def __init__(self, archive: NpzArchive | None, arrays: Mapping[str, np.ndarray] | None = None) -> None:
        self.archive = archive
        self.arrays = arrays
        members = arrays if arrays is not None else archive
        if members is None:
            raise ValueError("a Reference reads an archive or holds arrays: give one")
        self._members: Mapping[str, np.ndarray] = members  # iterated and counted; read through __getitem__

    def __getitem__(self, key: str) -> np.ndarray:
        if self.arrays is not None:
            return self.arrays[key]
        assert self.archive is not None
        if key not in self.archive:
            raise KeyError(key)
        return common.load_member(self.archive, key, self.archive.element_limit)

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def close(self) -> None:
        """Close the archive (if any)."""
        if self.archive is not None:
            self.archive.close()


def tolerance_arg(text: str) -> tuple[str | None, float]:
    """argparse type of --atol/--rtol: ``A`` (the default) or ``NAME:A`` (one tensor; NAME may hold colons)."""
    name, colon, value = text.rpartition(":")
    if colon and not name:  # ":1" names no tensor: a typo, refused like any malformed value
        raise argparse.ArgumentTypeError(f"expected A or NAME:A, got {text!r} (no NAME before the colon)")
    return (name if colon else None), common.non_negative_float(value if colon else text)


def tolerances(args: argparse.Namespace) -> tuple[float | None, float | None, dict[str, ToleranceOverride]]:
    """The atol and rtol given for every tensor (the last bare value; None: the precision default's part) and
    the parts given per tensor."""
    atol = next((value for name, value in reversed(args.atol) if name is None), None)
    rtol = next((value for name, value in reversed(args.rtol) if name is None), None)
    named_atol = {name: value for name, value in args.atol if name is not None}
    named_rtol = {name: value for name, value in args.rtol if name is not None}
    if not named_atol and not named_rtol:
        return atol, rtol, {}
    from irgraph.tools.compare import ToleranceOverride

    overrides = {name: ToleranceOverride(named_atol.get(name, atol), named_rtol.get(name, rtol))
                 for name in {**named_atol, **named_rtol}}
    return atol, rtol, overrides


def warn_unused_tolerances(overrides: Mapping[str, ToleranceOverride], stored: Mapping[str, np.ndarray],
                            layerwise: LayerwiseReport | SteppedReport | None) -> None:
    """A NAME:VALUE tolerance that names no compared tensor is most likely a typo: say so."""
    names = set(stored)
    if layerwise is not None:
        for tensor in layerwise.tensors:
            names.update([tensor.node.name, *tensor.node.tensor_names[tensor.index]])
    for name in overrides:
        if name not in names:
            common.warn(f"--atol/--rtol name {name!r}, which is no tensor or layer of this run")
