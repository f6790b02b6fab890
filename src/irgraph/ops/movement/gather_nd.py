"""GatherND-5 and GatherND-8: gather slices of ``data`` by index tuples."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked
from irgraph.ops.registry import register


@dataclass(frozen=True)
class _GatherND(Op):
    """Both versions: the last dim of ``indices`` (k) indexes the first k dims of ``data`` after
    ``batch_dims`` shared leading dims. GatherND-5 flattens the batch dims of the output into one;
    GatherND-8 keeps them. A negative index counts from the end; one out of range is an error (the
    reference would read out of bounds). Advanced indexing, no loops."""

    type_name = "GatherND"
    inputs = Inputs.of(InputSpec("data"), InputSpec("indices"))

    batch_dims: int = attribute(0)
    flattens_batch = True

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``batch + indices[batch:-1] + data[batch + k:]``."""
        data, indices = inputs
        check(indices.element_type.is_integral or indices.element_type.is_dynamic,
              f"The indices type is expected to be an integer type. Got: {indices.element_type}")
        if data.shape.rank_is_dynamic or indices.shape.rank_is_dynamic or indices.shape[-1].is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        batch = self.batch_dims
        check(data.shape.rank > 0, "Data rank must be at least 1.")
        check(indices.shape.rank > 0, "Indices rank must be at least 1.")
        check(batch < min(data.shape.rank, indices.shape.rank),
              "The batch_dims must be less than the minimum of the data and indices ranks. Got: "
              f"{batch}, {data.shape.rank}, {indices.shape.rank}")
        depth = indices.shape[-1].value
        check(depth <= data.shape.rank - batch,
              "Length of a tuple with indices must not exceed a rank of data tensor excluding batch dimensions.")
        data_dims, index_dims = list(data.shape), list(indices.shape)  # both ranks are known here
        batch_dims = [checked(a.merge(b), "Batch dimensions of data and indices must be the same.")
                      for a, b in zip(data_dims[:batch], index_dims[:batch], strict=True)]
        if self.flattens_batch and batch:
            count = math.prod(d.min for d in batch_dims)
            bounded = [d.max for d in batch_dims if d.max is not None]
            high = math.prod(bounded) if len(bounded) == len(batch_dims) else None
            batch_dims = [Dim(count, high)]
        dims = (*batch_dims, *index_dims[batch:-1], *data_dims[batch + depth:])
        return [TensorType(data.element_type, Shape(tuple(dims)))]

    def _shape(self, data: np.ndarray, indices: np.ndarray) -> tuple[int, ...]:
        batch = self.batch_dims
        check(data.ndim > 0 and indices.ndim > 0, "Data rank and indices rank must be at least 1.")
        check(batch < min(data.ndim, indices.ndim),
              "The batch_dims must be less than the minimum of the data and indices ranks. Got: "
              f"{batch}, {data.ndim}, {indices.ndim}")
        check(indices.shape[-1] <= data.ndim - batch,
              "Length of a tuple with indices must not exceed a rank of data tensor excluding batch dimensions.")
        check(data.shape[:batch] == indices.shape[:batch], "Batch dimensions of data and indices must be the same.")
        lead = (math.prod(data.shape[:batch]),) if self.flattens_batch and batch else data.shape[:batch]
        return (*lead, *indices.shape[batch:-1], *data.shape[batch + indices.shape[-1]:])

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Advanced indexing on ``data`` viewed as (batch, *rest)."""
        data, indices = np.asarray(inputs[0]), np.asarray(inputs[1])
        check(indices.dtype.kind in "iu", f"The indices type is expected to be an integer type. Got: {indices.dtype}")
        shape = self._shape(data, indices)
        batch, depth = self.batch_dims, indices.shape[-1]
        count = math.prod(data.shape[:batch])
        sizes = np.array(data.shape[batch:batch + depth], np.int64)
        tuples = math.prod(indices.shape[batch:-1])  # not -1: an index tuple may be empty (depth 0)
        flat = indices.reshape(count, tuples, depth).astype(np.int64)
        wrapped = np.where(flat < 0, flat + sizes, flat)
        if wrapped.size and ((wrapped < 0) | (wrapped >= sizes)).any():
            raise OpError(f"GatherND index out of range: indices must lie in [-size, size) of data dims "
                          f"{list(data.shape[batch:batch + depth])}")
        if math.prod(shape) == 0:
            return [np.empty(shape, data.dtype)]
        cube = data.reshape(count, *data.shape[batch:])
        # An empty index tuple picks the whole slice (the spec; OpenVINO 2026.4.1's CPU plugin returns
        # uninitialised memory and its reference does not fold it): NumPy's cube[b][()] is exactly that.
        rows = np.broadcast_to(np.arange(count)[:, None], (count, tuples))
        picked = cube[(rows, *(wrapped[..., j] for j in range(depth)))]
        return [picked.reshape(shape)]


@register
@dataclass(frozen=True)
class GatherND(_GatherND):
    """GatherND-5: the output's batch dims flattened into one."""

    introduced = 5


@register
@dataclass(frozen=True)
class GatherND8(_GatherND):
    """GatherND-8: the output keeps the batch dims."""

    introduced = 8
    flattens_batch = False
