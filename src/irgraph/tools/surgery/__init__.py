"""Surgery on a model: static shapes, constant folding, weight (de)compression and renamed inputs and outputs.

What Polygraphy's ``surgeon sanitize``, OpenVINO's ``Model.reshape`` + ``save_model(compress_to_fp16=...)`` and
``ovc --input`` do, on the IR itself. :func:`apply` runs the steps a :class:`Plan` asks for, in the order the
result stays meaningful in (shapes first, so folding sees them static; compression last, as save_model does),
re-infers and validates the result, and returns one line per step saying what it did.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from irgraph.analysis.shape_inference import infer_shapes
from irgraph.analysis.validation import validate
from irgraph.core.errors import GraphError
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT
from irgraph.core.shapes import Shape
from irgraph.graph import Model
from irgraph.tools.surgery.compression import CompressionReport, compress_to_fp16, f16_value
from irgraph.tools.surgery.folding import FoldReport, decompress_weights, fold_constants
from irgraph.tools.surgery.names import parse_rename, rename_input, rename_output
from irgraph.tools.surgery.shapes import UNNAMED, adopt_inferred_types, reshape

__all__ = [
    "UNNAMED", "CompressionReport", "FoldReport", "Plan", "adopt_inferred_types", "apply", "compress_to_fp16",
    "decompress_weights", "f16_value", "fold_constants", "parse_rename", "rename_input", "rename_output", "reshape",
]


@dataclass
class Plan:
    """The surgery asked for; the default asks for none."""

    shapes: dict[str, Shape] = field(default_factory=dict)
    """Input name (or :data:`UNNAMED`) -> its new partial shape."""
    fold_constants: bool = False
    decompress_weights: bool = False
    compress_to_fp16: bool = False
    input_renames: list[tuple[str, str]] = field(default_factory=list)
    output_renames: list[tuple[str, str]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.shapes or self.fold_constants or self.decompress_weights or self.compress_to_fp16
                    or self.input_renames or self.output_renames)


def apply(model: Model, plan: Plan, *, element_limit: int = DEFAULT_ELEMENT_LIMIT) -> list[str]:
    """Run ``plan`` on ``model`` (in place); one line per step done. Names in ``plan.shapes`` are the model's names
    before the renames. Raises GraphError with the first error validation finds in the result."""
    done: list[str] = []
    if plan.shapes:
        changed = reshape(model, plan.shapes)
        done.append("reshaped " + ", ".join(f"{name}{shape}" for name, shape in changed))
    for old, new in plan.input_renames:
        rename_input(model, old, new)
        done.append(f"renamed input {old!r} to {new!r}")
    for old, new in plan.output_renames:
        rename_output(model, old, new)
        done.append(f"renamed output {old!r} to {new!r}")
    if plan.fold_constants:
        report = fold_constants(model, decompress_weights=plan.decompress_weights, element_limit=element_limit)
        kept = f"; {report.kept} weight decompression sub-graphs kept" if report.kept else ""
        done.append(f"folded {report.folded} layers into {report.constants} Consts{kept}")
    elif plan.decompress_weights:
        report = decompress_weights(model, element_limit=element_limit)
        done.append(f"decompressed weights: {report.folded} layers folded into {report.constants} Consts")
    if plan.compress_to_fp16:
        compressed = compress_to_fp16(model)
        done.append(f"compressed nothing to f16: {compressed.skipped}" if compressed.skipped else
                    f"compressed {compressed.compressed} Consts to f16"
                    + (f" ({compressed.kept} kept in their type: values f16 cannot hold)" if compressed.kept else ""))
    infer_shapes(model)
    adopt_inferred_types(model)
    errors = [d for d in validate(model) if d.is_error]
    if errors:
        raise GraphError(f"the model after surgery is invalid: [{errors[0].code}] {errors[0].message}",
                         errors[0].location.with_file(model.source))
    return done
