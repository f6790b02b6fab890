"""SegmentMax-16: the maximum of each segment of rows (tf.math.segment_max / torch's segment_reduce "max")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values
from irgraph.ops.registry import register

FILL_MODES = ("zero", "lowest")


@register
@dataclass(frozen=True)
class SegmentMax(Op):
    """Row ``i`` of ``data`` belongs to segment ``segment_ids[i]`` (sorted); output row ``s`` is the element-wise
    maximum of segment ``s``'s rows, or the fill (0, or the type's lowest value) for a segment without rows.
    There are ``num_segments`` segments (rows of larger ids are dropped), else the largest id + 1.

    As OpenVINO's reference (``std::max`` from the type's lowest value), NaN never becomes a maximum: a
    segment of only NaN gives the lowest value. Exact. Spec: SegmentMax-16.
    """

    type_name = "SegmentMax"
    introduced = 16
    inputs = Inputs.optional(2, InputSpec("data"), InputSpec("segment_ids"), InputSpec("num_segments"))

    fill_mode: str = attribute()

    def __post_init__(self) -> None:
        # OpenVINO writes the mode in lower case and reads it in any: kept as read
        check(self.fill_mode.lower() in FILL_MODES,
              f"fill_mode must be one of ZERO, LOWEST. Got: {self.fill_mode!r}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[num_segments, *data.shape[1:]]``, the first dim from num_segments or the ids when constant."""
        data, ids = inputs[0], inputs[1]
        if not data.shape.rank_is_dynamic:
            check(data.shape.rank > 0, "The data input cannot be a scalar.")
        check(ids.shape.rank_is_dynamic or ids.shape.rank == 1, f"segment_ids must be a 1D input. Got: {ids.shape}")
        check(ids.element_type.is_dynamic or ids.element_type.ir_name in ("i32", "i64"),
              f"segment_ids must be i32 or i64. Got: {ids.element_type}")
        if not data.shape.rank_is_dynamic and not ids.shape.rank_is_dynamic:
            check(data.shape[0].compatible(ids.shape[0]),
                  "The number of elements in segment_ids must match the first dimension of data.")
        found = None if values[1] is None else integer_values(values[1], "segment_ids")
        if found is not None:
            check(found == sorted(found), "segment_ids must be sorted.")
        first: Dim | None = None
        if len(inputs) == 3:
            count = inputs[2]
            check(count.shape.rank_is_dynamic or count.shape.rank == 0,
                  f"num_segments must be a scalar input. Got: {count.shape}")
            if values[2] is not None:
                first = Dim.static(integer_values(values[2], "num_segments")[0])
        if first is None and found is not None:
            first = Dim.static(max(found) + 1 if found else 0)
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        return [TensorType(data.element_type, data.shape.replace(0, first or Dim.dynamic()))]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """``[num_segments, *data.shape[1:]]``."""
        return [(self._count(inputs), *np.shape(inputs[0])[1:])]

    def _count(self, inputs: Sequence[np.ndarray]) -> int:
        ids = np.asarray(inputs[1])
        if len(inputs) == 3:
            return integer_values(inputs[2], "num_segments")[0]
        return int(ids.max()) + 1 if ids.size else 0

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """One ``maximum.reduceat`` over the runs of equal ids, scattered to their segments."""
        data, ids = np.asarray(inputs[0]), np.asarray(inputs[1])
        if data.ndim == 0 or ids.ndim != 1 or ids.shape[0] != data.shape[0]:
            raise OpError(f"segment_ids {list(ids.shape)} must be 1D with one id per row of data {list(data.shape)}")
        if ids.dtype.kind not in "iu":
            raise OpError(f"segment_ids must be i32 or i64. Got: {ids.dtype}")
        if ids.size and (np.any(ids[1:] < ids[:-1]) or ids[0] < 0):
            raise OpError(f"segment_ids must be sorted and not negative. Got: {ids.tolist()}")
        count = self._count(inputs)
        if count < 0:
            raise OpError(f"num_segments must not be negative. Got: {count}")
        lowest = np.finfo(data.dtype).min if data.dtype.kind == "f" else np.iinfo(data.dtype).min
        fill = data.dtype.type(0) if self.fill_mode.lower() == "zero" else lowest
        result = np.full((count, *data.shape[1:]), fill, dtype=data.dtype)
        kept = int(np.searchsorted(ids, count))  # rows of ids >= num_segments are dropped (ids are sorted)
        if kept:
            rows, segment_ids = data[:kept], ids[:kept]
            starts = np.flatnonzero(np.r_[True, segment_ids[1:] != segment_ids[:-1]])
            if data.dtype.kind == "f":
                maxima = np.fmax.reduceat(rows, starts, axis=0)  # NaN is skipped, as std::max(max, NaN) keeps max
                maxima = np.where(np.isnan(maxima), lowest, maxima)
            else:
                maxima = np.maximum.reduceat(rows, starts, axis=0)
            result[segment_ids[starts]] = maxima
        return [result]
