"""Fourier transforms: DFT-7, IDFT-7, RDFT-9 and IRDFT-9 as one ONNX DFT per transformed axis, STFT-15 as ONNX STFT.

ONNX's DFT (17: ``axis`` an attribute; 20: an input) transforms one axis of ``[..., 1]`` (real) or ``[..., 2]``
(complex) data, zero-padding or trimming it to ``dft_length``, the inverse divided by the length as IDFT-7's. A
transform over several axes is separable, and padding one axis commutes with transforming another, so IR's "resize
every axis, then transform each" is one DFT per axis with that axis' signal size as its ``dft_length`` (-1: none).

* DFT-7 and IDFT-7: a complex DFT per axis (``inverse`` for IDFT), the highest axis first, as the reference;
* RDFT-9: the real data Unsqueezed to ``[..., 1]``, a ``onesided`` DFT over the last listed axis (its half spectrum),
  then a complex DFT over each other axis;
* IRDFT-9: an inverse DFT over each axis but the last listed one; that one extended to the Hermitian-symmetric
  spectrum of length ``n`` exactly as OpenVINO's reference extends it (its first ``n // 2 + 1`` values, their
  conjugates mirrored, zeros past the data: one Gather of the data, its conjugate and a zero), inverse-transformed,
  and its real part kept. ONNX's own one-sided inverse (DFT-20 ``onesided=1, inverse=1``) is not used: it does not
  exist in DFT-17, and the explicit extension is the reference's rule where the input is shorter than ``n // 2 + 1``.

OpenVINO computes f16 and bf16 in f32 and rounds once: the export Casts to f32 around the transforms likewise.
Axes and signal sizes must be computable at export (ONNX takes one axis per node; its ``dft_length`` has no -1).

STFT-15 is ONNX's STFT-17 (``onesided``): the signal as ``[batch, length, 1]``, the window centred in a frame of
``frame_size`` zeros as the reference centres it (a Pad: ONNX's window must be a frame long), the frames
Transposed after it for ``transpose_frames``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import input_rank, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.families.fft import FourierTransform
from irgraph.ops.signals.dft import DFT
from irgraph.ops.signals.idft import IDFT
from irgraph.ops.signals.irdft import IRDFT
from irgraph.ops.signals.rdft import RDFT
from irgraph.ops.signals.stft import STFT

FOURIER_OPSET = 17
"""ONNX has DFT and STFT from opset 17."""
AXIS_INPUT_OPSET = 20
"""DFT-20 takes its axis as an input, DFT-17 as an attribute."""
_NARROW = (ElementType.F16, ElementType.BF16)
_PREVIOUS = "\0previous"
"""A stage input that is the previous stage's output."""


@dataclass
class _Stage:
    op_type: str
    inputs: list[str]
    step: str
    attributes: dict[str, Any]
    output: str | None = None
    """Its output's name when a later stage reads it besides the next one (``_Chain.current``)."""


