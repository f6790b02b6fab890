"""MVN-1 and MVN-6: mean-variance normalization over some axes."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.families.eps_mode import EpsModeNormalization
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check, integer_values, normalize_axis
from irgraph.ops.registry import register

EPS_MODES = ("inside_sqrt", "outside_sqrt")
MVN_TOLERANCE = Tolerance(ulp=16, eps=64)
"""A mean, a subtraction that cancels near the mean, a second mean, a square root and a division:
16 ULP, or 64 eps absolutely for results near 0 (OpenVINO sums in the element type, irgraph in f64)."""


def normalize(data: np.ndarray, axes: Sequence[int], normalize_variance: bool, eps: float, inside: bool) -> np.ndarray:
    """(x - mean) [/ sqrt(var + eps) or / (sqrt(var) + eps)] over ``axes``: f64 with eps in the element type,
    rounded once."""
    if data.dtype.kind not in "fV":
        raise OpError(f"MVN on {data.dtype} is not implemented (OpenVINO's reference divides integers in their "
                      "own type)")
    with np.errstate(all="ignore"):
        return normalizer(tuple(axes), data.shape, data.dtype, normalize_variance, eps, inside)(data)


def normalizer(axes: tuple[int, ...], shape: tuple[int, ...], dtype: np.dtype, normalize_variance: bool, eps: float,
               inside: bool) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`normalize` of float data of ``shape`` and ``dtype`` over ``axes`` with everything but the values
    worked out ahead (an MVN step of static types binds it once); warnings are the caller's to silence."""
    axes = tuple(sorted(set(axes)))
    count = math.prod(shape[axis] for axis in axes)
    eps = float(np.asarray(eps, dtype=dtype))  # the reference casts eps to the element type (1e-9 is 0 in f16)

    def normalized(data: np.ndarray) -> np.ndarray:
        centered = data.astype(np.float64)  # a copy of its own: centred in place
        if axes:
            # the mean as NumPy's mean() computes it (the sum reduced, divided by the count), without its
            # Python-level argument handling
            mean = np.add.reduce(centered, axis=axes, keepdims=True)
            mean /= count
            centered -= mean
        else:
            centered[...] = 0.0
        if normalize_variance:
            squares = centered * centered
            if axes:
                variance = np.add.reduce(squares, axis=axes, keepdims=True)
                variance /= count
            else:
                variance = squares
            if inside:
                variance += eps
            scale = np.sqrt(variance, out=variance)
            if not inside:
                scale += eps
            centered /= scale
        return centered.astype(dtype)

    return normalized


def bound_normalizer(data: TensorType, axes: np.ndarray | None, output: TensorType, normalize_variance: bool,
                     eps: float, inside: bool) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
    """The ``bound_evaluate`` of MVN on float data of a static shape with constant ``axes`` (None: not constant):
    :func:`normalizer` bound once."""
    dtype = data.element_type.numpy_dtype
    if axes is None or np.asarray(axes).dtype.kind not in "iu" or not data.shape.is_static or dtype is None or \
            np.dtype(dtype).kind not in "fV" or output.shape != data.shape or output.element_type != data.element_type:
        return None
    rank = data.shape.rank
    found = [int(axis) for axis in np.asarray(axes).reshape(-1)]
    if not all(-rank <= axis < rank for axis in found):
        return None  # evaluate refuses them, saying why
    run = normalizer(tuple(axis % rank for axis in found), data.shape.to_tuple(), np.dtype(dtype),
                     normalize_variance, eps, inside)

    def normalized(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [run(arrays[0])]

    return normalized


@register
@dataclass(frozen=True)
class MVN(Op):
    """Spec: MVN-1 (opsets 2-5). Axes: ``reduction_axes`` when given, else 1.. (``across_channels``)
    or 2.. of the data; eps is added inside the square root, as OpenVINO's reference and CPU plugin do."""

    type_name = "MVN"
    introduced = 2
    inputs = Inputs.of(InputSpec("data"))
    tolerance = MVN_TOLERANCE

    eps: float = attribute()
    across_channels: bool = attribute(False)
    normalize_variance: bool = attribute(False)  # as openvino 2026.4.1 reads an MVN-1 that does not set it
    reduction_axes: tuple[int, ...] = attribute(())

    def axes(self, rank: int) -> list[int]:
        """The reduction axes for data of ``rank``."""
        if self.reduction_axes:
            for axis in self.reduction_axes:
                check(0 <= axis < rank, f"Reduction axis ({axis}) is out of bounds for data of rank {rank}")
            return list(self.reduction_axes)
        return list(range(1 if self.across_channels else 2, rank))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data type."""
        (data,) = inputs
        if not data.shape.rank_is_dynamic:
            self.axes(data.shape.rank)
        return [data]

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """:func:`normalize` bound to the static data shape (the axes come from the attributes)."""
        if not inputs[0].shape.is_static:
            return None
        return bound_normalizer(inputs[0], np.asarray(self.axes(inputs[0].shape.rank)), outputs[0],
                                self.normalize_variance, self.eps, inside=True)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Normalize over the axes."""
        (data,) = inputs
        return [normalize(data, self.axes(data.ndim), self.normalize_variance, self.eps, inside=True)]


@register
@dataclass(frozen=True)
class MVN6(EpsModeNormalization):
    """Spec: MVN-6 (opsets 6-16): the axes come as an input (negative ones count from the end);
    ``eps_mode`` puts eps inside or outside the square root."""

    type_name = "MVN"
    attribute_order = ("eps", "normalize_variance", "eps_mode")  # as OpenVINO 2026.4.1 writes it
    introduced = 6
    tolerance = MVN_TOLERANCE
    eps_modes = EPS_MODES

    normalize_variance: bool = attribute()

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data type; OpenVINO's checks of the axes input's shape (its values are checked at run time)."""
        data, axes = inputs
        if not axes.shape.rank_is_dynamic:
            check(axes.shape.rank == 1, f"Expected 1D tensor for the 'axes' input. Got: {axes.shape}")
            length = axes.shape[0]
            check(data.shape.rank_is_dynamic or not length.is_static or length.value <= data.shape.rank,
                  f"Expected rank for the 'data' input to be higher than axes shape. Got: {data.shape}")
        return [data]

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """:func:`normalize` bound to the static data shape and constant axes."""
        return bound_normalizer(inputs[0], constants[1], outputs[0], self.normalize_variance, self.eps,
                                self.mode == "inside_sqrt")

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Normalize over the axes input."""
        data, axes = inputs
        found = [normalize_axis(a, data.ndim) for a in integer_values(axes, "axes")]
        return [normalize(data, found, self.normalize_variance, self.eps, self.mode == "inside_sqrt")]
