"""Values and bounds through shape sub-graphs (ShapeOf -> Gather -> Concat -> Reshape), against OpenVINO.

Each case is built twice from one description, with ``openvino.opset13`` and with irgraph ops;
the output types irgraph infers must equal those OpenVINO infers when it builds the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import openvino.opset13 as ov13

from irgraph.element_types import ElementType
from irgraph.graph import Model
from irgraph.ops import Concat, Op
from irgraph.shape_inference import infer_shapes
from tests.ops.differential import ORACLE, ov_output_types, ov_parameter
from tests.ops.helpers import tt


class Twin:
    """One graph built for OpenVINO and for irgraph side by side."""

    def __init__(self) -> None:
        self.model = Model("twin")
        self.count = 0

    def parameter(self, shape: str, element_type: str = "f32") -> tuple[Any, Any]:
        tensor_type = tt(shape, element_type)
        self.count += 1
        return ov_parameter(tensor_type), self.model.parameter(f"p{self.count}", tensor_type.shape, element_type)

    def const(self, values: Any, dtype: Any = np.int64) -> tuple[Any, Any]:
        array = np.asarray(values, dtype=dtype)
        return ov13.constant(array), self.model.const(array, ElementType.from_numpy(array.dtype))

    def op(self, op: Op, build: Callable[..., Any], *inputs: tuple[Any, Any]) -> tuple[Any, Any]:
        self.count += 1
        node = self.model.add_node(op, f"n{self.count}", [port for _, port in inputs])
        return build(*[ov_value for ov_value, _ in inputs]), type(inputs[0][1])(node.id, 0)

    def check(self, value: tuple[Any, Any]) -> str:
        """Both inferred types equal; returns irgraph's as text."""
        ov_value, port = value
        self.model.result(port, name=f"r{self.count}")
        infer_shapes(self.model)
        mine = str(self.model.output_type(port))
        theirs = str(ov_output_types(ov_value.get_node())[ov_value.get_index()]) if hasattr(ov_value, "get_index") \
            else str(ov_output_types(ov_value)[0])
        assert mine == theirs, f"irgraph {mine} vs {ORACLE} {theirs}"
        return mine


def concat(twin: Twin, parts: list[tuple[Any, Any]], axis: int = 0) -> tuple[Any, Any]:
    return twin.op(Concat(axis=axis), lambda *xs: ov13.concat(list(xs), axis), *parts)


def test_the_scratch():
    from irgraph.ops.movement.gather import Gather8
    from irgraph.ops.shape.reshape import Reshape
    from irgraph.ops.shape.shape_of import ShapeOf3
    twin = Twin()
    x = twin.parameter("?,3..8,4")
    shape = twin.op(ShapeOf3(), ov13.shape_of, x)
    picked = twin.op(Gather8(), ov13.gather, shape, twin.const([0, 1]), twin.const(0))
    target = concat(twin, [picked, twin.const([-1])])
    out = twin.op(Reshape(special_zero=False), lambda a, b: ov13.reshape(a, b, False), x, target)
    print(twin.check(out))
