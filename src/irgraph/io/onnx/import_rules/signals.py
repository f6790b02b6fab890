"""ONNX -> IR rules for the signal ops: DFT (17, 20) and STFT (17).

ONNX's DFT transforms one axis of ``[..., 1]`` (real) or ``[..., 2]`` (complex) data; IR has four ops:

* forward, ``onesided=1``, real data: the last dim squeezed, RDFT-9;
* forward, ``onesided=1``, complex data: refused (the spec has no one-sided output for complex input;
  onnxruntime refuses it, onnx.reference slices the full one);
* forward or inverse, ``onesided=0``: DFT-7 or IDFT-7, real data made complex with a zero imaginary part (Pad-12);
* inverse, ``onesided=1`` (ONNX's irfft, since onnx 1.20's node cases): IRDFT-9 and a trailing dim of 1.

``dft_length`` is the transform's signal size (zero-padding or trimming at the end, as in both), ``axis`` (an
attribute in DFT-17, an input in DFT-20: a run-time one is wrapped by the rank with FloorMod-1) the transformed
dim, never the last. IR's Fourier ops take f32,
f16 and bf16: f64 data is refused.

ONNX's STFT frames ``[batch, length, 1]`` with ``frame_step`` and a window (ones when absent) as IR's STFT-15
(``transpose_frames=false``) does when the window is as long as a frame; a shorter window differs (ONNX puts it at
the frame's start and zero-pads the frame's end, IR centres it), so it is refused, as complex signals are (IR's STFT
takes real ones). A run-time ``frame_length`` without a window gets a window of ones as long (Broadcast-3).
``onesided=0`` adds the mirrored conjugate bins: a Gather-8 of bins ``n - k``, a Multiply-1 by
``[1, -1]`` and a Concat-1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.io.onnx.import_rules.helpers import helper_layer, node_inputs, one_output, static_rank
from irgraph.io.onnx.import_rules.indexing import scalar_of
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.ops.arithmetic.floor_mod import FloorMod
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.movement.broadcast import Broadcast3
from irgraph.ops.movement.concat import Concat
from irgraph.ops.movement.gather import Gather8
from irgraph.ops.movement.pad import Pad12
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.shape.squeeze import Squeeze
from irgraph.ops.shape.unsqueeze import Unsqueeze
from irgraph.ops.signals.dft import DFT
from irgraph.ops.signals.idft import IDFT
from irgraph.ops.signals.irdft import IRDFT
from irgraph.ops.signals.rdft import RDFT
from irgraph.ops.signals.stft import STFT

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext

FOURIER_TYPES = (ElementType.F32, ElementType.F16, ElementType.BF16)
I64 = ElementType.I64


def _optional(context: ImportContext, index: int) -> str | None:
    """The name of optional input ``index``, None when absent or empty."""
    names = list(context.node.input)
    return names[index] if index < len(names) and names[index] else None


def _constant_int(context: ImportContext, name: str, what: str) -> int:
    found = context.constant(name)
    if found is None:
        raise context.fail(f"its {what} {name!r} must be a constant (IR needs it to place the transform)")
    if np.size(found[1]) != 1:
        raise context.fail(f"its {what} {name!r} must hold one value; got shape {list(np.shape(found[1]))}")
    return int(np.asarray(found[1]).reshape(()))


def _data(context: ImportContext, port: OutputPort, what: str) -> tuple[int, int]:
    """The rank and the static last dim (1: real, 2: complex) of ``port``, its type one IR's Fourier ops take."""
    tensor_type = context.type_of(port)
    rank = static_rank(port, context, what)
    last = tensor_type.shape[rank - 1] if rank else None
    if last is None or not last.is_static or last.value not in (1, 2):
        raise context.fail(f"its {what} must end in a static dim of 1 (real) or 2 (complex); got {tensor_type.shape}")
    if tensor_type.element_type not in FOURIER_TYPES:
        raise context.fail(f"its {what} is {tensor_type.element_type}; IR's Fourier ops take f32, f16 and bf16")
    return rank, last.value


def _as_complex(context: ImportContext, port: OutputPort, rank: int) -> OutputPort:
    """Real ``[..., 1]`` data as complex ``[..., 2]``: a zero imaginary part padded on (Pad-12)."""
    begin = context.const([0] * rank, I64, "pads_begin")
    end = context.const([0] * (rank - 1) + [1], I64, "pads_end")
    return helper_layer(context, Pad12(), [port, begin, end], "complex")


def _axis_port(context: ImportContext, axis: int) -> OutputPort:
    return context.const([axis], I64, "axes")


