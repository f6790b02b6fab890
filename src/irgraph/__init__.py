"""irgraph: read, check, convert, build and run OpenVINO IR models in pure Python."""

from __future__ import annotations

from irgraph.element_types import ElementType
from irgraph.errors import (
    ConversionError,
    EvaluationError,
    GraphError,
    InputError,
    IrError,
    IrIOError,
    IrParseError,
    Location,
    OpError,
    ResourceLimitError,
    ShapeInferenceError,
    WeightsError,
)
from irgraph.graph import InputPort, Model, Node, OutputPort
from irgraph.interpreter import Interpreter, run
from irgraph.shape_inference import infer_shapes
from irgraph.shapes import Dim, Shape, TensorType
from irgraph.validation import Diagnostic, Severity, validate

__version__ = "0.1.0"

__all__ = [
    "ConversionError", "Diagnostic", "Dim", "ElementType", "EvaluationError", "GraphError", "InputError",
    "InputPort", "Interpreter", "IrError", "IrIOError", "IrParseError", "Location", "Model", "Node", "OpError",
    "OutputPort",
    "ResourceLimitError", "Severity", "Shape", "ShapeInferenceError", "TensorType", "WeightsError",
    "infer_shapes", "run", "validate",
]

# I/O entry points load on first use so `import irgraph` stays light (no lxml/onnx until needed).
_LAZY = {
    "read_model": "irgraph.io.xml.reader",
    "write_model": "irgraph.io.xml.writer",
    "validate_file": "irgraph.io.xml.file_validation",
    "convert_onnx": "irgraph.io.onnx.importer",
    "export_onnx": "irgraph.io.onnx.exporter",
    "diff_models": "irgraph.diff",
    "extract": "irgraph.extract",
}
__all__ += list(_LAZY)


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'irgraph' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
