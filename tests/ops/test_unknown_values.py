"""Shape inference when the inputs it reads are not known (Parameters): irgraph infers what
openvino 2026.4.1 infers, op by op."""

from __future__ import annotations

import openvino.opset1 as ov1
import openvino.opset3 as ov3
import openvino.opset8 as ov8
import openvino.opset12 as ov12
import pytest
from openvino.utils.node_factory import NodeFactory

from irgraph.core.element_types import ElementType
from irgraph.ops.generation.range import Range4
from irgraph.ops.movement.broadcast import Broadcast3
from irgraph.ops.movement.gather import Gather8
from irgraph.ops.movement.pad import Pad12
from irgraph.ops.movement.slice import Slice
from irgraph.ops.movement.strided_slice import StridedSlice
from irgraph.ops.movement.tile import Tile
from irgraph.ops.movement.transpose import Transpose
from irgraph.ops.shape.reshape import Reshape
from tests.ops.differential import check_types
from tests.ops.helpers import tt

DATA = ["2,3,4", "?,3..8,4", "...", "5"]
INDEX = ["3", "?", "..."]

CASES = {
    "reshape": (Reshape(special_zero=False), lambda d, p: ov1.reshape(d, p, False), 1),
    "reshape0": (Reshape(special_zero=True), lambda d, p: ov1.reshape(d, p, True), 1),
    "broadcast": (Broadcast3(), lambda d, t: ov3.broadcast(d, t), 1),
    "bidirectional": (Broadcast3(mode="bidirectional"), lambda d, t: ov3.broadcast(d, t, None, "bidirectional"), 1),
    "tile": (Tile(), ov1.tile, 1),
    "transpose": (Transpose(), ov1.transpose, 1),
    "slice": (Slice(), ov8.slice, 3),
    "strided": (StridedSlice(begin_mask=(), end_mask=()), lambda d, b, e, s: ov1.strided_slice(d, b, e, s, [], []), 3),
    "pad": (Pad12(), lambda d, b, e: ov12.pad(d, b, e, "constant"), 2),
}


@pytest.mark.parametrize("index", INDEX)
@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("case", list(CASES))
def test_unknown_shape_inputs(case, data, index):
    op, build, count = CASES[case]
    check_types(op, [tt(data)] + [tt(index, "i64")] * count, build)


@pytest.mark.parametrize("axis", ["", "1"])
@pytest.mark.parametrize("data", DATA)
def test_gather_with_an_unknown_axis(data, axis):
    check_types(Gather8(), [tt(data), tt("2,2", "i64"), tt(axis, "i64")], ov8.gather)


def test_range_with_unknown_inputs():
    check_types(Range4(output_type=ElementType.F32), [tt("", "i64")] * 3,
                lambda *xs: NodeFactory("opset4").create("Range", [x.output(0) for x in xs], {"output_type": "f32"}))
