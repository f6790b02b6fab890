"""Small builders for per-op tests: tensor types from text and one-call inference."""

from __future__ import annotations

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops import Op


def tt(shape: str, element_type: str = "f32") -> TensorType:
    """``tt("2,1..8")`` -> a TensorType; ``"..."`` is dynamic rank, ``""`` a scalar."""
    return TensorType(ElementType.from_ir_name(element_type), Shape.parse(shape))


def infer(op: Op, inputs: list[TensorType], values: list[object | None]) -> list[str]:
    """Output shapes as text (``[2,3]``) for compact expectations."""
    arrays = [None if v is None else np.asarray(v) for v in values]
    return [str(t.shape) for t in op.infer(inputs, arrays)]
