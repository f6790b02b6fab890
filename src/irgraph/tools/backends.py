"""Other runtimes as references: OpenVINO (the same IR) and onnxruntime (the ONNX original), both optional.

``run_openvino`` compiles an IR with OpenVINO, with the requested layer outputs added as model
outputs (``Model.add_outputs``) so intermediate tensors can be compared; ``run_onnxruntime`` runs an
ONNX model with the requested tensor names added as graph outputs. Neither package is a
dependency of irgraph (the ``oracle`` extra installs both): a missing one raises
:class:`BackendUnavailableError` saying so, a failure inside one :class:`BackendError`.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import (
    BackendError,
    BackendUnavailableError,
    IrError,
    IrIOError,
    IrParseError,
    Location,
    printable,
)
from irgraph.io.data.npz import is_ml_dtype
from irgraph.tools.hints import PRECISIONS

__all__ = [
    "Found", "OpenVinoSession", "PRECISIONS", "PerfCounter", "ReferenceRun", "TensorRequest",
    "backend_version", "require", "run_onnxruntime", "run_openvino",
]


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
                                   f"pip install {name} (in a clone of irgraph: pip install -e '.[oracle]')")


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


@dataclass(frozen=True, slots=True)
class TensorRequest:
    """A tensor to fetch from the reference: its layer and output index, and the other names it may have there
    (tensor names, output names, Polygraphy's ``NAME:0``), tried in order when no layer has that name."""

    layer: str
    index: int
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Found:
    """A tensor the reference computed, and the name it knows it by (``LAYER:PORT`` for a layer match)."""

    array: np.ndarray
    name: str


@dataclass(frozen=True, slots=True)
class PerfCounter:
    """One of OpenVINO's performance counters (``PERF_COUNT``, what benchmark_app -pc prints): the node the
    plugin executed (named after the layer it comes from, or one a transformation made), its type and kernel,
    its status (``EXECUTED``, ``NOT_RUN`` for a node fused into another, ``OPTIMIZED_OUT``) and its time."""

    name: str
    type: str
    exec_type: str
    status: str
    seconds: float


@dataclass
class ReferenceRun:
    """What the reference gave per request (None: it has no such tensor) and every name it offered."""

    tensors: list[Found | None]
    names: list[str] = field(default_factory=list)
    """The reference's tensor names and ``LAYER:PORT`` of its layers' outputs, to say what it has when a
    request matches nothing."""
    counters: list[PerfCounter] | None = None
    """OpenVINO's performance counters of the run (``profile=True``), in its execution order."""


def run_openvino(
    xml: str | os.PathLike[str],
    weights: str | os.PathLike[str] | None,
    feeds: Mapping[str, np.ndarray],
    requests: Sequence[TensorRequest],
    *,
    device: str = "CPU",
    precision: str = "f32",
    profile: bool = False,
) -> ReferenceRun:
    """The tensors ``requests`` name as OpenVINO computes them: matched by layer name and output index, else by
    any of their other names among the tensor names of OpenVINO's model.

    ``feeds`` are keyed by every name of each input (Parameter name and tensor names); OpenVINO's inputs are
    matched by either. The found tensors are added to the model's outputs before it is compiled with the
    inference precision hint ``precision`` on ``device``. Each array has the element type of OpenVINO's port
    (the Python API hands bf16 out as float16-typed bits and packs 4-bit types two to a byte).

    ``profile`` turns OpenVINO's performance counters on (``PERF_COUNT``): the counters come from a second run
    (the first allocates and touches the weights; a stateful model's runs on a request of its own, so that
    the variables advance once): ``counters``.
    """
    return OpenVinoSession(xml, weights, requests, device=device, precision=precision, profile=profile).infer(feeds)


class OpenVinoSession:
    """A model compiled once by OpenVINO and one infer request, run step after step: a stateful model's
    variables (ReadValue/Assign) carry from one :meth:`infer` to the next, as in a generate loop, and
    :meth:`states` reads them (``InferRequest.query_state``). See :func:`run_openvino` for the arguments.

    Sinks (Assign) are never added as outputs: OpenVINO's CPU plugin refuses to compile a model that reads
    one ("Incorrect output port number"); the value an Assign writes is the variable :meth:`states` gives.
    """

    def __init__(
        self,
        xml: str | os.PathLike[str],
        weights: str | os.PathLike[str] | None,
        requests: Sequence[TensorRequest],
        *,
        device: str = "CPU",
        precision: str = "f32",
        profile: bool = False,
    ) -> None:
        self._ov = ov = _import("openvino")
        self.path = path = os.fspath(xml)
        _require_regular(path, "the model")
        if weights is not None:
            _require_regular(os.fspath(weights), "the weights")
        elif os.path.lexists(implied := os.path.splitext(path)[0] + ".bin"):  # what OpenVINO reads beside the .xml
            _require_regular(implied, "the weights")
        self.profile = profile
        with self._failing():
            core = ov.Core()
            model = core.read_model(path, os.fspath(weights)) if weights is not None else core.read_model(path)
            sinks = {sink.get_instance_id() for sink in model.get_sinks()}
            self._stateful = bool(model.get_variables())
            layers: dict[str, Any] = {}
            named: dict[str, Any] = {}
            for op in model.get_ops():
                # A Result's output repeats the names of the tensor it receives; a sink has none OpenVINO gives.
                if op.get_type_name() == "Result" or op.get_instance_id() in sinks:
                    continue
                layers.setdefault(op.get_friendly_name(), op)
                for output in op.outputs():
                    for name in sorted(output.get_names()):
                        named.setdefault(name, output)
            self._matched = [_match(request, layers, named) for request in requests]
            wanted = [output for output, _ in filter(None, self._matched)]
            if wanted:
                model.add_outputs(wanted)
            self._where: dict[tuple[int, int], int] = {}
            for position, output in enumerate(model.outputs):
                self._where.setdefault(_port_key(output.get_node().input_value(0)), position)
            self._parameters = [[parameter.get_friendly_name(), *sorted(parameter.output(0).get_names())]
                                for parameter in model.get_parameters()]
            _require_device(core, device)
            config: dict[str, object] = {"INFERENCE_PRECISION_HINT": precision}
            if device == "CPU" and precision == "f32":
                # Exact f32 everywhere: no int8 dynamic quantization of activations for compressed weights, no
                # f16/u8 KV cache (the CPU plugin's defaults for LLMs), so differences are irgraph's to explain.
                config.update(DYNAMIC_QUANTIZATION_GROUP_SIZE="0", KV_CACHE_PRECISION="f32")
            if profile:
                config["PERF_COUNT"] = True
            self._compiled = core.compile_model(model, device, config)
            self._request = self._compiled.create_infer_request()
        self.names = list(dict.fromkeys(
            [*named, *(f"{name}:{index}" for name, op in layers.items() for index in range(op.get_output_size()))]))
        """The reference's tensor names and ``LAYER:PORT`` of its layers' outputs."""

    @contextlib.contextmanager
    def _failing(self) -> Iterator[None]:
        """OpenVINO's own exceptions as a BackendError at the model's file."""
        try:
            yield
        except IrError:
            raise
        except Exception as err:  # noqa: BLE001 - openvino raises RuntimeError and its own kinds
            raise BackendError(f"openvino: {_one_line(err)}", Location(file=self.path)) from None

    def infer(self, feeds: Mapping[str, np.ndarray]) -> ReferenceRun:
        """Run one step on ``feeds`` (keyed by every name of each input): the requested tensors, as
        :func:`run_openvino` gives them."""
        inputs = {}
        for position, candidates in enumerate(self._parameters):
            name = next((name for name in candidates if name in feeds), None)
            if name is None:
                raise BackendError(f"openvino's model has an input {candidates[0]!r} that the run was not given",
                                   Location(file=self.path))
            inputs[position] = _tensor(self._ov, feeds[name])
        counters = None
        with self._failing():
            if self.profile:  # a warm-up run; a stateful model's on a request of its own, which keeps the variables
                (self._compiled.create_infer_request() if self._stateful else self._request).infer(inputs)
            self._request.infer(inputs)
            if self.profile:
                counters = [PerfCounter(info.node_name, info.node_type, info.exec_type, info.status.name,
                                        info.real_time.total_seconds()) for info in self._request.profiling_info]
            arrays = [_array(self._request.get_output_tensor(position))
                      for position in range(len(self._compiled.outputs))]
        found = [None if match is None else Found(arrays[self._where[_port_key(match[0])]], match[1])
                 for match in self._matched]
        return ReferenceRun(found, self.names, counters)

    def states(self) -> dict[str, np.ndarray]:
        """Every variable's value now (``InferRequest.query_state``), by variable id."""
        with self._failing():
            return {state.name: _array(state.state) for state in self._request.query_state()}


VIRTUAL_DEVICES = ("AUTO", "MULTI", "HETERO", "BATCH")
"""OpenVINO's devices that run on others, named after a colon (``AUTO:GPU,CPU``)."""


def _require_device(core: Any, device: str) -> None:
    """Raise BackendUnavailableError naming the devices this machine has when ``device`` (or a device a virtual
    one lists) is not among them: OpenVINO would report the first library its plugin failed to load."""
    head, _, listed = device.partition(":")
    wanted = [name for name in listed.split(",") if name] if head in VIRTUAL_DEVICES else [device]
    available = list(core.available_devices)
    bases = {name.split(".")[0] for name in available}  # names are case-sensitive, as OpenVINO takes them
    for name in wanted:
        base = name.split("(")[0].split(".")[0].strip()
        if base and base not in VIRTUAL_DEVICES and base not in bases:
            raise BackendUnavailableError(f"openvino has no device {name!r} on this machine; its devices: "
                                          f"{', '.join(available) or 'none'} (--device)")


def _tensor(ov: ModuleType, array: np.ndarray) -> Any:
    """An input as OpenVINO takes it: ml_dtypes data (bf16, f8, 4-bit types) as an ``ov.Tensor`` of its element
    type holding its bits (an infer request reads a bfloat16 array's items as some other type); else the array."""
    if not is_ml_dtype(array.dtype):
        return array
    from irgraph.io.weights import encode_tensor

    element_type = ElementType.from_numpy(array.dtype)
    tensor = ov.Tensor(getattr(ov.Type, element_type.ir_name), ov.Shape(list(array.shape)))
    target = np.asarray(tensor.data).view(np.uint8).reshape(-1)
    target[...] = np.frombuffer(encode_tensor(array, element_type), np.uint8)[:target.size]
    return tensor


def _match(request: TensorRequest, layers: Mapping[str, Any], named: Mapping[str, Any]) -> tuple[Any, str] | None:
    """OpenVINO's output for a request, and the name it matched by."""
    op = layers.get(request.layer)
    if op is not None and request.index < op.get_output_size():
        return op.output(request.index), f"{request.layer}:{request.index}"
    name = next((name for name in request.names if name in named), None)
    return None if name is None else (named[name], name)


def _port_key(output: Any) -> tuple[int, int]:
    """An OpenVINO output port as a dict key (the node's identity, the index)."""
    return (output.get_node().get_instance_id(), output.get_index())


def _array(tensor: Any) -> np.ndarray:
    """An OpenVINO tensor as a NumPy array of the element type of its port (irgraph's in-memory dtypes)."""
    data = np.array(tensor.data)
    try:
        element_type = ElementType.from_ir_name(tensor.get_element_type().get_type_name())
    except IrParseError:
        return data
    wanted = element_type.numpy_dtype
    if wanted is None or data.dtype == wanted or not (element_type.is_packed or is_ml_dtype(wanted)):
        return data
    from irgraph.io.weights import decode_tensor  # its bits as the .bin holds them: bf16, f8, packed 4-bit types

    decoded = decode_tensor(np.ascontiguousarray(data).data.cast("B"), element_type, tuple(tensor.get_shape()))
    return np.array(decoded)  # a copy that owns its memory (the tensor's goes with the request)


def run_onnxruntime(
    onnx_path: str | os.PathLike[str], feeds: Mapping[str, np.ndarray], names: Sequence[str]
) -> tuple[dict[str, np.ndarray], list[str]]:
    """The tensors ``names`` (ONNX value names) as onnxruntime's CPU provider computes them, and every value name
    the model has.

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
    return found, list(dict.fromkeys([*feeds, *produced]))


def _require_regular(path: str, what: str) -> None:
    """Refuse a file a runtime would read unless it is a regular file (a FIFO would hang OpenVINO's reader, a
    device never end), checked on an opened descriptor as irgraph's own readers check theirs."""
    from irgraph.io.regular_file import open_regular

    try:
        descriptor, _ = open_regular(path)
    except OSError as err:
        raise IrIOError(f"cannot give {what} to the reference runtime: {err.strerror or err}",
                        Location(file=path)) from None
    os.close(descriptor)


def _one_line(err: Any) -> str:
    """The runtime's message on one line (OpenVINO's span several, with the source file of each check)."""
    return printable(" ".join(str(err).split()) or type(err).__name__)
