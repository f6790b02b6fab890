"""TopK-1, TopK-3, TopK-11: the k largest or smallest elements along an axis, and their indices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, PartialValue, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values, normalize_axis
from irgraph.ops.registry import register

MODES = ("max", "min")
SORTS = ("value", "index", "none")
INDEX_TYPES = (ElementType.I32, ElementType.I64)


def order_key(data: np.ndarray, largest: bool) -> np.ndarray:
    """Values whose ascending order is the wanted order: the values themselves for ``min``; for ``max``
    their negation (floats; -0.0 and 0.0 stay equal) or bitwise complement (integers: exact, no overflow)."""
    if not largest:
        return data
    if data.dtype.kind == "f" or data.dtype.kind == "V":
        return -data.astype(np.float64) if data.dtype.itemsize < 4 else -data
    return ~data


@dataclass(frozen=True)
class TopKBase(Op):
    """Shared rule of every TopK version; the versions differ in the k types they take and ``stable``.

    Ties are broken by the lower index first, as OpenVINO's reference does (a stable sort of the
    values); ``sort="none"`` gives the order of ``sort="index"``, as the reference does.
    """

    type_name = "TopK"
    inputs = Inputs.of(InputSpec("data"), InputSpec("k", bounds=True))
    K_TYPES: ClassVar[tuple[ElementType, ...] | None] = None
    """The element types ``k`` may have (None: any integer type)."""

    axis: int = attribute()
    mode: str = attribute()
    sort: str = attribute()
    index_element_type: ElementType = attribute(ElementType.I32)

    def __post_init__(self) -> None:
        check(self.mode in MODES, f"Attribute 'mode' must be one of max, min. Got: {self.mode!r}")
        check(self.sort in SORTS, f"Attribute 'sort' must be one of value, index, none. Got: {self.sort!r}")
        check(self.index_element_type in INDEX_TYPES,
              f"Index element type attribute should be either 'i32' or 'i64'. Got: {self.index_element_type}")

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Values and indices."""
        return 2

    def _check_k_type(self, element_type: ElementType) -> None:
        if element_type.is_dynamic:
            return
        if self.K_TYPES is not None:
            check(element_type in self.K_TYPES, f"K input element type must be i8, i32 or i64 (got {element_type}).")
        else:
            check(element_type.is_integral,
                  f"K input has to be an integer type, which does match the provided one:{element_type}")

    def _k(self, value: np.ndarray) -> int:
        check(np.size(value) == 1, f"K input must be a scalar. Got shape {list(np.shape(value))}")
        k = integer_values(value, "k")[0]
        check(k >= 0, f"The value of 'K' must be greater or equal to zero. (got {k}).")
        return k

    def infer(
        self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | PartialValue | None]
    ) -> list[TensorType]:
        """The data shape with the axis dim replaced by k (k itself, even beyond the dim, as OpenVINO
        infers; running refuses it); with k known by its bounds (``min(n, 300)`` in detection
        exports), ``min(dim.min, k.min) .. min(dim.max, k.max)`` as openvino 2026.4.1 infers (unbounded
        when the dim is); with k unknown, ``[0, dim.max]``."""
        data, k_type = inputs
        self._check_k_type(k_type.element_type)
        check(k_type.shape.rank_is_dynamic or k_type.shape.rank == 0 or
              (k_type.shape.rank == 1 and k_type.shape[0].contains(1)),
              f"The 'K' input must be a scalar. Got: {k_type.shape}")
        indices = self.index_element_type
        if data.shape.rank_is_dynamic:
            return [data, TensorType(indices, data.shape)]
        check(data.shape.rank > 0, "TopK 'data' input must have rank >= 1. Got a scalar")
        axis = normalize_axis(self.axis, data.shape.rank)
        k_value = values[1] if len(values) > 1 else None
        if isinstance(k_value, PartialValue):
            dim = _bounded_k(data.shape[axis], k_value)
        elif k_value is not None:
            dim = Dim.static(self._k(k_value))
        else:
            dim = Dim(0, data.shape[axis].max)
        shape = data.shape.replace(axis, dim)
        return [TensorType(data.element_type, shape), TensorType(indices, shape)]

    def _axis_and_k(self, inputs: Sequence[np.ndarray]) -> tuple[int, int]:
        data, k_value = inputs
        check(data.ndim > 0, "TopK 'data' input must have rank >= 1. Got a scalar")
        axis = normalize_axis(self.axis, data.ndim)
        k = self._k(k_value)
        check(k <= data.shape[axis],
              f"TopK: 'k' must not exceed the size of the data along axis {axis}. Got k={k} and the dim "
              f"{data.shape[axis]} (openvino 2026.4.1 reads past the data there)")
        return axis, k

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The data shape with k along the axis."""
        axis, k = self._axis_and_k(inputs)
        shape = inputs[0].shape[:axis] + (k,) + inputs[0].shape[axis + 1:]
        return [shape, shape]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """A stable argsort of the order key, its first k positions, reordered by index if asked."""
        data = inputs[0]
        axis, k = self._axis_and_k(inputs)
        order = np.argsort(order_key(data, self.mode == "max"), axis=axis, kind="stable")
        chosen = np.take(order, np.arange(k), axis=axis)
        if self.sort != "value":
            chosen = np.sort(chosen, axis=axis)
        values = np.take_along_axis(data, chosen, axis=axis)
        return [values, chosen.astype(self.index_element_type.numpy_dtype)]


def _bounded_k(dim: Dim, k: PartialValue) -> Dim:
    """The output dim for a k known only by its bounds (OpenVINO's ``topk_shape_inference.hpp``)."""
    check(int(np.prod(k.shape)) == 1, f"K input must be a scalar. Got shape {list(k.shape)}")
    (k_dim,) = k.dims()
    if k_dim.is_static:
        return k_dim
    if dim.max is None:
        return Dim(min(dim.min, k_dim.min), None)
    return Dim(min(dim.min, k_dim.min), dim.max if k_dim.max is None else min(dim.max, k_dim.max))


@register
@dataclass(frozen=True)
class TopK1(TopKBase):
    """TopK-1: ``k`` of type i8, i32 or i64. Spec: TopK-1."""

    introduced = 1
    K_TYPES = (ElementType.I8, ElementType.I32, ElementType.I64)


@register
@dataclass(frozen=True)
class TopK3(TopKBase):
    """TopK-3: ``k`` of any integer type. Spec: TopK-3."""

    introduced = 3


@register
@dataclass(frozen=True)
class TopK11(TopKBase):
    """TopK-11: adds ``stable`` (irgraph is always stable: ties go to the lower index). Spec: TopK-11."""

    introduced = 11

    stable: bool = attribute(False)

    def __post_init__(self) -> None:
        super().__post_init__()
        check(not self.stable or self.sort != "none",
              "Stable sort can only be used when TopK's sorting mode is set to 'VALUE' or 'INDEX'. Got: sort='none'")
