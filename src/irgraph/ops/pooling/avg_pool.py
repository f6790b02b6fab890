"""AvgPool-1, -14 and -16: the mean of each window, with or without the padding counted."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.families.convolution_kernels import widen
from irgraph.ops.families.pooling import Pooling, separable_reduce
from irgraph.ops.op import Tolerance, attribute, check
from irgraph.ops.registry import register

AVG_POOL_TOLERANCE = Tolerance(ulp=1, sum_eps=8)
"""A mean of k terms: 1 ULP (f16/bf16 rounding once) or 8 eps of the mean of the absolute terms
(the CPU plugin sums in blocks)."""


@register
@dataclass(frozen=True)
class AvgPool(Pooling):
    """Window means. Spec: AvgPool-1 (opsets 1-13; rounding floor or ceil).

    ``exclude-pad`` divides by the taps inside the data. Without it, as OpenVINO's CPU plugin does
    (openvino 2026.4.1 folds no AvgPool, so the plugin is the oracle): by the whole kernel size
    when there is any padding (after auto_pad), even for a ceil-mode window hanging past it; by
    the taps inside the data when there is none. A window holding no data element (a ceil-mode
    window past unpadded data) gives 0, as OpenVINO's reference kernel does (the 2026.4.1 CPU
    plugin gives NaN or -0.0 there, depending on the stride). f16/bf16 compute in f32; integer
    means round to nearest (ties to even).
    """

    type_name = "AvgPool"
    introduced = 1
    tolerance = AVG_POOL_TOLERANCE

    attribute_order: ClassVar[tuple[str, ...]] = (
        "kernel", "strides", "pads_begin", "pads_end", "exclude_pad", "auto_pad", "rounding_type")
    # as OpenVINO 2026.4.1 writes AvgPool-1/14

    exclude_pad: bool = attribute(False, ir_name="exclude-pad")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The pooled shape, the data's element type."""
        (data,) = inputs
        check(data.element_type is not ElementType.STRING, "AvgPool cannot take strings")
        return [TensorType(data.element_type, self.output_shape(data.shape))]

    def check_window_padding(self, axis: int, window: int, pad_begin: int, pad_end: int) -> None:
        """With ``exclude-pad`` OpenVINO refuses a window that can lie wholly in the padding (a mean of nothing)."""
        check(not self.exclude_pad or (window > pad_begin and window > pad_end),
              f"Kernel after dilation is sometimes entirely in the padding area for axis {axis} (dilated kernel "
              f"dimension: {window}, padding below dimension: {pad_begin}, padding above dimension: {pad_end}) and "
              "this is not allowed.")

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Window sums (one pass per axis) divided by the per-position counts."""
        (data,) = inputs
        geometry = self.geometry(data)
        source = widen(data)
        if source.dtype.kind in "iub":
            source = source.astype(np.float64)
        with np.errstate(all="ignore"):
            total = separable_reduce(source, geometry, np.add, 0)  # sums of rows, then of their sums: a new array
        padded = any(geometry.pads_begin) or any(geometry.pads_end)
        if self.exclude_pad or not padded:
            counts = geometry.window_counts(include_padding=False)
        else:
            counts = np.full(geometry.out_spatial, math.prod(self.kernel), dtype=np.int64)
        with np.errstate(all="ignore"):
            # In the sums' own float type, in place: a correctly rounded division either way (f32 through f64 and
            # back, as this computed before, rounds the same: 53 >= 2 * 24 + 2 bits), without f64 temporaries.
            np.divide(total, np.maximum(counts, 1).astype(total.dtype), out=total)
            if not np.all(counts > 0):
                np.copyto(total, 0, where=np.broadcast_to(counts == 0, total.shape))
            mean = total
        if data.dtype.kind in "iub":
            if data.dtype == np.bool_:
                return [mean != 0]
            info = np.iinfo(data.dtype)
            return [np.clip(np.rint(mean), info.min, info.max).astype(data.dtype)]
        return [mean.astype(data.dtype)]


@register
@dataclass(frozen=True)
class AvgPool14(AvgPool):
    """AvgPool-1 plus ``rounding_type="ceil_torch"``. Spec: AvgPool-14 (opsets 14-15)."""

    type_name = "AvgPool"
    introduced = 14
    rounding_types = ("floor", "ceil", "ceil_torch")


@register
@dataclass(frozen=True)
class AvgPool16(AvgPool14):
    """AvgPool-14 plus ``dilations``. Spec: AvgPool-16 (opset 16; what OpenVINO's ONNX frontend makes of
    every AveragePool).

    A dilated window reads every ``dilation``-th element; the divisor is the taps inside the data, or
    with ``exclude-pad="false"`` and padding the kernel size (its taps, not the dilated span), as
    OpenVINO 2026.4.1's CPU plugin computes it (its reference folds no AvgPool).
    """

    type_name = "AvgPool"
    introduced = 16
    cpu_plugin_differs = ('openvino 2026.4.1 crashes (SIGSEGV) compiling an AvgPool-16 whose dilations are empty '
                          '(dilations="", what it writes for the default); its reference evaluates no AvgPool.')
    attribute_order = (*AvgPool.attribute_order, "dilations")  # as OpenVINO 2026.4.1 writes AvgPool-16

    dilations: tuple[int, ...] = attribute(())

    @property
    def window_dilations(self) -> tuple[int, ...]:
        """The dilations (ones when the attribute is empty, as OpenVINO writes the default)."""
        return self.dilations or (1,) * len(self.kernel)
