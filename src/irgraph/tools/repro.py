"""A repro bundle of a layer-by-layer mismatch: what a bug report to OpenVINO (or to irgraph) needs.

``save_repro(report, DIR)`` writes the layer to blame as an IR of its own, cut out with irgraph's extract tool:
the first layer whose own error exceeds its tolerance class (:mod:`irgraph.tools.local_error`), fed the exact
tensors the reference produced for its inputs; when no layer's own error does (the mismatch is inherited
rounding), the model from its inputs up to the first divergent tensor, fed the run's inputs. Beside it:
``inputs.npz`` (those inputs), ``reference.npz`` (the reference's outputs of the cut-out model) and
``README.md`` with the one ``ir-run`` command that reproduces the mismatch: ``--compare`` judges the cut-out
model by the same tolerance its comparison did (its own ops' bound at the reference's precision).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import InputError, printable
from irgraph.graph import OutputPort
from irgraph.io.atomic import replace_files
from irgraph.io.data import npz
from irgraph.io.xml.reader import read_model
from irgraph.io.xml.writer import write_model
from irgraph.runtime.decompression import DecompressionPolicy
from irgraph.runtime.interpreter import Interpreter
from irgraph.tools.compare import compare_outputs
from irgraph.tools.layerwise import ComparedTensor, LayerwiseReport
from irgraph.tools.local_error import Block
from irgraph.tools.tolerances import default_tolerances, output_ports

__all__ = ["FILES", "Repro", "check_repro_directory", "save_repro"]

FILES = ("model.xml", "model.bin", "inputs.npz", "reference.npz", "README.md")
"""What a bundle holds."""


def check_repro_directory(path: str) -> None:
    """Refuse a bundle directory that is a file or already holds files (a bundle never writes over anything)."""
    if os.path.lexists(path) and not os.path.isdir(path):
        raise InputError(f"--save-repro {path!r} is not a directory")
    if os.path.isdir(path) and os.listdir(path):
        raise InputError(f"--save-repro {path!r} is not empty: give a new or empty directory")


@dataclass(frozen=True, slots=True)
class Repro:
    """A bundle written: the command that runs it (in its directory), and whether it fails as the run did (checked
    on the files written)."""

    command: str
    reproduces: bool


def save_repro(report: LayerwiseReport, directory: str) -> Repro:
    """Write the bundle of ``report``'s mismatch into ``directory`` (created). Raises InputError when there is
    nothing to reproduce."""
    runs, culprit = report.local, report.culprit
    if runs is None or culprit is None:
        raise InputError("no mismatch to reproduce" if culprit is None else "the layers were not run locally")
    own = culprit is report.first_local_divergence
    if own:
        indices = [t.index for t in report.compared if t.node is culprit.node and t.local is not None]
        block = runs.block(culprit.node, report.reference_values, indices)
    else:
        block = runs.prefix(_port(culprit))
    check_repro_directory(directory)
    os.makedirs(directory, exist_ok=True)
    write_model(block.model, os.path.join(directory, "model.xml"))
    npz.write_npz(os.path.join(directory, "inputs.npz"), {k: npz.for_storage(v) for k, v in block.feeds.items()})
    npz.write_npz(os.path.join(directory, "reference.npz"), _reference(report, block))
    options = ["--precision", str(runs.precision)] if runs.precision is not None else []
    if not own:  # judged as the run judged it: the tolerances given (a layer's own error, by its class only)
        options += [f"--{name}={value:g}" for name, value in (("atol", report.atol), ("rtol", report.rtol))
                    if value is not None]
    command = shlex.join(["ir-run", "model.xml", "--inputs", "inputs.npz", "--compare", "reference.npz", *options,
                          "--decompression", runs.decompression])
    reference = {key: report.reference_values[port] for key, port in block.outputs.items()}
    reproduces = _reproduces(os.path.join(directory, "model.xml"), block.feeds, reference, runs.precision,
                             runs.decompression, *(() if own else (report.atol, report.rtol)))
    readme = _readme(report, culprit, own, command, reproduces).encode("utf-8")
    # As the other files: a temporary file renamed into place (a link put there since the check is replaced, not
    # followed; an interrupted write leaves no README cut short).
    replace_files([(os.path.join(directory, "README.md"), lambda file: file.write(readme))])
    return Repro(command, reproduces)


def _reproduces(xml: str, feeds: Mapping[str, np.ndarray], reference: Mapping[str, np.ndarray],
                precision: ElementType | None, decompression: DecompressionPolicy, atol: float | None = None,
                rtol: float | None = None) -> bool:
    """Whether the bundle's model, read back from its file, fails as its command says: ``ir-run --compare`` judges
    each output by its precision default (the ops of the cut-out model) with the tolerances given in place of its
    parts."""
    model = read_model(xml)
    outputs = Interpreter(model, decompression=decompression).run(feeds)
    defaults = default_tolerances(model, output_ports(model), outputs, precision)
    return not compare_outputs(outputs, reference, atol, rtol, defaults=defaults).passed


def _port(tensor: ComparedTensor) -> OutputPort:
    return OutputPort(tensor.node.id, tensor.index)


def _reference(report: LayerwiseReport, block: Block) -> dict[str, np.ndarray]:
    """The reference's outputs of the cut-out model, under its output keys."""
    return {key: npz.for_storage(np.asarray(report.reference_values[port])) for key, port in block.outputs.items()}


def _readme(report: LayerwiseReport, culprit: ComparedTensor, own: bool, command: str, reproduces: bool) -> str:
    # Every text from the model or the file system is made printable: a tensor name holding '\n\n    rm -rf ~'
    # would otherwise add an indented block to the README that reads as the command to run.
    node, where, kind = culprit.node, printable(culprit.where() or "the model"), printable(culprit.node.type_name)
    reference, verdict = printable(report.reference), printable(report.divergence_message())
    if own:
        what = (f"Layer `{printable(node.name)}` ({kind}, id {node.id}, {where}) cut out of the model, fed "
                f"the tensors {reference} produced for its inputs: its own error exceeds its tolerance class.")
    else:
        what = (f"The model from its inputs up to `{printable(culprit.key)}` (layer `{printable(node.name)}`, "
                f"{kind}, {where}), fed the run's inputs: no layer's own error exceeds its tolerance "
                "class, so the mismatch is rounding inherited along the way.")
    outcome = ("exits 1 naming the mismatch, checked when this was written" if reproduces else
               "NOTE: checked when this was written, it does not fail by itself: the difference needs more of the "
               "model around the layer")
    against = ("\nAgainst OpenVINO itself: `ir-run model.xml --inputs inputs.npz --compare-with openvino`.\n"
               if report.reference.startswith("openvino") else "")
    return f"""# Repro: irgraph differs from {reference}

{what}

Verdict of the run: {verdict}

Reproduce (in this directory; {outcome}):

    {command}

- `model.xml`, `model.bin`: the cut-out model (written by irgraph; OpenVINO reads it too)
- `inputs.npz`: its exact inputs, by input name
- `reference.npz`: what {reference} computed for its outputs, by output name
{against}"""
