"""What convolutions and poolings share: auto_pad, the dilated kernel extent, kernel-offset slices.

Shapes follow OpenVINO's ``convolution_shape_inference_util.hpp``, ``pooling_shape_inference_util.hpp``
and ``dimension_util.hpp`` with :class:`~irgraph.core.shapes.Dim`'s interval arithmetic (a dim minus a
size clamps at 0, floor and ceil division act on each bound); ``same_upper``/``same_lower`` pad a
static dim so that the output is ``ceil(dim / stride)`` (the odd unit of padding at the end for
``same_upper``, at the start for ``same_lower``) and pad a dynamic dim by nothing.

Evaluation never pads the input: for one kernel offset, the output positions whose input position
falls inside the data form one strided slice, and so do those input positions
(:func:`offset_slices`). A convolution is then one matrix product per kernel offset, accumulated
into the output; padding costs no memory, and no loop runs over output positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim
from irgraph.ops.op import check

PAD_TYPES = ("explicit", "same_upper", "same_lower", "valid", "notset")
"""OpenVINO's ``auto_pad`` values (``notset`` behaves as ``explicit``)."""
SAME = ("same_upper", "same_lower")
SizeT = TypeVar("SizeT", int, Dim)


def check_auto_pad(auto_pad: str) -> str:
    """The ``auto_pad`` value in lower case; OpenVINO's enum message when it is none of PAD_TYPES."""
    lowered = auto_pad.lower()
    if lowered not in PAD_TYPES:
        raise OpError(f"Invalid 'auto_pad' value '{auto_pad}'. Expected one of: {', '.join(PAD_TYPES)}")
    return lowered


def check_positive(values: Sequence[int], message: str) -> None:
    """Refuse zero (and negative) strides or dilations with OpenVINO's ``message`` and the values."""
    check(all(v > 0 for v in values), f"{message} ({', '.join(str(v) for v in values)})")


def dilated(kernel: SizeT, dilation: int) -> SizeT:
    """The extent of a kernel of ``kernel`` taps spaced ``dilation`` apart; on a Dim, OpenVINO's interval rule
    (``kernel - 1`` clamped at 0)."""
    return (kernel - 1) * dilation + 1


def same_padding(size: int, kernel: int, dilation: int, stride: int, upper: bool) -> tuple[int, int]:
    """(begin, end) padding of ``same_upper`` (``upper``) or ``same_lower`` for a static dim of ``size``."""
    total = max(0, (-(-size // stride) - 1) * stride + dilated(kernel, dilation) - size)
    small, large = total // 2, total - total // 2
    return (small, large) if upper else (large, small)


# ------------------------------------------------------------------------------------ evaluation
def offset_slices(
    offset: int, in_size: int, out_size: int, stride: int, pad_begin: int
) -> tuple[slice, slice] | None:
    """For one kernel tap at ``offset`` (tap index x dilation): the output positions ``o`` whose
    input position ``o * stride + offset - pad_begin`` lies in ``[0, in_size)``, and those input
    positions, as two slices of equal length; None when there are none."""
    shift = offset - pad_begin
    first = max(0, -(shift // stride))  # the smallest o with o * stride + shift >= 0
    last = min(out_size - 1, (in_size - 1 - shift) // stride)  # the largest with o * stride + shift < in_size
    if last < first:
        return None
    start = first * stride + shift
    return slice(first, last + 1), slice(start, start + (last - first) * stride + 1, stride)


def scatter_slices(
    offset: int, in_size: int, out_size: int, stride: int, pad_begin: int
) -> tuple[slice, slice] | None:
    """The transposed taps (ConvolutionBackpropData): input positions ``i`` whose output position
    ``i * stride + offset - pad_begin`` lies in ``[0, out_size)``, and those output positions."""
    return offset_slices(offset, out_size, in_size, stride, pad_begin)


def live_taps(
    kernel: int, dilation: int, in_size: int, out_size: int, stride: int, pad_begin: int, transposed: bool = False
) -> list[tuple[int, slice, slice]]:
    """The taps of one axis that reach the data, with their slices (:func:`offset_slices`, or
    :func:`scatter_slices` when ``transposed``). Only taps whose offset can land inside the data
    are looked at, so a kernel or padding of a billion costs nothing when few taps are live."""
    if transposed:  # output p = i * stride + k * dilation - pad_begin must lie in [0, out_size)
        low_offset, high_offset = pad_begin - (in_size - 1) * stride, out_size - 1 + pad_begin
    else:  # input o * stride + k * dilation - pad_begin must lie in [0, in_size)
        low_offset, high_offset = pad_begin - (out_size - 1) * stride, in_size - 1 + pad_begin
    first = max(0, -(-low_offset // dilation))
    last = min(kernel - 1, high_offset // dilation)
    slicer = scatter_slices if transposed else offset_slices
    # Each position on the moving side meets at most extent // dilation + 1 taps; when that is fewer
    # than the hull (a huge kernel with huge strides and pads), list those taps instead.
    moving, extent = (in_size, out_size) if transposed else (out_size, in_size)
    candidates: range | list[int] = range(first, last + 1)
    if moving * (extent // dilation + 1) < len(candidates):
        found_taps: set[int] = set()
        for position in range(moving):
            base = pad_begin - position * stride  # tap offsets k * dilation in [base, base + extent)
            found_taps.update(range(max(first, -(-base // dilation)), min(last, (base + extent - 1) // dilation) + 1))
        candidates = sorted(found_taps)
    taps = []
    for tap in candidates:
        found = slicer(tap * dilation, in_size, out_size, stride, pad_begin)
        if found is not None:
            taps.append((tap, *found))
    return taps


def tap_counts(kernel: int, dilation: int, stride: int, pad_begin: int, out_size: int, low: int, high: int) -> Any:
    """Per output position of one axis, how many of its taps land in ``[low, high)`` (O(out_size))."""
    import numpy as np

    starts = np.arange(out_size, dtype=np.int64) * stride - pad_begin
    first = np.maximum(0, -((starts - low) // dilation))  # ceil((low - start) / dilation)
    last = np.minimum(kernel - 1, (high - 1 - starts) // dilation)
    return np.maximum(0, last - first + 1)