@dataclass
class _Chain:
    """The ONNX nodes of one layer as a chain of stages: each may read the previous stage's output
    (``_PREVIOUS``); the last writes the layer's output and is named after the layer."""

    ctx: ExportContext
    node: Node
    first: str
    """The tensor the first stage reads."""
    stages: list[_Stage] = field(default_factory=list)

    def add(self, op_type: str, inputs: list[str], step: str, **attributes: Any) -> None:
        self.stages.append(_Stage(op_type, inputs, step, attributes))

    def current(self) -> str:
        """The name of the chain's output so far, for a stage that reads it besides the next one."""
        if not self.stages:
            return self.first
        stage = self.stages[-1]
        stage.output = stage.output or self.ctx.temp(self.node, stage.step)
        return stage.output

    def int64(self, step: str, value: object) -> str:
        return self.ctx.initializer(self.node, step, np.asarray(value, np.int64))

    def dft(self, axis: int, length: int | None, *, inverse: bool = False, onesided: bool = False) -> None:
        """One ONNX DFT over ``axis`` (counted over the ONNX data's rank), zero-padded or trimmed to ``length``."""
        inputs = [_PREVIOUS, "" if length is None else self.int64(f"dft_length{axis}", length)]
        attributes: dict[str, Any] = {"inverse": int(inverse), "onesided": int(onesided)}
        if self.ctx.opset >= AXIS_INPUT_OPSET:
            inputs.append(self.int64(f"axis{axis}", axis))
        else:
            attributes["axis"] = axis
        while inputs[-1] == "":
            inputs.pop()
        self.add("DFT", inputs, f"dft{axis}", **attributes)

    def emit(self) -> list:
        """The nodes."""
        if not self.stages:
            self.add("Identity", [_PREVIOUS], "identity")
        made, previous = [], self.first
        for index, stage in enumerate(self.stages):
            last = index == len(self.stages) - 1
            out = self.ctx.outputs(self.node)[0] if last else stage.output or self.ctx.temp(self.node, stage.step)
            names = [previous if name == _PREVIOUS else name for name in stage.inputs]
            made.append(self.ctx.make(self.node, stage.op_type, names, [out], step=None if last else stage.step,
                                      **stage.attributes))
            previous = out
        return made


def _fourier_opset(ctx: ExportContext, op: Any) -> None:
    if ctx.opset < FOURIER_OPSET:
        raise ctx.refuse(f"ONNX has {'STFT' if isinstance(op, STFT) else 'DFT'} from opset {FOURIER_OPSET}; "
                         f"exporting opset {ctx.opset}")


def _widened(chain: _Chain, element_type: ElementType) -> None:
    """f16 and bf16 go to f32 (OpenVINO transforms them in f32 and rounds once)."""
    if element_type in _NARROW:
        chain.add("Cast", [_PREVIOUS], "f32", to=onnx_type_code(ElementType.F32))


def _narrowed(chain: _Chain, element_type: ElementType) -> None:
    if element_type in _NARROW:
        chain.add("Cast", [_PREVIOUS], "rounded", to=onnx_type_code(element_type))


def _axes_and_sizes(node: Node, op: FourierTransform, ctx: ExportContext) -> tuple[list[int], list[int | None], int]:
    """The canonical axes (over the transformed rank), each one's signal size (None: the axis' own length) and the
    transformed rank."""
    rank = input_rank(ctx, node, 0) - (1 if op.complex_input else 0)
    axes_value = ctx.static_value(node, 1)
    if axes_value is None:
        raise ctx.refuse("its axes (input 1) must be computable at export: ONNX's DFT transforms one axis per node, "
                         "named by a constant")
    axes = [int(a) for a in np.asarray(axes_value).reshape(-1)]
    if any(not -rank <= a < rank for a in axes) or len({a % rank for a in axes}) != len(axes):
        raise ctx.refuse(f"its axes {axes} are not distinct axes of a rank-{rank} signal")
    axes = [a % rank for a in axes]
    sizes: list[int | None] = [None] * len(axes)
    names = ctx.inputs(node)
    if len(names) > 2 and names[2]:
        value = ctx.static_value(node, 2)
        if value is None:
            raise ctx.refuse("its signal_size (input 2) must be computable at export: ONNX's dft_length is one scalar "
                             "per DFT node and has no -1 (keep the axis' length)")
        given = [int(s) for s in np.asarray(value).reshape(-1)]
        if len(given) != len(axes):
            raise ctx.refuse(f"its signal_size {given} does not give one size per axis {axes}")
        if any(s < 1 and s != -1 for s in given):
            raise ctx.refuse(f"its signal_size {given} makes an empty transform; ONNX's dft_length must be positive")
        sizes = [None if s == -1 else s for s in given]
    return axes, sizes, rank


