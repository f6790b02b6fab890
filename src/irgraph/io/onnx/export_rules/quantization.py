"""FakeQuantize: the element-wise pattern of its definition (ONNX's QuantizeLinear/DequantizeLinear pair
rounds to an integer type's range and zero point, which FakeQuantize's arbitrary levels and ranges are not).

``q = Round((x - il) / (ih - il) * (levels - 1)) / (levels - 1) * (oh - ol) + ol``, then ``ol`` where
``x <= min(il, ih)`` and ``oh`` where ``x > max(il, ih)``: the same operations in the same order as irgraph
and OpenVINO's reference (ONNX's Round is half to even, as ``std::nearbyint``), so f32 and f64 data give the
same bits. f16 and bf16 data compute the second half in f32 as the reference does (its ``nearbyint`` takes
float). Integer data (C++ truncating divisions) and pdpd broadcasting are refused.
"""

from __future__ import annotations

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import Pattern, cast
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.quantization.fake_quantize import FakeQuantize


@exports(FakeQuantize)
def fake_quantize(node: Node, op: FakeQuantize, ctx: ExportContext) -> list:
    """The pattern of the module docstring."""
    element_type = ctx.input_type(node, 0).element_type
    if not element_type.is_real:
        raise ctx.refuse(f"FakeQuantize of {element_type} data (C++ integer divisions) has no exported pattern")
    if op.auto_broadcast == "pdpd":
        raise ctx.refuse("FakeQuantize with pdpd broadcasting has no exported pattern")
    pattern = Pattern(ctx, node)
    made, step = pattern.made, pattern.step
    names = ctx.inputs(node)
    for index in range(1, 5):  # irgraph converts the ranges to the data's type first
        if ctx.input_type(node, index).element_type is not element_type:
            names[index] = cast(ctx, node, names[index], element_type, f"range{index}", made)
    x, in_low, in_high, out_low, out_high = names
    dtype = element_type.numpy_dtype
    narrow = element_type in (ElementType.F16, ElementType.BF16)

    steps = ctx.initializer(node, "steps", np.asarray(op.levels - 1, dtype))
    offset = step("Sub", [x, in_low], "offset")
    width = step("Sub", [in_high, in_low], "width")
    fraction = step("Round", [step("Mul", [step("Div", [offset, width], "ratio"), steps], "scaled")], "fraction")
    span = step("Sub", [out_high, out_low], "span")
    low = out_low
    if narrow:
        fraction = cast(ctx, node, fraction, ElementType.F32, "fraction_f32", made)
        span = cast(ctx, node, span, ElementType.F32, "span_f32", made)
        low = cast(ctx, node, out_low, ElementType.F32, "low_f32", made)
        steps = ctx.initializer(node, "steps_f32", np.asarray(op.levels - 1, np.float32))
    quantized = step("Add", [step("Mul", [step("Div", [fraction, steps], "level"), span], "spread"), low],
                     "quantized")
    if narrow:
        quantized = cast(ctx, node, quantized, element_type, "quantized_narrow", made)
    below = step("LessOrEqual", [x, step("Min", [in_low, in_high], "floor")], "below")
    above = step("Greater", [x, step("Max", [in_low, in_high], "ceiling")], "above")
    upper = step("Where", [above, out_high, quantized], "upper")
    clipped = step("Where", [below, out_low, upper], "clipped")
    # The ranges may have broadcast the result's shape no wider than the data's: Expand keeps the data's shape.
    shape = step("Shape", [x], "shape")
    made.append(ctx.make(node, "Expand", [clipped, shape], ctx.outputs(node)))
    return made
