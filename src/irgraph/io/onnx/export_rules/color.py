"""NV12toRGB/BGR-8 and I420toRGB/BGR-8: the reference's BT.601 arithmetic as element-wise ONNX nodes, in the
same order and in float32 (exact): the chroma planes (cut from the single plane when there is one) are
repeated over each 2x2 block with Reshape/Expand/Reshape, ``r = 1.164(y-16) + 1.596(v-128)``, ``g = 1.164(y-16)
- 0.391(u-128) - 0.813(v-128)``, ``b = 1.164(y-16) + 2.018(u-128)`` concatenated in RGB or BGR order and
clipped to [0, 255]; u8 rounds half away from zero, which on the clipped value is ``Floor(p + 0.5)``.
Static shapes only (the planes are cut and repeated by their sizes)."""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import Pattern, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.image.i420_to_bgr import I420toBGR
from irgraph.ops.image.i420_to_rgb import I420toRGB
from irgraph.ops.image.nv12_to_bgr import NV12toBGR
from irgraph.ops.image.nv12_to_rgb import NV12toRGB


@exports(NV12toRGB, NV12toBGR, I420toRGB, I420toBGR)
def color_convert(node: Node, op: Any, ctx: ExportContext) -> list:
    """The pattern of the module docstring."""
    shape = ctx.input_type(node, 0).shape
    if shape.rank_is_dynamic or not shape.is_static:
        raise ctx.refuse(f"its Y input has the shape {shape}; the planes are cut by static sizes")
    element_type = ctx.input_type(node, 0).element_type
    names = ctx.inputs(node)
    batch, rows, width, _ = (d.value for d in shape)
    height = rows * 2 // 3 if len(names) == 1 else rows
    half_h, half_w = height // 2, width // 2
    pattern = Pattern(ctx, node)
    made, step, int64 = pattern.made, pattern.step, pattern.int64
    f32 = onnx_type_code(ElementType.F32)

    def number(name: str, value: float) -> str:
        return ctx.initializer(node, name, np.asarray(value, np.float32))

    def rows_of(source: str, start: int, end: int, name: str) -> str:
        return step("Slice", [source, int64(f"{name}_start", [start]), int64(f"{name}_end", [end]),
                              int64(f"{name}_axis", [1])], name)

    def repeated(plane: str, channels: int, name: str) -> str:
        """[N, H/2, W/2, channels] -> [N, H, W, channels], each value over its 2x2 block."""
        blocks = step("Reshape", [plane, int64(f"{name}_blocks", [batch, half_h, 1, half_w, 1, channels])],
                      f"{name}_blocks")
        spread = step("Expand", [blocks, int64(f"{name}_spread", [batch, half_h, 2, half_w, 2, channels])],
                      f"{name}_spread")
        return step("Reshape", [spread, int64(f"{name}_shape", [batch, height, width, channels])], name)

    y = names[0] if len(names) > 1 else rows_of(names[0], 0, height, "y")
    if op.planes == 2:
        uv = names[1] if len(names) > 1 else step("Reshape", [rows_of(names[0], height, rows, "chroma"),
                                                            int64("uv_shape", [batch, half_h, half_w, 2])], "uv")
        uv = repeated(step("Cast", [uv], "uv_f32", to=f32), 2, "uv_full")
        u, v = (step("Slice", [uv, int64(f"{c}_from", [i]), int64(f"{c}_to", [i + 1]), int64(f"{c}_axis", [3])], c)
                for i, c in enumerate("uv"))
    else:
        if len(names) > 1:
            u, v = names[1], names[2]
        else:
            chroma = step("Reshape", [rows_of(names[0], height, rows, "chroma"), int64("flat", [batch, -1])],
                          "chroma_flat")
            quarter = half_h * half_w
            u, v = (step("Reshape", [step("Slice", [chroma, int64(f"{c}_from", [i * quarter]),
                                                    int64(f"{c}_to", [(i + 1) * quarter]),
                                                    int64(f"{c}_axis", [1])], f"{c}_flat"),
                                     int64(f"{c}_shape", [batch, half_h, half_w, 1])], f"{c}_plane")
                    for i, c in enumerate("uv"))
        u, v = (repeated(step("Cast", [p], f"{c}_f32", to=f32), 1, f"{c}_full") for p, c in ((u, "u"), (v, "v")))
    c = step("Sub", [step("Cast", [y], "y_f32", to=f32), number("sixteen", 16)], "c")
    d = step("Sub", [u, number("mid_u", 128)], "d")
    e = step("Sub", [v, number("mid_v", 128)], "e")
    luma = step("Mul", [number("k_y", 1.164), c], "luma")
    red = step("Add", [luma, step("Mul", [number("k_rv", 1.596), e], "red_v")], "red")
    green = step("Sub", [step("Sub", [luma, step("Mul", [number("k_gu", 0.391), d], "green_u")], "green_y"),
                         step("Mul", [number("k_gv", 0.813), e], "green_v")], "green")
    blue = step("Add", [luma, step("Mul", [number("k_bu", 2.018), d], "blue_u")], "blue")
    pixels = step("Concat", [blue, green, red] if op.bgr else [red, green, blue], "pixels", axis=3)
    clipped = step("Clip", [pixels, number("black", 0), number("white", 255)], "clipped")
    output = ctx.outputs(node)[0]
    if element_type is ElementType.U8:
        rounded = step("Floor", [step("Add", [clipped, number("half", 0.5)], "shifted")], "rounded")
        made.append(ctx.make(node, "Cast", [rounded], [output], to=onnx_type_code(element_type)))
    else:
        made.append(ctx.make(node, "Cast", [clipped], [output], to=onnx_type_code(element_type)))
    return made