@imports("DFT", versions=(17, 20))
def dft(context: ImportContext) -> None:
    """DFT -> RDFT-9, DFT-7, IDFT-7 or IRDFT-9 (module docstring)."""
    allowed = {"inverse": "INT", "onesided": "INT"} | ({"axis": "INT"} if context.version < 20 else {})
    attributes = context.attributes(allowed)
    one_output(context)
    names = node_inputs(context, 1, 2 if context.version < 20 else 3)
    x = context.tensor(names[0])
    rank, last = _data(context, x, "input")
    inverse, onesided = bool(attributes.get("inverse", 0)), bool(attributes.get("onesided", 0))
    if onesided and not inverse and last == 2:
        raise context.fail("onesided=1 needs real data ([..., 1]) for a forward transform: the spec says a complex "
                           "input has no one-sided output (onnxruntime 1.31.1 refuses it; onnx.reference slices)")
    axis: int | None
    if context.version < 20:
        axis = attributes.get("axis", 1)
    else:
        given = _optional(context, 2)
        known = given is not None and context.constant(given) is not None
        axis = -2 if given is None else _constant_int(context, given, "axis") if known else None
    if axis is None:  # a run-time axis: FloorMod by the rank makes it IR's (-2 counts as the last signal dim)
        scalar = scalar_of(context, context.node.input[2], "axis", I64)
        wrapped = helper_layer(context, FloorMod(), [scalar, context.const(rank, I64, "rank")],
                               "axis_wrapped")
        axes = helper_layer(context, Reshape(special_zero=False),
                            [wrapped, context.const([1], I64, "one_axis")], "axes")
    else:
        if not -rank <= axis < rank - 1 or axis == -1:
            raise context.fail(f"axis {axis} must name a dim of the signal, in [{-rank}, {rank - 2}] but not -1 (the "
                               f"last dim holds the real and imaginary parts); input rank {rank}")
        axis %= rank
        axes = _axis_port(context, axis)
    length_name = _optional(context, 1)
    sizes: list[OutputPort] = []
    if length_name is not None:
        if context.constant(length_name) is not None:
            sizes = [context.const([_constant_int(context, length_name, "dft_length")], I64,
                                   "signal_size")]
        else:
            scalar = scalar_of(context, length_name, "dft_length", I64)
            sizes = [helper_layer(context, Reshape(special_zero=False),
                                  [scalar, context.const([1], I64, "one")], "signal_size")]
    if inverse and onesided:
        data = x if last == 2 else _as_complex(context, x, rank)
        signal = helper_layer(context, IRDFT(), [data, axes, *sizes], "irdft")
        context.emit(Unsqueeze(), [signal, context.const([rank - 1], I64, "last")])
        return
    if onesided and last == 1:
        real = helper_layer(context, Squeeze(), [x, context.const([rank - 1], I64, "last")], "real")
        context.emit(RDFT(), [real, axes, *sizes])
        return
    data = x if last == 2 else _as_complex(context, x, rank)
    context.emit(IDFT() if inverse else DFT(), [data, axes, *sizes])


@imports("STFT", versions=(17,))
def stft(context: ImportContext) -> None:
    """STFT -> STFT-15 (transpose_frames=false) on the squeezed signal; onesided=0 mirrors the bins (module
    docstring)."""
    attributes = context.attributes({"onesided": "INT"})
    one_output(context)
    node_inputs(context, 2, 4)
    signal = context.tensor(context.node.input[0])
    rank, last = _data(context, signal, "signal")
    if rank != 3:
        raise context.fail(f"its signal must be [batch, length, 1]; got {context.type_of(signal).shape}")
    if last != 1:
        raise context.fail("has a complex signal ([batch, length, 2]); IR's STFT-15 transforms real signals only")
    element_type = context.type_of(signal).element_type
    window_name, length_name = _optional(context, 2), _optional(context, 3)
    found = None if length_name is None else context.constant(length_name)
    frame = None if found is None or length_name is None else _constant_int(context, length_name, "frame_length")
    size: OutputPort | None = None
    window: OutputPort | None = None
    if window_name is not None:
        window = context.tensor(window_name)
        shape = context.type_of(window).shape
        if shape.rank_is_dynamic or shape.rank != 1 or not shape[0].is_static:
            raise context.fail(f"its window must be 1-D of a static length; got {shape}")
        if length_name is not None and shape[0].value != frame:
            frames = "a run-time length" if frame is None else frame
            raise context.fail(f"has a window of {shape[0].value} for frames of {frames}: ONNX puts it at the frame's "
                               "start and pads the frame's end, IR's STFT centres it; only a constant frame_length "
                               "equal to the window's converts")
        frame = shape[0].value
    elif length_name is not None and frame is None:  # a run-time frame length: a window of ones as long
        size = scalar_of(context, length_name, "frame_size", I64)
        window = helper_layer(context, Broadcast3(), [context.const(1.0, element_type, "one"),
                              helper_layer(context, Reshape(special_zero=False),
                                           [size, context.const([1], I64, "one_dim")], "window_shape")],
                              "window")
    if frame is None and size is None:
        length = context.type_of(signal).shape[1]
        if not length.is_static:
            raise context.fail(f"needs a frame length: no frame_length, no window, and the signal length is {length}")
        frame = length.value  # onnx.reference: one frame of the whole signal
    if window is None:
        window = context.const(np.ones(frame), element_type, "window")
    real = helper_layer(context, Squeeze(), [signal, context.const([2], I64, "last")], "real")
    step = scalar_of(context, context.node.input[1], "frame_step", I64)
    op = STFT(transpose_frames=False)
    if size is None:
        size = context.const(frame, I64, "frame_size")
    onesided = attributes.get("onesided", 1)
    if frame is None and not onesided:
        raise context.fail("onesided=0 needs a constant frame_length (the mirrored bins are placed at conversion)")
    bins = None if frame is None else frame // 2 + 1
    if onesided or bins == frame:
        context.emit(op, [real, window, size, step])
        return
    half = helper_layer(context, op, [real, window, size, step], "half")
    assert frame is not None and bins is not None
    mirrored_bins = context.const([frame - k for k in range(bins, frame)], I64, "mirrored_bins")
    mirrored = helper_layer(context, Gather8(), [half, mirrored_bins, context.const(2, I64, "bin_axis")],
                            "mirrored")
    conjugate = helper_layer(context, Multiply(), [mirrored, context.const([1, -1], element_type,
                                                                           "conjugate")], "conjugate")
    context.emit(Concat(axis=2), [half, conjugate])
