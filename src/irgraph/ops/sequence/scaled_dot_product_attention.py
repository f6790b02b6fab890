"""ScaledDotProductAttention-13: softmax(Q K^T * scale + bias) V, as torch's scaled_dot_product_attention."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.families.elementwise import broadcast_dim, broadcast_shapes
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register
from irgraph.ops.traits import OpTraits

WEIGHTS_PER_STEP = 2**22
"""Attention weights (elements) computed at once: larger problems go batch by batch and row block by
row block, so the [batch, L, S] weights are never allocated whole."""


def _batch(shape: Shape) -> Shape:
    return Shape(shape.dims[:-2]) if shape.dims is not None else shape


@register
@dataclass(frozen=True)
class ScaledDotProductAttention(Op):
    """``softmax(query @ key^T * scale + bias, axis=-1) @ value``; ``scale`` defaults to
    ``1/sqrt(E)``; the bias is the causal upper triangle of -inf (``causal``, the mask is then
    ignored), ``-inf`` where a boolean mask is false, or a float mask added. Batch dims broadcast, and
    so do the mask's last two with L and S (a one-row query under an [L, S] mask gives L rows).
    Computed in f64 and rounded once (a tolerance row covers OpenVINO's f32 kernels). A row that
    masks every key gives NaN, as the pseudo-code does. Spec: ScaledDotProductAttention-13."""

    traits = OpTraits(calls_blas=True)

    type_name = "ScaledDotProductAttention"
    introduced = 13
    inputs = Inputs.optional(3, InputSpec("query"), InputSpec("key"), InputSpec("value"), InputSpec("attention_mask"),
                             InputSpec("scale"))
    tolerance = Tolerance(ulp=64, eps=64)

    causal: bool = attribute(False)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``broadcast(batch dims of query, key, value, attention_mask) + [L, Ev]`` (the mask's only when
        not ``causal``, as OpenVINO infers)."""
        query, key, value = inputs[:3]
        element_type = ElementType.DYNAMIC
        for name, tensor in (("query", query), ("key", key), ("value", value)):
            # messages built only on failure: a decoder's SDPA is inferred at every step (its KV cache grows)
            if not (tensor.element_type.is_dynamic or tensor.element_type.is_real):
                raise OpError(f"The element type of '{name}' must be a floating-point type. Got: "
                              f"{tensor.element_type}")
            merged = element_type.merge(tensor.element_type)
            if merged is None:
                raise OpError("Element types of query, key and value must match. Got: "
                              f"{query.element_type}, {key.element_type}, {value.element_type}")
            element_type = merged
            if not (tensor.shape.rank_is_dynamic or tensor.shape.rank >= 3):
                raise OpError(f"Query, key and value inputs must be at least 3D. Got {name}: {tensor.shape}")
        if len(inputs) > 3:
            mask = inputs[3].element_type
            if not (mask.is_dynamic or mask is ElementType.BOOLEAN or element_type.merge(mask) is not None):
                raise OpError(f"The element type of attention_mask must be boolean or the query's type. Got: {mask}")
        if len(inputs) > 4:
            if element_type.merge(inputs[4].element_type) is None:
                raise OpError(f"The element type of scale must be the query's type. Got: {inputs[4].element_type}")
            if not (inputs[4].shape.rank_is_dynamic or inputs[4].shape.rank <= 1):
                raise OpError(f"Scale input must be a scalar. Got: {inputs[4].shape}")
        if query.shape.rank_is_dynamic or value.shape.rank_is_dynamic:
            return [TensorType(element_type, Shape(None))]
        if not (key.shape.rank_is_dynamic or key.shape[-1].compatible(query.shape[-1])):
            raise OpError(f"Embedding dimension of query and key must match. Got: {query.shape} and {key.shape}")
        if not (key.shape.rank_is_dynamic or key.shape[-2].compatible(value.shape[-2])):
            raise OpError(f"Source sequence length of key and value must match. Got: {key.shape} and {value.shape}")
        batch = broadcast_shapes(_batch(query.shape), _batch(value.shape), "numpy")
        batch = broadcast_shapes(batch, _batch(key.shape), "numpy")
        length = query.shape[-2]
        mask_shape = self._mask_shape(inputs)
        if mask_shape is not None and not mask_shape.rank_is_dynamic:
            # OpenVINO's shape rule merges the mask's last two dims into L and S with broadcasting: a
            # one-row query under an [L, S] mask gives L rows (the decomposition adds the mask to Q K^T).
            source = key.shape[-2] if not key.shape.rank_is_dynamic else Dim.dynamic()
            merged_length = broadcast_dim(length, mask_shape[-2]) if mask_shape.rank >= 2 else None
            if broadcast_dim(source, mask_shape[-1]) is None or merged_length is None:
                raise OpError(f"Attention mask input shape not compatible with other inputs. Got: {mask_shape} for "
                              f"query {query.shape} and key {key.shape}")
            length = merged_length
            batch = broadcast_shapes(batch, _batch(mask_shape), "numpy")  # the mask's batch dims count too
        if batch.dims is None:
            return [TensorType(element_type, Shape(None))]
        return [TensorType(element_type, Shape((*batch.dims, length, value.shape[-1])))]

    def _mask_shape(self, inputs: Sequence[TensorType]) -> Shape | None:
        """The attention mask's shape when it applies: given, not ``causal``, not a scalar."""
        if self.causal or len(inputs) <= 3:
            return None
        shape = inputs[3].shape
        return None if not shape.rank_is_dynamic and shape.rank == 0 else shape

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The shape ``evaluate`` gives, from the arrays' shapes by ``evaluate``'s own checks: a decoder's SDPA
        meets a new key length at every step, and ``infer`` on static types cost ~10x as much. The element
        types were checked by ``infer`` when the Interpreter was built (the run keeps them)."""
        return [self._shape(inputs)[0]]

    @classmethod
    def shapes_read_values(cls) -> bool:
        """False: ``output_shapes`` is overridden for speed; the shapes still depend on input shapes alone."""
        return False

    def _shape(self, inputs: Sequence[np.ndarray]) -> tuple[tuple[int, ...], np.ndarray, np.ndarray, np.ndarray]:
        query, key, value = inputs[:3]
        check(min(query.ndim, key.ndim, value.ndim) >= 3, "Query, key and value inputs must be at least 3D")
        if query.shape[-1] != key.shape[-1]:  # messages built only on failure: this runs at every decode step
            raise OpError(f"Embedding dimension of query and key must match. Got: {list(query.shape)} and "
                          f"{list(key.shape)}")
        if key.shape[-2] != value.shape[-2]:
            raise OpError(f"Source sequence length of key and value must match. Got: {list(key.shape)} and "
                          f"{list(value.shape)}")
        batches = [query.shape[:-2], key.shape[:-2], value.shape[:-2]]
        length = query.shape[-2]
        if not self.causal and len(inputs) > 3 and inputs[3].ndim:
            mask = inputs[3].shape
            merged_length = _broadcast_size(length, mask[-2]) if len(mask) >= 2 else None
            if merged_length is None or _broadcast_size(key.shape[-2], mask[-1]) is None:
                raise OpError(f"Attention mask input shape not compatible with other inputs. Got: {list(mask)} for "
                              f"query {list(query.shape)} and key {list(key.shape)}")
            length = merged_length
            batches.append(mask[:-2])
        try:
            batch = np.broadcast_shapes(*batches)
        except ValueError:
            check(False, f"Batch dims of query, key, value and attention_mask must broadcast. Got: "
                  f"{[list(b) for b in batches]}")
        return (*batch, length, value.shape[-1]), query, key, value

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """``evaluate`` of static query, key and value (and mask) of one element type, all weights in one block:
        the shapes, a constant scale and the causal bias worked out once."""
        if not all(t.shape.is_static for t in (*inputs, *outputs)) or min(t.shape.rank for t in inputs[:3]) < 3:
            return None
        dtype = inputs[0].element_type.numpy_dtype
        if dtype is None or any(t.element_type.numpy_dtype != dtype for t in inputs[1:3]):
            return None
        query, key, value = (t.shape.to_tuple() for t in inputs[:3])
        shape = outputs[0].shape.to_tuple()
        batch, length, source = shape[:-2], shape[-2], key[-2]
        if math.prod(batch) * length * source > WEIGHTS_PER_STEP or query[-1] != key[-1] or key[-2] != value[-2]:
            return None
        fixed_scale = 1.0 / np.sqrt(np.float64(query[-1])) if len(inputs) <= 4 else None
        if len(inputs) > 4 and constants[4] is not None:
            fixed_scale = float(np.asarray(constants[4], np.float64).reshape(-1)[0])
        causal = np.triu(np.full((length, source), -np.inf), k=1) if self.causal else None
        masked = not self.causal and len(inputs) > 3
        mask = constants[3] if masked else None
        if mask is not None and mask.size == 1 and mask.ndim == 0 and mask.dtype != np.bool_ and mask == 0:
            masked = False  # adding 0 turns -0.0 weights into +0.0 only, which the softmax cannot tell apart
        shapes = ((*batch, length, query[-1]), (*batch, *key[-2:]), (*batch, *value[-2:]), (*batch, length, source))
        # broadcast_to costs microseconds of Python: only for the inputs whose shapes need it; the bias needs none
        # (the weights it is added to have every batch dim, L and S)
        spread = [t.shape.to_tuple() != wanted for t, wanted in zip(inputs[:3], shapes, strict=False)]

        def attention(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
            scale = fixed_scale if fixed_scale is not None else float(np.asarray(arrays[4], np.float64).reshape(-1)[0])
            bias = causal
            if masked:
                mask = arrays[3]
                bias = np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask.astype(np.float64)
            query, key, value = (np.broadcast_to(array, wanted) if broadcast else array
                                 for array, wanted, broadcast in zip(arrays[:3], shapes, spread, strict=False))
            # the run silences float warnings around every step (Interpreter._execute)
            return [attend_quietly(query, key, value, bias, scale).astype(dtype)]

        return attention

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The pseudo-code of the spec in f64, in blocks of at most WEIGHTS_PER_STEP weights."""
        shape, query, key, value = self._shape(inputs)
        dtype = query.dtype
        check(key.dtype == dtype and value.dtype == dtype, "Element types of query, key and value must match")
        length, source = shape[-2], key.shape[-2]  # the mask may broadcast a one-row query to L rows
        batch = shape[:-2]
        scale = float(np.asarray(inputs[4], np.float64).reshape(-1)[0]) if len(inputs) > 4 else \
            1.0 / np.sqrt(np.float64(query.shape[-1]))
        bias = self._bias(inputs, length, source, batch)
        result = np.empty(shape, dtype)
        q = _spread(query, (*batch, length, query.shape[-1]))
        k = _spread(key, (*batch, *key.shape[-2:]))
        v = _spread(value, (*batch, *value.shape[-2:]))
        b = None if bias is None else _spread(bias, (*batch, length, source))
        matrices = int(np.prod(batch, dtype=np.int64))
        if matrices * length * source <= WEIGHTS_PER_STEP:
            result[...] = _attend(q, k, v, b, scale)
            return [result]
        if matrices * source <= WEIGHTS_PER_STEP:  # blocks of rows of every matrix at once: no loop over heads
            rows = WEIGHTS_PER_STEP // (matrices * max(source, 1))
            for start in range(0, length, rows):
                block = (..., slice(start, start + rows), slice(None))
                result[block] = _attend(q[block], k, v, None if b is None else b[block], scale)
            return [result]
        rows = max(1, WEIGHTS_PER_STEP // max(source, 1))
        for index in itertools.product(*map(range, batch)):  # one matrix at a time, in row blocks
            for start in range(0, length, rows):
                at: tuple[int | slice, ...] = (*index, slice(start, start + rows))
                result[at] = _attend(q[at], k[index], v[index], None if b is None else b[at], scale)
        return [result]

    def _bias(self, inputs: Sequence[np.ndarray], length: int, source: int,
              batch: tuple[int, ...]) -> np.ndarray | None:
        if self.causal:
            return np.triu(np.full((length, source), -np.inf), k=1)
        if len(inputs) <= 3:
            return None
        mask = inputs[3]
        if mask.dtype == np.bool_:
            bias = np.where(mask, 0.0, -np.inf)
        else:
            bias = mask.astype(np.float64)
        try:
            np.broadcast_shapes(bias.shape, (*batch, length, source))
        except ValueError:
            check(False, f"attention_mask {list(mask.shape)} must broadcast to {[*batch, length, source]}")
        return bias


def _spread(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``array`` broadcast to ``shape``; itself when it has that shape (broadcast_to costs microseconds of Python, and
    a decode step's query, key and value have theirs already)."""
    return array if array.shape == shape else np.broadcast_to(array, shape)


def _broadcast_size(a: int, b: int) -> int | None:
    """The size two dims broadcast to (numpy's rule), None when they do not."""
    return a if b in (1, a) else b if a == 1 else None


def _attend(query: np.ndarray, key: np.ndarray, value: np.ndarray, bias: np.ndarray | None,
            scale: float) -> np.ndarray:
    """:func:`attend_quietly` with the warnings of a row that masks every key silenced."""
    with np.errstate(invalid="ignore"):
        return attend_quietly(query, key, value, bias, scale)


def attend_quietly(query: np.ndarray, key: np.ndarray, value: np.ndarray, bias: np.ndarray | None,
                   scale: float) -> np.ndarray:
    """softmax(query key^T scale + bias) value in f64: one batched product each side, the softmax written over the
    weights (the same values as allocating each step); NumPy warns of a row that masks every key."""
    weights = np.matmul(query.astype(np.float64), np.swapaxes(key.astype(np.float64), -1, -2))
    weights *= scale
    if bias is not None:
        weights += bias  # broadcast by NumPy: the same sums as a broadcast copy's
    weights -= np.maximum.reduce(weights, axis=-1, keepdims=True)  # np.max's and np.sum's own reductions
    np.exp(weights, out=weights)
    weights /= np.add.reduce(weights, axis=-1, keepdims=True)
    return np.matmul(weights, value.astype(np.float64))
