"""Which tolerance judges each tensor compared with a reference file: its precision default (its element type,
the ops on its way, the reference's precision), and the tolerances given for every tensor or per tensor.

One place for what ``ir-run --compare`` judges by, so that a repro bundle (:mod:`irgraph.tools.repro`) checks
itself by the same defaults as the command it writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import InputPort, Model, OutputPort
from irgraph.runtime.marking import reference_names
from irgraph.runtime.state import step_key

# ir-run imports this module for every run, and most runs compare nothing: the comparison is imported where
# it is done, so that start-up pays for none of it (tests/test_lazy_import.py).
if TYPE_CHECKING:
    from irgraph.runtime.interpreter import Interpreter
    from irgraph.tools.compare import ComparisonReport, TensorTolerance, ToleranceOverride
    from irgraph.tools.layerwise import LayerwiseReport
    from irgraph.tools.stepwise import SteppedReport

__all__ = [
    "compare_with_reference", "default_tolerances", "output_ports", "split_tolerances", "unused_tolerance_names",
]


def output_ports(model: Model) -> dict[str, OutputPort]:
    """The port each output key of ``model`` reads (Results fed by nothing are left out)."""
    ports = {}
    output_keys = model.output_keys()
    for result in model.results:
        source = model.producer(InputPort(result.id, 0))
        if source is not None:
            ports[output_keys[result.id]] = source
    return ports


def default_tolerances(model: Model, ports: Mapping[str, OutputPort], arrays: Mapping[str, np.ndarray],
                       precision: ElementType | None) -> dict[str, TensorTolerance]:
    """Each array's precision default: its element type, the ops on the way to its port (in ``ports``; a key
    without one is taken as exact), and the precision the reference computed in."""
    from irgraph.tools.compare import ErrorBound, error_bounds, precision_tolerance
    from irgraph.tools.stats import array_element_type

    bounds = error_bounds(model)
    defaults = {}
    for key, array in arrays.items():
        port = ports.get(key)
        bound = bounds.get(port.node_id, ErrorBound()) if port is not None else ErrorBound()
        defaults[key] = precision_tolerance(array_element_type(array), bound, precision)
    return defaults


def compare_with_reference(model: Model, interpreter: Interpreter, stored: Mapping[str, np.ndarray], steps: int,
                           reference: Mapping[str, np.ndarray], atol: float | None, rtol: float | None,
                           overrides: Mapping[str, ToleranceOverride], precision: str | None, marked: set[str]
                           ) -> ComparisonReport:
    """Compare the run's outputs, and the ``marked`` tensors the reference has (under any of their names), with it."""
    from irgraph.tools.compare import compare_outputs

    ports = _ports(model, interpreter, stored, steps)
    names = _stepped(reference_names(model, {key: port for key, (port, _) in ports.items()}), stored, steps)
    compared = {key: array for key, array in stored.items()
                if key not in marked or any(name in reference for name in (key, *names.get(key, ())))}
    element_type = ElementType.from_ir_name(precision) if precision is not None else None
    defaults = default_tolerances(model, {key: port for key, (port, _) in ports.items()}, stored, element_type)
    return compare_outputs(compared, reference, atol, rtol, _per_key(overrides, model, ports), defaults=defaults,
                           names=names)


def _ports(model: Model, interpreter: Interpreter, stored: Mapping[str, np.ndarray], steps: int
           ) -> dict[str, tuple[OutputPort, str]]:
    """Per key of the run (outputs, marked tensors; each step's with --steps), its port and unstepped key."""
    plain = output_ports(model)
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


def _per_key(overrides: Mapping[str, ToleranceOverride], model: Model, ports: Mapping[str, tuple[OutputPort, str]]
             ) -> dict[str, ToleranceOverride]:
    """The per-tensor tolerances given, by key: a NAME:A names a key, a tensor name or a layer name."""
    if not overrides:
        return {}
    found = {}
    for key, (port, plain) in ports.items():
        node = model.node(port.node_id)
        names = [key, plain, *node.outputs[port.index].tensor_names, node.name]
        given = next((overrides[name] for name in names if name in overrides), None)
        if given is not None:
            found[key] = given
    return found


def split_tolerances(atols: Sequence[tuple[str | None, float]], rtols: Sequence[tuple[str | None, float]]
                     ) -> tuple[float | None, float | None, dict[str, ToleranceOverride]]:
    """The atol and rtol given for every tensor (the last bare value; None: the precision default's part) and
    the parts given per tensor, from ``(NAME or None, value)`` pairs in the order given."""
    atol = next((value for name, value in reversed(atols) if name is None), None)
    rtol = next((value for name, value in reversed(rtols) if name is None), None)
    named_atol = {name: value for name, value in atols if name is not None}
    named_rtol = {name: value for name, value in rtols if name is not None}
    if not named_atol and not named_rtol:
        return atol, rtol, {}
    from irgraph.tools.compare import ToleranceOverride

    overrides = {name: ToleranceOverride(named_atol.get(name, atol), named_rtol.get(name, rtol))
                 for name in {**named_atol, **named_rtol}}
    return atol, rtol, overrides


def unused_tolerance_names(overrides: Mapping[str, ToleranceOverride], stored: Mapping[str, np.ndarray],
                           layerwise: LayerwiseReport | SteppedReport | None) -> list[str]:
    """The names of per-tensor tolerances that name no key, tensor or layer of the run (most likely typos)."""
    names = set(stored)
    if layerwise is not None:
        for tensor in layerwise.tensors:
            names.update([tensor.node.name, *tensor.node.outputs[tensor.index].tensor_names])
    return [name for name in overrides if name not in names]