@exports(DFT, IDFT)
def dft(node: Node, op: FourierTransform, ctx: ExportContext) -> list:
    """A complex DFT per axis, the highest first (module docstring)."""
    _fourier_opset(ctx, op)
    axes, sizes, _ = _axes_and_sizes(node, op, ctx)
    element_type = ctx.input_type(node, 0).element_type
    chain = _Chain(ctx, node, ctx.inputs(node)[0])
    _widened(chain, element_type)
    for axis, size in sorted(zip(axes, sizes, strict=True), reverse=True):
        chain.dft(axis, size, inverse=op.inverse)
    _narrowed(chain, element_type)
    return chain.emit()


@exports(RDFT)
def rdft(node: Node, op: RDFT, ctx: ExportContext) -> list:
    """``[..., 1]``, the one-sided DFT of the last listed axis, then a complex DFT over each other axis."""
    _fourier_opset(ctx, op)
    axes, sizes, rank = _axes_and_sizes(node, op, ctx)
    if not axes:
        raise ctx.refuse("RDFT needs at least one axis")
    element_type = ctx.input_type(node, 0).element_type
    chain = _Chain(ctx, node, ctx.inputs(node)[0])
    _widened(chain, element_type)
    chain.add("Unsqueeze", [_PREVIOUS, chain.int64("real_axis", [rank])], "real")
    chain.dft(axes[-1], sizes[-1], onesided=True)
    for axis, size in sorted(zip(axes[:-1], sizes[:-1], strict=True), reverse=True):
        chain.dft(axis, size)
    _narrowed(chain, element_type)
    return chain.emit()


def hermitian_indices(length: int, kept: int) -> np.ndarray:
    """Positions in ``[data (kept), conjugate (kept), zero]`` of OpenVINO's ``extend_to_hermitian_symmetric`` of
    the first ``kept`` values to ``length``: ``j < length // 2 + 1`` reads value j, ``length - j`` for
    ``0 < j < length - length // 2`` its conjugate; every other position (and every value past ``kept``) a zero."""
    bound = length // 2 + 1
    zero = 2 * kept
    indices = np.full(length, zero, np.int64)
    for j in range(min(bound, length)):
        indices[j] = j if j < kept else zero
    for j in range(1, min(bound, length - bound + 1)):
        indices[length - j] = kept + j if j < kept else zero
    return indices


