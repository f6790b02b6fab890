"""Other runtimes as references: OpenVINO (the same IR) and onnxruntime (the ONNX original), both optional.

``run_openvino`` compiles an IR with OpenVINO, with the requested layer outputs added as model
outputs (``Model.add_outputs``) so intermediate tensors can be compared; ``run_onnxruntime`` runs an
ONNX model with the requested tensor names added as graph outputs. Neither package is a
dependency of irgraph (the ``oracle`` extra installs both): a missing one raises
:class:`BackendUnavailableError` saying so, a failure inside one :class:`BackendError`.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from irgraph.core.errors import BackendError, BackendUnavailableError, IrError, Location, printable

__all__ = [
    "PRECISIONS", "backend_version", "require", "run_onnxruntime",
    "run_openvino",
]

PRECISIONS = ("f32", "f16", "bf16")
"""OpenVINO inference precision hints ``--precision`` takes."""

INSTALL_HINT = "install it with: pip install 'irgraph[oracle]'"


def require(name: str) -> None:
    """Raise BackendUnavailableError unless ``name`` can be imported; does not import it.

    Checked before irgraph's own run, the import itself comes after it: importing openvino starts a
    telemetry thread that forks a process, and a fork while NumPy's OpenBLAS threads are busy in
    irgraph's MatMul or Convolution deadlocks the process (observed with openvino 2026.4.1).
    """
    try:
        found = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise _unavailable(name)


def _unavailable(name: str) -> BackendUnavailableError:
    return BackendUnavailableError(f"comparing with {name} needs the {name} package, which is not installed: "
                                   f"{INSTALL_HINT}")


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError:
        raise _unavailable(name) from None


def backend_version(name: str) -> str:
    """``openvino 2026.4.1``: the package and its version (imports it)."""
    module = _import(name)
    version = getattr(module, "__version__", None)
    if version is None and name == "openvino":
        version = module.get_version()
    return f"{name} {str(version).split('-')[0]}"


def run_openvino(
    xml: str | os.PathLike[str],
    weights: str | os.PathLike[str] | None,
    feeds: Mapping[str, np.ndarray],
    ports: Sequence[tuple[str, int]],
    *,
    device: str = "CPU",
    precision: str = "f32",
) -> list[np.ndarray | None]:
    """The tensors ``ports`` (``(layer name, output index)``) as OpenVINO computes them; None for a layer it lacks.

    ``feeds`` are keyed by Parameter layer name. The requested outputs are added to the model before
    it is compiled with the inference precision hint ``precision`` on ``device``.
    """
    ov = _import("openvino")
    path = os.fspath(xml)
    try:
        core = ov.Core()
        model = core.read_model(path, os.fspath(weights)) if weights is not None else core.read_model(path)
        ops = {}
        for op in model.get_ops():
            ops.setdefault(op.get_friendly_name(), op)
        wanted = [ops[name].output(index) for name, index in ports
                  if name in ops and index < ops[name].get_output_size()]
        if wanted:
            model.add_outputs(wanted)
        where = {}
        for position, output in enumerate(model.outputs):
            source = output.get_node().input_value(0)
            where.setdefault((source.get_node().get_friendly_name(), source.get_index()), position)
        inputs = {}
        for position, parameter in enumerate(model.get_parameters()):
            name = parameter.get_friendly_name()
            if name not in feeds:
                raise BackendError(f"openvino's model has an input {name!r} that the run was not given",
                                   Location(file=path))
            inputs[position] = feeds[name]
        compiled = core.compile_model(model, device, {"INFERENCE_PRECISION_HINT": precision})
        results = compiled(inputs)
        arrays = [np.array(results[compiled.outputs[position]]) for position in range(len(compiled.outputs))]
    except IrError:
        raise
    except Exception as err:  # noqa: BLE001 - openvino raises RuntimeError and its own kinds
        raise BackendError(f"openvino: {_one_line(err)}", Location(file=path)) from None
    return [arrays[where[port]] if port in where else None for port in ports]


def run_onnxruntime(
    onnx_path: str | os.PathLike[str], feeds: Mapping[str, np.ndarray], names: Sequence[str]
) -> dict[str, np.ndarray]:
    """The tensors ``names`` (ONNX value names) as onnxruntime's CPU provider computes them.

    ``feeds`` are keyed by ONNX graph input name; names the model does not produce are left out.
    """
    from irgraph.io.onnx.outputs import onnx_value_names, onnx_with_outputs

    ort = _import("onnxruntime")
    path = os.fspath(onnx_path)
    serialized, _, produced = onnx_value_names(path)
    available = set(produced) | set(feeds)
    wanted = [name for name in names if name in available and name not in feeds]
    found: dict[str, np.ndarray] = {name: np.asarray(feeds[name]) for name in names if name in feeds}
    try:
        data = onnx_with_outputs(serialized, wanted)
        try:
            session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
        except Exception as err:  # noqa: BLE001
            newest = re.search(r"max supported IR version: (\d+)", str(err))
            if newest is None:
                raise
            # onnx writes a newer IR version stamp than this onnxruntime reads; the ops decide, not the stamp.
            session = ort.InferenceSession(onnx_with_outputs(serialized, wanted, int(newest.group(1))),
                                           providers=["CPUExecutionProvider"])
        inputs = {value.name: feeds[value.name] for value in session.get_inputs() if value.name in feeds}
        missing = [value.name for value in session.get_inputs() if value.name not in feeds]
        if missing:
            raise BackendError(f"onnxruntime: the ONNX model has inputs the run was not given: "
                               f"{', '.join(map(repr, missing))}", Location(file=path))
        outputs = [value.name for value in session.get_outputs()]
        values = session.run(None, inputs)
    except IrError:
        raise
    except Exception as err:  # noqa: BLE001 - onnxruntime raises its own kinds
        raise BackendError(f"onnxruntime: {_one_line(err)}", Location(file=path)) from None
    found.update({name: np.asarray(value) for name, value in zip(outputs, values, strict=True) if name in names})
    return found


def _one_line(err: Any) -> str:
    """The runtime's message on one line (OpenVINO's span several, with the source file of each check)."""
    return printable(" ".join(str(err).split()) or type(err).__name__)
