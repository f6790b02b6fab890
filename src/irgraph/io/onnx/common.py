"""Shared by ONNX import and export: the lazy ``onnx`` import, element-type tables, explanations."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError, MissingDependencyError
from irgraph.core.shapes import TensorType
from irgraph.graph import Model, OutputPort

ONNX_HINT = ("ONNX support needs the onnx package, which is not installed: pip install onnx (in a clone of irgraph: "
             "pip install -e '.[onnx]')")


class OnnxMissingError(ConversionError, MissingDependencyError):
    """The onnx package is not installed (a ConversionError as before; the tools exit 2 for it)."""

MAX_IR_VERSION = 13
"""The newest ONNX IR version onnxruntime 1.31 loads (onnx 1.23 stamps 14, which it refuses)."""

Explain = list[str] | Callable[[str], None] | None
"""Where explanation lines go: a list to append to, a callable (``print``), or nowhere."""

# ONNX TensorProto data type name -> IR element type. Complex, the FNUZ float8 variants, INT2 and
# the float6 types have no IR element type.
_FROM_ONNX: dict[str, ElementType] = {
    "FLOAT": ElementType.F32,
    "UINT8": ElementType.U8,
    "INT8": ElementType.I8,
    "UINT16": ElementType.U16,
    "INT16": ElementType.I16,
    "INT32": ElementType.I32,
    "INT64": ElementType.I64,
    "STRING": ElementType.STRING,
    "BOOL": ElementType.BOOLEAN,
    "FLOAT16": ElementType.F16,
    "DOUBLE": ElementType.F64,
    "UINT32": ElementType.U32,
    "UINT64": ElementType.U64,
    "BFLOAT16": ElementType.BF16,
    "FLOAT8E4M3FN": ElementType.F8E4M3,
    "FLOAT8E5M2": ElementType.F8E5M2,
    "UINT4": ElementType.U4,
    "INT4": ElementType.I4,
    "FLOAT4E2M1": ElementType.F4E2M1,
    "FLOAT8E8M0": ElementType.F8E8M0,
    "UINT2": ElementType.U2,
}
_TO_ONNX: dict[ElementType, str] = {element_type: name for name, element_type in _FROM_ONNX.items()}

MIN_IR_VERSION_FOR_TYPE: dict[str, int] = {
    "FLOAT8E4M3FN": 9, "FLOAT8E5M2": 9, "UINT4": 10, "INT4": 10, "FLOAT4E2M1": 11, "FLOAT8E8M0": 12, "UINT2": 13,
}
"""ONNX IR version that introduced each newer data type (onnx.proto's IR_VERSION notes)."""


def require_onnx() -> ModuleType:
    """The ``onnx`` module, or a one-line ConversionError saying how to install it."""
    try:
        import onnx
    except ImportError:
        raise OnnxMissingError(ONNX_HINT) from None
    return onnx


class Explainer:
    """Sends one line per conversion decision to a list, a callable, or nowhere."""

    def __init__(self, sink: Explain) -> None:
        if sink is None:
            self._emit: Callable[[str], None] = lambda line: None
        elif isinstance(sink, list):
            self._emit = sink.append
        elif callable(sink):
            self._emit = sink
        else:
            raise TypeError(f"explain must be a list, a callable or None; got {type(sink).__name__}")

    def __call__(self, line: str) -> None:
        self._emit(line)


def element_type_from_onnx(onnx: ModuleType, data_type: int, what: str) -> ElementType:
    """The IR element type of an ONNX data type code; ConversionError naming ``what`` otherwise."""
    try:
        name = onnx.TensorProto.DataType.Name(data_type)
    except ValueError:
        name = str(data_type)
    found = _FROM_ONNX.get(name)
    if found is None:
        if name == "UNDEFINED":
            raise ConversionError(f"{what} has no element type (elem_type is UNDEFINED)")
        raise ConversionError(
            f"{what} has ONNX element type {name}, which has no IR element type; "
            f"convertible: {', '.join(sorted(_FROM_ONNX))}"
        )
    return found


def onnx_type_name(element_type: ElementType, what: str) -> str:
    """The ONNX data type name of an IR element type; ConversionError naming ``what`` otherwise."""
    found = _TO_ONNX.get(element_type)
    if found is None:
        known = ", ".join(t.ir_name for t in _TO_ONNX)
        raise ConversionError(f"{what} has element type {element_type}, which ONNX cannot hold; exportable: {known}")
    return found


def first_line(err: Exception) -> str:
    """The first line of an onnx or protobuf error (their messages can run to many lines)."""
    return (str(err).splitlines() or [type(err).__name__])[0]


def port_type(model: Model, port: OutputPort) -> TensorType:
    """The inferred type at ``port`` (both directions infer every node before asking)."""
    found = model.output_type(port)
    assert found is not None, "every node is inferred before its types are read"
    return found
