"""GridSample-9: NCHW data sampled at the normalised (x, y) points of a grid ``[N, H_out, W_out, 2]``.

Values follow OpenVINO's reference (``reference/grid_sample.hpp``) in its order of operations:

- coordinates are denormalised in the grid's type: ``(g + 1) * (L - 1) / 2`` with ``align_corners``,
  ``((g + 1) * L - 1) / 2`` without;
- taps are integer indices: ``static_cast<long>(floor(c))`` and the next one for bilinear, four from
  ``floor(c) - 1`` for bicubic, ``std::lrint`` (ties to even) for nearest; NaN and coordinates beyond
  the int64 range give INT64_MIN, as x86's conversions do;
- padding applies to each tap's index: zeros reads 0 outside, border clamps, reflection mirrors the
  index (about the edge pixels' centres with ``align_corners``, their outer borders without). This
  differs from PyTorch and ONNX, which reflect the coordinate before interpolating;
- bilinear weights are the coordinates' fractions cast to the data's type, blended as
  ``dy * q1 + (1 - dy) * q0``; bicubic weights are Keys' coefficients (A = -0.75) in the grid's type,
  each product summed into an accumulator of the data's type (``std::inner_product``), rows then
  columns.

f32 data with an f32 grid is bit for bit OpenVINO's reference (openvino 2026.4.1 folds that pair
only). f16 and bf16 data and grids compute in f32 (the data's result rounded once), f64 in f64. Integer
and boolean data run in nearest mode (pure data movement); for bilinear and bicubic OpenVINO has no
reference kernel and its CPU plugin truncates i32 but rounds and saturates i8/u8, so irgraph refuses
them. Every output point at once: one gather per tap (1 nearest, 4 bilinear, 16 bicubic).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.families.resampling import cubic_coefficients
from irgraph.ops.numeric import round_float, truncate_to_int
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked, shape_text
from irgraph.ops.registry import register

MODES = ("bilinear", "bicubic", "nearest")
PADDING_MODES = ("zeros", "border", "reflection")


def _compute_dtype(dtype: np.dtype) -> type[np.floating]:
    """f64 stays f64; every other float (f16, bf16, f8) computes in f32."""
    return np.float64 if dtype == np.float64 else np.float32


@dataclass(frozen=True)
class _Taps:
    """Reads data at integer (y, x) indices under a padding mode, for every output point and channel."""

    pixels: np.ndarray
    """The data as ``[N * H * W, C]`` rows (NHWC), so one ``take`` reads a tap for every channel."""
    batch: int
    height: int
    width: int
    padding_mode: str
    align_corners: bool

    @classmethod
    def of(cls, data: np.ndarray, padding_mode: str, align_corners: bool) -> _Taps:
        """Taps of ``data`` ``[N, C, H, W]``."""
        n, c, h, w = data.shape
        return cls(np.moveaxis(data, 1, -1).reshape(n * h * w, c), n, h, w, padding_mode, align_corners)

    def read(self, y: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Values ``[N, H_out, W_out, C]`` at int64 indices ``y``, ``x`` ``[N, H_out, W_out]``."""
        if not self.pixels.size:  # no channel, or no pixel: zeros padding reads only zeros (evaluate refuses others)
            return np.zeros((*y.shape, self.pixels.shape[1]), self.pixels.dtype)
        if self.padding_mode == "zeros":
            inside = (y >= 0) & (x >= 0) & (y < self.height) & (x < self.width)
            values = self._take(np.where(inside, y, 0), np.where(inside, x, 0))
            return np.where(inside[..., None], values, np.zeros((), self.pixels.dtype))
        if self.padding_mode == "border":
            return self._take(np.clip(y, 0, self.height - 1), np.clip(x, 0, self.width - 1))
        return self._take(self._reflect(y, self.height, "y"), self._reflect(x, self.width, "x"))

    def _reflect(self, index: np.ndarray, length: int, axis: str) -> np.ndarray:
        """OpenVINO's integer reflection of one axis's indices."""
        if not self.align_corners:  # ((i % 2L) + 2L) % 2L, mirrored past L: a floor modulo
            folded = index % (2 * length)
            return np.where(folded >= length, 2 * length - 1 - folded, folded)
        span = 1 if length == 1 else 2 * (length - 1)
        folded = np.fmod(np.abs(index), span)  # std::abs then C's %: abs(INT64_MIN) stays negative
        mirrored = np.where(folded >= length, span - folded, folded)
        if (mirrored < 0).any():
            raise OpError(f"GridSample reflection with align_corners: a grid {axis} that is NaN, infinite or beyond "
                          "the int64 range has no reflection (OpenVINO's reference reads outside the data there); "
                          "irgraph refuses it")
        return mirrored

    def _take(self, y: np.ndarray, x: np.ndarray) -> np.ndarray:
        batch = np.arange(self.batch).reshape(-1, 1, 1)
        return np.take(self.pixels, (batch * self.height + y) * self.width + x, axis=0)


