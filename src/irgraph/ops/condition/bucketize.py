"""Bucketize-3: the index of the bucket each element falls into."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register

INDEX_TYPES = (ElementType.I32, ElementType.I64)


def cpp_common_dtype(a: np.dtype, b: np.dtype) -> np.dtype:
    """The type C++ compares an ``a`` and a ``b`` in (the usual arithmetic conversions), which is how
    OpenVINO's reference compares data with buckets of another type: f16/bf16 go through float; an
    integer against a float becomes that float; integers are promoted to at least 32 bits and an
    unsigned type at least as wide as the signed one wins (-1 compares as 2**64-1 against u64)."""
    def widened(dtype: np.dtype) -> np.dtype:
        if dtype.kind in "fV":
            return np.dtype(np.float32) if dtype.itemsize < 4 else dtype
        if dtype.kind == "b" or dtype.itemsize < 4:
            return np.dtype(np.int32)
        return dtype

    a, b = widened(np.dtype(a)), widened(np.dtype(b))
    floats = [t for t in (a, b) if t.kind == "f"]
    if floats:
        return max(floats, key=lambda t: t.itemsize)
    if a.kind == b.kind:
        return max(a, b, key=lambda t: t.itemsize)
    unsigned, signed = (a, b) if a.kind == "u" else (b, a)
    return unsigned if unsigned.itemsize >= signed.itemsize else signed


@register
@dataclass(frozen=True)
class Bucketize(Op):
    """For each element, the number of bucket bounds below it (``with_right_bound``: bounds < x, so a
    value equal to a bound falls in that bound's bucket; else bounds <= x), std::lower_bound and
    std::upper_bound as OpenVINO's reference uses them (a NaN lands in bucket 0, or past the last
    bound without the right bound). Spec: Bucketize-3."""

    type_name = "Bucketize"
    introduced = 3
    inputs = Inputs.of(InputSpec("data"), InputSpec("buckets"))

    output_type: ElementType = attribute(ElementType.I64)
    with_right_bound: bool = attribute(True)

    def __post_init__(self) -> None:
        check(self.output_type in INDEX_TYPES, f"Output type must be i32 or i64. Got: {self.output_type}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data shape with ``output_type``."""
        data, buckets = inputs
        for name, tensor in (("Data", data), ("Buckets", buckets)):
            check(tensor.element_type.is_dynamic or (tensor.element_type.is_integral or tensor.element_type.is_real),
                  f"{name} input type must be numeric. Got: {tensor.element_type}")
        check(buckets.shape.rank_is_dynamic or buckets.shape.rank == 1,
              f"Buckets input must be a 1D tensor. Got: {buckets.shape}")
        return [TensorType(self.output_type, data.shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """np.searchsorted in the C++ common type of data and buckets."""
        data, buckets = inputs
        check(buckets.ndim == 1, f"Buckets input must be a 1D tensor. Got shape {list(buckets.shape)}")
        common = cpp_common_dtype(data.dtype, buckets.dtype)
        values = data.astype(common)
        side: Literal["left", "right"] = "left" if self.with_right_bound else "right"
        found = np.searchsorted(buckets.astype(common), values, side=side)
        if common.kind == "f":
            found = np.where(np.isnan(values), 0 if self.with_right_bound else buckets.size, found)
        return [np.asarray(found, dtype=self.output_type.numpy_dtype).reshape(data.shape)]
