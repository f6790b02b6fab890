"""Ops irgraph runs that ONNX cannot express faithfully: each has a rule that refuses with its reason, so the
export's one message names every such layer with why (never "no export rule").

* ReadValue and Assign keep variables across runs (a KV cache); an ONNX graph is a function of its inputs
  and has no variables. ``export_onnx(..., stateless=True)`` (``ir-convert --stateless``) exports the stateless
  form instead, each variable an input and an output (``irgraph.io.onnx.stateless``).
* RandomUniform and Multinomial: ONNX's RandomUniform and Multinomial draw from generators of their own
  (onnxruntime's is neither OpenVINO's Philox nor its mt19937 stream), so the exported model would give
  other numbers than irgraph and OpenVINO for the same seeds, and onnxruntime's seedless ones other numbers
  at every run. Exporting anyway would break the one promise an export makes (equal outputs) with nothing
  in the file to say so; a user who wants fresh randomness can feed it as an input.
* Inverse has no ai.onnx op (onnxruntime's ``com.microsoft.Inverse`` is a contrib op other runtimes lack).
* ROIAlignRotated and PSROIPooling have no ai.onnx op.
"""

from __future__ import annotations

from typing import Any

from irgraph.graph import Node
from irgraph.io.onnx.export_rules.registry import ExportContext, refuses
from irgraph.ops.detection.psroi_pooling import PSROIPooling
from irgraph.ops.detection.roi_align_rotated import ROIAlignRotated
from irgraph.ops.generation.multinomial import Multinomial
from irgraph.ops.generation.random_uniform import RandomUniform
from irgraph.ops.infrastructure.assign import Assign3, Assign6
from irgraph.ops.infrastructure.read_value import ReadValue3, ReadValue6
from irgraph.ops.matrix.inverse import Inverse

STATE_REFUSAL = (
    "a stateful model's variables (ReadValue/Assign) have no ONNX form: an ONNX graph keeps no state between runs; "
    "export it stateless (ir-convert --stateless, export_onnx(..., stateless=True)): each variable becomes a graph "
    "input and output, as optimum's ONNX exports have the KV cache (past_key_values.N.key in, present.N.key out)")
"""Said once for every ReadValue and Assign of the model (and inside a sub-graph body, where --stateless does
not reach)."""


@refuses(ReadValue3, ReadValue6, Assign3, Assign6)
def state(node: Node, op: Any, ctx: ExportContext) -> list:
    """Refused: model state."""
    if ctx.stateless:
        raise ctx.refuse("a variable read or written inside a sub-graph body has no stateless form: --stateless "
                         "makes the main graph's variables graph inputs and outputs; an ONNX If or Loop body "
                         "cannot add graph inputs")
    raise ctx.refuse(STATE_REFUSAL)


@refuses(RandomUniform, Multinomial)
def random(node: Node, op: Any, ctx: ExportContext) -> list:
    """Refused: another generator's numbers."""
    raise ctx.refuse(f"ONNX's {op.type_name} draws other numbers than OpenVINO's generator for the same seeds "
                     "(onnxruntime has neither Philox nor mt19937), so the export would not compute irgraph's "
                     "values; feed the random values as an input instead")


@refuses(Inverse)
def inverse(node: Node, op: Any, ctx: ExportContext) -> list:
    """Refused: no ai.onnx op."""
    raise ctx.refuse("ai.onnx has no matrix inverse (onnxruntime's com.microsoft.Inverse is a contrib op other "
                     "runtimes lack)")



@refuses(ROIAlignRotated, PSROIPooling)
def no_onnx_op(node: Node, op: Any, ctx: ExportContext) -> list:
    """Refused: no ai.onnx op."""
    what = {"ROIAlignRotated": "rotated ROI align", "PSROIPooling": "position-sensitive ROI pooling"}[op.type_name]
    raise ctx.refuse(f"ai.onnx has no {what} op")