@exports(IRDFT)
def irdft(node: Node, op: IRDFT, ctx: ExportContext) -> list:
    """Inverse DFTs over the other axes, the Hermitian extension of the last listed one (a Gather), its inverse DFT
    and the real part (module docstring)."""
    _fourier_opset(ctx, op)
    axes, sizes, rank = _axes_and_sizes(node, op, ctx)
    if not axes:
        raise ctx.refuse("IRDFT needs at least one axis")
    last = axes[-1]
    given = ctx.input_type(node, 0).shape[last]
    if not given.is_static:
        raise ctx.refuse(f"the Hermitian extension of axis {last} is placed at export, which needs its length; "
                         f"it is {given}")
    length = sizes[-1] if sizes[-1] is not None else 2 * (given.value - 1)
    kept = min(length // 2 + 1, given.value, length)
    if length < 1 or kept < 1:
        raise ctx.refuse(f"its output along axis {last} is empty (a spectrum of {given.value} values to {length}); "
                         "ONNX's DFT needs a positive length")
    element_type = ctx.input_type(node, 0).element_type
    chain = _Chain(ctx, node, ctx.inputs(node)[0])
    _widened(chain, element_type)
    for axis, size in sorted(zip(axes[:-1], sizes[:-1], strict=True), reverse=True):
        chain.dft(axis, size, inverse=True)
    if kept < given.value:
        chain.add("Slice", [_PREVIOUS, chain.int64("kept_start", [0]), chain.int64("kept_end", [kept]),
                            chain.int64("kept_axis", [last])], "kept")
    pads = np.zeros(2 * (rank + 1), np.int64)
    pads[rank + 1 + last] = 1
    spectrum = chain.current()
    chain.add("Mul", [spectrum, ctx.initializer(node, "conjugate_sign", np.asarray([1, -1], np.float32))],
              "conjugate")
    conjugate = chain.current()
    chain.add("Concat", [spectrum, conjugate], "halves", axis=last)
    chain.add("Pad", [_PREVIOUS, chain.int64("zero_pads", pads)], "zero", mode="constant")
    chain.add("Gather", [_PREVIOUS, chain.int64("hermitian", hermitian_indices(length, kept))], "extended",
              axis=last)
    chain.dft(last, None, inverse=True)
    chain.add("Gather", [_PREVIOUS, chain.int64("real_part", 0)], "real", axis=rank)
    _narrowed(chain, element_type)
    return chain.emit()


@exports(STFT)
def stft(node: Node, op: STFT, ctx: ExportContext) -> list:
    """ONNX STFT on ``[batch, length, 1]`` with the window centred in a frame (module docstring)."""
    _fourier_opset(ctx, op)
    rank = input_rank(ctx, node, 0)
    if rank not in (1, 2):
        raise ctx.refuse(f"its signal has rank {rank}; STFT-15 takes [length] or [batch, length]")
    frame_value = ctx.static_value(node, 2)
    if frame_value is None:
        raise ctx.refuse("its frame_size (input 2) must be computable at export: the window is centred in the frame "
                         "there (ONNX's window must be a frame long)")
    frame = int(np.asarray(frame_value).reshape(-1)[0])
    window_dim = ctx.input_type(node, 1).shape
    if window_dim.rank_is_dynamic or window_dim.rank != 1 or not window_dim[0].is_static:
        raise ctx.refuse(f"its window has the shape {window_dim}; centring it in the frame at export needs its length")
    window_length = window_dim[0].value
    if not 0 < window_length <= frame:
        raise ctx.refuse(f"its window of {window_length} does not fit a frame of {frame}")
    element_type = ctx.input_type(node, 0).element_type
    signal, window, _, step = ctx.inputs(node)
    made: list = []

    def add(op_type: str, inputs: list[str], step_name: str, **attributes: Any) -> str:
        out = ctx.temp(node, step_name)
        made.append(ctx.make(node, op_type, inputs, [out], step=step_name, **attributes))
        return out

    if element_type in _NARROW:
        f32 = onnx_type_code(ElementType.F32)
        signal = add("Cast", [signal], "signal_f32", to=f32)
        window = add("Cast", [window], "window_f32", to=f32)
    if window_length < frame:
        before = (frame - window_length) // 2
        pads = ctx.initializer(node, "window_pads", np.asarray([before, frame - window_length - before], np.int64))
        window = add("Pad", [window, pads], "window", mode="constant")
    axes = [0, 2] if rank == 1 else [2]
    signal = add("Unsqueeze", [signal, ctx.initializer(node, "signal_axes", np.asarray(axes, np.int64))], "signal")
    finish: list[tuple[str, dict[str, Any], list[str]]] = []
    if op.transpose_frames:
        finish.append(("Transpose", {"perm": [0, 2, 1, 3]}, []))
    if rank == 1:
        finish.append(("Squeeze", {}, [ctx.initializer(node, "batch_axis", np.asarray([0], np.int64))]))
    if element_type in _NARROW:
        finish.append(("Cast", {"to": onnx_type_code(element_type)}, []))
    current = ctx.outputs(node)[0] if not finish else ctx.temp(node, "frames")
    made.append(ctx.make(node, "STFT", [signal, step, window], [current], step="frames" if finish else None,
                         onesided=1))
    for index, (op_type, attributes, extra) in enumerate(finish):
        last = index == len(finish) - 1
        out = ctx.outputs(node)[0] if last else ctx.temp(node, op_type.lower())
        made.append(ctx.make(node, op_type, [current, *extra], [out], step=None if last else op_type.lower(),
                             **attributes))
        current = out
    return made
