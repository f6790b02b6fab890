"""MatMul-1: matrix products over numpy-broadcast batch dims, with optional transposes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.families.convolution import CONVOLUTION_TOLERANCE
from irgraph.ops.families.convolution_kernels import widen
from irgraph.ops.families.elementwise import broadcast_dim
from irgraph.ops.memo import remembered
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register
from irgraph.ops.traits import OpTraits


@register
@dataclass(frozen=True)
class MatMul(Op):
    """a @ b. Spec: MatMul-1.

    ``transpose_a``/``transpose_b`` swap the last two dims of an operand of rank >= 2 (1-D operands
    ignore them). A 1-D a is a row [1, K] and a 1-D b a column [K, 1]; the added dim is dropped
    from the result. Batch dims broadcast as numpy does (intervals as OpenVINO merges them).
    f16/bf16 compute in f32 and round once; integers wrap; boolean is OR of ANDs.
    """

    traits = OpTraits(calls_blas=True)

    type_name = "MatMul"
    introduced = 1
    inputs = Inputs.of(InputSpec("a"), InputSpec("b"))
    tolerance = CONVOLUTION_TOLERANCE

    transpose_a: bool = attribute(False)
    transpose_b: bool = attribute(False)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """OpenVINO's MatMul shape rule (messages included)."""
        a, b = inputs
        element_type = a.element_type.merge(b.element_type)
        if element_type is None:
            raise OpError(f"Arguments do not have the same element type (arg0 element type: {a.element_type}, "
                          f"arg1 element type: {b.element_type}).")
        check(element_type is not ElementType.STRING, "MatMul cannot multiply strings")
        if a.shape.rank_is_dynamic or b.shape.rank_is_dynamic:
            return [TensorType(element_type, DYNAMIC_RANK)]
        return [TensorType(element_type, self.output_shape(list(a.shape), list(b.shape)))]

    def output_shape(self, a: list[Dim], b: list[Dim]) -> Shape:
        """The result dims from the two operands' dims."""
        check(len(a) > 0 and len(b) > 0, "Scalars are not supported as MatMul inputs.")
        a_row, b_column = len(a) == 1, len(b) == 1
        one = Dim.static(1)
        if a_row:
            a = [one, a[0]]
        elif self.transpose_a:
            a[-2], a[-1] = a[-1], a[-2]
        if b_column:
            b = [b[0], one]
        elif self.transpose_b:
            b[-2], b[-1] = b[-1], b[-2]
        # OpenVINO 2026.4.1 compares K only when both are static (1..3 against 4..6 passes).
        if a[-1].is_static and b[-2].is_static and a[-1] != b[-2]:  # the message built only on failure
            raise OpError(f"Incompatible MatMul matrix dimension. First input dimension={a[-1]} at "
                          f"COL_INDEX_DIM={len(a) - 1} doesn't match the second input dimension={b[-2]} at "
                          f"ROW_INDEX_DIM={len(b) - 2}")
        rank = max(len(a), len(b))
        a_batch = [one] * (rank - len(a)) + a[:-2]
        b_batch = [one] * (rank - len(b)) + b[:-2]
        batch = []
        for index, (x, y) in enumerate(zip(a_batch, b_batch, strict=True)):
            dim = broadcast_dim(x, y)
            if dim is None:  # OpenVINO 2026.4.1 refuses two static dims only; 2 against 4.. gives ?
                if x.is_static and y.is_static:
                    raise OpError(f"Incompatible MatMul batch dimension. Can't merge first input dimension={x} with "
                                  f"second input dimension={y} at index={index}")
                dim = Dim.dynamic()
            batch.append(dim)
        dims = [*batch] + ([] if a_row else [a[-2]]) + ([] if b_column else [b[-1]])
        return Shape(tuple(dims))

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """``evaluate`` of two static f32 (or f64) matrices or stacks of them: the product, its shape settled."""
        a, b = inputs
        if not (a.shape.is_static and b.shape.is_static and outputs[0].shape.is_static) or \
                a.element_type != b.element_type or a.element_type not in (ElementType.F32, ElementType.F64) or \
                min(a.shape.rank, b.shape.rank) < 2:
            return None
        shape = outputs[0].shape.to_tuple()
        transpose_a, transpose_b = self.transpose_a, self.transpose_b

        # np.matmul's own shape (the broadcast batch dims, both matrix dims) is the output's unless an input is a
        # vector; then it is reshaped, else the product is returned as it is: an array of its own, which a later
        # element-wise step may write over (a reshaped one is a view)
        a_dims, b_dims = a.shape.to_tuple(), b.shape.to_tuple()
        rows = a_dims[-1] if transpose_a else a_dims[-2]
        columns = b_dims[-2] if transpose_b else b_dims[-1]
        natural = (*np.broadcast_shapes(a_dims[:-2], b_dims[:-2]), rows, columns)

        def product(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
            left, right = arrays
            if transpose_a:
                left = left.swapaxes(-1, -2)
            if transpose_b:
                right = right.swapaxes(-1, -2)
            return [np.matmul(left, right)]

        def reshaped_product(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
            return [product(arrays)[0].reshape(shape)]

        return product if natural == shape else reshaped_product

    def _static_shape(self, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return self.output_shape([Dim.static(d) for d in a], [Dim.static(d) for d in b]).to_tuple()

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``np.matmul`` (BLAS for floats) after the transposes."""
        a, b = inputs
        if a.dtype != b.dtype:
            raise OpError(f"Arguments do not have the same element type (arg0 element type: "
                          f"{ElementType.from_numpy(a.dtype)}, arg1 element type: {ElementType.from_numpy(b.dtype)}).")
        # the shape rule on Dims costs more than a decode step's product: remembered per the operands' shapes
        shape = remembered(self, (a.shape, b.shape), lambda: self._static_shape(a.shape, b.shape))
        left = a.swapaxes(-1, -2) if self.transpose_a and a.ndim > 1 else a
        right = b.swapaxes(-1, -2) if self.transpose_b and b.ndim > 1 else b
        with np.errstate(all="ignore"):
            result = np.matmul(widen(left), widen(right))
        return [np.asarray(result, dtype=a.dtype).reshape(shape)]
