"""Differential test: irgraph's shape rules against OpenVINO's on random partial shapes.

For every drawn case both must accept with equal output partial shapes, or both must reject with
the same message (irgraph's messages quote OpenVINO's). The one deliberate difference: a
VariadicSplit ``-1`` that would resolve negative, which OpenVINO accepts and irgraph rejects.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops import Concat, Split, VariadicSplit
from tests.ops.helpers import tt

ov = pytest.importorskip("openvino", reason="the test extra installs openvino")
opset1 = pytest.importorskip("openvino.opset1")

pytestmark = pytest.mark.oracle
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def dims(draw):
    kind = draw(st.sampled_from(["static", "static", "static", "interval", "low", "high", "dynamic"]))
    low = draw(st.integers(0, 9))
    if kind == "static":
        return str(low)
    if kind == "interval":
        return f"{low}..{low + draw(st.integers(0, 9))}"
    if kind == "low":
        return f"{low}.."
    if kind == "high":
        return f"..{low}"
    return "?"


@st.composite
def partial_shapes(draw, rank=None):
    if rank is None:
        if draw(st.integers(0, 9)) == 0:
            return "..."
        rank = draw(st.integers(1, 4))
    return ",".join(draw(st.lists(dims(), min_size=rank, max_size=rank)))


def ov_shape(text: str):
    return ov.PartialShape("[" + text + "]") if text != "..." else ov.PartialShape.dynamic()


def ov_outputs(build):
    try:
        node = build()
    except RuntimeError as err:
        return None, str(err)
    return [str(out.get_partial_shape()) for out in node.outputs()], None


def ours(op, inputs, values):
    try:
        return [str(t.shape) for t in op.infer(inputs, values)], None
    except OpError as err:
        return None, err.message


def assert_agree(mine, theirs):
    (shapes, message), (ov_shapes, ov_message) = mine, theirs
    if ov_message is not None:
        assert message is not None, f"OpenVINO rejects ({ov_message.splitlines()[-1]}) but irgraph gives {shapes}"
        assert message.split(". Got")[0].split(":")[0] in ov_message
    else:
        assert message is None, f"irgraph rejects ({message}) but OpenVINO gives {ov_shapes}"
        assert shapes == ov_shapes


@SETTINGS
@given(partial_shapes(), st.integers(-5, 4), st.integers(1, 5), st.booleans())
def test_split_agrees_with_openvino(data, axis, parts, axis_known):
    def build():
        axis_node = opset1.constant(np.int64(axis)) if axis_known else opset1.parameter([], np.int64)
        return opset1.split(opset1.parameter(ov_shape(data), np.float32), axis_node, parts)

    mine = ours(Split(num_splits=parts), [tt(data), tt("", "i64")], [None, np.int64(axis) if axis_known else None])
    assert_agree(mine, ov_outputs(build))


@SETTINGS
@given(partial_shapes(), st.integers(-3, 3), st.lists(st.integers(-2, 7), min_size=0, max_size=4))
def test_variadic_split_agrees_with_openvino(data, axis, lengths):
    lengths_array = np.array(lengths, np.int64)

    def build():
        return opset1.variadic_split(opset1.parameter(ov_shape(data), np.float32), opset1.constant(np.int64(axis)),
                                     ov.op.Constant(ov.Type.i64, ov.Shape([len(lengths)]), lengths))

    mine = ours(VariadicSplit(), [tt(data), tt("", "i64"), tt(str(len(lengths)), "i64")],
                [None, np.int64(axis), lengths_array])
    theirs = ov_outputs(build)
    if mine[1] and "leave" in mine[1] and "for the -1 entry" in mine[1]:
        assert theirs[1] is None  # OpenVINO accepts a negative -1 resolution; irgraph refuses it on purpose
        return
    assert_agree(mine, theirs)


@SETTINGS
@given(st.integers(1, 3), st.integers(-3, 2), st.data())
def test_concat_agrees_with_openvino(count, axis, data):
    rank = data.draw(st.integers(1, 3))
    shapes = [data.draw(partial_shapes(rank if data.draw(st.integers(0, 5)) else None)) for _ in range(count)]

    def build():
        return opset1.concat([opset1.parameter(ov_shape(s), np.float32) for s in shapes], axis)

    inputs = [TensorType(tt(s).element_type, Shape.parse(s)) for s in shapes]
    assert_agree(ours(Concat(axis=axis), inputs, [None] * count), ov_outputs(build))