@register
@dataclass(frozen=True)
class GridSample(Op):
    """Data sampled at a grid's normalised points: bilinear, bicubic or nearest; zeros, border or reflection
    padding. Spec: GridSample-9."""

    type_name = "GridSample"
    introduced = 9
    inputs = Inputs.of(InputSpec("data"), InputSpec("grid"))

    align_corners: bool = attribute(False)
    mode: str = attribute("bilinear")
    padding_mode: str = attribute("zeros")

    def __post_init__(self) -> None:
        check(self.mode in MODES, f"GridSample mode must be one of {', '.join(MODES)}. Got: {self.mode!r}")
        check(self.padding_mode in PADDING_MODES,
              f"GridSample padding_mode must be one of {', '.join(PADDING_MODES)}. Got: {self.padding_mode!r}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[N, C, H_out, W_out]`` of the data's type: N merged from both inputs, C from the data, the rest from
        the grid (OpenVINO's shape_infer)."""
        data, grid = inputs
        check(grid.element_type.is_dynamic or grid.element_type.is_real,
              f"The element type of the grid input tensor must be a floating point type. Got: {grid.element_type}")
        check(data.shape.rank_is_dynamic or data.shape.rank == 4,
              f"The supported shape of the input data tensor is 4D. Got: {data.shape}")
        check(grid.shape.rank_is_dynamic or grid.shape.rank == 4,
              f"The supported shape of the grid tensor is 4D. Got: {grid.shape}")
        dims = [Dim.dynamic()] * 4
        if not grid.shape.rank_is_dynamic:
            check(grid.shape[3].compatible(Dim.static(2)),
                  f"The last dimension of grid tensor's shape has to be equal to 2. Got: {grid.shape}")
            dims[0], dims[2], dims[3] = grid.shape[0], grid.shape[1], grid.shape[2]
            if not data.shape.rank_is_dynamic:
                batch = checked(grid.shape[0].merge(data.shape[0]), "The batch dimension in the input data tensor's "
                                "shape doesn't match the batch dimension in the grid tensor's shape. Got: data "
                                f"{data.shape}, grid {grid.shape}")
                dims[0], dims[1] = batch, data.shape[1]
        elif not data.shape.rank_is_dynamic:
            dims[0], dims[1] = data.shape[0], data.shape[1]
        return [TensorType(data.element_type, Shape(tuple(dims)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The sampled data, every output point at once."""
        data, grid = inputs
        _check_arrays(data, grid)
        n, c, h, w = data.shape
        interpolates = self.mode != "nearest"
        if interpolates and data.dtype.kind not in "fV":
            raise OpError(f"GridSample {self.mode} needs floating-point data (OpenVINO's reference has no kernel for "
                          f"{data.dtype} and its CPU plugin truncates some integer types and rounds others). "
                          f"Got: {data.dtype}")
        if h * w == 0 and self.padding_mode != "zeros" and grid.shape[1] * grid.shape[2] * n * c:
            raise OpError(f"GridSample padding_mode {self.padding_mode} has no pixel to read in data of shape "
                          f"{shape_text(data.shape)}")
        coordinate = _compute_dtype(grid.dtype)
        points = grid.astype(coordinate, copy=False)
        x = self._denormalize(points[..., 0], w, coordinate)
        y = self._denormalize(points[..., 1], h, coordinate)
        if not interpolates:
            taps = _Taps.of(data, self.padding_mode, self.align_corners)
            with np.errstate(invalid="ignore"):
                sampled = taps.read(truncate_to_int(np.rint(y)), truncate_to_int(np.rint(x)))
            return [np.ascontiguousarray(np.moveaxis(sampled, -1, 1))]
        blend = _compute_dtype(data.dtype)
        taps = _Taps.of(data.astype(blend, copy=False), self.padding_mode, self.align_corners)
        with np.errstate(all="ignore"):
            sampled = self._bilinear(taps, y, x, blend) if self.mode == "bilinear" else self._bicubic(taps, y, x, blend)
        return [round_float(np.ascontiguousarray(np.moveaxis(sampled, -1, 1)), data.dtype)]

    def _denormalize(self, normalised: np.ndarray, length: int, dtype: type[np.floating]) -> np.ndarray:
        one, two, size = dtype(1), dtype(2), dtype(length)
        with np.errstate(all="ignore"):
            if self.align_corners:
                return (normalised + one) * (size - one) / two
            return ((normalised + one) * size - one) / two

    @staticmethod
    def _bilinear(taps: _Taps, y: np.ndarray, x: np.ndarray, blend: type[np.floating]) -> np.ndarray:
        """Four taps; the fractions cast to the data's type weight them."""
        top, left = np.floor(y), np.floor(x)
        dy, dx = (y - top).astype(blend)[..., None], (x - left).astype(blend)[..., None]
        row0, col0 = truncate_to_int(top), truncate_to_int(left)
        row1, col1 = truncate_to_int(top + y.dtype.type(1)), truncate_to_int(left + x.dtype.type(1))
        one = blend(1)
        q0 = (one - dx) * taps.read(row0, col0) + dx * taps.read(row0, col1)
        q1 = (one - dx) * taps.read(row1, col0) + dx * taps.read(row1, col1)
        return dy * q1 + (one - dy) * q0

    @staticmethod
    def _bicubic(taps: _Taps, y: np.ndarray, x: np.ndarray, blend: type[np.floating]) -> np.ndarray:
        """Sixteen taps; each row's four products summed into the data's type, then the rows likewise."""
        top, left = np.floor(y), np.floor(x)
        a = np.float32(-0.75)
        row_weights = [w[..., None] for w in cubic_coefficients(y - top, a)]
        column_weights = [w[..., None] for w in cubic_coefficients(x - left, a)]
        first_row = truncate_to_int(top - y.dtype.type(1))
        first_column = truncate_to_int(left - x.dtype.type(1))
        product = np.promote_types(y.dtype, blend).type

        def accumulate(total: np.ndarray, weight: np.ndarray, value: np.ndarray) -> np.ndarray:
            return (total.astype(product) + weight.astype(product) * value.astype(product)).astype(blend)

        result = np.zeros((*y.shape, taps.pixels.shape[1]), blend)
        for j in range(4):
            row = np.zeros_like(result)
            for i in range(4):
                row = accumulate(row, column_weights[i], taps.read(first_row + j, first_column + i))
            result = accumulate(result, row_weights[j], row)
        return result


def _check_arrays(data: np.ndarray, grid: np.ndarray) -> None:
    check(data.ndim == 4, f"The supported shape of the input data tensor is 4D. Got: {shape_text(data.shape)}")
    check(grid.ndim == 4 and grid.shape[3] == 2,
          f"The grid must be 4D with 2 in its last dimension. Got: {shape_text(grid.shape)}")
    check(data.shape[0] == grid.shape[0], "The batch dimension in the input data tensor's shape doesn't match the "
          f"batch dimension in the grid tensor's shape. Got: data {shape_text(data.shape)}, grid "
          f"{shape_text(grid.shape)}")
