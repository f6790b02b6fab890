"""SpaceToBatch-2 and BatchToSpace-2: spatial blocks moved into (or out of) the batch, with padding or cropping.

Both take ``data`` and three 1D integer inputs of one length per data dim: ``block_shape`` and the
pads (SpaceToBatch) or crops (BatchToSpace) at each dim's beginning and end. Shapes are known when the
three are constants (intervals divide and multiply bound by bound, as OpenVINO's rule); otherwise
every dim is dynamic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, check, integer_values


def divided(dim: Dim, divisor: int) -> Dim:
    """``dim / divisor`` as OpenVINO divides dims: exact for static ones (else the error its rule gives),
    intervals to the multiples of ``divisor`` inside them."""
    if dim.is_static:
        check(dim.value % divisor == 0,
              f"Dimension value: [ {dim.value}, {dim.value}] must be a multiple of divisor: {divisor}")
        return Dim.static(dim.value // divisor)
    return dim.divided(divisor)


@dataclass(frozen=True)
class BatchSpace(Op):
    """The shared checks: the three vectors have one shape, rank 1, one element per data dim."""

    inputs = Inputs.of(InputSpec("data"), InputSpec("block_shape"), InputSpec("begin"), InputSpec("end"))
    edges = ("pads", "pads_begin", "pads_end")
    """The word for the begin/end inputs in messages: pads or crops."""

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The output shape from the constant vectors (all dims dynamic when they are not constant)."""
        data, block, begin, end = inputs
        kind, begin_name, end_name = self.edges
        same = begin.shape.merge(end.shape)
        same = None if same is None else same.merge(block.shape)
        if same is None:
            raise OpError(f"block_shape, {begin_name} and {end_name} inputs must have the same shape. Got: "
                          f"{block.shape}, {begin.shape} and {end.shape}")
        if not same.rank_is_dynamic and same.rank != 1:  # not check(): the message reads a rank that must be known
            raise OpError(f"block_shape and {kind} inputs must have rank 1. Got: {same.rank}")
        for vector in (block, begin, end):
            if not vector.element_type.is_dynamic and not vector.element_type.is_integral:
                raise OpError(f"block_shape and {kind} inputs must have integer element type. Got: "
                              f"{vector.element_type}")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        rank = data.shape.rank
        check(rank >= 2, f"data input must have rank greater or equal than 2. Got: {rank}")
        length = same[0] if not same.rank_is_dynamic else Dim.dynamic()
        check(not length.is_static or length.value == rank,
              f"block_shape and {kind} inputs must have same number of elements as data input rank. Got: {length} "
              f"and {rank}")
        block_value, begin_value, end_value = values[1:]
        if block_value is None or begin_value is None or end_value is None:
            return [TensorType(data.element_type, Shape.dynamic(rank))]
        blocks = integer_values(block_value, "block_shape")
        befores, afters = integer_values(begin_value, begin_name), integer_values(end_value, end_name)
        self.check_values(blocks, befores, afters)
        return [TensorType(data.element_type, Shape(tuple(self.output_dims(list(data.shape), blocks, befores,
                                                                            afters))))]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The output shape of these values."""
        data, *vectors = inputs
        blocks, befores, afters = self.values(data, vectors)
        dims = self.output_dims([Dim.static(s) for s in data.shape], blocks, befores, afters)
        return [tuple(d.value for d in dims)]

    def values(self, data: np.ndarray, vectors: Sequence[np.ndarray]) -> tuple[list[int], list[int], list[int]]:
        """The three vectors as ints, checked against the data."""
        _, begin_name, end_name = self.edges
        if data.ndim < 2:
            raise OpError(f"data input must have rank greater or equal than 2. Got: {data.ndim}")
        found = [integer_values(v, name) for v, name in zip(vectors, ("block_shape", begin_name, end_name),
                                                               strict=True)]
        if any(np.ndim(v) != 1 or len(f) != data.ndim for v, f in zip(vectors, found, strict=True)):
            raise OpError(f"block_shape, {begin_name} and {end_name} must be 1D with one element per data dim "
                          f"({data.ndim}); got shapes {[list(np.shape(v)) for v in vectors]}")
        self.check_values(*found)
        return found[0], found[1], found[2]

    def check_values(self, blocks: list[int], befores: list[int], afters: list[int]) -> None:
        """The op's rules for the vectors' values."""
        raise NotImplementedError

    def check_batch_dim(self, blocks: list[int], befores: list[int], afters: list[int]) -> None:
        """The spec's rule for dim 0: block 1, nothing added or removed (OpenVINO 2026.4.1 takes others, and its
        output then loses or repeats data)."""
        _, begin_name, end_name = self.edges
        check(blocks[0] == 1 and befores[0] == 0 and afters[0] == 0,
              f"block_shape[0] must be 1 and {begin_name}[0], {end_name}[0] must be 0. Got: {blocks[0]}, {befores[0]} "
              f"and {afters[0]}")

    def output_dims(self, dims: list[Dim], blocks: list[int], befores: list[int], afters: list[int]) -> list[Dim]:
        """The output dims of data dims ``dims``."""
        raise NotImplementedError


def block_product(blocks: Sequence[int]) -> int:
    """The product of the block sizes."""
    return math.prod(blocks)
