"""Gather-1, Gather-7 and Gather-8: pick slices of ``data`` along an axis by index."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked, normalize_axis, scalar_integer, shape_text
from irgraph.ops.registry import register


@dataclass(frozen=True)
class _Gather(Op):
    """Every version, as OpenVINO's one reference runs them: a negative index counts from the end
    of the axis once, and an index still outside ``[0, axis size)`` gives zeros (OpenVINO 2026.4.1's
    reference fills the output with zeros first and skips such indices; irgraph does the same, in
    every version, rather than refuse a model OpenVINO runs)."""

    type_name = "Gather"
    inputs = Inputs.of(InputSpec("data"), InputSpec("indices"), InputSpec("axis"))
    bound_inputs = (0,)

    def index_count(self, port: int, inputs: Sequence[TensorType | None], values: Sequence[np.ndarray | None]
                    ) -> int | None:
        """The indices (input 1) pick among the ``axis`` dim of data: its size when static."""
        data, axis = inputs[0], values[2]
        if port != 1 or data is None or axis is None or data.shape.rank_is_dynamic or np.size(axis) != 1:
            return None
        position = int(np.reshape(axis, -1)[0])
        rank = data.shape.rank
        if not -rank <= position < rank:
            return None
        dim = data.shape[position]
        return dim.value if dim.is_static else None

    @property
    def batch(self) -> int:
        """The ``batch_dims`` attribute (0 before Gather-7)."""
        return 0

    def _batch_dims(self, indices_rank: int | None) -> int:
        batch = self.batch
        if batch < 0:
            batch += checked(indices_rank, "batch_dims < 0 needs a static indices rank")
            check(batch >= 0,
                  f"The batch_dims must be >= -indices_rank. Got: {self.batch}, indices rank {indices_rank}")
        elif indices_rank is not None and batch > indices_rank:  # messages formatted only on failure
            raise OpError(f"The batch_dims must be <= indices_rank. Got: batch_dims = {batch}, indices_rank = "
                          f"{indices_rank}")
        return batch

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``data[:axis] + indices[batch_dims:] + data[axis+1:]``; batch dims merged."""
        data, indices, axis = inputs
        check(
            indices.element_type.is_integral or indices.element_type.is_dynamic,
            f"Indices element type must be of an integral number type. Got: {indices.element_type}",
        )
        check(
            axis.element_type.is_integral or axis.element_type.is_dynamic,
            f"Axis element type must be of an integral number type. Got: {axis.element_type}",
        )
        check(
            axis.shape.rank_is_dynamic or axis.shape.rank == 0 or (axis.shape.rank == 1 and axis.shape[0].contains(1)),
            f"Axis input must be scalar or have 1 element. But instead got axis_shape = {axis.shape}",
        )
        indices_rank = None if indices.shape.rank_is_dynamic else indices.shape.rank
        batch = self._batch_dims(indices_rank)
        if values[2] is None or data.shape.rank_is_dynamic or indices.shape.rank_is_dynamic:
            if data.shape.rank_is_dynamic or indices.shape.rank_is_dynamic:
                return [TensorType(data.element_type, DYNAMIC_RANK)]
            rank = data.shape.rank + indices.shape.rank - 1 - batch
            return [TensorType(data.element_type, Shape.dynamic(rank))]
        index = self._axis(values[2], data.shape.rank, batch)
        dims = list(data.shape)
        index_dims = list(indices.shape)
        for i in range(batch):
            dims[i] = checked(
                dims[i].merge(index_dims[i]),
                f"Data and indices batch dims must be equal. Got: data shape {data.shape}, indices shape "
                f"{indices.shape}, batch_dims {batch}",
            )
        shape = Shape((*dims[:index], *index_dims[batch:], *dims[index + 1:]))
        return [TensorType(data.element_type, shape)]

    def _axis(self, value: np.ndarray, rank: int, batch: int) -> int:
        if np.size(value) != 1:
            raise OpError(f"Axis input must be scalar or have 1 element. Got: {np.size(value)} elements")
        axis = scalar_integer(np.reshape(value, ()), "axis")
        index = normalize_axis(axis, rank)
        if batch > index:
            raise OpError(f"The batch_dims must be <= axis. But instead got: batch_dims = {batch}, axis = {axis}")
        return index

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The gathered shape."""
        data, indices, axis = inputs
        batch = self._batch_dims(np.ndim(indices))
        index = self._axis(axis, np.ndim(data), batch)
        return [(*np.shape(data)[:index], *np.shape(indices)[batch:], *np.shape(data)[index + 1:])]

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """For static shapes, a constant axis and no batch dims: ``np.take`` along the axis, one NumPy call (an
        embedding's rows). Its negative indices count from the end as the reference's do; an index out of range
        makes it raise, and ``evaluate`` then gives the reference's zeros."""
        data, indices = inputs[0], inputs[1]
        if constants[2] is None or not (data.shape.is_static and indices.shape.is_static and
                                        outputs[0].shape.is_static):
            return None
        index_type = np.dtype(indices.element_type.numpy_dtype or np.bool_)
        if self._batch_dims(indices.shape.rank) != 0 or not indices.element_type.is_integral or \
                not (index_type.kind == "i" or (index_type.kind == "u" and index_type.itemsize < 8)) or \
                outputs[0].shape.rank == 0 or 0 in data.shape.to_tuple() or np.size(constants[2]) != 1:
            return None
        axis = self._axis(constants[2], data.shape.rank, 0)
        evaluate = self.evaluate

        def taken(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
            try:
                return [np.take(arrays[0], arrays[1], axis=axis)]
            except IndexError:  # an index outside [-size, size)
                return evaluate(arrays)

        return taken

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Advanced indexing on ``data`` viewed as (batch, outer, axis, inner)."""
        data, indices, axis = inputs
        data, indices = np.asarray(data), np.asarray(indices)
        if indices.dtype.kind not in "iu":  # the message formatted only on failure: formatting a dtype is slow
            raise OpError(f"Indices element type must be of an integral number type. Got: {indices.dtype}")
        batch = self._batch_dims(indices.ndim)
        index = self._axis(axis, data.ndim, batch)
        if data.shape[:batch] != indices.shape[:batch]:
            raise OpError(
                f"Data and indices batch dims must be equal. Got: data shape {shape_text(data.shape)}, indices shape "
                f"{shape_text(indices.shape)}, batch_dims {batch}"
            )
        size = data.shape[index]
        if batch == 0 and indices.size and size:
            # every index in range (negatives wrapped once): np.take makes the same array with fewer NumPy calls
            # than the grid below (a decode step's ~50 Gathers of shapes and embeddings)
            wrapped = indices.astype(np.int64)
            wrapped = np.where(wrapped < 0, wrapped + size, wrapped)
            if wrapped.min() >= 0 and wrapped.max() < size:
                return [np.take(data, wrapped, axis=index)]
        out_shape = (*data.shape[:index], *indices.shape[batch:], *data.shape[index + 1:])
        batch_size = math.prod(data.shape[:batch])
        outer = math.prod(data.shape[batch:index])
        inner = math.prod(data.shape[index + 1:])
        flat = indices.reshape(batch_size, -1).astype(np.int64) if indices.size else np.zeros((batch_size, 0), np.int64)
        flat = np.where(flat < 0, flat + size, flat)
        valid = (flat >= 0) & (flat < size)
        safe = np.where(valid, flat, 0)
        if math.prod(out_shape) == 0 or size == 0:
            return [np.zeros(out_shape, data.dtype)]
        cube = data.reshape(batch_size, outer, size, inner)
        picked = cube[np.arange(batch_size)[:, None, None], np.arange(outer)[None, :, None], safe[:, None, :]]
        if not valid.all():
            picked[~np.broadcast_to(valid[:, None, :], picked.shape[:3])] = 0
        return [picked.reshape(out_shape)]


@register
@dataclass(frozen=True)
class Gather(_Gather):
    """Gather-1: scalar axis input, no batch dims."""

    introduced = 1


@register
@dataclass(frozen=True)
class Gather7(_Gather):
    """Gather-7: ``batch_dims`` (negative counts from the indices rank)."""

    introduced = 7

    batch_dims: int = attribute(0)

    @property
    def batch(self) -> int:
        """``batch_dims``."""
        return self.batch_dims


@register
@dataclass(frozen=True)
class Gather8(Gather7):
    """Gather-8: Gather-7 whose spec allows negative indices (the reference wraps them in every version)."""

    introduced = 8


