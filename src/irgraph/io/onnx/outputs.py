"""An ONNX model with extra graph outputs, so onnxruntime returns intermediate tensors (``ir-run --compare-with``)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from irgraph.core.errors import MissingDependencyError

__all__ = ["onnx_value_names", "onnx_with_outputs"]


def onnx_value_names(path: str | os.PathLike[str]) -> tuple[bytes, list[str], list[str]]:
    """The model at ``path`` serialized, its graph input names, and every value name a node produces (in order).

    Read as ``convert_onnx`` reads it (a regular file; external data inside the model's folder, regular
    files, bounded before they are read), never by ``onnx.load``, which opens whatever a location names
    (a FIFO there hangs it).
    """
    from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT
    from irgraph.io.onnx.importer import read_checked

    model = read_checked(path, DEFAULT_ELEMENT_LIMIT)
    inputs = [value.name for value in model.graph.input]
    produced = [name for node in model.graph.node for name in node.output if name]
    return model.SerializeToString(), inputs, produced


def onnx_with_outputs(serialized: bytes, names: Sequence[str], max_ir_version: int | None = None) -> bytes:
    """``serialized`` with ``names`` appended to the graph outputs (untyped: the runtime infers their types).

    ``max_ir_version`` lowers the model's IR version stamp to what a runtime reads (nothing else changes).
    """
    onnx = _onnx()
    model = onnx.load_model_from_string(serialized)
    have = {value.name for value in model.graph.output}
    for name in names:
        if name not in have:
            model.graph.output.append(onnx.ValueInfoProto(name=name))
            have.add(name)
    if max_ir_version is not None and model.ir_version > max_ir_version:
        model.ir_version = max_ir_version
    return model.SerializeToString()


def _onnx():
    """The onnx module, imported here (not through the importer's helpers, so this module has no sibling to follow)."""
    try:
        import onnx
    except ImportError:
        raise MissingDependencyError("comparing with onnxruntime reads the ONNX model with the onnx package, which "
                                     "is not installed: pip install onnx (in a clone of irgraph: pip install -e "
                                     "'.[onnx]')") from None
    return onnx
