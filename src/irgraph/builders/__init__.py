"""Building models in code: a builder for every op, generated from its class, inferring types as it goes.

``ir.opset16.mat_mul(a, b, transpose_b=True)`` adds a MatMul-1 layer to the model ``a`` and ``b`` belong to
and returns its OutputPort; ``ir.ops`` holds the newest version of every op type. The layer sits above the
analysis (builders infer each new layer at once) and below the runtime, I/O and tools.
"""

from __future__ import annotations

from irgraph.builders.builder import make_builder
from irgraph.builders.namespace import constant, parameter, result

__all__ = ["constant", "make_builder", "parameter", "result"]
