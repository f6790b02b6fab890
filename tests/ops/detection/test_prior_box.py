"""PriorBox-1 and PriorBox-8 against OpenVINO 2026.4.1 (reference evaluate and CPU plugin) on generated SSD
configurations: min/max sizes, aspect ratios with flip, scale_all_sizes, steps and offsets, fixed sizes with
densities and fixed ratios, clipping, variances, both box orders."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.detection.prior_box import PriorBox, PriorBox8
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import tt

sizes = st.floats(1, 40, width=32)


@OP_EXAMPLES
@given(st.data())
def test_prior_box_matches_openvino(data):
    layer = np.array([data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))], np.int64)
    image = np.array([data.draw(st.integers(16, 64)), data.draw(st.integers(16, 64))], np.int64)
    mins = tuple(data.draw(st.lists(sizes, min_size=1, max_size=3)))
    attributes = {
        "min_size": mins,
        "max_size": tuple(m + data.draw(st.floats(1, 20, width=32))
                          for m in mins[:data.draw(st.integers(0, len(mins)))]),
        "aspect_ratio": tuple(data.draw(st.lists(st.sampled_from([1.0, 2.0, 3.0, 0.5]), max_size=3))),
        "flip": data.draw(st.booleans()), "clip": data.draw(st.booleans()),
        "step": data.draw(st.sampled_from([0.0, 8.0, 16.0])), "offset": data.draw(st.sampled_from([0.5, 0.0])),
        "variance": data.draw(st.sampled_from([(), (0.1,), (0.1, 0.1, 0.2, 0.2)])),
        "scale_all_sizes": data.draw(st.booleans()),
    }
    if not attributes["scale_all_sizes"]:  # mxnet-like: step and sizes relative to the image height
        attributes["step"] = data.draw(st.sampled_from([-1.0, 0.25]))
        attributes["min_size"] = tuple(m / 64 for m in mins)
        attributes["max_size"] = ()
    if data.draw(st.integers(0, 3)) == 0:
        fixed = tuple(float(data.draw(st.integers(4, 32))) for _ in range(data.draw(st.integers(1, 2))))
        # fixed sizes make all the boxes (OpenVINO counts no min-size boxes beside them), and fixed ratios
        # as many as the aspect ratios (test_attributes_openvino_miscounts_are_refused)
        attributes |= {"fixed_size": fixed, "density": tuple(float(data.draw(st.integers(1, 3))) for _ in fixed),
                       "scale_all_sizes": True, "step": data.draw(st.sampled_from([0.0, 8.0])), "min_size": (),
                       "max_size": ()}
        if data.draw(st.booleans()):
            attributes |= {"fixed_ratio": (data.draw(st.sampled_from([1.0, 2.0, 0.5])),), "aspect_ratio": ()}
    if data.draw(st.booleans()):
        op = PriorBox8(min_max_aspect_ratios_order=data.draw(st.booleans()), **attributes)
    else:
        op = PriorBox(**attributes)
    check_op(op, [layer, image], same_op(op), constant=(0, 1))


def test_exact_case():
    op = PriorBox(min_size=(4.0,), max_size=(16.0,), aspect_ratio=(2.0,), flip=False, clip=False, step=0.0,
                  offset=0.5, variance=(0.1,), scale_all_sizes=True)
    assert op.count() == 3  # 1:1 of the min size, sqrt(min*max), 2:1
    (got,) = op.evaluate([np.array([1, 1], np.int64), np.array([16, 16], np.int64)])
    # one cell centred at (8, 8) of a 16 x 16 image: boxes 4 x 4, 8 x 8 (sqrt(4*16)), 2*sqrt(2) x 2/sqrt(2)... halves
    np.testing.assert_allclose(got[0, :8], [0.375, 0.375, 0.625, 0.625, 0.25, 0.25, 0.75, 0.75])
    assert got.shape == (2, 12) and (got[1] == np.float32(0.1)).all()


def test_attributes_openvino_miscounts_are_refused():
    """openvino 2026.4.1 aborts (it writes past its output) on min sizes beside fixed sizes, whose boxes its
    number_of_priors leaves out; irgraph refuses the attributes."""
    op = PriorBox8(min_size=(4.0,), density=(1.0,), fixed_ratio=(2.0, 2.0), fixed_size=(4.0,))
    with pytest.raises(OpError, match="these attributes make 3 boxes per cell but OpenVINO sizes the output for 1"):
        op.infer([tt("2", "i64"), tt("2", "i64")], [np.array([1, 1]), None])


def test_zero_density_refused_as_openvino_refuses():
    """openvino 2026.4.1's Python API refuses density 0 (its attribute check, a UserInputError) before any node
    exists; irgraph refuses it when the op is built, naming the values."""
    import openvino.opset8 as ov8
    from openvino.exceptions import UserInputError

    attributes = {"fixed_size": [4.0], "density": [0.0], "step": 8.0, "offset": 0.5, "variance": [0.1]}
    with pytest.raises(UserInputError, match='attribute "density" value does not satisfy provided condition'):
        ov8.prior_box(ov8.constant(np.array([2, 2], np.int64)), ov8.constant(np.array([16, 16], np.int64)),
                      attributes)
    with pytest.raises(OpError, match=r"density values must be positive. Got: \[0.0\]"):
        PriorBox8(fixed_size=(4.0,), density=(0.0,), step=8.0, offset=0.5, variance=(0.1,))


def test_fixed_size_boxes_with_density_and_aspect_ratios_match_openvino():
    """Fixed-size boxes: one per density cell, then one per aspect ratio other than 1 (OpenVINO 2026.4.1)."""
    op = PriorBox8(fixed_size=(8.0,), density=(2.0,), aspect_ratio=(2.0,), flip=True, step=8.0, offset=0.5,
                   variance=(0.1, 0.1, 0.2, 0.2))
    assert op.count() == 12  # (1 + 2 ratios) x density 2 squared
    check_op(op, [np.array([2, 2], np.int64), np.array([32, 32], np.int64)], same_op(op), constant=(0, 1))
