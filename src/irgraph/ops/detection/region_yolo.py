"""RegionYolo-1: the output layer of YOLO v2 (``do_softmax``) and v3 (masked anchors): sigmoids and a softmax."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.families.elementwise import REAL
from irgraph.ops.op import UNSETTLED, Inputs, InputSpec, Op, Tolerance, attribute, check, checked, normalize_axis
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class RegionYolo(Op):
    """Input ``[N, R*(coords+classes+1), H, W]``, ``R`` regions of ``coords`` box values, an objectness and
    ``classes`` scores per position. The box's first two values (x, y) and the objectness go through a
    sigmoid; with ``do_softmax`` (YOLO v2, ``R = num``) the class scores get a softmax over the classes
    and the output is the input flattened from ``axis`` to ``end_axis``; without it (YOLO v3, ``R`` =
    the ``mask`` length) the class scores get a sigmoid too and the shape is kept.

    The sigmoid is computed in f32 as OpenVINO's reference does (``1 / (1 + exp(-x))``), the softmax in
    the element type. irgraph refuses an input whose channels are not ``R*(coords+classes+1)``, which
    OpenVINO's reference reads past (and, for v3, it fills only the first batch item). ``anchors`` are
    kept for the detector's decoding; the op does not use them. Spec: RegionYolo-1.
    """

    type_name = "RegionYolo"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"))
    tolerance = Tolerance(ulp=2)
    """exp, and the softmax's sum, differ from the C library's by an ULP or so."""

    anchors: tuple[float, ...] = attribute()
    axis: int = attribute()
    coords: int = attribute()
    classes: int = attribute()
    end_axis: int = attribute()
    num: int = attribute()
    do_softmax: bool = attribute()
    mask: tuple[int, ...] = attribute(())

    def __post_init__(self) -> None:
        check(self.coords >= 0 and self.classes >= 0 and self.num >= 0,
              f"coords, classes and num must not be negative. Got: {self.coords}, {self.classes} and {self.num}")

    @property
    def regions(self) -> int:
        """How many anchor boxes each position predicts."""
        return self.num if self.do_softmax else len(self.mask)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The flattened (v2) or re-channelled (v3) input shape."""
        (data,) = inputs
        REAL.check(data.element_type)
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        check(data.shape.rank == 4, f"Input must be a tensor of rank 4, but got {data.shape.rank}")
        shape = self._output_shape(list(data.shape))
        return [TensorType(data.element_type, shape)]

    def _output_shape(self, dims: list[Dim]) -> Shape:
        if self.do_softmax:
            axis, end = normalize_axis(self.axis, 4), normalize_axis(self.end_axis, 4)
            merged = Dim.static(1)
            for dim in dims[axis:end + 1]:
                merged = merged * dim
            return Shape((*dims[:axis], merged, *dims[end + 1:])) if axis <= end else Shape(tuple(dims))
        return Shape((dims[0], Dim.static(self.regions * (self.classes + self.coords + 1)), *dims[2:]))

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Sigmoids on x, y and the objectness (v3: the class scores too); v2: a softmax over the classes."""
        (data,) = inputs
        if data.ndim != 4:
            raise OpError(f"Input must be a tensor of rank 4, but got {data.ndim}")
        n, channels, h, w = data.shape
        entries = self.classes + self.coords + 1
        if channels != self.regions * entries:
            raise OpError(f"the input has {channels} channels; {self.regions} regions of {self.coords} coords, an "
                          f"objectness and {self.classes} classes need {self.regions * entries}")
        blocks = data.reshape(n, self.regions, entries, h * w)
        with np.errstate(all="ignore"):
            wide = blocks.astype(np.float32)
            sigmoid = (np.float32(1) / (np.float32(1) + np.exp(-wide))).astype(data.dtype)
            result = blocks.copy()
            result[:, :, :2] = sigmoid[:, :, :2]
            if self.do_softmax:
                result[:, :, self.coords] = sigmoid[:, :, self.coords]
                scores = blocks[:, :, self.coords + 1:]
                shifted = np.exp(scores - scores.max(axis=2, keepdims=True))
                result[:, :, self.coords + 1:] = shifted / shifted.sum(axis=2, keepdims=True)
            else:
                result[:, :, self.coords:] = sigmoid[:, :, self.coords:]
        (shape,) = checked(self.output_shapes([data]), UNSETTLED)
        return [result.reshape(shape)]
