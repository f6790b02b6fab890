"""PriorBoxClustered-1 against OpenVINO 2026.4.1 (reference evaluate and CPU plugin) on generated feature maps,
images, box sizes, steps, offsets, clipping and variances, and an exact case."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from irgraph.ops.detection.prior_box_clustered import PriorBoxClustered
from tests.ops.differential import OP_EXAMPLES, check_op, same_op

sizes = st.floats(0.5, 40, width=32)


@OP_EXAMPLES
@given(st.data())
def test_prior_box_clustered_matches_openvino(data):
    layer = np.array([data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5))], np.int64)
    image = np.array([data.draw(st.integers(8, 64)), data.draw(st.integers(8, 64))], np.int64)
    count = data.draw(st.integers(1, 4))
    steps = data.draw(st.sampled_from([(0.0, 0.0, 0.0), (8.0, 0.0, 0.0), (0.0, 4.0, 6.0), (3.0, 5.0, 0.0)]))
    op = PriorBoxClustered(step=steps[0], step_w=steps[1], step_h=steps[2],
                           width=tuple(data.draw(st.lists(sizes, min_size=count, max_size=count))),
                           height=tuple(data.draw(st.lists(sizes, min_size=count, max_size=count))),
                           clip=data.draw(st.booleans()), offset=data.draw(st.sampled_from([0.0, 0.5, 0.25])),
                           variance=data.draw(st.sampled_from([(), (0.1,), (0.1, 0.1, 0.2, 0.2)])))
    check_op(op, [layer, image], same_op(op), constant=(0, 1))


def test_exact_case():
    op = PriorBoxClustered(width=(4.0,), height=(2.0,), clip=False, offset=0.5, variance=(0.1, 0.1, 0.2, 0.2))
    (got,) = op.evaluate([np.array([1, 2], np.int64), np.array([10, 20], np.int64)])
    # cells of 10 x 10 pixels: centres (5, 5) and (15, 5); a 4 x 2 box; divided by the image (20 wide, 10 high)
    np.testing.assert_array_equal(got[0], np.array([0.15, 0.4, 0.35, 0.6, 0.65, 0.4, 0.85, 0.6], np.float32))
    assert got[1].tolist() == [np.float32(v) for v in (0.1, 0.1, 0.2, 0.2) * 2]
