"""IR -> ONNX export rules, one per op type, registered by op class (see ``registry``).

Importing this package imports every rule module, so ``RULES`` holds them all.
"""

from irgraph.io.onnx.export_rules import (  # noqa: F401 - imported for their @exports registrations
    activations,
    adaptive,
    blocks,
    color,
    control,
    convolution,
    ctc,
    deformable,
    detection,
    elementwise,
    gather_tree,
    generation,
    image,
    indexing,
    matrix,
    matrix_nms,
    movement,
    multiclass_nms,
    nms,
    normalization,
    quantization,
    recurrent,
    reduction,
    refused,
    search,
    signals,
    sparse,
    type,
)
from irgraph.io.onnx.export_rules.registry import REFUSED, RULES, ExportContext, Rule, exports, refuses

__all__ = ["REFUSED", "RULES", "ExportContext", "Rule", "exports", "refuses"]
