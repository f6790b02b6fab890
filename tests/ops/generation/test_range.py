"""Range-1 and Range-4 against OpenVINO: float steps, empty ranges, output types, budgets."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ov1
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openvino.utils.node_factory import NodeFactory

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError, ResourceLimitError
from irgraph.graph import Model
from irgraph.ops.generation.range import Range, Range4
from irgraph.runtime.interpreter import Interpreter
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op
from tests.ops.helpers import tt


def range_4(inputs, output_type):
    """openvino 2026.4.1's Python ``opset4.range`` ignores ``output_type`` (the output keeps the input
    type): the node is made by the node factory instead."""
    return NodeFactory("opset4").create("Range", [x.output(0) for x in inputs], {"output_type": output_type.ir_name})


numbers = st.one_of(st.integers(-20, 20), st.floats(-20, 20, allow_nan=False, width=32))


@OP_EXAMPLES
@given(numbers, numbers, numbers.filter(lambda v: abs(v) >= 0.25), st.sampled_from(S.NUMERIC),
       st.sampled_from([t for t in S.NUMERIC if t.ir_name not in ("u8", "u16", "u32", "u64")]))
def test_range_4_matches_openvino(start, stop, step, output_type, input_type):
    dtype = input_type.numpy_dtype
    arrays = [np.array(v).astype(dtype) for v in (start, stop, step)]
    if output_type.is_integral and int(np.float64(arrays[2])) == 0:
        return
    check_op(Range4(output_type=output_type), arrays, lambda *xs: range_4(xs, output_type), constant={0, 1, 2})


@OP_EXAMPLES
@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(-5, 5).filter(bool),
       st.sampled_from([ElementType.I32, ElementType.I64, ElementType.F32]))
def test_range_1_matches_openvino(start, stop, step, element_type):
    dtype = element_type.numpy_dtype
    check_op(Range(), [np.array(v, dtype) for v in (start, stop, step)], ov1.range, constant={0, 1, 2})


def test_range_refuses_a_zero_step():
    with pytest.raises(OpError, match="'step' cannot be zero."):
        Range4(output_type=ElementType.I64).evaluate([np.array(0), np.array(5), np.array(0.5)])


def test_range_of_1e15_elements_is_refused_before_allocating():
    model = Model("huge")
    stop = model.parameter("stop", [], "i64")
    node = model.add_node(Range4(output_type=ElementType.I64), "r",
                          [model.const(np.array(0, np.int64)), stop, model.const(np.array(1, np.int64))])
    model.result(type(stop)(node.id, 0), name="y")
    with pytest.raises(ResourceLimitError, match="1000000000000000 elements, above the limit"):
        Interpreter(model).run({"stop": np.array(10**15, np.int64)})


def test_shape_inference_sizes_a_constant_range_without_computing_it():
    from irgraph.analysis.shape_inference import infer_shapes

    model = Model("constant")
    node = model.add_node(Range4(output_type=ElementType.I64), "r",
                          [model.const(np.array(v, np.int64)) for v in (0, 10**15, 1)])
    model.result(type(model.const(np.array(0)))(node.id, 0), name="y")
    infer_shapes(model)  # folding would allocate 8 PB
    assert str(node.outputs[0].type) == "i64[1000000000000000]"


def test_a_boolean_output_type_is_refused_as_openvino_refuses_it():
    message = "output tensor type should be a numeric type. Got: boolean"
    with pytest.raises(OpError, match=f"^{message}$"):
        Range4(output_type=ElementType.BOOLEAN).infer([tt("", "i64")] * 3, [None] * 3)
    parameters = [ov1.parameter([], np.int64).output(0) for _ in range(3)]
    with pytest.raises(RuntimeError, match=message):  # openvino 2026.4.1
        NodeFactory("opset4").create("Range", parameters, {"output_type": "boolean"})
