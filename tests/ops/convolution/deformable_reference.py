"""A scalar port of OpenVINO's reference kernel for DeformableConvolution (reference/deformable_convolution.hpp,
2026.4.1), the judge of irgraph's vectorised evaluation: OpenVINO 2026.4.1 neither folds nor evaluates the op.

``accumulate`` is the kernel's ``T`` for products and the sum, ``position`` for the sampling positions; the
reference interpolates in f32 (``interpolate``). With all f32 it is OpenVINO's kernel for f32 data; with f64
sums and interpolation and f16 (bf16) positions it is the exact computation of f16 (bf16) data, rounded once.
"""

from __future__ import annotations

import math

import numpy as np


def bilinear(channel: np.ndarray, x: float, y: float, pad: bool, real: type) -> float:
    """The reference's ``bilinear_interpolation`` on one channel (H, W), in ``real``."""
    height, width = channel.shape
    y1 = math.floor(y) if pad else max(math.floor(y), 0)
    x1 = math.floor(x) if pad else max(math.floor(x), 0)
    y2 = y1 + 1 if pad else min(math.ceil(y), height - 1)
    x2 = x1 + 1 if pad else min(math.ceil(x), width - 1)
    dist_x, dist_y = real(real(x) - real(x1)), real(real(y) - real(y1))
    v11 = real(channel[y1, x1]) if y1 >= 0 and x1 >= 0 else real(0)
    v21 = real(channel[y1, x2]) if y1 >= 0 and x2 < width else real(0)
    v12 = real(channel[y2, x1]) if y2 < height and x1 >= 0 else real(0)
    v22 = real(channel[y2, x2]) if y2 < height and x2 < width else real(0)
    one = real(1)
    return real((one - dist_x) * (one - dist_y) * v11 + (one - dist_x) * dist_y * v12
                + dist_x * (one - dist_y) * v21 + dist_x * dist_y * v22)


def deformable_convolution(data, offsets, filters, mask, *, strides, dilations, pads_begin, out_shape, group,
                           deformable_group, pad, accumulate=np.float32, interpolate=np.float32,
                           position=None) -> np.ndarray:
    """The kernel's loops: per batch, output channel and position, the sum over input channels and taps."""
    position = position or accumulate  # the kernel's T: positions round to the data type
    batch, channels, height, width = data.shape
    out_channels, in_per_group, kernel_y, kernel_x = filters.shape
    out_y, out_x = out_shape
    taps = kernel_y * kernel_x
    if mask is None:
        mask = np.ones((batch, deformable_group * taps, out_y, out_x), accumulate)
    per_deformable = channels // deformable_group
    result = np.zeros((batch, out_channels, out_y, out_x), accumulate)
    for n in range(batch):
        for o in range(out_channels):
            g = o // (out_channels // group)
            for oy in range(out_y):
                for ox in range(out_x):
                    total = accumulate(0)
                    for ci in range(in_per_group):
                        c = g * in_per_group + ci
                        dg = c // per_deformable
                        for fy in range(kernel_y):
                            for fx in range(kernel_x):
                                tap = fy * kernel_x + fx
                                y = position(accumulate(oy * strides[0] - pads_begin[0] + fy * dilations[0])
                                               + accumulate(offsets[n, dg * 2 * taps + 2 * tap, oy, ox]))
                                x = position(accumulate(ox * strides[1] - pads_begin[1] + fx * dilations[1])
                                               + accumulate(offsets[n, dg * 2 * taps + 2 * tap + 1, oy, ox]))
                                if pad:
                                    outside = not (-1 < int(x) < width and -1 < int(y) < height)
                                else:
                                    outside = not (0 <= x < width and 0 <= y < height)
                                if outside:
                                    continue
                                sample = accumulate(bilinear(data[n, c], float(interpolate(x)), float(interpolate(y)),
                                                             pad, interpolate))
                                weight = accumulate(filters[o, ci, fy, fx])
                                scale = accumulate(mask[n, dg * taps + tap, oy, ox])
                                total = accumulate(total + accumulate(accumulate(sample * weight) * scale))
                    result[n, o, oy, ox] = total
    return result
