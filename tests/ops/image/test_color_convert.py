"""NV12toRGB/BGR-8 and I420toRGB/BGR-8 against OpenVINO 2026.4.1 (reference evaluate and CPU plugin) on generated
images, one plane and separate planes, u8 and float data."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.image.i420_to_bgr import I420toBGR
from irgraph.ops.image.i420_to_rgb import I420toRGB
from irgraph.ops.image.nv12_to_bgr import NV12toBGR
from irgraph.ops.image.nv12_to_rgb import NV12toRGB
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_parameter, same_op
from tests.ops.helpers import infer, tt

OPS = [NV12toRGB(), NV12toBGR(), I420toRGB(), I420toBGR()]


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.type_name)
@OP_EXAMPLES
@given(data=st.data())
def test_color_conversion_matches_openvino(op, data):
    element_type = data.draw(st.sampled_from([ElementType.U8, ElementType.F32, ElementType.F16]))
    batch, height, width = data.draw(st.integers(1, 2)), 2 * data.draw(st.integers(1, 3)), 2 * data.draw(
        st.integers(1, 3))
    seeds = [data.draw(S.seeds) for _ in range(3)]

    def plane(shape, seed):
        return S.values(element_type, shape, seed, specials=False, low=0, high=255)

    if data.draw(st.booleans()):
        inputs = [plane((batch, height * 3 // 2, width, 1), seeds[0])]
    elif op.planes == 2:
        inputs = [plane((batch, height, width, 1), seeds[0]), plane((batch, height // 2, width // 2, 2), seeds[1])]
    else:
        inputs = [plane((batch, height, width, 1), seeds[0])] + [plane((batch, height // 2, width // 2, 1), seed)
                                                                 for seed in seeds[1:]]
    check_op(op, inputs, same_op(op))


def test_exact_pixel():
    """Y 81, U 90, V 240 (BT.601 video-range red): r = 1.164*65 + 1.596*112 = 254.412 -> 254, g = 75.66 - 0.391*(-38)
    - 0.813*112 = -0.518 -> 0, b = 75.66 + 2.018*(-38) = -1.024 -> 0."""
    y = np.full((1, 2, 2, 1), 81, np.uint8)
    uv = np.array([[[[90, 240]]]], np.uint8)
    (rgb,) = NV12toRGB().evaluate([y, uv])
    assert rgb[0, 0, 0].tolist() == [254, 0, 0]
    (bgr,) = NV12toBGR().evaluate([y, uv])
    assert bgr[0, 1, 1].tolist() == [0, 0, 254]


def test_shapes_and_refusals():
    assert infer(NV12toRGB(), [tt("1,480,640,1", "u8")], [None]) == ["[1,320,640,3]"]
    assert infer(I420toBGR(), [tt("2,4,6,1", "u8"), tt("2,2,3,1", "u8"), tt("2,2,3,1", "u8")], [None] * 3) == [
        "[2,4,6,3]"]
    with pytest.raises(OpError, match="Image height shall be divisible by 3"):
        infer(NV12toRGB(), [tt("1,4,4,1", "u8")], [None])
    with pytest.raises(OpError, match="Y shape is inconsistent with UV"):
        infer(NV12toRGB(), [tt("1,4,4,1", "u8"), tt("1,3,2,2", "u8")], [None, None])
    with pytest.raises(OpError, match="Input type shall have u8 or floating-point precision"):
        infer(NV12toRGB(), [tt("1,6,4,1", "i32")], [None])


@pytest.mark.parametrize(
    ("op", "shapes", "expected"),
    [
        # A chroma plane of unknown rank says nothing; the next one still sizes Y.
        (I420toRGB(), ["1,?,?,1", "...", "1,2,3,1"], "[1,4,6,3]"),
        (NV12toRGB(), ["1,?,?,1"], "[1,?,?,3]"),
    ],
)
def test_partial_shapes_match_openvino(op, shapes, expected):
    """openvino 2026.4.1's shape inference on Parameters of these shapes agrees, and gives ``expected``."""
    types = [tt(shape, "u8") for shape in shapes]
    check_types(op, types, same_op(op))
    assert infer(op, types, [None] * len(types)) == [expected]


@pytest.mark.parametrize(
    ("op", "shapes", "message"),
    [
        # ... and a plane after one of unknown rank is still checked against Y.
        (I420toRGB(), ["1,4,4,1", "...", "1,3,2,1"], "Y shape is inconsistent with U and V"),
        (I420toRGB(), ["1,4,4,1", "1,2,2,1", "1,3,2,1"], "Y shape is inconsistent with U and V"),
        (NV12toRGB(), ["1,4,4,1", "1,3,2,2"], "Y shape is inconsistent with UV"),
        (NV12toRGB(), ["1,6,5,1"], "Image width must be even"),
        (NV12toRGB(), ["1,?,5,1", "..."], "Image width must be even"),
        (NV12toRGB(), ["1,3,?,1", "..."], "Image height must be even"),
    ],
)
def test_refusals_match_openvino(op, shapes, message):
    """openvino 2026.4.1 refuses these with the same message (checked here on its side too)."""
    types = [tt(shape, "u8") for shape in shapes]
    with pytest.raises(RuntimeError, match=message):
        same_op(op)(*[ov_parameter(t) for t in types])
    with pytest.raises(OpError, match=f"^{message}$"):
        infer(op, types, [None] * len(types))
