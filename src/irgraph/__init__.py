"""irgraph: read, check, convert, build and run OpenVINO IR models in pure Python."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names below load on first use (module __getattr__), so `import irgraph` costs nothing
    from irgraph.analysis.shape_inference import infer_shapes
    from irgraph.analysis.validation import validate
    from irgraph.builders import (
        opset1,
        opset2,
        opset3,
        opset4,
        opset5,
        opset6,
        opset7,
        opset8,
        opset9,
        opset10,
        opset11,
        opset12,
        opset13,
        opset14,
        opset15,
        opset16,
    )
    from irgraph.core.diagnostics import Diagnostic, Severity
    from irgraph.core.element_types import ElementType
    from irgraph.core.errors import (
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
    from irgraph.core.shapes import Dim, Shape, TensorType
    from irgraph.graph import Input, InputPort, Model, Node, Output, OutputPort
    from irgraph.io.onnx.exporter import export_onnx
    from irgraph.io.onnx.importer import convert_onnx
    from irgraph.io.xml.file_validation import validate_file
    from irgraph.io.xml.reader import read_model
    from irgraph.io.xml.writer import write_model
    from irgraph.runtime.interpreter import Interpreter, run
    from irgraph.tools.diff import diff_models
    from irgraph.tools.extract import extract

__version__ = "0.1.0"

__all__ = [
    "ConversionError", "Diagnostic", "Dim", "ElementType", "EvaluationError", "GraphError", "InputError",
    "Input", "InputPort", "Interpreter", "IrError", "IrIOError", "IrParseError", "Location", "Model", "Node",
    "OpError", "Output", "OutputPort",
    "ResourceLimitError", "Severity", "Shape", "ShapeInferenceError", "TensorType", "WeightsError",
    "infer_shapes", "run", "validate",
    # loaded on first use (_LAZY below); listed literally so a type checker sees them exported
    "convert_onnx", "diff_models", "export_onnx", "extract", "read_model", "validate_file", "write_model",
    # the op builders of each opset (ir.opset16.relu); ir.ops holds the newest of every op type
    "opset1", "opset2", "opset3", "opset4", "opset5", "opset6", "opset7", "opset8", "opset9", "opset10", "opset11",
    "opset12", "opset13", "opset14", "opset15", "opset16",
]

# I/O entry points load on first use so `import irgraph` stays light (no lxml/onnx until needed).
_LAZY = {
    "read_model": "irgraph.io.xml.reader",
    "write_model": "irgraph.io.xml.writer",
    "validate_file": "irgraph.io.xml.file_validation",
    "convert_onnx": "irgraph.io.onnx.importer",
    "export_onnx": "irgraph.io.onnx.exporter",
    "diff_models": "irgraph.tools.diff",
    "extract": "irgraph.tools.extract",
}
_OPSETS = {f"opset{n}": f"irgraph.builders.opset{n}" for n in range(1, 17)}
"""The builder namespaces, one module each (made on first use: irgraph.builders.namespace)."""


# The core API loads on first use too: a tool that needs one part (ir-run --help, ir-info) imports only that part.
_CORE = {
    "ElementType": "irgraph.core.element_types",
    **{name: "irgraph.core.errors" for name in (
        "ConversionError", "EvaluationError", "GraphError", "InputError", "IrError", "IrIOError", "IrParseError",
        "Location", "OpError", "ResourceLimitError", "ShapeInferenceError", "WeightsError")},
    **{name: "irgraph.graph" for name in ("Input", "InputPort", "Model", "Node", "Output", "OutputPort")},
    "Interpreter": "irgraph.runtime.interpreter",
    "run": "irgraph.runtime.interpreter",
    "infer_shapes": "irgraph.analysis.shape_inference",
    **{name: "irgraph.core.shapes" for name in ("Dim", "Shape", "TensorType")},
    **{name: "irgraph.core.diagnostics" for name in ("Diagnostic", "Severity")},
    "validate": "irgraph.analysis.validation",
}


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> object:
    import importlib

    if name in _OPSETS:
        value = importlib.import_module(_OPSETS[name])
        globals()[name] = value
        return value
    module = _LAZY.get(name) or _CORE.get(name)
    if module is None:
        # A subpackage used as an attribute (irgraph.ops.Relu after `import irgraph`), as when it loaded eagerly.
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
        raise AttributeError(f"module 'irgraph' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    if name in _CORE:
        globals()[name] = value  # later look-ups skip this function
    return value
